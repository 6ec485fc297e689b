// Answering a runner's host call: the arguments parsed off the wire (bounded before parsing;
// large ones parsed in a worker thread, off the server's event loop),
// the run's HostHandler asked, and the reply encoded and sent back, unless the run or the
// call ended meanwhile. Whatever the handler throws becomes a reply the program sees.
// A reply's bytes travel as binary; a large blob goes in bounded chunks, one per event-loop
// turn, so a 50 MiB body never holds the server's event loop. An operation may send its
// reply's bytes while it reads them (HostCall.sendBytes: a response body as it arrives, each
// chunk once the one before was written), so the server never holds a whole body. Calls start in bounded slices
// of the loop (../loop-slices.ts), so a fan-out of thousands never holds it either.
import { hostCallTooLarge, MAX_HOST_CALL_ARGS_CHARS, REPLY_CHUNK_BYTES, type ToRunner } from '../runner/protocol';
import type { HostCallMessage } from './report';
import type { ActiveRun, Runner } from './runs';
import type { HostReply } from './types';
import { startInSlice, startsNow } from '../loop-slices';
import { argsFromWire, replyToWire, type WireReply } from './wire';
import { textOfPieces } from './args-pieces';
import { WriteWindow } from './write-window';

/** An error's message for a log line or a reply. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Hands a reply to its run: through the CPU gate, which holds it until the run may compute. */
export type DeliverReply = (active: ActiveRun, reply: Extract<ToRunner, { type: 'host-reply' }>, blocking: boolean) => void;

/** Stops the run's time limit while a call's work waits for a person (clock.ts). */
export type WhileWaiting = <T>(active: ActiveRun, work: Promise<T>) => Promise<T>;

/**
 * Decodes arguments whose text is over INLINE_ARGS_CHARS off the server's event loop (the
 * server passes its worker threads); `tenant` takes turns with the other tokens' work there.
 * `call` names the operation (one that takes text as bytes gets its long strings as TextBytes, ./wire.ts).
 */
export type LargeArgsDecoder = (text: string | Uint8Array[], tenant: string, signal: AbortSignal, call: { module: string; op: string }) => Promise<unknown[]>;

/**
 * Argument text parsed on the event loop; longer text goes to the decoder. JSON.parse of
 * 64 KiB took 0.1-0.4 ms here, of 256 KiB 1-7 ms, of 16 MiB 0.2-1.1 s (strings, base64
 * bytes, arrays of numbers; a shared 2-core machine), while handing a string to a worker
 * costs a copy.
 */
export const INLINE_ARGS_CHARS = 256 * 1024;

function decodeArgs(message: HostCallMessage, active: ActiveRun, signal: AbortSignal, decodeLarge: LargeArgsDecoder | undefined): unknown[] | Promise<unknown[]> {
  // Sent ahead in pieces (./args-pieces.ts): moved to the decoder as they are.
  if (message.argsBytes !== undefined) {
    if (!message.pieces) throw new Error('the arguments did not arrive whole');
    return decodeLarge ? decodeLarge(message.pieces, active.tenant, signal, message) : argsFromWire(textOfPieces(message.pieces));
  }
  return decodeLarge && message.args.length > INLINE_ARGS_CHARS ? decodeLarge(message.args, active.tenant, signal, message) : argsFromWire(message.args);
}

/**
 * The host's answer to one call; never rejects (a failure is a reply the program sees). The
 * call starts in the event loop's next slice with room (../loop-slices.ts). A call the run
 * made before its runner was lost is not asked again: the run resumed from its journal makes
 * it again under the same start index (`call`), and gets the same answer, awaited or already
 * given (ActiveRun.outstanding).
 */
function hostWork(runner: Runner, active: ActiveRun, message: HostCallMessage, whileWaiting: WhileWaiting, decodeLarge: LargeArgsDecoder | undefined): { reply: Promise<HostReply>; cancel: AbortController } {
  const capability = `${message.module}.${message.op}`;
  const known = message.call < 0 ? undefined : active.outstanding.get(message.call);
  const args = argsIdentity(message);
  if (known && known.capability === capability && known.args === args) return known;
  const cancel = new AbortController();
  const reply = startsNow() ? askHost(runner, active, message, cancel.signal, whileWaiting, decodeLarge) : new Promise<HostReply>((resolve) => startInSlice(() => resolve(askHost(runner, active, message, cancel.signal, whileWaiting, decodeLarge))));
  // Kept until the run's streamed journal names its answer (a journalled run may be resumed).
  if (message.call >= 0 && active.journal?.keeping) active.outstanding.set(message.call, { capability, args, reply, cancel });
  return { reply, cancel };
}

let unnamed = 0;

/**
 * What names a call's arguments for a resumed run (ActiveRun.outstanding): their text, or
 * for arguments sent in pieces the journal's digest of the call (without one, never matched).
 */
function argsIdentity(message: HostCallMessage): string {
  if (message.argsBytes === undefined) return message.args;
  return message.argsDigest !== undefined ? `\u0000digest:${message.argsDigest}` : `\u0000unnamed:${++unnamed}`;
}

/**
 * Not an async function: a call waiting on the far end keeps no suspended frame here (a
 * fan-out holds thousands), only the handler's promise and the fallback below.
 */
function askHost(runner: Runner, active: ActiveRun, message: HostCallMessage, signal: AbortSignal, whileWaiting: WhileWaiting, decodeLarge: LargeArgsDecoder | undefined): Promise<HostReply> {
  const failed = (error: unknown): HostReply => ({ ok: false, fuel: 0, error: { name: 'Error', message: `host call ${message.module}.${message.op} failed: ${describe(error)}` } });
  try {
    // Given up, or its run ended, while it waited for a slice: the host is not asked.
    if (signal.aborted || active.settled) throw new Error('the call ended before it started');
    // The runner refuses these already; a message over the bound is never parsed.
    if (message.args.length > MAX_HOST_CALL_ARGS_CHARS) throw new RangeError(hostCallTooLarge(message.module, message.op, message.args.length));
    const args = decodeArgs(message, active, signal, decodeLarge);
    // A journal keeps whole answers (a resumed run gets them again): its runs' bytes are
    // streamed only past the journal's room, an answer it could not hold (the journal is
    // then given up), so a 50 MiB body is never gathered whole in the server's heap.
    const journal = active.journal;
    const sendBytesPast = journal?.keeping ? journal.room : undefined;
    const sendBytes = (chunk: Uint8Array) => {
      if (journal?.keeping) journal.giveUpForLargeAnswer();
      return sendChunk(runner, active, signal, message, 0, chunk);
    };
    // One shape for every call (no spreads: a spread literal got a map of its own per call).
    const ask = (decoded: unknown[]) => active.host({ module: message.module, op: message.op, args: decoded, fuelLeft: message.fuelLeft, signal, waiting: (work) => whileWaiting(active, work), attribution: message.attribution, sendBytes, sendBytesPast });
    return (Array.isArray(args) ? ask(args) : args.then(ask)).then(undefined, failed);
  } catch (error) {
    return Promise.resolve(failed(error));
  }
}

/**
 * Not an async function: while the call waits, this keeps one reaction on the handler's
 * promise (no suspended frame); the reply is delivered by `deliverReply` once it is there.
 */
export function answerHostCall(runner: Runner, message: HostCallMessage, deliver: DeliverReply, whileWaiting: WhileWaiting, decodeLarge?: LargeArgsDecoder): Promise<void> {
  const active = runner.runs.get(message.runId);
  if (!active) return Promise.resolve();
  const placement = active.placement;
  const { reply: work, cancel } = hostWork(runner, active, message, whileWaiting, decodeLarge);
  active.calls.set(message.callId, cancel);
  return work.then((reply) => {
    // A run resumed on another runner may have reused the id meanwhile.
    if (active.calls.get(message.callId) === cancel) active.calls.delete(message.callId);
    return deliverReply(runner, active, message, deliver, cancel, placement, reply);
  });
}

/** The call's reply encoded and handed to its run (large blobs ahead of it, in chunks), unless the run or the call ended or moved. */
async function deliverReply(runner: Runner, active: ActiveRun, message: HostCallMessage, deliver: DeliverReply, cancel: AbortController, placement: number, reply: HostReply): Promise<void> {
  // The run ended, or the program gave up on the call, meanwhile: discard.
  // The run moved meanwhile (parked, or resumed elsewhere): its calls' ids there are new; the resumed run asks again.
  if (active.settled || cancel.signal.aborted || !runner.child.connected || active.placement !== placement) return;
  // Whether the answer holds a secret travels beside the reply, never inside the text the guest reads.
  const withheld = reply.withheld === true;
  if (withheld) {
    const { withheld: _flag, ...plain } = reply;
    reply = plain;
  }
  let wire: WireReply;
  try {
    wire = replyToWire(reply);
  } catch (error) {
    reply = { ok: false, fuel: reply.fuel, error: { name: 'Error', message: `host call ${message.module}.${message.op}: the reply could not be encoded (${describe(error)})` } };
    wire = replyToWire(reply);
  }
  const fuel = Number.isFinite(reply.fuel) && reply.fuel >= 0 ? reply.fuel : 0;
  // The runner's journal names this answer by call id; the pool keeps it until then (not sent back).
  const whole = wire.blobs.every((bytes) => bytes !== null) ? (wire.blobs as Uint8Array[]) : null;
  if (!withheld && whole && active.journal?.keeping) active.journal.sent(message.callId, { reply: wire.text, blobs: whole });
  const blobs: Array<Uint8Array | null> = [];
  for (let blob = 0; blob < wire.blobs.length; blob++) {
    const bytes = wire.blobs[blob];
    // Already sent while the host read them (HostCall.sendBytes).
    if (bytes === null || bytes.byteLength <= REPLY_CHUNK_BYTES) {
      blobs.push(bytes);
      continue;
    }
    blobs.push(null);
    if (!(await sendInChunks(runner, active, cancel.signal, message, blob, bytes))) return;
  }
  if (active.placement !== placement) return;
  deliver(active, { type: 'host-reply', runId: message.runId, callId: message.callId, reply: wire.text, ...(blobs.length > 0 ? { blobs } : {}), fuel, ...(withheld ? { withheld: true as const } : {}) }, message.blocking === true);
}

/**
 * Sends one large blob ahead of its reply, a chunk at a time, each after the one before
 * was written (the next turn of the event loop, and at most one chunk per call queued in
 * the channel). False when the run or the call ended meanwhile: the rest is not sent.
 */
async function sendInChunks(runner: Runner, active: ActiveRun, cancelled: AbortSignal, message: HostCallMessage, blob: number, bytes: Uint8Array): Promise<boolean> {
  for (let offset = 0; offset < bytes.byteLength; offset += REPLY_CHUNK_BYTES) {
    if (!(await sendChunk(runner, active, cancelled, message, blob, bytes.subarray(offset, Math.min(bytes.byteLength, offset + REPLY_CHUNK_BYTES))))) return false;
  }
  return true;
}

/** Reply bytes (all runs) sent to runners' channels and not yet written: past this, a chunk waits its turn. */
const MAX_BYTES_UNWRITTEN = 64 * 1024 * 1024;
const replyWindow = new WriteWindow(MAX_BYTES_UNWRITTEN);

/**
 * One chunk of a reply's blob, ahead of the reply; resolves once the channel wrote it. False
 * when the run or the call ended (or moved) meanwhile: the rest is not sent.
 */
function sendChunk(runner: Runner, active: ActiveRun, cancelled: AbortSignal, message: HostCallMessage, blob: number, chunk: Uint8Array): Promise<boolean> {
  if (active.settled || cancelled.aborted || !runner.child.connected) return Promise.resolve(false);
  return replyWindow.write(chunk.byteLength, () => {
    // Checked again: the chunk may have waited for room.
    if (active.settled || cancelled.aborted || !runner.child.connected) return Promise.resolve(false);
    const part: ToRunner = { type: 'host-reply-bytes', runId: message.runId, callId: message.callId, blob, chunk };
    return new Promise<boolean>((resolve) => {
      try {
        runner.child.send(part, (error) => resolve(!error));
      } catch {
        resolve(false);
      }
    });
  });
}
