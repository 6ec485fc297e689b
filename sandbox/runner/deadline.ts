// A run's time limit (max_execution_time) as a clock that can stop: while one of the run's
// host calls waits for a person (an `ask-human` approval) the limit does not count, so a
// run that waits a day for an approval still gets its full time to compute afterwards.
// It stops only while the run waits, though: a run that computes meanwhile (it did not
// await the call, or other work goes on beside it) is counted for that time, else a loop
// started beside a pending approval ran with no time limit at all.
export class RunDeadline {
  private timer: NodeJS.Timeout | null = null;
  /** A call waits for a person. */
  private paused = false;
  /** The run computes (holds a CPU slot, not blocked in a host call). */
  private busy = true;
  private stopped = false;
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

  /** A call waits for a person: the limit stops counting while the run does not compute. */
  pause(): void {
    this.paused = true;
    this.update();
  }

  /** No call waits any longer: the limit counts again from where it stopped. */
  resume(): void {
    this.paused = false;
    this.update();
  }

  /** The run computes (true) or waits for the host or a timer (false). */
  computing(busy: boolean): void {
    this.busy = busy;
    this.update();
  }

  private update(): void {
    if (this.stopped) return;
    const counting = !this.paused || this.busy;
    if (counting && this.since === null) {
      this.since = Date.now();
      this.arm();
    } else if (!counting && this.since !== null) {
      this.spentMs += Date.now() - this.since;
      this.since = null;
      this.clear();
    }
  }

  /** The run ended. */
  stop(): void {
    this.stopped = true;
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
