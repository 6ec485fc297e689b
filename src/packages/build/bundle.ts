// lib.js: the Package's own sources bundled into one ES module by esbuild; `svc:` modules
// and dependencies stay imports. The source map leads back to `@scope/name/src/*.ts`.
import path from 'node:path';
import { buildSync, type Message } from 'esbuild';
import type { BuildDiagnostic } from './diagnostics';

export interface Bundle {
  code: string;
  map: string;
}

/**
 * The bundled inputs that are not files under src/. esbuild follows links to their real
 * path, so a link in src/ to a file elsewhere shows up here too. Only src/ is analysed for
 * capabilities, so anything else bundled would run with calls nobody derived.
 */
function sourcesOutside(directory: string, srcDir: string, inputs: readonly string[]): string[] {
  return inputs
    .map((input) => path.resolve(directory, input))
    .filter((file) => path.relative(srcDir, file).startsWith('..') || path.isAbsolute(path.relative(srcDir, file)))
    .map((file) => path.relative(directory, file).split(path.sep).join('/'));
}

export function bundlePackage(directory: string, name: string, dependencies: readonly string[]): Bundle | BuildDiagnostic[] {
  const srcDir = path.join(directory, 'src');
  const toDiagnostic = (m: Message): BuildDiagnostic => ({
    severity: 'error',
    file: m.location ? `${name}/src/${path.relative(srcDir, path.resolve(directory, m.location.file)).split(path.sep).join('/')}` : name,
    line: m.location?.line ?? 1,
    column: (m.location?.column ?? 0) + 1,
    message: m.text,
  });
  try {
    const result = buildSync({
      absWorkingDir: directory,
      entryPoints: [path.join(srcDir, 'lib.ts')],
      outfile: path.join(directory, '.svc', 'lib.js'),
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      sourcemap: 'external',
      external: ['svc:*', ...dependencies],
      logLevel: 'silent',
      legalComments: 'none',
      metafile: true,
    });
    const outside = sourcesOutside(directory, srcDir, Object.keys(result.metafile.inputs));
    if (outside.length > 0) return outside.map((file) => ({ severity: 'error', file: `${name}/${file}`, line: 1, column: 1, message: 'is bundled but lies outside src/ (reached by a relative path or through a link); a Package may bundle only files under src/, where the build analyses its calls' }));
    const js = result.outputFiles.find((f) => f.path.endsWith('.js'))!;
    const mapFile = result.outputFiles.find((f) => f.path.endsWith('.map'))!;
    const map = JSON.parse(mapFile.text) as { sources: string[]; file?: string };
    const outDir = path.join(directory, '.svc');
    map.sources = map.sources.map((source) => `${name}/src/${path.relative(srcDir, path.resolve(outDir, source)).split(path.sep).join('/')}`);
    map.file = 'lib.js';
    const code = js.text.replace(/\/\/# sourceMappingURL=.*\s*$/, '//# sourceMappingURL=lib.js.map\n');
    return { code, map: JSON.stringify(map) };
  } catch (error) {
    const failure = error as { errors?: Message[] };
    if (failure.errors) return failure.errors.map(toDiagnostic);
    throw error;
  }
}
