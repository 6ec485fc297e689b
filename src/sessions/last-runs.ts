// Last-run records: one per open session, plus the 1,000 most
// recent one-off runs, whose throw-away sessions can only be read back through last-run.
// Memory only; nothing survives a restart.

/** What GET last-run answers; the error object is the execute result's. */
export interface LastRun {
  result: string | null;
  console: string[];
  error: unknown;
}

export const ONE_OFF_LAST_RUNS_KEPT = 1000;

export class OneOffLastRuns {
  // A Map iterates in insertion order, so the first key is always the oldest.
  private readonly records = new Map<string, LastRun>();

  constructor(private readonly capacity = ONE_OFF_LAST_RUNS_KEPT) {}

  remember(sessionId: string, record: LastRun): void {
    this.records.delete(sessionId);
    this.records.set(sessionId, record);
    while (this.records.size > this.capacity) {
      const oldest = this.records.keys().next().value as string;
      this.records.delete(oldest);
    }
  }

  get(sessionId: string): LastRun | null {
    return this.records.get(sessionId) ?? null;
  }

  get size(): number {
    return this.records.size;
  }
}
