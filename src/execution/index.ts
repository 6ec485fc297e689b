// Public API of the execution layer: one run end to end.
export type { JournalledRun, RunJournals } from './journals';
export { Executor, type ExecutionRequest, type RefusedRequest, type ExecutorOptions, type EntryPoint, type RunBlueprint } from './executor';
export type { ExecuteErrorKind, ExecutionReport, ToolExecuteResult, ToolLastRun } from './result';
export { executionIdOf, EXECUTE_ERROR_KINDS, ExecuteResult, ExecuteError, LastRunRecord, CompileDiagnostic } from './result';
export { HostCallSlots, type HostCallBounds } from './host-call-slots';
export { HostDispatcher, MAX_CHECK_CONTEXT_CHARS, type IssuedDenial, type DispatchOptions } from './host-dispatch';
