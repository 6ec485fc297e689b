// Resuming a run from its journal on another runner (or on any runner after it parked):
// the journal the pool gathers as the runner streams it, and the job that replays it. The
// calls already made are answered from the journal (or from the answers kept for it), never
// made again, and the run goes on live after them.
import { JournalIntake } from '../journal/intake';
import { countedMs } from './clock';
import type { ActiveRun } from './runs';
import type { RunJob } from './types';

/** The run's journal as its runner streams it (journalled runs only); a replay's bound covers what it replays, twice, plus slack. */
export function journalIntake(job: RunJob): JournalIntake | null {
  const limits = job.limits;
  if (!((limits.journalBytes ?? 0) > 0)) return null;
  return new JournalIntake(Math.max(limits.journalBytes ?? 0, limits.replayBytes ?? 0) * 2 + 1024 * 1024, job.journal);
}

/** A chunk of the run's streamed journal: the calls whose answers it now holds need not be kept for a resume. */
export function takeJournal(active: ActiveRun, chunk: unknown): void {
  const journal = active.journal;
  if (!journal) return;
  journal.take(chunk, (call) => active.outstanding.delete(call));
  if (!journal.keeping) active.outstanding.clear();
}

/**
 * Readies a run that had called the host for another runner: its job becomes a live replay
 * of its journal so far. False (the run unchanged) when its journal cannot carry it (not
 * journalled, passed its bound, holds a withheld secret). Its time limit goes on from what
 * it had counted.
 */
export function readyToResume(active: ActiveRun, now: number): boolean {
  const entries = active.journal?.resumable();
  if (!entries) return false;
  const { job } = active;
  const spent = countedMs(active, now);
  const limits = { ...job.limits, replayBytes: active.journal!.size, ...(job.limits.timeMs > 0 ? { timeMs: Math.max(1, job.limits.timeMs - spent) } : {}) };
  active.job = { ...job, limits, journal: { entries, live: true } };
  active.journal = journalIntake(active.job);
  active.started = now;
  active.clock.pausedMs = 0;
  if (active.clock.pausedSince !== null) active.clock.pausedSince = now;
  return true;
}
