// Public API of the audit trail and server log.
export { openLogOutputs, type LogOutputs, type LogOutputOptions, type ServerLog, type AuditWriter } from './outputs';
export { encodeLogfmt, parseLogfmt, encodeValue, LogfmtError, MAX_RECORD_BYTES } from './logfmt';
export { LevelFilter, type LogLevel } from './filter';
export {
  auditVariables,
  sanitizeContextText,
  type AuditRecord,
  type DecisionRecord,
  type DecisionSource,
  type ExecutionRecord,
  type ExecutionOutcome,
  type SessionAuditRecord,
  type AdminRecord,
  type AuthRecord,
  type ServerRecord,
  type VariableEntry,
} from './records';
