// Public API of the run records: the store (with its small API for approvals and the
// journal, see the header of ./store.ts), the wire shapes, and `Prefer: respond-async`.
export { RunStore, RUNS_TABLE_SQL, RECORD_OVERHEAD_BYTES, DEFAULT_RUN_RETENTION_MS, DEFAULT_RUN_STORE_BYTES, type RunHandle, type RunStart, type RunViewer, type RunListFilter, type CancelOutcome, type RunStoreOptions } from './store';
export { RunRecord, RunSummary, RunList, RunStarted, RUN_STATES, RUN_ENTRY_POINTS, type RunState, type RunEntryPoint } from './record';
export { prefersAsync } from './prefer';
export { ResumeStore, type ResumeState } from './resumes';
