// Host calls stopped in bounded slices: a fan-out of thousands of calls that end at once
// (a program's timeout abandons them, their run ends, or their own time limits expire
// together), each a socket to close, an error and an abort signal's listeners to run, is
// spread over event-loop turns instead of holding one. The pool's reasons are shared:
// nobody reads an abandoned call's error (its reply is discarded), so none needs a stack.

/** Calls stopped per event-loop turn. */
const CALLS_PER_TURN = 64;

/** The reason a call the program aborted is stopped with. */
export const PROGRAM_ABORTED = Object.freeze(new DOMException('the program aborted the call', 'AbortError'));
/** The reason the calls of a run that ended are stopped with. */
export const RUN_ENDED = Object.freeze(new DOMException('the run has ended', 'AbortError'));

const queue: Array<() => void> = [];
let head = 0;
let scheduled = false;

/** Runs `step` (stopping one call) in the next slice with room: a later turn of the event loop. */
function inSlice(step: () => void): void {
  queue.push(step);
  if (scheduled) return;
  scheduled = true;
  setImmediate(drain);
}

/** Stops the call soon, in the next slice with room. */
export function abortSoon(call: AbortController, reason: unknown): void {
  inSlice(() => call.abort(reason));
}

function drain(): void {
  const end = Math.min(queue.length, head + CALLS_PER_TURN);
  for (; head < end; head++) {
    const step = queue[head];
    queue[head] = undefined as never;
    step();
  }
  if (head < queue.length) {
    setImmediate(drain);
    return;
  }
  queue.length = 0;
  head = 0;
  scheduled = false;
}
