// The `variables` section: each variable is required or has a default (stage 2); names,
// the two being exclusive, and every `${vars.NAME}` a permission filter uses being declared
// are checked in stage 3 (invalid_variables).
import { policyVariableReferences, type PermissionPolicy } from '../policy';
import type { VariableDeclaration } from './model';
import { asMap, bool, checkKeys, fail, get, NAME, text } from './readers';
import { fieldNames, VariableSchema } from './schema';
import type { TreeNode } from './yaml-tree';

export function parseVariables(node: TreeNode): [Map<string, VariableDeclaration>, Map<string, TreeNode>] {
  const variables = new Map<string, VariableDeclaration>();
  const nodes = new Map<string, TreeNode>();
  for (const entry of asMap(node, ['variables'])?.entries ?? []) {
    const path = ['variables', entry.key];
    const map = entry.value.kind === 'null' ? null : asMap(entry.value, path);
    if (map) checkKeys(map, fieldNames(VariableSchema), path);
    const requiredNode = map ? get(map, 'required') : undefined;
    const defaultNode = map ? get(map, 'default') : undefined;
    const required = requiredNode ? bool(requiredNode, [...path, 'required']) : false;
    const defaultValue = defaultNode ? text(defaultNode, [...path, 'default']) : undefined;
    variables.set(entry.key, { required, ...(defaultValue !== undefined ? { default: defaultValue } : {}) });
    nodes.set(entry.key, entry.value.kind === 'null' ? { kind: 'null', offset: entry.keyOffset } : entry.value);
  }
  return [variables, nodes];
}

export function checkVariables(variables: ReadonlyMap<string, VariableDeclaration>, variableNodes: ReadonlyMap<string, TreeNode>, policy: PermissionPolicy, permissionsNode: TreeNode | undefined): void {
  for (const [variableName, declaration] of variables) {
    if (!NAME.test(variableName)) fail('invalid_variables', `variable name '${variableName}' contains characters outside [A-Za-z0-9_-]`, ['variables', variableName], variableNodes.get(variableName));
    if (declaration.required && declaration.default !== undefined) fail('invalid_variables', `variable '${variableName}': \`required: true\` and \`default:\` are mutually exclusive`, ['variables', variableName], variableNodes.get(variableName));
  }
  for (const reference of policyVariableReferences(policy)) {
    if (!variables.has(reference.name)) fail('invalid_variables', `permissions for '${reference.caller}': filter references undeclared variable '\${vars.${reference.name}}'`, ['permissions', reference.caller, reference.index, 'filter'], permissionsNode);
  }
}
