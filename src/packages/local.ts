// The local verbs behind `svc build init | new | check | publish-local`, as
// plain functions: the CLI parses arguments and prints; these do the work.
import fs from 'node:fs';
import path from 'node:path';
import { deniedWarningsMessage } from './build';
import { PackageError } from './errors';
import { MANIFEST_FILE, parseManifest } from './manifest';
import { packageNameProblem } from './names';
import { buildProject, findProjectRoot, readManifest, storedDependency, writeDerivedFiles, type ProjectBuild } from './project';
import { PackageStore } from './store';

/** The CLI's store: `$SVC_HOME/packages` (the server's read-only fallback). */
export function localStoreRoot(home: string): string {
  return path.join(home, 'packages');
}

function checkName(name: string): void {
  const problem = packageNameProblem(name);
  if (problem) throw new PackageError('invalid_name', `'${name}' is not a package name: ${problem}`);
}

function scaffoldPackage(directory: string, name: string): void {
  const files: Record<string, string> = {
    'src/lib.ts': `/**
 * Greets someone.
 * @param who Name to greet.
 * @returns The greeting.
 */
export function hello(who: string): string {
  return "Hello, " + who + "!";
}
`,
    'docs/readme.md': `# ${name}

What \`${name}\` does, for the agent that calls it.

\`\`\`ts
import { hello } from "${name}";
\`\`\`
`,
    'tests/hello.test.ts': `import { label } from "svc:test";
import { hello } from "${name}";

export function main() {
  label("hello greets by name");
  assert(hello("svc") === "Hello, svc!");
}
`,
    'tsconfig.json': `${JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', strict: true, noEmit: true }, include: ['src', 'tests'] }, null, 2)}\n`,
    '.gitignore': '.svc/\n',
  };
  for (const [file, text] of Object.entries(files)) {
    const target = path.join(directory, file);
    if (fs.existsSync(target)) continue;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
  }
}

const packageTable = (name: string, packagePath?: string) =>
  `[[package]]\nname = ${JSON.stringify(name)}\nversion = "0.1.0"\ndescription = ${JSON.stringify(`What ${name} does, in one line`)}\n${packagePath ? `path = ${JSON.stringify(packagePath)}\n` : ''}`;

/** `svc build init @scope/name [path]`: a new project with one Package. */
export function initProject(name: string, directory: string): string {
  checkName(name);
  const manifest = path.join(directory, MANIFEST_FILE);
  if (fs.existsSync(manifest)) throw new PackageError('invalid_manifest', `${manifest} already exists; use \`svc build new\` to add a Package to it`);
  fs.mkdirSync(directory, { recursive: true });
  fs.writeFileSync(manifest, packageTable(name));
  scaffoldPackage(directory, name);
  return manifest;
}

/** `svc build new @scope/name [path]`: another Package in the nearest project. */
export function newPackage(name: string, cwd: string, packagePath?: string): string {
  checkName(name);
  const root = findProjectRoot(cwd);
  if (!root) throw new PackageError('no_manifest', `no ${MANIFEST_FILE} here or above; start a project with \`svc build init ${name}\``);
  const file = path.join(root, MANIFEST_FILE);
  const text = fs.readFileSync(file, 'utf8');
  const manifest = parseManifest(text);
  if (manifest.packages.some((p) => p.name === name)) throw new PackageError('invalid_manifest', `${name} is already a package of ${file}`);
  if (manifest.packages.some((p) => p.path === '')) throw new PackageError('invalid_manifest', `${file}: give every existing [[package]] a \`path\` first (the root cannot hold two Packages)`);
  const relative = packagePath ?? name.slice(name.indexOf('/') + 1);
  const withNew = `${text.trimEnd()}\n\n${packageTable(name, relative)}`;
  parseManifest(withNew);
  fs.writeFileSync(file, withNew);
  scaffoldPackage(path.join(root, relative), name);
  return path.join(root, relative);
}

export interface LocalBuildOptions {
  cwd: string;
  home: string;
  package?: string;
  denyWarnings: boolean;
  svcVersion: string;
}

/** `svc build check`: compile, derive capabilities.yaml, report (throws on errors or denied warnings). */
export function checkLocal(options: LocalBuildOptions): ProjectBuild {
  const root = findProjectRoot(options.cwd);
  if (!root) throw new PackageError('no_manifest', `no ${MANIFEST_FILE} here or above; start a project with \`svc build init @scope/name\``);
  const manifest = readManifest(root);
  const store = new PackageStore(localStoreRoot(options.home));
  const build = buildProject({
    root,
    manifest,
    select: options.package,
    svcVersion: options.svcVersion,
    // Repository dependencies are fetched by `svc install`; here both kinds come from the local store.
    external: (name) => storedDependency(store, name),
  });
  writeDerivedFiles(build);
  writeLock(root, manifest, store);
  if (options.denyWarnings && build.warnings.length > 0) throw new PackageError('warnings_denied', deniedWarningsMessage(build.warnings), build.warnings);
  return build;
}

/** The lock file of a project with repository dependencies: the commit each one resolved to. */
export const LOCK_FILE = 'svc.lock';

interface LockEntry {
  name: string;
  version: string;
  github: string;
  sha: string;
  digest: string;
}

/**
 * Repository dependencies must be in the local store at their pinned commit (installed by
 * `svc install`); `svc.lock` records what was used, sorted by name. An existing lock is
 * satisfied only when every locked Package in the store still has the same sha and digest.
 */
function writeLock(root: string, manifest: ReturnType<typeof readManifest>, store: PackageStore): void {
  const entries: LockEntry[] = [];
  for (const [name, spec] of manifest.dependencies) {
    if (spec.kind !== 'github') continue;
    const found = store.find(name);
    const source = found?.metadata.source?.github;
    const install = `run \`svc install ${spec.github}@${spec.rev} ${name}\` first`;
    if (!found || !source) throw new PackageError('invalid_dependency', `repository dependency ${name} (${spec.github} at ${spec.rev}) is not installed in the local store; ${install}`);
    if (source.sha !== spec.rev) throw new PackageError('invalid_dependency', `repository dependency ${name} is installed from commit ${source.sha}, but svc.toml pins ${spec.rev}; ${install.replace('first', 'with --upgrade first')}`);
    entries.push({ name, version: found.metadata.package_version, github: spec.github, sha: source.sha, digest: source.digest });
  }
  const file = path.join(root, LOCK_FILE);
  if (entries.length === 0) return;
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  if (fs.existsSync(file)) {
    let locked: LockEntry[] = [];
    try {
      locked = (JSON.parse(fs.readFileSync(file, 'utf8')) as { packages?: LockEntry[] }).packages ?? [];
    } catch {
      locked = [];
    }
    for (const entry of locked) {
      const current = entries.find((e) => e.name === entry.name);
      if (current && (current.sha !== entry.sha || current.digest !== entry.digest)) {
        throw new PackageError('invalid_dependency', `${LOCK_FILE} locks ${entry.name} at ${entry.sha} (${entry.digest}) but the store holds ${current.sha} (${current.digest}); reinstall the locked commit, or delete ${LOCK_FILE} to lock the installed one`);
      }
    }
  }
  fs.writeFileSync(file, `${JSON.stringify({ packages: entries }, null, 2)}\n`);
}

/** `svc build publish-local`: check, then install into `$SVC_HOME/packages`. */
export function publishLocal(options: LocalBuildOptions): { build: ProjectBuild; installed: InstalledPackage[] } {
  const build = checkLocal(options);
  return { build, installed: installBuilt(build, options.home) };
}

export interface InstalledPackage {
  name: string;
  version: string;
  directory: string;
}

/** Installs every Package of a finished build into `$SVC_HOME/packages` (publish-local's second half, also `svc build test --publish-local`'s). */
export function installBuilt(build: ProjectBuild, home: string): InstalledPackage[] {
  const store = new PackageStore(localStoreRoot(home));
  return build.packages.map(({ artifact }) => ({ name: artifact.metadata.package_name, version: artifact.metadata.package_version, directory: store.write(artifact) }));
}
