// The standard-library modules' guest code and declarations as the build left them in
// dist/stdlib.json (scripts/build/stdlib.mjs): each folder's guest.ts compiled for the isolate and
// its declarations.d.ts. Read once, on the first module that asks.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostModule } from './types';

/** One module folder's built parts. */
export interface ModuleSources {
  /** The guest factory as one JavaScript expression (see src/stdlib/guest-contract.ts). */
  readonly guest?: string;
  /** What programs see of the module (.d.ts text). */
  readonly declarations?: string;
}

let table: Readonly<Record<string, ModuleSources>> | null = null;

function load(): Readonly<Record<string, ModuleSources>> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  // src/stdlib (run from source), dist/ (bundled) or dist/cli-chunks (a CLI chunk).
  for (const candidate of [path.join(here, '..', '..', 'dist', 'stdlib.json'), path.join(here, 'stdlib.json'), path.join(here, '..', 'stdlib.json')]) {
    if (fs.existsSync(candidate)) return JSON.parse(fs.readFileSync(candidate, 'utf8')) as Record<string, ModuleSources>;
  }
  throw new Error('dist/stdlib.json not found (the standard library\'s guest code and declarations); run `npm run build`');
}

function built(folder: string, part: keyof ModuleSources, file: string): string {
  table ??= load();
  const text = Object.hasOwn(table, folder) ? table[folder][part] : undefined;
  if (typeof text !== 'string') throw new Error(`src/stdlib/${folder}/${file} was not built (dist/stdlib.json); run \`npm run build\``);
  return text;
}

/** The guest factory of src/stdlib/<folder>/guest.ts, compiled for the isolate. */
export function guestSource(folder: string): string {
  return built(folder, 'guest', 'guest.ts');
}

/** src/stdlib/<folder>/declarations.d.ts. */
export function declarationsOf(folder: string): string {
  return built(folder, 'declarations', 'declarations.d.ts');
}

/**
 * The module of src/stdlib/<folder>: named `svc:<folder>`, with the folder's declarations.d.ts
 * and, when the folder has a guest.ts, its compiled guest factory.
 */
export function stdlibModule(folder: string, parts: Pick<HostModule, 'description' | 'operations' | 'availableFor'>): HostModule {
  table ??= load();
  const hasGuest = Object.hasOwn(table, folder) && typeof table[folder].guest === 'string';
  return { name: `svc:${folder}`, declarations: declarationsOf(folder), ...(hasGuest ? { guest: guestSource(folder) } : {}), ...parts };
}
