// Public API of the policy engine: the filter language, permission rules, decisions and
// the per-run decision recorder. Every gated operation goes through RunDecisions.gate,
// which decides, writes the audit decision and throws the error the program sees.
export { FilterError, caretExcerpt, MAX_FILTER_BYTES, MAX_FILTER_OPERATORS, type Filter, type Comparison, type Operand, type Operator, type Segment } from './filter-ast';
export { parseFilter } from './filter-parser';
export { printFilter, printNumber, filterVariables, filterFields } from './filter-print';
export { evaluateFilter, globMatch } from './filter-eval';
export { parsePermissionPolicy, policyVariableReferences, canonicalPolicy, type PermissionPolicy, type Rule, type Action, type PolicyDiagnostic, type PolicyPath, type CanonicalPolicy } from './rules';
export { decide, decideCheck, targetSuffix, invariantRefusal, MAIN_REFUSALS, UNIDENTIFIED_CALLER_REASON, type Decision, type DecideInput } from './decide';
export { PermissionDeniedError, QuotaExceededError, AUDIT_REASONS, type DeniedSource } from './errors';
export { normalizeContext, normalizeVfsPath, normalizeHost, normalizeRemote, ContextError } from './normalize';
export { RunDecisions, auditContext, serverEgressDecision, QUICK_SEARCH_FIELDS, SUMMARY_LIMITS, DENIALS_WRITTEN_EACH, SINGLE_RECORD_BYTES_EACH_RUN, AUDIT_VALUE_CHARS, AUDIT_PAYLOAD_CHARS, type DecisionScope, type AllowsMode, type FurtherSource, type HumanAsker, type HumanAnswer, type HumanQuestion } from './recorder';
export { allowingRule } from './hints';
export { capabilityCatalogue, reportedFields, unknownCapabilityProblem, type CatalogueEntry, type FieldInfo } from './catalogue';
