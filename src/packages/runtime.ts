// Preparing a run's Packages: the Blueprint's Packages and their
// dependency closure, in dependency order, each dependency at exactly the version its
// dependent was built against, compiled for the isolate. Anything missing, unreadable or
// mismatched is a resolution failure: the run does not start. Prepared sets are cached by
// Blueprint and reused only while every Package of the closure is still the same files in
// the store (a stat per file per run), so a `publish-local` or install by any process takes
// effect on the next run.
import { compilePackage, type PackageScript } from '../../sandbox';
import { ambientModule } from './build/program';
import { readArtifactFile, type PackageStore } from './store';

/** One Package as the runtime needs it, wherever it was built or installed. */
export interface LoadablePackage {
  name: string;
  version: string;
  dependencies: ReadonlyArray<{ name: string; version: string }>;
  lib: string;
  map: string | null;
  /** Its declarations.d.ts (what programs are type-checked against). */
  declarations?: string;
}

/** Finds a Package by name: null when absent; throws PackageError('unloadable') for a broken one. */
export type PackageLookup = (name: string) => LoadablePackage | null;

/** A cheap identity of the files a lookup of `name` would read now (changes when they do). */
export type PackageStamp = (name: string) => string;

/** A run's Packages, ready for the sandbox. */
export interface PreparedPackages {
  /** The Blueprint's Packages (what the program may import). */
  listed: string[];
  /** Every Package the run loads, dependencies first, with what each may import. */
  packages: Array<{ script: PackageScript; imports: string[]; listed: boolean; version: string }>;
  /** svc: modules the Packages import (the run must provide them even if the program does not). */
  hostModules: string[];
  /** `declare module "<name>"` texts of the Packages and their dependencies, for the type check of programs. */
  declarations: string[];
}

export type Preparation = { ok: true; value: PreparedPackages } | { ok: false; message: string };

/** Reads a stored Package's runtime files. */
export function storeLookup(store: PackageStore): PackageLookup {
  return (name) => {
    const found = store.find(name);
    if (!found) return null;
    return {
      name,
      version: found.metadata.package_version,
      dependencies: found.metadata.dependencies,
      lib: readArtifactFile(found, 'lib.js'),
      map: readArtifactFile(found, 'lib.js.map'),
      declarations: readArtifactFile(found, 'declarations.d.ts'),
    };
  };
}

const installHint = (name: string) => `install it with \`svc packages install <owner/repo> ${name}\` (or \`svc build publish-local\` in its project)`;

/** The closure of `listed` in dependency order, or the first reason it cannot load. */
export function resolveClosure(listed: readonly string[], lookup: PackageLookup): { ok: true; order: LoadablePackage[] } | { ok: false; message: string } {
  const order: LoadablePackage[] = [];
  const done = new Map<string, LoadablePackage>();
  const visiting = new Set<string>();
  const visit = (name: string, wanted: { by: string; version: string } | null): string | null => {
    const seen = done.get(name);
    if (seen) return wanted && seen.version !== wanted.version ? `package '${wanted.by}' needs '${name}' version ${wanted.version}, but version ${seen.version} is installed; install the matching version` : null;
    if (visiting.has(name)) return `packages depend on each other in a cycle through '${name}'`;
    let found: LoadablePackage | null;
    try {
      found = lookup(name);
    } catch (error) {
      return (error as Error).message;
    }
    if (!found) return wanted ? `package '${name}' (needed by '${wanted.by}') is not installed; ${installHint(name)}` : `package '${name}' is not installed; ${installHint(name)}`;
    if (wanted && found.version !== wanted.version) return `package '${wanted.by}' needs '${name}' version ${wanted.version}, but version ${found.version} is installed; install the matching version`;
    visiting.add(name);
    for (const dependency of found.dependencies) {
      const problem = visit(dependency.name, { by: name, version: dependency.version });
      if (problem) return problem;
    }
    visiting.delete(name);
    done.set(name, found);
    order.push(found);
    return null;
  };
  for (const name of [...listed].sort()) {
    const problem = visit(name, null);
    if (problem) return { ok: false, message: problem };
  }
  return { ok: true, order };
}

/** Compiles a resolved closure for the sandbox. */
export async function preparePackages(listed: readonly string[], lookup: PackageLookup, svcModules: readonly string[]): Promise<Preparation> {
  const closure = resolveClosure(listed, lookup);
  if (!closure.ok) return closure;
  return compileClosure(listed, closure.order, svcModules);
}

async function compileClosure(listed: readonly string[], order: readonly LoadablePackage[], svcModules: readonly string[]): Promise<Preparation> {
  const packages: PreparedPackages['packages'] = [];
  const hostModules = new Set<string>();
  for (const found of order) {
    const imports = found.dependencies.map((d) => d.name);
    const compiled = await compilePackage({ name: found.name, code: found.lib, sourceMap: found.map, availableModules: [...svcModules, ...imports] });
    if (!compiled.ok) return { ok: false, message: compiled.message };
    for (const module of compiled.script.hostModules) hostModules.add(module);
    packages.push({ script: compiled.script, imports, listed: listed.includes(found.name), version: found.version });
  }
  return { ok: true, value: { listed: [...listed].sort(), packages, hostModules: [...hostModules].sort(), declarations: closureDeclarations(order) } };
}

/**
 * `declare module` texts of a whole closure, for type-checking programs: a listed Package's
 * types may come from its dependencies (a page shape from @svc/kit); importing an unlisted
 * one is still refused by the compile step.
 */
export function closureDeclarations(order: readonly LoadablePackage[]): string[] {
  return order.filter((found) => found.declarations !== undefined).map((found) => ambientModule(found.name, found.declarations!));
}

interface CacheEntry {
  preparation: Promise<Preparation>;
  /** The closure's names and their stamps when it was read. */
  names: string[];
  stamp: string;
}

/** Prepared sets by Blueprint (name and hash), valid while the closure's files are unchanged. */
export class PackageRuntime {
  private readonly prepared = new Map<string, CacheEntry>();

  /** @param stamp identity of a Package's files; the default (none) keeps a set until evict(). */
  constructor(
    private readonly lookup: PackageLookup,
    private readonly svcModules: () => readonly string[],
    private readonly stamp: PackageStamp = () => '',
  ) {}

  prepare(blueprint: { name: string; hash: string; packages: readonly string[] }): Promise<Preparation> {
    const key = `${blueprint.name}\u0000${blueprint.hash}`;
    const cached = this.prepared.get(key);
    if (cached && this.stampOf(cached.names) === cached.stamp) return cached.preparation;
    const closure = resolveClosure(blueprint.packages, this.lookup);
    // A failure is not kept: the operator's install should take effect on the next run.
    if (!closure.ok) {
      this.prepared.delete(key);
      return Promise.resolve(closure);
    }
    // Stamped right after the synchronous reads, so the entry describes the files compiled.
    const names = closure.order.map((found) => found.name);
    const entry: CacheEntry = { preparation: compileClosure(blueprint.packages, closure.order, this.svcModules()), names, stamp: this.stampOf(names) };
    this.prepared.set(key, entry);
    void entry.preparation.then((result) => {
      if (!result.ok && this.prepared.get(key) === entry) this.prepared.delete(key);
    });
    return entry.preparation;
  }

  /** After an install or removal (success or failure). */
  evict(): void {
    this.prepared.clear();
  }

  private stampOf(names: readonly string[]): string {
    return names.map((name) => `${name}=${this.stamp(name)}`).join('\u0000');
  }
}
