// The host functions the runner installs in each isolate before the prelude runs. They
// are captured here and removed from the global object so programs cannot reach them.
export interface NativeReference {
  applySync(receiver: undefined, args: unknown[]): unknown;
  applySyncPromise(receiver: undefined, args: unknown[]): unknown;
}

export interface Native {
  /** (module, op, argsJson, fuelLeft) → replyJson, via the server. */
  hostCall: NativeReference;
  /** (line) → void: one console line. */
  console: NativeReference;
  /** (kind, fuelLeft?) → never returns: ends the run (the isolate is disposed). */
  limit: NativeReference;
  /** (byteCount) → base64 random bytes. */
  random: NativeReference;
  /** (input, base) → JSON of URL parts, or throws TypeError text. */
  url: NativeReference;
}

const globals = globalThis as unknown as { __svc_native?: Native };
export const native: Native = globals.__svc_native!;
delete globals.__svc_native;
