// What the executor hands to whoever keeps runs' journals (src/journal plugs in here; the
// executor knows only these shapes).
import type { RecordedJournal } from '../../sandbox/journal/entries';
import type { ExecuteResult } from './result';
import type { RecordedPackage } from '../packages';

/** A finished run as the executor hands it over. */
export interface JournalledRun {
  executionId: string;
  principal: string;
  sessionId: string;
  blueprint: { name: string; hash: string };
  code: string;
  variables: Record<string, string>;
  packages: RecordedPackage[];
  modules: Record<string, string[]>;
  guestModules: Record<string, string>;
  journal: RecordedJournal;
  result: ExecuteResult;
  console: string[];
  fuel: { wasm: number; host: number; budget: number };
}

/** Where runs' journals go (src/journal): told when a run starts and handed its journal when it ends. */
export interface RunJournals {
  started(executionId: string, principal: string): void;
  /** `run` is null when the run left no journal (refused before it ran, or journalling is off). */
  finished(executionId: string, run: JournalledRun | null): void;
}
