// The late-bound links of the web globals to the run: the prelude is evaluated before a
// program is linked, so host calls and error reporting are bound when `run` starts.
export type HostCaller = (op: string, ...args: unknown[]) => unknown;

/** An asynchronous host call: its promise, and a way to give up on it (the host cancels its work). */
export interface StartedCall {
  promise: Promise<unknown>;
  cancel(reason: unknown): void;
}
export type AsyncHostCaller = (op: string, ...args: unknown[]) => StartedCall;

let caller: HostCaller | null = null;
let asyncCaller: AsyncHostCaller | null = null;
let reporter: (error: unknown) => void = () => undefined;

export function bindRun(call: HostCaller, callAsync: AsyncHostCaller, report: (error: unknown) => void): void {
  caller = call;
  asyncCaller = callAsync;
  reporter = report;
}

/** A synchronous host call of the `web` module (throws the host's error). */
export function host(op: string, ...args: unknown[]): unknown {
  if (caller === null) throw new TypeError('this operation is only available while a program runs');
  return caller(op, ...args);
}

/** An asynchronous host call of the `web` module: the run keeps going while the host works. */
export function hostAsync(op: string, ...args: unknown[]): StartedCall {
  if (asyncCaller === null) throw new TypeError('this operation is only available while a program runs');
  return asyncCaller(op, ...args);
}

/** An error nothing caught in a callback (timer, microtask, listener) ends the run, as in Deno. */
export function reportError(error: unknown): void {
  reporter(error);
}
