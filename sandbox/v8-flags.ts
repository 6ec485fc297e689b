// V8's flags are one set for the whole process, read by every thread's parser and compiler.
// A thread that turns a flag on for one parse and off again (typecheck/factories.ts: natives
// syntax for one function) races another thread doing the same: the other's "off" can land
// between this one's "on" and its parse, which then fails. Checker threads start together
// (three at once when three tokens' programs come), and the one whose parse failed ended,
// its program running unchecked. A lock shared by the process's threads (a SharedArrayBuffer
// handed to each worker) makes such turns one at a time.
import v8 from 'node:v8';

const FREE = 0;
const HELD = 1;
/** Held, and another thread waits (the holder wakes one when it lets go). */
const CONTENDED = 2;

export class V8FlagLock {
  private readonly cell: Int32Array;

  /** `buffer`: the lock another thread made (from its workerData); without it a new one. */
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)) {
    this.cell = new Int32Array(buffer, 0, 1);
  }

  /** Runs `work` with V8's `flag` on (`--flag`), then off again (`--no-flag`), while no other thread of the process turns one. */
  withFlag<T>(flag: string, work: () => T): T {
    this.acquire();
    try {
      v8.setFlagsFromString(`--${flag}`);
      try {
        return work();
      } finally {
        v8.setFlagsFromString(`--no-${flag}`);
      }
    } finally {
      this.release();
    }
  }

  /** Takes the lock, blocking this thread until it is free (holders keep it for one parse). */
  acquire(): void {
    let state = Atomics.compareExchange(this.cell, 0, FREE, HELD);
    if (state === FREE) return;
    // Marked contended before sleeping, so the holder knows to wake a waiter.
    if (state !== CONTENDED) state = Atomics.exchange(this.cell, 0, CONTENDED);
    while (state !== FREE) {
      Atomics.wait(this.cell, 0, CONTENDED);
      state = Atomics.exchange(this.cell, 0, CONTENDED);
    }
  }

  release(): void {
    if (Atomics.exchange(this.cell, 0, FREE) === CONTENDED) Atomics.notify(this.cell, 0, 1);
  }

  /** Whether a thread waits for the lock now (a status for tests). */
  get contended(): boolean {
    return Atomics.load(this.cell, 0) === CONTENDED;
  }
}

let processLock: V8FlagLock | null = null;

/** The lock of this process's threads: made by the thread that starts workers, handed to each in its workerData. */
export function processFlagLock(): V8FlagLock {
  return (processLock ??= new V8FlagLock());
}
