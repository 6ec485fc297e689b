// Public API of the sessions capability.
export { bindVariables, bindHarnessSecrets, missingRequiredSecrets, type BindingDeclarations, type VariableDeclaration, type SecretDeclaration, type BindingResult } from './binding';
