// Packages in a tape (svc.tape/1 `packages`): the code a run loaded, carried so `svc replay`
// can load the same Packages offline. The recorded digest is the compiled (instrumented)
// code's, so code is embedded only when it still compiles to it, and an offline replay
// loads embedded code only when it does too (a tampered source, or an svc that instruments
// differently, would not reproduce the run's fuel). Package code holds no secrets: a
// Package reads them at run time (svc:secrets, whose answers a journal withholds).
import { resolveClosure, preparePackages, type LoadablePackage, type PackageLookup, type PackageStamp, type PreparedPackages } from './runtime';

/** A Package as a run recorded it. */
export interface RecordedPackage {
  name: string;
  version?: string;
  /** `sha256:` of its compiled code. */
  digest: string;
  /** Listed by the Blueprint (the program may import it); false for a dependency only. */
  listed?: boolean;
}

/** A Package as a tape carries it: the record, and its built code unless `code_omitted` says why not. */
export interface TapePackage extends RecordedPackage {
  dependencies?: Array<{ name: string; version: string }>;
  /** Its built lib.js and source map, as installed when the run used them. */
  lib?: string;
  map?: string | null;
  code_omitted?: string;
}

/** At most this much Package code (lib and map, all Packages together) goes into one tape. */
export const MAX_TAPE_PACKAGE_BYTES = 16 * 1024 * 1024;

const digestOf = (key: string) => `sha256:${key}`;

/** Installed Packages' compiled digests, by name, valid while their files' stamp is unchanged. */
export interface DigestMemo {
  stamp(name: string): string;
  get(name: string, stamp: string): string | undefined;
  set(name: string, stamp: string, digest: string): void;
}

/** At most this many Packages' digests are remembered (then the memo starts again). */
const MEMO_ENTRIES = 256;

/** A DigestMemo over the store's stamps: a tape asked for again compiles nothing. */
export function stampedDigests(stamp: PackageStamp): DigestMemo {
  const kept = new Map<string, { stamp: string; digest: string }>();
  return {
    stamp,
    get: (name, current) => {
      const found = kept.get(name);
      return found && current !== '' && found.stamp === current ? found.digest : undefined;
    },
    set: (name, current, digest) => {
      if (kept.size >= MEMO_ENTRIES) kept.clear();
      kept.set(name, { stamp: current, digest });
    },
  };
}

/**
 * The recorded Packages with their code from `lookup`, each embedded only when it compiles to
 * the recorded digest (a Package reinstalled since the run is named as omitted). Past
 * `maxBytes` no code is embedded (nothing is compiled) and every Package says so.
 */
export async function embedPackageCode(recorded: readonly RecordedPackage[], lookup: PackageLookup, svcModules: readonly string[], options: { maxBytes?: number; memo?: DigestMemo } = {}): Promise<TapePackage[]> {
  const { maxBytes = MAX_TAPE_PACKAGE_BYTES, memo } = options;
  // Stamped before the files are read, so a digest is remembered against the files compiled.
  const stamps = new Map(recorded.map((entry) => [entry.name, memo?.stamp(entry.name) ?? '']));
  const found = new Map<string, LoadablePackage>();
  const omitted = new Map<string, string>();
  for (const entry of recorded) {
    try {
      const loadable = lookup(entry.name);
      if (loadable) found.set(entry.name, loadable);
      else omitted.set(entry.name, 'it is no longer installed on the server that ran it');
    } catch (error) {
      omitted.set(entry.name, (error as Error).message);
    }
  }
  const bytes = [...found.values()].reduce((sum, p) => sum + p.lib.length + (p.map?.length ?? 0), 0);
  if (bytes > maxBytes) return recorded.map((entry) => ({ ...entry, code_omitted: `the Packages' code (${bytes} bytes) is past the tape's bound of ${maxBytes} bytes` }));
  // Without the whole closure nothing can be checked against its digest (nor replayed).
  const [missing] = omitted.keys();
  if (missing !== undefined) return recorded.map((entry) => ({ ...entry, code_omitted: omitted.get(entry.name) ?? `not embedded: the tape cannot carry package '${missing}'` }));
  const remembered = new Map(recorded.flatMap((entry) => {
    const digest = memo?.get(entry.name, stamps.get(entry.name)!);
    return digest ? [[entry.name, digest] as const] : [];
  }));
  let failure = 'not in the closure';
  if (remembered.size < recorded.length) {
    const names = recorded.filter((entry) => entry.listed !== false).map((entry) => entry.name);
    const prepared = await preparePackages(names, (name) => found.get(name) ?? null, svcModules);
    if (!prepared.ok) failure = prepared.message;
    for (const p of prepared.ok ? prepared.value.packages : []) {
      remembered.set(p.script.name, digestOf(p.script.key));
      memo?.set(p.script.name, stamps.get(p.script.name) ?? '', digestOf(p.script.key));
    }
  }
  for (const entry of recorded) {
    const now = remembered.get(entry.name);
    if (now !== entry.digest) omitted.set(entry.name, now ? `it was reinstalled since the run (its code is now ${now})` : `it no longer loads: ${failure}`);
  }
  return recorded.map((entry) => {
    const loadable = found.get(entry.name)!;
    const why = omitted.get(entry.name);
    return why !== undefined ? { ...entry, code_omitted: why } : { ...entry, dependencies: [...loadable.dependencies], lib: loadable.lib, map: loadable.map };
  });
}

/**
 * The tape's Packages prepared for the sandbox exactly as a server run prepares them (same
 * closure order, imports, listed flags), or the first reason they cannot be: code the tape
 * does not carry, or code that does not compile to its recorded digest (named).
 */
export async function prepareTapePackages(packages: readonly TapePackage[], svcModules: readonly string[]): Promise<{ ok: true; value: PreparedPackages } | { ok: false; message: string }> {
  const byName = new Map<string, LoadablePackage>();
  for (const entry of packages) {
    if (entry.code_omitted !== undefined || typeof entry.lib !== 'string') return { ok: false, message: `the tape does not carry package '${entry.name}''s code${entry.code_omitted ? `: ${entry.code_omitted}` : ''}` };
    byName.set(entry.name, { name: entry.name, version: entry.version ?? '', dependencies: entry.dependencies ?? [], lib: entry.lib, map: entry.map ?? null });
  }
  const listed = packages.filter((entry) => entry.listed !== false).map((entry) => entry.name);
  const closure = resolveClosure(listed, (name) => byName.get(name) ?? null);
  if (!closure.ok) return { ok: false, message: `the tape's Packages do not load: ${closure.message}` };
  const extra = packages.filter((entry) => !closure.order.some((p) => p.name === entry.name));
  if (extra.length > 0) return { ok: false, message: `package '${extra[0]!.name}' is in the tape but no listed Package needs it` };
  const prepared = await preparePackages(listed, (name) => byName.get(name) ?? null, svcModules);
  if (!prepared.ok) return { ok: false, message: `the tape's Packages do not load: ${prepared.message}` };
  for (const entry of packages) {
    const script = prepared.value.packages.find((p) => p.script.name === entry.name)!.script;
    if (digestOf(script.key) !== entry.digest) return { ok: false, message: `package '${entry.name}': its code in the tape does not match its recorded digest ${entry.digest} (it compiles to ${digestOf(script.key)} here); the tape was altered, or recorded by an svc that builds Packages differently` };
  }
  return prepared;
}
