// Public API of the sessions capability: binding, the lifecycle manager, session records,
// per-session directories, last-run records and the idempotency ledger.
export {
  bindVariables,
  bindHarnessSecrets,
  missingRequiredSecrets,
  bindBlueprint,
  type BindingResult,
  type BindableBlueprint,
  type SessionBinding,
} from './binding';
export { fillFileArea, fillGit, fillPathTemplate } from './fill';
/** The CLI's name for the Blueprint's filled `vfs` (declared in src/blueprints). */
export type { FilledVfs as FilledFileArea } from '../blueprints';
export {
  SessionManager,
  type SessionSummary,
  SessionError,
  DEFAULT_IDLE_TIMEOUT_SECS,
  REAP_INTERVAL_MS,
  type SessionBlueprint,
  type SessionView,
  type SessionActor,
  type SessionErrorCode,
  type SessionManagerOptions,
} from './manager';
export type { RecoverySummary } from './recovery';
export { SessionRecordStore, type SessionRecord, type LoadedRecord } from './record-store';
export { SessionDirectories, type SessionFileAreas } from './file-areas';
export { LastRunStore, DEFAULT_LAST_RUN_MEMORY_MB, LAST_RUN_RESULT_BYTES, ONE_OFF_RUNS_KEPT, type LastRun } from './last-runs';
export {
  IdempotencyLedger,
  IdempotencyError,
  idempotencyKeyFrom,
  codeFingerprint,
  IDEMPOTENCY_LEDGER_SQL,
  IDEMPOTENCY_LEDGER_MIGRATION,
  IDEMPOTENCY_WAIT_MS,
  DEFAULT_LEDGER_BOUNDS,
  type LedgerBounds,
  type IdempotencyErrorCode,
  type LedgerDecision,
  type Reservation,
  type IdempotencyLedgerOptions,
} from './ledger';
export { startSessionServices, type SessionServicesOptions, type SessionServices } from './services';
