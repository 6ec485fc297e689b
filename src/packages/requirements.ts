// What Blueprint registration needs of a stored Package: its dependencies, the grants its own code requires, the fields it provides.
import type { PackageRequirements } from '../blueprints';
import type { StoredPackage } from './store';

export function packageRequirements(stored: StoredPackage | null): PackageRequirements | null {
  if (!stored) return null;
  return {
    dependencies: stored.metadata.dependencies.map((d) => d.name),
    requires: stored.capabilities.requires,
    fields: Object.fromEntries(stored.capabilities.provides.map((p) => [p.name, Object.keys(p.fields ?? {})])),
  };
}
