// Builds one Package of a project: TypeScript diagnostics and declarations, the analysis
// of tags, checks and calls, capabilities.yaml and the bundled lib.js.
import fs from 'node:fs';
import path from 'node:path';
import { hostModules } from '../../stdlib';
import { TEST_DECLARATIONS } from '../../stdlib/test';
import { SCHEMA_VERSION, type Artifact, type GithubSource } from '../artifact';
import type { CapabilityFile } from '../capabilities';
import { PackageError } from '../errors';
import type { PackageEntry } from '../manifest';
import { scopeOf } from '../names';
import { analyzePackage } from './analyze';
import { bundlePackage } from './bundle';
import { renderDiagnostic, type BuildDiagnostic } from './diagnostics';
import { createPackageProgram } from './program';
import { globalDeclarations } from './globals';

export { renderDiagnostic, deniedWarningsMessage, type BuildDiagnostic } from './diagnostics';
export { ambientModule } from './program';

/** What the build needs of each dependency (an installed artifact or a sibling just built). */
export interface BuiltDependency {
  version: string;
  declarations: string;
  capabilities: CapabilityFile;
}

export interface BuildRequest {
  /** Absolute directory of the Package (holds svc sources under src/). */
  directory: string;
  entry: PackageEntry;
  dependencies: ReadonlyMap<string, BuiltDependency>;
  svcVersion: string;
  source?: GithubSource;
}

export interface BuildOutcome {
  artifact: Artifact;
  warnings: BuildDiagnostic[];
}

function fail(code: 'compile_failed' | 'build_failed', name: string, diagnostics: BuildDiagnostic[]): never {
  throw new PackageError(code, `${code === 'compile_failed' ? 'compile' : 'build'} of ${name} failed:\n${diagnostics.map(renderDiagnostic).join('\n')}`);
}

export function buildPackage(request: BuildRequest): BuildOutcome {
  const { directory, entry } = request;
  const name = entry.name;
  const missing = (file: string, why: string): BuildDiagnostic => ({ severity: 'error', file: `${name}/${file}`, line: 1, column: 1, message: why });
  const absent: BuildDiagnostic[] = [];
  if (!fs.existsSync(path.join(directory, 'src', 'lib.ts'))) absent.push(missing('src/lib.ts', 'src/lib.ts is missing; it is the entry point whose exports are the API'));
  const readmePath = path.join(directory, 'docs', 'readme.md');
  if (!fs.existsSync(readmePath)) absent.push(missing('docs/readme.md', 'docs/readme.md is missing; it is required (the guide the docs tool shows the agent)'));
  if (absent.length > 0) fail('build_failed', name, absent);
  for (const dependency of entry.dependencies) {
    if (!request.dependencies.has(dependency)) fail('build_failed', name, [missing('svc.toml', `dependency ${dependency} is not available to the build`)]);
  }

  const declared = new Map([...request.dependencies].filter(([n]) => entry.dependencies.includes(n)).map(([n, d]) => [n, d.declarations]));
  const ambient = [...[...hostModules().values()].map((m) => m.declarations), TEST_DECLARATIONS, globalDeclarations()];
  const unit = createPackageProgram({ directory, name, ambient, dependencies: declared });
  if (unit.errors.length > 0) fail('compile_failed', name, unit.errors);
  const capabilitiesOf = new Map([...request.dependencies].map(([n, d]) => [n, d.capabilities]));
  const analysis = analyzePackage(unit, capabilitiesOf);
  if (analysis.errors.length > 0) fail('build_failed', name, analysis.errors);
  const bundle = bundlePackage(directory, name, entry.dependencies);
  if (Array.isArray(bundle)) fail('compile_failed', name, bundle);

  const capabilities: CapabilityFile = { namespace: scopeOf(name), provides: analysis.provides, requires: analysis.requires };
  const artifact: Artifact = {
    metadata: {
      schema_version: SCHEMA_VERSION,
      package_name: name,
      package_version: entry.version,
      description: entry.description,
      keywords: entry.keywords,
      dependencies: entry.dependencies.map((d) => ({ name: d, version: request.dependencies.get(d)!.version })),
      exports: analysis.exports,
      ...(request.source ? { source: { github: request.source } } : {}),
      built_by: request.svcVersion,
    },
    lib: bundle.code,
    map: bundle.map,
    declarations: flattenDeclarations(unit.declarations, path.join(directory, 'src'), unit.displayName),
    capabilities,
    readme: fs.readFileSync(readmePath, 'utf8'),
  };
  const warnings = [...unit.warnings, ...analysis.warnings].sort((a, b) => (a.file === b.file ? a.line - b.line || a.column - b.column : a.file < b.file ? -1 : 1));
  return { artifact, warnings };
}

const RELATIVE_IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s+['"]\.\.?\/[^'"]*['"];?\s*$|^\s*import\s+['"]\.\.?\/[^'"]*['"];?\s*$/gm;

/**
 * One declarations text: lib.d.ts, with the declarations of the files it reaches by
 * relative path placed before it (their relative imports and re-exports removed).
 */
function flattenDeclarations(files: ReadonlyMap<string, string>, srcDir: string, displayName: (file: string) => string): string {
  const libPath = path.join(srcDir, 'lib.ts');
  const lib = files.get(libPath) ?? '';
  if (!RELATIVE_IMPORT.test(lib)) return lib;
  RELATIVE_IMPORT.lastIndex = 0;
  const others = [...files.entries()]
    .filter(([file]) => file !== libPath)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([file, text]) => `// ${displayName(file)}\n${text.replace(RELATIVE_IMPORT, '').replace(/^export \{\};?\s*$/gm, '').trim()}\n`);
  return `${others.join('\n')}\n${lib.replace(RELATIVE_IMPORT, '').trim()}\n`;
}
