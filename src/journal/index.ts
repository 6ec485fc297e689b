// Run journals on the server: kept per run, exported as tapes, replayed and forked.
export { JournalStore, DEFAULT_JOURNAL_RETENTION, type JournalRetention } from './store';
export { RunTapes, type TapeLookup } from './runs';
export { replayTape, type ReplayVerdict } from './replay';
export { tapeOf, readTape, entriesOf, forkedEntries, resumePlan, TapeError, TAPE_FORMAT, type Tape, type TapeEntry, type JournalledRun, type ForkAnswer } from './tape';
export { ParkedRuns, type ParkedRunsOptions, type ResumeParts } from './resume';
