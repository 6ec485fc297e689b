import { guestModuleText } from './guest-bundle.mjs';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes dist/stdlib.json under `root`: each standard-library module's declarations and guest side. */
export async function buildStdlib(root) {
  // The standard-library modules' guest sides and declarations, one entry per folder of
  // src/stdlib that has them, in dist/stdlib.json (src/stdlib/sources.ts reads it): the
  // server image ships dist/ only. Each guest.ts default-exports its factory; it is compiled
  // for the isolate (like the prelude) into one expression whose value is that factory, which
  // the runner evaluates before the program (sandbox/runner/run.ts).
  const stdlibRoot = path.join(root, 'src', 'stdlib');
  const stdlib = {};
  for (const folder of readdirSync(stdlibRoot, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()) {
    const entry = {};
    const declarations = path.join(stdlibRoot, folder, 'declarations.d.ts');
    if (existsSync(declarations)) entry.declarations = readFileSync(declarations, 'utf8');
    if (existsSync(path.join(stdlibRoot, folder, 'guest.ts'))) entry.guest = await guestExpression(root, `src/stdlib/${folder}/guest.ts`);
    if (Object.keys(entry).length > 0) stdlib[folder] = entry;
  }
  writeFileSync(path.join(root, 'dist', 'stdlib.json'), `${JSON.stringify(stdlib)}\n`);
}

/** A guest.ts as a strict-mode expression evaluating to its default export. */
async function guestExpression(root, file) {
  const code = await guestModuleText(root, file);
  const tail = /\nexport\s*\{\s*([\w$]+) as default\s*\};\s*$/.exec(code);
  if (tail === null) throw new Error(`${file}: a guest module has one export, its factory as the default export`);
  return `(() => {\n"use strict";\n${code.slice(0, tail.index)}\nreturn ${tail[1]};\n})()`;
}
