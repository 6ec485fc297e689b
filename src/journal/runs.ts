// The executor's RunJournals: which runs are under way (their tape is not ready: 409), and
// the journals of finished ones, by execution id, with the token that owns each.
import type { RunJournals } from '../execution';
import type { JournalStore } from './store';
import type { TapePackage } from '../packages';
import { tapeOf, type JournalledRun, type Tape } from './tape';

export type TapeLookup = { state: 'finished'; owner: string; sessionId: string; run: JournalledRun; tape: (packages?: TapePackage[]) => Tape } | { state: 'running'; owner: string } | { state: 'unknown' };

export class RunTapes implements RunJournals {
  private readonly running = new Map<string, string>();

  constructor(private readonly store: JournalStore) {}

  started(executionId: string, principal: string): void {
    this.running.set(executionId, principal);
  }

  finished(executionId: string, run: JournalledRun | null): void {
    this.running.delete(executionId);
    if (run) this.store.keep(run);
  }

  lookup(executionId: string): TapeLookup {
    const owner = this.running.get(executionId);
    if (owner !== undefined) return { state: 'running', owner };
    const run = this.store.get(executionId);
    if (!run) return { state: 'unknown' };
    return { state: 'finished', owner: run.principal, sessionId: run.sessionId, run, tape: (packages) => tapeOf(run, packages) };
  }
}
