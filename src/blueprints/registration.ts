// Registration checks against this server, always in this
// order: declared volumes, access narrowing, store secrets with values, installed
// packages (with their dependency closure), package grants, filter fields.
import type { VolumeDeclaration } from '../config';
import { filterFields, reportedFields } from '../policy';
import type { Blueprint } from './model';
import type { BlueprintProblem } from './parse';

/** What an installed package declares, as far as registration needs it. */
export interface PackageRequirements {
  /** Packages it imports (names). */
  dependencies: readonly string[];
  /** Capabilities its own code needs rules for. */
  requires: ReadonlyArray<{ capability: string; filter?: string }>;
  /** Extra filter fields it reports, per capability name it provides. */
  fields?: Readonly<Record<string, readonly string[]>>;
}

export interface RegistrationContext {
  volumes: readonly VolumeDeclaration[];
  /** Whether the secret store is on, and whether a key has a value. */
  secretStoreEnabled: boolean;
  hasSecret: (key: string) => boolean;
  isPackageInstalled: (name: string) => boolean;
  /** An installed package's declarations; absent until the packages capability provides it. */
  packageRequirements?: (name: string) => PackageRequirements | null;
}

function problem(code: BlueprintProblem['code'], message: string, path: Array<string | number>): BlueprintProblem {
  return { code, message, diagnostic: { path, message } };
}

/** The first registration fault (checks 2–7), or null. Check 1 (name vs path) is the registry's. */
export function registrationProblem(blueprint: Blueprint, context: RegistrationContext): BlueprintProblem | null {
  const serverState = volumeProblem(blueprint, context) ?? secretProblem(blueprint, context);
  if (serverState) return serverState;
  const closure = packageClosure(blueprint, context);
  return closure.problem ?? grantProblem(blueprint, closure.packages, context) ?? filterFieldProblem(blueprint, closure.packages, context);
}

interface VolumeReference {
  volume: string;
  access?: string;
  path: Array<string | number>;
}

function volumeReferences(blueprint: Blueprint): VolumeReference[] {
  const references: VolumeReference[] = [];
  if (blueprint.vfs.mode === 'named' && blueprint.vfs.volume) references.push({ volume: blueprint.vfs.volume, access: blueprint.vfs.access, path: ['vfs'] });
  for (const [mountPath, mount] of Object.entries(blueprint.vfs.mounts ?? {})) references.push({ volume: mount.volume, access: mount.access, path: ['vfs', 'mounts', mountPath] });
  return references;
}

/** Checks 2 and 3: every volume declared, none widened from read_only. */
function volumeProblem(blueprint: Blueprint, context: RegistrationContext): BlueprintProblem | null {
  const declared = new Map(context.volumes.map((v) => [v.name, v]));
  const names = [...declared.keys()].sort().join(', ') || 'none';
  const references = volumeReferences(blueprint);
  const undeclared = references.find((r) => !declared.has(r.volume));
  if (undeclared) return problem('undeclared_volume', `volume '${undeclared.volume}' is not declared on this server; declared volumes: ${names}`, [...undeclared.path, 'volume']);
  const widened = references.find((r) => r.access === 'read_write' && declared.get(r.volume)!.access === 'read_only');
  if (widened) {
    return problem(
      'volume_access_exceeded',
      `volume '${widened.volume}' is read_only on this server; drop \`access: read_write\` (or write \`access: read_only\`), or ask the operator to declare it read_write`,
      [...widened.path, 'access'],
    );
  }
  return null;
}

/** Check 4: every store secret has a value now (harness secrets are bound per session). */
function secretProblem(blueprint: Blueprint, context: RegistrationContext): BlueprintProblem | null {
  for (const [name, declaration] of blueprint.declarations.secrets) {
    if (declaration.source !== 'store') continue;
    if (!context.secretStoreEnabled) {
      return problem('unresolved_secret', `secret check failed: secret '${name}' (store key '${declaration.key}') needs the secret store, but no secret store is configured on this server`, ['secrets', name]);
    }
    if (!context.hasSecret(declaration.key)) {
      return problem('unresolved_secret', `secret check failed: missing secret '${name}' (store key '${declaration.key}'); store it with POST /v1/secrets or \`svc secrets put ${declaration.key}\``, ['secrets', name]);
    }
  }
  return null;
}

/** Check 5: the listed packages and everything they import, installed. */
function packageClosure(blueprint: Blueprint, context: RegistrationContext): { packages: string[]; problem: BlueprintProblem | null } {
  const seen = new Set<string>();
  const queue = blueprint.packages.map((name) => ({ name, neededBy: null as string | null }));
  while (queue.length > 0) {
    const { name, neededBy } = queue.shift()!;
    if (seen.has(name)) continue;
    if (!context.isPackageInstalled(name)) {
      const via = neededBy ? ` (imported by \`${neededBy}\`)` : '';
      return { packages: [...seen], problem: problem('package_missing', `package check failed: package \`${name}\`${via} is not installed; install it with \`svc packages install <org/repo> ${name}\``, ['packages']) };
    }
    seen.add(name);
    for (const dependency of context.packageRequirements?.(name)?.dependencies ?? []) queue.push({ name: dependency, neededBy: name });
  }
  return { packages: [...seen], problem: null };
}

/** Check 6: each capability a package requires has at least one rule in its caller list. */
function grantProblem(blueprint: Blueprint, packages: readonly string[], context: RegistrationContext): BlueprintProblem | null {
  if (!context.packageRequirements) return null;
  for (const name of packages) {
    const rules = blueprint.policy.callers.get(name) ?? [];
    for (const requirement of context.packageRequirements(name)?.requires ?? []) {
      if (rules.some((rule) => rule.capability === requirement.capability)) continue;
      const filter = requirement.filter ? ` with filter \`${requirement.filter}\`` : '';
      return problem('invalid_packages', `package check failed: package \`${name}\` requires \`${requirement.capability}\`${filter}, but \`permissions.${name}\` has no matching rule`, ['permissions', name]);
    }
  }
  return null;
}

/** Check 7: a filter may only test fields its capability reports (first path segment). */
function filterFieldProblem(blueprint: Blueprint, packages: readonly string[], context: RegistrationContext): BlueprintProblem | null {
  const servers = Object.keys(blueprint.mcp);
  for (const [caller, rules] of blueprint.policy.callers) {
    for (let index = 0; index < rules.length; index++) {
      const rule = rules[index];
      if (!rule.filter) continue;
      const reported = fieldsReported(rule.capability, servers, packages, context);
      if (reported === null) continue;
      const unknown = filterFields(rule.filter).find((field) => !reported.includes(field));
      if (unknown === undefined) continue;
      return problem(
        'invalid_filter',
        `\`permissions.${caller}\` rule ${index + 1} (index ${index}) for \`${rule.capability}\` tests \`${unknown}\`, which the operation doesn't report, so a condition on it is false for every call, and true under \`not\`; its fields are: ${reported.join(', ')}`,
        ['permissions', caller, index, 'filter'],
      );
    }
  }
  return null;
}

/** The catalogue's fields ∪ those declared by loaded packages providing the name; null when nothing provides it. */
function fieldsReported(capability: string, servers: readonly string[], packages: readonly string[], context: RegistrationContext): string[] | null {
  const catalogue = reportedFields(capability, servers);
  const fromPackages = packages.flatMap((name) => context.packageRequirements?.(name)?.fields?.[capability] ?? []);
  if (catalogue === null && fromPackages.length === 0) {
    const provided = packages.some((name) => context.packageRequirements?.(name)?.fields?.[capability] !== undefined);
    return provided ? [] : null;
  }
  return [...new Set([...(catalogue ?? []), ...fromPackages])].sort();
}
