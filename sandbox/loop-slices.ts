// Work that arrives in bursts, done in bounded slices of the event loop's turns, so that what
// arrives meanwhile (a /healthz, another tenant's request) is served in between.
// - Host-call starts: a runner's channel hands the server every message of one read in one
//   turn, and a fan-out of thousands of calls (150 runs of 64 fetches each) arrives that way:
//   each call's setup (its arguments, the gate, the audit line, an outbound socket) is small,
//   but thousands of them in one turn, and their sockets' connects completing together in the
//   next, held the loop for 0.5-1.3 s (sandbox/pool/host-calls.ts).
// - Requests' bodies: 150 runs started at once arrive as 150 bodies read in one turn, and
//   each one's parse, check, run record and dispatch (about half a millisecond) in that same
//   turn held it for 60-80 ms (src/http/validation.ts).
// Work runs at once while this turn's slice has time left; later work waits, in order, for
// the next turns (setImmediate: I/O is served in between). Both kinds share one queue and one
// slice, so neither burst can starve the other.

/** Milliseconds of such work per event-loop turn. */
const SLICE_MS = 5;
/**
 * Pieces of work begun per event-loop turn at most. The slice's clock sees only what ran
 * before a piece is asked for: a call start's gate, audit line and outbound request follow in
 * the microtasks after it, which a count bounds.
 */
const PIECES_PER_SLICE = 64;

/** A waiting piece: `run` begins it; `resumes` when it resolves a promise (its work follows in the microtasks after it). */
interface Waiting {
  run: () => void;
  resumes: boolean;
}

const waiting: Array<Waiting | undefined> = [];
let head = 0;
/** When this turn's first piece began (performance.now()), or -1 when none began yet this turn. */
let sliceStarted = -1;
/** Pieces begun in this turn's slice. */
let begunInSlice = 0;

/** Runs `start` (a host call's synchronous setup) now if this turn's slice has room, else in a later turn. */
export function startInSlice(start: () => void): void {
  if (startsNow()) {
    start();
    return;
  }
  waiting.push({ run: start, resumes: false });
}

/**
 * Whether a piece may begin now (nothing waits and this turn's slice has room); the caller
 * then begins it at once. Lets a call that starts at once skip the deferred start's closure
 * and promise.
 */
export function startsNow(): boolean {
  return head === waiting.length && hasRoom();
}

/**
 * Null when this turn's slice has room (go on now), else a promise that resolves in a later
 * turn's slice. The work after it, up to its next wait, counts against that slice: the next
 * waiting piece is only begun once it has run.
 */
export function sliceWithRoom(): Promise<void> | null {
  if (startsNow()) return null;
  return new Promise<void>((resolve) => waiting.push({ run: resolve, resumes: true }));
}

function hasRoom(): boolean {
  const now = performance.now();
  if (sliceStarted < 0) {
    sliceStarted = now;
    begunInSlice = 1;
    setImmediate(nextSlice);
    return true;
  }
  return now - sliceStarted < SLICE_MS && ++begunInSlice <= PIECES_PER_SLICE;
}

function nextSlice(): void {
  sliceStarted = -1;
  begunInSlice = 0;
  beginWaiting();
}

function beginWaiting(): void {
  while (head < waiting.length && hasRoom()) {
    const piece = waiting[head]!;
    waiting[head++] = undefined;
    piece.run();
    // A resumed request's work runs in the microtasks queued by `run`: look at the clock again after them.
    if (piece.resumes) {
      queueMicrotask(beginWaiting);
      return;
    }
  }
  if (head === waiting.length) {
    waiting.length = 0;
    head = 0;
  }
}
