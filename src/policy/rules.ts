// Permission rules: `default` plus per-caller rule lists,
// parsed from the plain values of a Blueprint document into a typed policy. Structure
// faults (parse_error, filter syntax included) are found before semantic ones
// (invalid_permissions), matching the Blueprint's validation stages.
import { FilterError, filterForMessage, type Filter } from './filter-ast';
import { parseFilter } from './filter-parser';
import { filterVariables, printFilter } from './filter-print';
import { ACTIONS, RULE_KEYS } from './rule-schema';

export type Action = (typeof ACTIONS)[number];

export interface Rule {
  /** Optional label, unique within its caller's list; cited as `rule_name`, never in denial messages. */
  name?: string;
  capability: string;
  filter?: Filter;
  /** The filter as written, for messages. */
  filterText?: string;
  action: Action;
}

export interface PermissionPolicy {
  /** Absent default means deny. */
  default?: Action;
  /** Caller key (`main` or a package name) to its rules, in file order. */
  callers: Map<string, Rule[]>;
}

export type PolicyPath = Array<string | number>;

export interface PolicyDiagnostic {
  /**
   * `parse_error` for structure and filter syntax, `invalid_permissions` for empty callers,
   * empty capabilities and duplicate rule names. (`invalid_filter` is the registration
   * check on filter fields, made by the Blueprint registration code.)
   */
  code: 'parse_error' | 'invalid_permissions' | 'invalid_filter';
  /** The leaf message, without the class prefix. */
  message: string;
  /** Map keys and list indexes down to the fault, e.g. ["permissions","main",0,"filter"]. */
  path: PolicyPath;
}


class PolicyFault extends Error {
  constructor(readonly diagnostic: PolicyDiagnostic) {
    super(diagnostic.message);
  }
}

const structureFault = (message: string, path: PolicyPath): never => {
  throw new PolicyFault({ code: 'parse_error', message, path });
};
const permissionsFault = (message: string, path: PolicyPath): never => {
  throw new PolicyFault({ code: 'invalid_permissions', message, path });
};

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} \`${String(value)}\``;
}

function parseAction(value: unknown, path: PolicyPath): Action {
  if (typeof value === 'string' && (ACTIONS as readonly string[]).includes(value)) return value as Action;
  return structureFault(`unknown variant \`${String(value)}\`, expected one of ${ACTIONS.map((a) => `\`${a}\``).join(', ')}`, path);
}

function parseRuleFilter(text: unknown, path: PolicyPath): Filter {
  if (typeof text !== 'string') return structureFault(`filter must be a string, not ${describe(text)}`, path);
  try {
    return parseFilter(text);
  } catch (error) {
    if (error instanceof FilterError) return structureFault(`invalid filter \`${filterForMessage(text)}\`: ${error.message}`, path);
    throw error;
  }
}

/** Stage 2: one rule's shape, keys walked in document order. */
function parseRule(raw: unknown, path: PolicyPath): Rule {
  if (!isMapping(raw)) return structureFault(`a rule must be a mapping with ${RULE_KEYS.map((k) => `\`${k}\``).join(', ')}, not ${describe(raw)}`, path);
  const rule: Partial<Rule> = {};
  for (const [key, value] of Object.entries(raw)) {
    const at = [...path, key];
    if (key === 'name') rule.name = typeof value === 'string' ? value : structureFault(`rule name must be a string, not ${describe(value)}`, at);
    else if (key === 'capability') rule.capability = typeof value === 'string' ? value : structureFault(`capability must be a string, not ${describe(value)}`, at);
    else if (key === 'action') rule.action = parseAction(value, at);
    else if (key === 'filter') {
      if (value === null || value === undefined) continue;
      rule.filter = parseRuleFilter(value, at);
      rule.filterText = value as string;
    } else structureFault(`unknown field \`${key}\`, expected one of ${RULE_KEYS.map((k) => `\`${k}\``).join(', ')}`, at);
  }
  if (rule.capability === undefined) structureFault('missing field `capability`', path);
  if (rule.action === undefined) structureFault('missing field `action`', path);
  return rule as Rule;
}

function parseStructure(defaultValue: unknown, permissionsValue: unknown): PermissionPolicy {
  const policy: PermissionPolicy = { callers: new Map() };
  if (defaultValue !== undefined && defaultValue !== null) policy.default = parseAction(defaultValue, ['default']);
  if (permissionsValue === undefined || permissionsValue === null) return policy;
  if (!isMapping(permissionsValue)) return structureFault(`permissions must be a mapping of caller to a list of rules, not ${describe(permissionsValue)}`, ['permissions']);
  for (const [caller, list] of Object.entries(permissionsValue)) {
    const at = ['permissions', caller];
    // `main:` with nothing under it is an empty list, as the operator evidently meant.
    if (list === null || list === undefined) policy.callers.set(caller, []);
    else if (!Array.isArray(list)) structureFault(`permissions for '${caller}' must be a list of rules, not ${describe(list)}`, at);
    else policy.callers.set(caller, list.map((raw, index) => parseRule(raw, [...at, index])));
  }
  return policy;
}

/** Stage 3: empty callers, empty capabilities, empty or duplicate rule names. */
function checkSemantics(policy: PermissionPolicy): void {
  for (const [caller, rules] of policy.callers) {
    if (caller.trim() === '') permissionsFault('caller identifier must not be empty', ['permissions', caller]);
    const names = new Set<string>();
    rules.forEach((rule, index) => {
      const at = ['permissions', caller, index];
      if (rule.capability.trim() === '') permissionsFault(`caller '${caller}': a rule has an empty capability name`, [...at, 'capability']);
      if (rule.name === undefined) return;
      if (rule.name.trim() === '') permissionsFault(`caller '${caller}': rule ${index} has an empty name; omit \`name\` or give it a label`, [...at, 'name']);
      if (names.has(rule.name)) permissionsFault(`caller '${caller}': rule name '${rule.name}' is used by more than one rule; rule names must be unique within a caller`, [...at, 'name']);
      names.add(rule.name);
    });
  }
}

/**
 * Parses `default` and `permissions` as read from YAML (plain values). The first fault
 * wins: any structure fault (parse_error) before any semantic one (invalid_permissions).
 */
export function parsePermissionPolicy(defaultValue: unknown, permissionsValue: unknown): { policy: PermissionPolicy } | { error: PolicyDiagnostic } {
  try {
    const policy = parseStructure(defaultValue, permissionsValue);
    checkSemantics(policy);
    return { policy };
  } catch (error) {
    if (error instanceof PolicyFault) return { error: error.diagnostic };
    throw error;
  }
}

/** Every `${vars.NAME}` used by a filter, with where, for the Blueprint's declaration check. */
export function policyVariableReferences(policy: PermissionPolicy): Array<{ name: string; caller: string; index: number; path: PolicyPath }> {
  const out: Array<{ name: string; caller: string; index: number; path: PolicyPath }> = [];
  for (const [caller, rules] of policy.callers) {
    rules.forEach((rule, index) => {
      if (!rule.filter) return;
      for (const name of filterVariables(rule.filter)) out.push({ name, caller, index, path: ['permissions', caller, index, 'filter'] });
    });
  }
  return out;
}

export interface CanonicalPolicy {
  default?: 'allow' | 'ask-human';
  permissions?: Record<string, Array<{ name?: string; capability: string; filter?: string; action: Action }>>;
}

/**
 * JSON-able canonical form for the Blueprint hash: `default` only when not deny,
 * callers with empty lists left out, filters in canonical printed form.
 */
export function canonicalPolicy(policy: PermissionPolicy): CanonicalPolicy {
  const out: CanonicalPolicy = {};
  if (policy.default === 'allow' || policy.default === 'ask-human') out.default = policy.default;
  const permissions: NonNullable<CanonicalPolicy['permissions']> = {};
  for (const [caller, rules] of policy.callers) {
    if (rules.length === 0) continue;
    permissions[caller] = rules.map((rule) => ({
      ...(rule.name !== undefined ? { name: rule.name } : {}),
      capability: rule.capability,
      ...(rule.filter ? { filter: printFilter(rule.filter) } : {}),
      action: rule.action,
    }));
  }
  if (Object.keys(permissions).length > 0) out.permissions = permissions;
  return out;
}
