// Permission rules (blueprints-and-policy §4): `default` plus per-caller rule lists,
// parsed from the plain values of a Blueprint document into a typed policy.
import { FilterError, filterVariables, parseFilter, printFilter, type Filter } from './filter-syntax';

export type Action = 'allow' | 'deny' | 'ask-human';

export interface Rule {
  name?: string;
  capability: string;
  filter?: Filter;
  action: Action;
}

export interface PermissionPolicy {
  /** Absent default means deny. */
  default?: Action;
  callers: Map<string, Rule[]>;
}

export interface PolicyDiagnostic {
  code: 'parse_error' | 'invalid_permissions' | 'invalid_filter';
  message: string;
  path: Array<string | number>;
}

const ACTIONS: readonly Action[] = ['allow', 'deny', 'ask-human'];
const RULE_KEYS = ['name', 'capability', 'filter', 'action'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseAction(value: unknown, path: Array<string | number>): Action | PolicyDiagnostic {
  if (typeof value === 'string' && (ACTIONS as readonly string[]).includes(value)) return value as Action;
  return { code: 'parse_error', message: `unknown variant \`${String(value)}\`, expected one of \`allow\`, \`deny\`, \`ask-human\``, path };
}

const isDiagnostic = (value: unknown): value is PolicyDiagnostic => isPlainObject(value) && 'code' in value && 'path' in value;

export function parsePermissionPolicy(defaultValue: unknown, permissionsValue: unknown): { policy: PermissionPolicy } | { error: PolicyDiagnostic } {
  const policy: PermissionPolicy = { callers: new Map() };
  if (defaultValue !== undefined && defaultValue !== null) {
    const action = parseAction(defaultValue, ['default']);
    if (isDiagnostic(action)) return { error: action };
    policy.default = action;
  }
  if (permissionsValue === undefined || permissionsValue === null) return { policy };
  if (!isPlainObject(permissionsValue)) return { error: { code: 'parse_error', message: 'permissions must be a mapping of caller to a list of rules', path: ['permissions'] } };
  for (const [caller, list] of Object.entries(permissionsValue)) {
    if (caller.trim() === '') return { error: { code: 'invalid_permissions', message: 'caller identifier must not be empty', path: ['permissions', caller] } };
    if (list === null) {
      policy.callers.set(caller, []);
      continue;
    }
    if (!Array.isArray(list)) return { error: { code: 'parse_error', message: `permissions for '${caller}' must be a list of rules`, path: ['permissions', caller] } };
    const rules: Rule[] = [];
    const names = new Set<string>();
    for (let index = 0; index < list.length; index++) {
      const path = ['permissions', caller, index];
      const raw = list[index];
      if (!isPlainObject(raw)) return { error: { code: 'parse_error', message: `a rule must be a mapping with ${RULE_KEYS.join(', ')}`, path } };
      for (const key of Object.keys(raw)) {
        if (!RULE_KEYS.includes(key)) return { error: { code: 'parse_error', message: `unknown field \`${key}\`, expected one of \`name\`, \`capability\`, \`filter\`, \`action\``, path: [...path, key] } };
      }
      if (raw.capability === undefined) return { error: { code: 'parse_error', message: 'missing field `capability`', path } };
      if (typeof raw.capability !== 'string') return { error: { code: 'parse_error', message: 'capability must be a string', path: [...path, 'capability'] } };
      if (raw.capability.trim() === '') return { error: { code: 'invalid_permissions', message: `caller '${caller}': a rule has an empty capability name`, path: [...path, 'capability'] } };
      if (raw.action === undefined) return { error: { code: 'parse_error', message: 'missing field `action`', path } };
      const action = parseAction(raw.action, [...path, 'action']);
      if (isDiagnostic(action)) return { error: action };
      const rule: Rule = { capability: raw.capability, action };
      if (raw.name !== undefined) {
        if (typeof raw.name !== 'string' || raw.name.trim() === '') return { error: { code: 'invalid_permissions', message: `caller '${caller}': a rule name must be non-empty text`, path: [...path, 'name'] } };
        if (names.has(raw.name)) return { error: { code: 'invalid_permissions', message: `caller '${caller}': rule name '${raw.name}' is used twice`, path: [...path, 'name'] } };
        names.add(raw.name);
        rule.name = raw.name;
      }
      if (raw.filter !== undefined && raw.filter !== null) {
        if (typeof raw.filter !== 'string') return { error: { code: 'parse_error', message: 'filter must be a string', path: [...path, 'filter'] } };
        try {
          rule.filter = parseFilter(raw.filter);
        } catch (error) {
          if (error instanceof FilterError) return { error: { code: 'invalid_filter', message: `invalid filter \`${raw.filter}\`: ${error.message}`, path: [...path, 'filter'] } };
          throw error;
        }
      }
      rules.push(rule);
    }
    policy.callers.set(caller, rules);
  }
  return { policy };
}

/** Variables referenced by filters, with where, for the Blueprint's declaration check. */
export function policyVariableReferences(policy: PermissionPolicy): Array<{ name: string; caller: string; index: number }> {
  const out: Array<{ name: string; caller: string; index: number }> = [];
  for (const [caller, rules] of policy.callers) {
    rules.forEach((rule, index) => {
      if (rule.filter) for (const name of filterVariables(rule.filter)) out.push({ name, caller, index });
    });
  }
  return out;
}

/** JSON-able canonical form for the Blueprint hash (filters printed canonically). */
export function canonicalPolicy(policy: PermissionPolicy): { default?: Action; permissions?: Record<string, unknown[]> } {
  const out: { default?: Action; permissions?: Record<string, unknown[]> } = {};
  // An explicit `deny` default is the same as none.
  if (policy.default !== undefined && policy.default !== 'deny') out.default = policy.default;
  if (policy.callers.size > 0) {
    out.permissions = {};
    for (const [caller, rules] of policy.callers) {
      out.permissions[caller] = rules.map((rule) => ({
        ...(rule.name !== undefined ? { name: rule.name } : {}),
        capability: rule.capability,
        ...(rule.filter ? { filter: printFilter(rule.filter) } : {}),
        action: rule.action,
      }));
    }
  }
  return out;
}
