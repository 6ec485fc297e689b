// Waiting on work that goes on by itself, but no longer than a signal allows: the MCP client's
// calls (src/mcp/client) and a run's type check (./typecheck) stop waiting when their signal
// aborts, while the work they waited on finishes (or fails) unobserved.

/**
 * The work's outcome, or a rejection with `reason()` (the signal's reason by default) as soon as
 * the signal aborts. The work's own later failure is then handled, never an unhandled rejection.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, reason: () => unknown = () => signal.reason): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(reason());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
