// The `variables` section: each variable is required or has a default (the schema's); names,
// the two being exclusive, and every `${vars.NAME}` a permission filter uses being declared
// are checked in stage 3 (invalid_variables).
import { policyVariableReferences, type PermissionPolicy } from '../policy';
import type { VariableDeclaration } from './model';
import { fail, NAME } from './readers';

export function checkVariables(variables: ReadonlyMap<string, VariableDeclaration>, policy: PermissionPolicy): void {
  for (const [variableName, declaration] of variables) {
    if (!NAME.test(variableName)) fail('invalid_variables', `variable name '${variableName}' contains characters outside [A-Za-z0-9_-]`, ['variables', variableName], null);
    if (declaration.required && declaration.default !== undefined) fail('invalid_variables', `variable '${variableName}': \`required: true\` and \`default:\` are mutually exclusive`, ['variables', variableName], null);
  }
  for (const reference of policyVariableReferences(policy)) {
    if (!variables.has(reference.name)) fail('invalid_variables', `permissions for '${reference.caller}': filter references undeclared variable '\${vars.${reference.name}}'`, ['permissions', reference.caller, reference.index, 'filter'], null);
  }
}
