// Public API of the policy engine: the filter language, permission rules, decisions and
// the per-run decision recorder. Every gated operation goes through RunDecisions.gate.
export { parseFilter, printFilter, printNumber, filterVariables, filterFields, FilterError, MAX_FILTER_BYTES, MAX_FILTER_OPERATORS, type Filter, type Operand, type Operator } from './filter-syntax';
export { evaluateFilter, globMatch } from './filter-eval';
export { parsePermissionPolicy, policyVariableReferences, canonicalPolicy, type PermissionPolicy, type Rule, type Action, type PolicyDiagnostic } from './rules';
export { decide, targetSuffix, PermissionDeniedError, QuotaExceededError, AUDIT_REASONS, type Decision, type DecisionSource, type DecideInput } from './decide';
export { normalizeContext, normalizeVfsPath, normalizeHost, normalizeRemote } from './normalize';
export { RunDecisions, auditContext, type DecisionScope, type AllowsMode } from './recorder';
export { capabilityCatalogue, reportedFields, type CatalogueEntry, type FieldInfo } from './catalogue';
