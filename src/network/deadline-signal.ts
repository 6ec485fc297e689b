// A cancel signal with a time limit: it aborts when any of its sources does or when the time
// runs out, whichever comes first. One controller, one timer, one listener per source, all
// dropped by `release()` (or by the abort itself).
//
// Not `AbortSignal.any([..., AbortSignal.timeout(ms)])`: on Node 20 a timeout signal that only
// such a composite holds can be garbage-collected before its time, and the composite then never
// aborts for it. A held `GET /v1/runs/{id}?wait=1` answered after 30 s that way, once a
// collection ran inside its second.

/** The reason a signal past its time limit aborts with, as `AbortSignal.timeout` gives. */
export function timeoutReason(): DOMException {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}

export interface DeadlineSignal {
  signal: AbortSignal;
  /** Drops the timer and the listeners (the call is over); the signal no longer aborts. */
  release(): void;
}

/**
 * `sources` may hold undefined (a signal the caller may not have). `onTimeout` aborts the
 * controller when the time runs out; by default with a TimeoutError at once.
 */
export function deadlineSignal(sources: ReadonlyArray<AbortSignal | undefined>, timeoutMs: number, onTimeout: (controller: AbortController) => void = (controller) => controller.abort(timeoutReason())): DeadlineSignal {
  const controller = new AbortController();
  const present = sources.filter((source): source is AbortSignal => source !== undefined);
  const already = present.find((source) => source.aborted);
  if (already) {
    controller.abort(already.reason);
    return { signal: controller.signal, release: () => {} };
  }
  const release = () => {
    clearTimeout(timer);
    for (const source of present) source.removeEventListener('abort', onSourceAbort);
  };
  function onSourceAbort(this: AbortSignal) {
    release();
    controller.abort(this.reason);
  }
  const timer = setTimeout(() => {
    release();
    onTimeout(controller);
  }, timeoutMs);
  // Like AbortSignal.timeout's: a pending limit alone does not keep the process alive.
  timer.unref();
  for (const source of present) source.addEventListener('abort', onSourceAbort, { once: true });
  return { signal: controller.signal, release };
}
