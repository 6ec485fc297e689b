// The server's own event loop, as the watchdog sees it: a heartbeat that arrives late
// because this process was busy (a long synchronous task, a paused process, a swapped-out
// machine) says nothing about the runner that sent it. Each watchdog tick measures how late
// it ran; after a stall, every runner gets a fresh grace before it is judged again, and a
// backstop timer that fired late is armed again instead of replacing a runner.

/** Lateness past which a tick or timer counts as the server having stalled. */
export const STALL_MS = 250;

export class LoopWatch {
  private last: number;
  /** When the last stall the watch saw ended (0: none yet). */
  private stallEnded = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.last = now();
  }

  /** The watchdog starts (or starts again): its first tick is measured from now. */
  restart(): void {
    this.last = this.now();
  }

  /** A watchdog tick: true when it ran late (the server was stalled since the last one). */
  tick(): boolean {
    const now = this.now();
    const late = now - this.last - this.intervalMs;
    this.last = now;
    if (late <= STALL_MS) return false;
    this.stallEnded = now;
    return true;
  }

  /** Whether a timer due at `due` fired late, or fires in the grace after a stall: judge again later. */
  late(due: number): boolean {
    const now = this.now();
    return now - due > STALL_MS || now - this.stallEnded < this.intervalMs;
  }
}
