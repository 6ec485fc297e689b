// Resume states of runs parked for approval (SQLite, beside the run records): what a server
// needs to run such a run again from its journal after a restart — its program, Blueprint
// name and version, variables, entry point, the journal so far and the time its limit has
// left. Written when the run parks (its isolate ends), removed when it finishes; the rows of
// a server that stopped meanwhile keep their runs `waiting_for_approval` across the restart.
// Secrets are never here: a journal withholds any answer that held one (such a run is not
// parked), and a run given harness values (secrets) in its request is not kept.
import type { Database, Statement } from 'better-sqlite3';
import type { JournalEntry } from '../../sandbox/journal/entries';

export interface ResumeState {
  executionId: string;
  owner: string;
  sessionId: string;
  /** Where the run came in (the audit's entry_point). */
  entryPoint: 'http' | 'session' | 'mcp';
  blueprint: { name: string; hash: string };
  code: string;
  variables: Record<string, string>;
  journal: JournalEntry[];
  /** Milliseconds its time limit has left (0: no limit). */
  timeMs: number;
}

export class ResumeStore {
  private readonly upsert: Statement;
  private readonly select: Statement;
  private readonly remove: Statement;

  constructor(db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS run_resumes (
      execution_id TEXT PRIMARY KEY,
      state        TEXT NOT NULL
    );`);
    this.upsert = db.prepare('INSERT OR REPLACE INTO run_resumes (execution_id, state) VALUES (?, ?)');
    this.select = db.prepare('SELECT state FROM run_resumes WHERE execution_id = ?');
    this.remove = db.prepare('DELETE FROM run_resumes WHERE execution_id = ?');
  }

  keep(state: ResumeState): void {
    this.upsert.run(state.executionId, JSON.stringify(state));
  }

  get(executionId: string): ResumeState | null {
    const row = this.select.get(executionId) as { state: string } | undefined;
    return row ? (JSON.parse(row.state) as ResumeState) : null;
  }

  drop(executionId: string): void {
    this.remove.run(executionId);
  }
}
