// A run's time limit (max_execution_time) as a clock that can stop: while one of the run's
// host calls waits for a person (an `ask-human` approval) the limit does not count, so a
// run that waits a day for an approval still gets its full time to compute afterwards.
export class RunDeadline {
  private timer: NodeJS.Timeout | null = null;
  /** Time counted before the current stretch (ms). */
  private spentMs = 0;
  /** When the current counting stretch began; null while paused. */
  private since: number | null;

  constructor(
    private readonly limitMs: number,
    startedAt: number,
    private readonly expire: () => void,
  ) {
    this.since = startedAt;
    this.arm();
  }

  /** A call waits for a person: the limit stops counting. */
  pause(): void {
    if (this.since === null) return;
    this.spentMs += Date.now() - this.since;
    this.since = null;
    this.clear();
  }

  /** No call waits any longer: the limit counts again from where it stopped. */
  resume(): void {
    if (this.since !== null) return;
    this.since = Date.now();
    this.arm();
  }

  /** The run ended. */
  stop(): void {
    this.clear();
    this.since = null;
  }

  private arm(): void {
    this.clear();
    const left = this.limitMs - this.spentMs - (Date.now() - (this.since ?? Date.now()));
    this.timer = setTimeout(this.expire, Math.max(0, left));
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
