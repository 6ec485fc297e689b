// Host calls started in bounded slices of the event loop. A runner's channel hands the
// server every message of one read in one turn, and a fan-out of thousands of calls (150
// runs of 64 fetches each) arrives that way: each call's setup (its arguments, the gate,
// the audit line, an outbound socket) is small, but thousands of them in one turn, and
// their sockets' connects completing together in the next, held the loop for 0.5-1.3 s.
// A call starts at once while this turn's slice has time left; later ones wait, in order,
// for the next turns (setImmediate: I/O such as /healthz is served in between).

/** Milliseconds of call starts per event-loop turn. */
const SLICE_MS = 5;
/**
 * Calls started per event-loop turn at most. A start's own (timed) part is only its
 * arguments' decoding; the gate, the audit line and the outbound request follow in the
 * microtasks after it, in the same turn, which the slice's clock never sees: a count bounds them.
 */
const CALLS_PER_SLICE = 64;

const waiting: Array<() => void> = [];
let head = 0;
/** When this turn's first start began (performance.now()), or -1 when no start ran yet this turn. */
let sliceStarted = -1;
/** Calls started in this turn's slice. */
let startedInSlice = 0;

/** Runs `start` (a host call's synchronous setup) now if this turn's slice has room, else in a later turn. */
export function startInSlice(start: () => void): void {
  if (startsNow()) {
    start();
    return;
  }
  waiting.push(start);
}

/**
 * Whether a call may start now (nothing waits and this turn's slice has room); the caller
 * then starts it at once. Lets a call that starts at once skip the deferred start's closure
 * and promise.
 */
export function startsNow(): boolean {
  return head === waiting.length && hasRoom();
}

function hasRoom(): boolean {
  const now = performance.now();
  if (sliceStarted < 0) {
    sliceStarted = now;
    startedInSlice = 1;
    setImmediate(nextSlice);
    return true;
  }
  return now - sliceStarted < SLICE_MS && ++startedInSlice <= CALLS_PER_SLICE;
}

function nextSlice(): void {
  sliceStarted = -1;
  startedInSlice = 0;
  while (head < waiting.length && hasRoom()) {
    const start = waiting[head];
    waiting[head++] = undefined as never;
    start();
  }
  if (head === waiting.length) {
    waiting.length = 0;
    head = 0;
  }
}
