// The runner's side of CPU slots (the server grants them: sandbox/pool/cpu-slots.ts): a
// run computes only while it holds one. It gives its slot back when it parks (awaiting the
// host or a timer) and asks again before a delivery or a timer runs code in its isolate.
// A synchronous host call gives the slot back by saying it blocks; its reply brings it back.
import type { FromRunner } from './protocol';

interface Turn {
  holding: boolean;
  /** A `cpu-want` is out (or the run waits to start): no second one. */
  asked: boolean;
  /** Resolves the run's wait for its grant. */
  granted: (() => void) | null;
}

/** What a wait for a slot needs of the run: whether it ended, and how an end wakes it. */
export interface Waker {
  isolate: { isDisposed: boolean };
  wake: (() => void) | null;
}

export class CpuTurns {
  private readonly turns = new Map<number, Turn>();

  constructor(private readonly send: (message: FromRunner) => void) {}

  /** The run arrived: with its slot, or waiting for a `cpu-grant` first. */
  begin(runId: number, holding: boolean): void {
    this.turns.set(runId, { holding, asked: !holding, granted: null });
  }

  /** Resolves once the run holds a slot, or once it has ended (a limit or a cancellation wakes it). */
  async hold(runId: number, run: Waker): Promise<void> {
    const turn = this.turns.get(runId);
    if (!turn || turn.holding || run.isolate.isDisposed) return;
    if (!turn.asked) {
      turn.asked = true;
      this.send({ type: 'cpu-want', runId });
    }
    // A reply arriving meanwhile wakes the run too (to be delivered once it holds a slot).
    while (!turn.holding && !run.isolate.isDisposed) {
      await new Promise<void>((resolve) => {
        turn.granted = resolve;
        run.wake = resolve;
      });
      turn.granted = null;
      run.wake = null;
    }
  }

  /** The run waits on the host or a timer: its slot goes back. */
  park(runId: number): void {
    const turn = this.turns.get(runId);
    if (!turn || !turn.holding) return;
    turn.holding = false;
    this.send({ type: 'cpu-free', runId });
  }

  /** The server granted the run a slot (`cpu-grant`, or a host reply carrying it). */
  granted(runId: number): void {
    const turn = this.turns.get(runId);
    if (!turn) return;
    turn.holding = true;
    turn.asked = false;
    turn.granted?.();
  }

  /** The run ended (the server frees its slot when it hears `done`). */
  end(runId: number): void {
    this.turns.delete(runId);
  }
}
