import { build } from 'esbuild';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Writes sandbox/declarations/globals.d.ts under `root` when one of its sources is newer. */
export async function buildGlobalDeclarations(root) {
  // The global declarations programs are checked against, sandbox/declarations/globals.d.ts:
  // derived text (svc.d.ts and TypeScript's lib.webworker for the globals of web-globals.ts,
  // scripts/declarations.ts), so it is made here rather than kept in git. Deriving it parses
  // TypeScript's libraries (about a second), so it is remade only when one of its sources is
  // newer. The generator is bundled into dist/, one folder below the root as scripts/ is, so
  // its paths relative to import.meta.url stay right.
  const globalsFile = path.join(root, 'sandbox', 'declarations', 'globals.d.ts');
  const globalsInputs = ['sandbox/declarations/svc.d.ts', 'sandbox/declarations/web-globals.ts', 'sandbox/declarations/derive.ts', 'scripts/declarations.ts', 'node_modules/typescript/package.json'];
  const newestInput = Math.max(...globalsInputs.map((file) => statSync(path.join(root, file)).mtimeMs));
  if (!existsSync(globalsFile) || statSync(globalsFile).mtimeMs < newestInput) {
    await build({
      absWorkingDir: root,
      entryPoints: ['scripts/declarations.ts'],
      outfile: 'dist/declarations-generator.mjs',
      bundle: true,
      platform: 'node',
      format: 'esm',
      external: ['typescript'],
      logLevel: 'warning',
    });
    const { globalsSource } = await import(pathToFileURL(path.join(root, 'dist', 'declarations-generator.mjs')).href);
    writeFileSync(globalsFile, globalsSource());
  }
}
