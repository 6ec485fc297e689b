// The host functions the runner installs in each isolate before the prelude runs. They
// are captured here (with their call methods, so nothing is looked up later) and removed
// from the global object so programs cannot reach them.
import { own, ReflectApply } from './primordials';

interface NativeReference {
  applySync(receiver: undefined, args: unknown[]): unknown;
  applySyncPromise(receiver: undefined, args: unknown[]): unknown;
}

type Call = (...args: unknown[]) => unknown;

function sync(reference: NativeReference): Call {
  const apply = reference.applySync;
  return (...args: unknown[]) => ReflectApply(apply, reference, [undefined, args]);
}

function blocking(reference: NativeReference): Call {
  const apply = reference.applySyncPromise;
  return (...args: unknown[]) => ReflectApply(apply, reference, [undefined, args]);
}

const globals = globalThis as unknown as { __svc_native?: Record<string, NativeReference> };
const installed = globals.__svc_native!;
delete globals.__svc_native;

export const native = {
  /** (module, op, argsJson, fuelLeft) -> replyJson, via the server (blocks the isolate). */
  hostCall: blocking(own(installed, 'hostCall')),
  /**
   * (module, op, argsJson, fuelLeft) -> call id: starts a host call without blocking; the
   * runner delivers the reply through the entry's `deliver` (a number: started; else refused).
   */
  hostStart: sync(own(installed, 'hostStart')),
  /** (callId) -> void: the program gave up on the call; the host cancels its work. */
  hostCancel: sync(own(installed, 'hostCancel')),
  /** (line) -> void: one console line. */
  console: sync(own(installed, 'console')),
  /** (kind, fuelLeft?, stack?) -> never returns: ends the run (the isolate is disposed). */
  limit: sync(own(installed, 'limit')),
  /**
   * () -> true when a host call may block the isolate. False while the runner runs the
   * program synchronously on its own thread (a fast first attempt for programs that seem
   * to need no host): the runner then starts the run again, asynchronously.
   */
  mayBlock: sync(own(installed, 'mayBlock')),
  /** () -> the run's clock in ms since the epoch (journalled: a replay reads the recorded value). */
  clock: sync(own(installed, 'clock')),
  /** (byteCount) -> base64 random bytes. */
  random: sync(own(installed, 'random')),
  /** (input, base) -> JSON of URL parts, or of the failure. */
  url: sync(own(installed, 'url')),
} as const;
