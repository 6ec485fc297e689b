// Host calls from the isolate: arguments encoded and charged, the call made through the
// runner's native functions (blocking, or started and settled later by `deliver`), and the
// reply charged and read. In runs with Packages each call also says who made it.
import { ArrayBufferPrototypeGetByteLength, ArrayIsArray, ArrayPrototypePush, fuelUnits, isArrayBuffer, MathCeil, own, onFirstUse, PromiseCtor, SafeMap, StringPrototypeSlice } from './primordials';
import { native } from './native';
import { guestError } from './errors';
import { decodeWire, encodeArgs } from './wire';
import { attribute, attributeAs } from './attribution';
import type { StartedCall } from './web';
import type { Meter } from './meter';

/** True once the run loads Packages: every host call then says who made it. */
let attributing = false;

/** From now on every host call says who made it (set before any Package or program code runs). */
export function attributeCalls(): void {
  attributing = true;
}

/** Whether host calls say who made them (the run loads Packages). */
export function attributesCalls(): boolean {
  return attributing;
}

/** Who makes a call, when the run attributes calls: a namespace function is its owner's; a global (fetch, timers) is whoever's code runs. */
type CallMaker = { caller: unknown; consumer: unknown } | null;

/** A call's arguments encoded from the data itself and charged (one unit per 8 bytes, two bytes per UTF-16 unit). */
function startCall(meter: Meter, module: string, op: string, args: readonly unknown[], owner: string | null): { what: string; wire: string; who: CallMaker } {
  const what = `${StringPrototypeSlice(module, 4)}.${op}`;
  // Nothing has left the isolate yet: the runner discards this attempt and runs the program again where it may call out.
  if (native.mayBlock() !== true) throw new Error(`${what}: the run is being restarted so that it can call the host`);
  const wire = encodeArgs(args, what);
  meter.take(MathCeil((wire.length * 2) / 8));
  return { what, wire, who: attributing ? (owner === null ? attribute() : attributeAs(owner)) : null };
}

/**
 * A reply's value, charged with captured arithmetic; a refusal or failure is thrown as the
 * guest sees it. The runner hands the reply's text, or (when it carries bytes) a fresh array
 * of the text followed by the bytes' ArrayBuffers.
 */
function replyValue(meter: Meter, raw: unknown): unknown {
  let replyText = raw;
  let blobs: unknown[] = [];
  if (ArrayIsArray(raw)) {
    replyText = own(raw, 0);
    blobs = raw;
    for (let i = 1; i < raw.length; i++) {
      const buffer = own(raw, i);
      if (isArrayBuffer(buffer)) meter.take(MathCeil(ArrayBufferPrototypeGetByteLength(buffer) / 8));
    }
  }
  if (typeof replyText !== 'string') throw new Error('the host sent no reply');
  meter.take(MathCeil((replyText.length * 2) / 8));
  const reply = decodeWire(replyText, ArrayIsArray(raw) ? shiftedBlobs(blobs) : []);
  meter.take(fuelUnits(own(reply, 'fuel')));
  if (own(reply, 'ok') === true) return own(reply, 'value');
  throw guestError(own(reply, 'error'));
}

/** The reply's ArrayBuffers in tag order (the array's first item is the text). */
function shiftedBlobs(raw: unknown[]): unknown[] {
  const blobs: unknown[] = [];
  for (let i = 1; i < raw.length; i++) ArrayPrototypePush(blobs, own(raw, i));
  return blobs;
}

/** One host call, blocking the isolate until the reply. */
export function hostCall(meter: Meter, module: string, op: string, args: readonly unknown[], owner: string | null = null): unknown {
  const { what, wire, who } = startCall(meter, module, op, args, owner);
  const reply = who === null ? native.hostCall(module, op, wire, meter.left()) : native.hostCall(module, op, wire, meter.left(), who.caller, who.consumer);
  if (typeof reply !== 'string' && !ArrayIsArray(reply)) throw new Error(`${what}: the host sent no reply`);
  return replyValue(meter, reply);
}

/** Asynchronous host calls in flight: settled by `deliver` when the runner has the reply. */
interface PendingCall {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  meter: Meter;
}
const pendingCalls = onFirstUse(() => new SafeMap<number, PendingCall>());

/**
 * One host call that does not block the isolate: started now (arguments encoded and charged
 * as for a synchronous call), settled when the runner delivers the reply (the reply charged
 * then). Waiting costs no fuel; the same calls charge the same fuel in any order.
 */
export function hostCallAsync(meter: Meter, module: string, op: string, args: readonly unknown[], owner: string | null = null): StartedCall {
  const { what, wire, who } = startCall(meter, module, op, args, owner);
  const id = who === null ? native.hostStart(module, op, wire, meter.left()) : native.hostStart(module, op, wire, meter.left(), who.caller, who.consumer);
  if (typeof id !== 'number') throw new Error(`${what}: ${typeof id === 'string' ? id : 'the host did not start the call'}`);
  const callId = id;
  let settle: PendingCall | undefined;
  const promise = new PromiseCtor<unknown>((resolve, reject) => {
    settle = { resolve, reject, meter };
  });
  pendingCalls().set(callId, settle!);
  return {
    promise,
    cancel() {
      if (pendingCalls().delete(callId)) native.hostCancel(callId);
    },
  };
}

/** The runner delivers a reply (microtasks drain after this call, on the isolate's thread). */
export function deliver(callId: number, replyText: unknown): void {
  const pending = pendingCalls().get(callId);
  if (pending === undefined) return;
  pendingCalls().delete(callId);
  try {
    pending.resolve(replyValue(pending.meter, replyText));
  } catch (error) {
    pending.reject(error);
  }
}
