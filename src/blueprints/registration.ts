// Registration checks against this server (blueprints-and-policy §9): declared volumes and
// access narrowing, store secrets with values, installed packages.
import type { VolumeDeclaration } from '../config';
import { filterFields, reportedFields } from '../policy';
import type { Blueprint } from './model';
import type { BlueprintProblem } from './parse';

export interface RegistrationContext {
  volumes: readonly VolumeDeclaration[];
  /** Whether the secret store is on, and whether a key has a value. */
  secretStoreEnabled: boolean;
  hasSecret: (key: string) => boolean;
  isPackageInstalled: (name: string) => boolean;
}

function problem(code: BlueprintProblem['code'], message: string, path: Array<string | number>): BlueprintProblem {
  return { code, message, diagnostic: { path, message } };
}

export function registrationProblem(blueprint: Blueprint, context: RegistrationContext): BlueprintProblem | null {
  const declared = new Map(context.volumes.map((v) => [v.name, v]));
  const names = [...declared.keys()].sort().join(', ') || 'none';
  const references: Array<{ volume: string; access?: string; path: Array<string | number> }> = [];
  if (blueprint.vfs.mode === 'named' && blueprint.vfs.volume) references.push({ volume: blueprint.vfs.volume, access: blueprint.vfs.access, path: ['vfs'] });
  for (const [mountPath, mount] of Object.entries(blueprint.vfs.mounts ?? {})) references.push({ volume: mount.volume, access: mount.access, path: ['vfs', 'mounts', mountPath] });
  for (const reference of references) {
    if (!declared.has(reference.volume)) {
      return problem('undeclared_volume', `volume '${reference.volume}' is not declared on this server; declared volumes: ${names}`, [...reference.path, 'volume']);
    }
  }
  for (const reference of references) {
    if (reference.access === 'read_write' && declared.get(reference.volume)!.access === 'read_only') {
      return problem(
        'volume_access_exceeded',
        `volume '${reference.volume}' is read_only on this server; drop \`access: read_write\` (or write \`access: read_only\`), or ask the operator to declare it read_write`,
        [...reference.path, 'access'],
      );
    }
  }
  for (const [name, declaration] of blueprint.declarations.secrets) {
    if (declaration.source !== 'store') continue;
    if (!context.secretStoreEnabled) return problem('unresolved_secret', `secret check failed: secret '${name}' needs the secret store, but no secret store is configured on this server`, ['secrets', name]);
    if (!context.hasSecret(declaration.key)) return problem('unresolved_secret', `secret check failed: missing secret '${name}' (store key '${declaration.key}')`, ['secrets', name]);
  }
  for (const name of blueprint.packages) {
    if (!context.isPackageInstalled(name)) {
      return problem('package_missing', `package check failed: package \`${name}\` is not installed; install it with \`svc packages install <org/repo> ${name}\``, ['packages']);
    }
  }
  return filterFieldProblem(blueprint);
}

/** Check 7: a filter may only test fields its capability reports. */
function filterFieldProblem(blueprint: Blueprint): BlueprintProblem | null {
  const servers = Object.keys(blueprint.mcp);
  for (const [caller, rules] of blueprint.policy.callers) {
    for (let index = 0; index < rules.length; index++) {
      const rule = rules[index];
      if (!rule.filter) continue;
      const reported = reportedFields(rule.capability, servers);
      if (reported === null) continue;
      const unknown = filterFields(rule.filter).find((field) => !reported.includes(field));
      if (unknown !== undefined) {
        return problem(
          'invalid_filter' as BlueprintProblem['code'],
          `\`permissions.${caller}\` rule ${index + 1} (index ${index}) for \`${rule.capability}\` tests \`${unknown}\`, which the operation doesn't report, so a condition on it is false for every call, and true under \`not\`; its fields are: ${reported.join(', ')}`,
          ['permissions', caller, index, 'filter'],
        );
      }
    }
  }
  return null;
}
