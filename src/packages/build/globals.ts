// The sandbox globals (console, assert, PermissionDeniedError, ...) for type checking.
import fs from 'node:fs';
import path from 'node:path';

let cached: string | null = null;

/** sandbox/declarations/globals.d.ts, found from src/ (tsx) or dist/ (bundled). */
export function globalDeclarations(): string {
  if (cached !== null) return cached;
  const here = path.dirname(new URL(import.meta.url).pathname);
  // src/packages/build (tsx), dist/ (bundled) or dist/cli-chunks (a CLI chunk).
  for (const base of [path.join(here, '..', '..', '..'), path.join(here, '..'), path.join(here, '..', '..')]) {
    const candidate = path.join(base, 'sandbox', 'declarations', 'globals.d.ts');
    if (fs.existsSync(candidate)) return (cached = fs.readFileSync(candidate, 'utf8'));
  }
  throw new Error('missing sandbox/declarations/globals.d.ts');
}
