// Public API of Blueprints: parsing and validation, the hash, registration checks and the
// registry.
export type {
  Blueprint,
  VfsDeclaration,
  MountDeclaration,
  FilledVfs,
  VariableDeclaration,
  SecretDeclaration,
  BindingDeclarations,
  AuthProxyRule,
  GitDeclaration,
  McpServerDeclaration,
  LlmDeclaration,
  VfsMode,
  VolumeAccess,
  TypecheckMode,
} from './model';
export { TYPECHECK_MODES } from './schema';
export { DEFAULT_APPROVAL_TIMEOUT_SECS, MAX_APPROVAL_TIMEOUT_SECS } from './model';
export { parseBlueprint, BlueprintDiagnostic, type ParseResult, type BlueprintProblem, type Diagnostic } from './parse';
export { registrationProblem, type RegistrationContext, type PackageRequirements } from './registration';
export { BlueprintRegistry, BlueprintStoreError, type StoredBlueprint, type MutationResult, type MutationFailure } from './registry';
export { canonicalModel, blueprintHash } from './canonical';
export { blueprintSummary, BlueprintSummary } from './summary';
export { BlueprintDocumentSchema, blueprintJsonSchema, type BlueprintDocument } from './schema';
