// Public API of the audit trail and the server log: logfmt encoding, the RUST_LOG filter,
// the destinations behind openLogOutputs, typed audit records and their redaction helpers.
export { openLogOutputs, type LogOutputs, type LogOutputOptions } from './outputs';
export { createServerLog, silentLog, FORMAT_FAILURE, type ServerLog, type LogFields } from './log';
export { createAuditWriter, encodeAuditRecord, auditRecordFits, discardAudit, AUDIT_SCHEMA, AUDIT_TARGET, type AuditWriter } from './audit';
export {
  encodeLogfmt,
  encodeValue,
  parseLogfmt,
  compareByteOrder,
  LogfmtError,
  MAX_RECORD_BYTES,
  MAX_DEPTH,
  MAX_NODES,
  type LogfmtHeader,
  type LogfmtErrorCode,
} from './logfmt';
export { AuthRefusalAudit, AUTH_REFUSALS_WRITTEN_EACH, AUTH_REFUSAL_WINDOW_MS } from './auth-refusals';
export { LevelFilter, InvalidFilterError, type LogLevel, type FilterLevel } from './filter';
export { LogOpenError, type LineDestination } from './destination';
export {
  auditVariables,
  sanitizeContextText,
  type PrincipalName,
  type AuditRecord,
  type DecisionRecord,
  type ApprovalAuditRecord,
  type DecisionSource,
  type ExecutionRecord,
  type SessionAuditRecord,
  type AdminRecord,
  type AuthRecord,
  type ServerRecord,
  type VariableEntry,
} from './records';
