// `svc build test`: check the project, then run each Package's
// `tests/**/*.test.ts` as a program importing the Package by name, through the same local
// executor as `svc run`, with no Blueprint: every gated call and every check is allowed,
// and each check is printed. Secrets come from --env-var / --env-file / --all-env. The
// readme's `ts` fences are compiled (syntax and imports), not run. Loaded only for this command.
import fs from 'node:fs';
import path from 'node:path';
import { parseBlueprint, type TypecheckMode } from '../blueprints';
import type { RunSettings } from '../config';
import { ambientModule, closureDeclarations, PackageStore, resolveClosure, storeLookup, type LoadablePackage, type PackageLookup } from '../packages';
import { checkLocal, localStoreRoot } from '../packages/local';
import { fillFileArea } from '../sessions';
import { hostModules } from '../stdlib';
import { compileProgram } from '../../sandbox';
import { say, warn, type CliIo } from './io';
import { localPool, localTypechecker, runLocally } from './local-executor';

export interface PackageTestOptions {
  cwd: string;
  home: string;
  package?: string;
  denyWarnings: boolean;
  skipNetwork: boolean;
  /** Secret values by name (already read from the environment and the env file). */
  secrets: Record<string, string>;
  settings: RunSettings;
  svcVersion: string;
  /** Let the tests' calls use plain `http://` (a local stand-in service). */
  allowInsecureHttp?: boolean;
  /** Whether test programs and readme examples are type-checked (default `on`). */
  typecheck?: TypecheckMode;
}

export interface TestReport {
  passed: number;
  failed: number;
  /** The build the tests ran against (what `--publish-local` installs when none failed). */
  build: ReturnType<typeof checkLocal>;
}

/** `tests/**\/*.test.ts` under a Package directory, sorted (network tests skipped on request). */
function testFiles(directory: string, skipNetwork: boolean): string[] {
  const root = path.join(directory, 'tests');
  if (!fs.existsSync(root)) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.test.ts') && !(skipNetwork && entry.name.startsWith('network'))) out.push(full);
    }
  };
  walk(root);
  return out;
}

/** The ```ts / ```typescript fences of a readme. */
export function readmeExamples(readme: string): string[] {
  const out: string[] = [];
  const fence = /^```(ts|typescript)[^\S\n]*\n([\s\S]*?)^```/gm;
  for (let match = fence.exec(readme); match; match = fence.exec(readme)) out.push(match[2]);
  return out;
}

/** The checked project's Packages first, then the CLI's store (dependencies from elsewhere). */
function projectLookup(built: ReturnType<typeof checkLocal>, home: string): PackageLookup {
  const fresh = new Map<string, LoadablePackage>();
  for (const { artifact } of built.packages) {
    const metadata = artifact.metadata;
    fresh.set(metadata.package_name, { name: metadata.package_name, version: metadata.package_version, dependencies: metadata.dependencies, lib: artifact.lib, map: artifact.map, declarations: artifact.declarations });
  }
  const store = storeLookup(new PackageStore(localStoreRoot(home)));
  return (name) => fresh.get(name) ?? store(name);
}

export async function runPackageTests(io: CliIo, options: PackageTestOptions): Promise<TestReport> {
  // One checker for every Package's test programs and readme examples; made first, so the build loads TypeScript through its code cache.
  const typechecker = localTypechecker(io, options.home);
  const built = checkLocal({ cwd: options.cwd, home: options.home, package: options.package, denyWarnings: options.denyWarnings, svcVersion: options.svcVersion });
  for (const line of built.warnings) warn(io, line);
  const lookup = projectLookup(built, options.home);
  const svcModules = [...hostModules({ packageTests: true }).keys()];
  const selected = built.packages.filter(({ entry }) => options.package === undefined || entry.name === options.package);
  const report: TestReport = { passed: 0, failed: 0, build: built };
  // One runner process for every test program (a runner per program cost more than most tests).
  const pool = localPool(options.settings);
  const outcome = (name: string, error: { message: string } | null) => {
    if (error) {
      report.failed++;
      say(io, `FAIL ${name}`);
      for (const line of error.message.split('\n')) say(io, `    ${line}`);
    } else {
      report.passed++;
      say(io, `ok   ${name}`);
    }
  };

  await pool.start();
  try {
    for (const { entry } of selected) {
      const directory = path.join(built.root, entry.path);
      say(io, `${entry.name} ${entry.version}`);
      const typecheck = options.typecheck ?? 'on';
      const parsed = parseBlueprint(`name: package-tests\ndefault: allow\n${options.allowInsecureHttp ? 'allow_insecure_http: true\n' : ''}packages: [${JSON.stringify(entry.name)}]\ntypecheck: ${typecheck}\n`);
      if (!parsed.ok) throw new Error(`the test Blueprint for ${entry.name} does not parse: ${parsed.problem.message}`);
      const blueprint = parsed.blueprint;
      for (const file of testFiles(directory, options.skipNetwork)) {
        const relative = path.relative(directory, file);
        let label: string | null = null;
        const area = fillFileArea(blueprint.vfs, {});
        if (!area.ok) throw new Error(area.error);
        const result = await runLocally({
          code: fs.readFileSync(file, 'utf8'),
          blueprint,
          variables: {},
          secrets: {},
          fileArea: area.value,
          settings: options.settings,
          userAgent: `svc/${options.svcVersion}`,
          packages: lookup,
          typechecker,
          pool,
          packageTests: {
            label: (description) => (label = description),
            observeCheck: (caller, capability, context) => say(io, `    [security] caller=${caller} capability=${capability} context=${JSON.stringify(context)}`),
            secretValue: (name) => options.secrets[name],
          },
        });
        for (const line of result.lastRun?.console ?? result.response.console) say(io, `    ${line}`);
        outcome(label ? `${relative} — ${label}` : relative, result.response.error);
      }
      // The readme's examples must compile against this Package (they are not run).
      const readme = fs.readFileSync(path.join(directory, 'docs', 'readme.md'), 'utf8');
      const examples = readmeExamples(readme);
      const declarations = [...hostModules({ packageTests: true }).values()].map((m) => m.declarations);
      const own = built.packages.find((p) => p.entry.name === entry.name)!.artifact.declarations;
      // Its dependencies' declarations too: its types may come from them.
      const closure = resolveClosure([entry.name], lookup);
      const packageDeclarations = closure.ok ? closureDeclarations(closure.order) : [ambientModule(entry.name, own)];
      for (let i = 0; i < examples.length; i++) {
        // Type-checked first (as a program of a Blueprint listing this Package would be), then compiled.
        const checked = await typechecker.check({ source: examples[i], mode: typecheck, modules: [...declarations, ...packageDeclarations] });
        const compiled = checked.ok ? await compileProgram({ source: examples[i], availableModules: [...svcModules, entry.name], requireMain: false }) : checked;
        outcome(`example ${i + 1} (compile)`, compiled.ok ? null : { message: compiled.error.message });
      }
    }
  } finally {
    await pool.stop();
  }
  say(io, `${report.passed} passed, ${report.failed} failed`);
  return report;
}
