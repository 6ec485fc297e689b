// The late-bound links of the web globals to the run: the prelude is evaluated before a
// program is linked, so host calls and error reporting are bound when `run` starts.
export type HostCaller = (op: string, ...args: unknown[]) => unknown;

let caller: HostCaller | null = null;
let reporter: (error: unknown) => void = () => undefined;

export function bindRun(call: HostCaller, report: (error: unknown) => void): void {
  caller = call;
  reporter = report;
}

/** A synchronous host call of the `web` module (throws the host's error). */
export function host(op: string, ...args: unknown[]): unknown {
  if (caller === null) throw new TypeError('this operation is only available while a program runs');
  return caller(op, ...args);
}

/** An error nothing caught in a callback (timer, microtask, listener) ends the run, as in Deno. */
export function reportError(error: unknown): void {
  reporter(error);
}
