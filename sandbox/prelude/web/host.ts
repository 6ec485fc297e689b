// The late-bound links of the web globals to the run: the prelude is evaluated before a
// program is linked, so host calls and error reporting are bound when `run` starts.
// Arguments travel as one array, never spread: a spread would call the array iterator,
// which the program may have replaced.

/** An asynchronous host call: its promise, and a way to give up on it (the host cancels its work). */
export interface StartedCall {
  promise: Promise<unknown>;
  cancel(reason: unknown): void;
}
export type AsyncHostCaller = (op: string, args: unknown[]) => StartedCall;

let asyncCaller: AsyncHostCaller | null = null;
let reporter: (error: unknown) => void = () => undefined;

export function bindRun(callAsync: AsyncHostCaller, report: (error: unknown) => void): void {
  asyncCaller = callAsync;
  reporter = report;
}

/** An asynchronous host call of the `web` module: the run keeps going while the host works. */
export function hostAsync(op: string, args: unknown[]): StartedCall {
  if (asyncCaller === null) throw new TypeError('this operation is only available while a program runs');
  return asyncCaller(op, args);
}

/** An error nothing caught in a callback (timer, microtask, listener) ends the run, as in Deno. */
export function reportError(error: unknown): void {
  reporter(error);
}
