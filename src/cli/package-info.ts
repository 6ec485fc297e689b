// What `svc blueprint add-package` needs to know about an installed Package and its
// dependencies: their `requires` (with derived filters), what the Package provides, and
// the secrets they read. Read from this machine's stores: the server's own store under
// $SVC_HOME, then the CLI's.
import path from 'node:path';
import { PackageError, PackageStore, type StoredPackage } from '../packages';
import { localStoreRoot } from '../packages/local';
import { CliError } from './errors';

export interface PackageInfo {
  name: string;
  requires: Array<{ capability: string; filter?: string }>;
  provides: string[];
  /** Secret names from the `secrets.get` requirements' `name == "…"` filters. */
  secrets: string[];
}

/** The Package first, then its dependency closure. */
export function packageClosureInfo(home: string, name: string): PackageInfo[] {
  const store = new PackageStore(path.join(home, 'server', 'packages'), localStoreRoot(home));
  const out: PackageInfo[] = [];
  const seen = new Set<string>();
  const visit = (current: string, neededBy: string | null) => {
    if (seen.has(current)) return;
    seen.add(current);
    let found: StoredPackage | null;
    try {
      found = store.find(current);
    } catch (error) {
      if (error instanceof PackageError) throw new CliError(error.message);
      throw error;
    }
    if (!found) {
      throw new CliError(`package '${current}'${neededBy ? ` (needed by '${neededBy}')` : ''} is not installed in ${store.roots.join(' or ')}`, 1, [`install it with \`svc install <owner/repo> ${current}\` or \`svc build publish-local\` in its project`]);
    }
    const requires = found.capabilities.requires.map((r) => ({ capability: r.capability, ...(r.filter ? { filter: r.filter } : {}) }));
    const secrets = requires.filter((r) => r.capability === 'secrets.get' && r.filter).flatMap((r) => [...r.filter!.matchAll(/name == "([^"]+)"/g)].map((m) => m[1]));
    out.push({ name: current, requires, provides: found.capabilities.provides.map((p) => p.name), secrets });
    for (const dependency of found.metadata.dependencies) visit(dependency.name, current);
  };
  visit(name, null);
  return out;
}
