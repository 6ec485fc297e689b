// Answering a runner's host call: the arguments parsed off the wire (bounded before parsing),
// the run's HostHandler asked, and the reply encoded and sent back, unless the run or the
// call ended meanwhile. Whatever the handler throws becomes a reply the program sees.
import { hostCallTooLarge, MAX_HOST_CALL_ARGS_CHARS, type ToRunner } from '../runner/protocol';
import type { HostCallMessage } from './report';
import type { ActiveRun, Runner } from './runs';
import type { HostReply } from './types';
import { argsFromWire, replyToWire } from './wire';

/** An error's message for a log line or a reply. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Hands a reply to its run: through the CPU gate, which holds it until the run may compute. */
export type DeliverReply = (active: ActiveRun, reply: Extract<ToRunner, { type: 'host-reply' }>, blocking: boolean) => void;

export async function answerHostCall(runner: Runner, message: HostCallMessage, deliver: DeliverReply): Promise<void> {
  const active = runner.runs.get(message.runId);
  if (!active) return;
  let reply: HostReply;
  const cancel = new AbortController();
  active.calls.set(message.callId, cancel);
  try {
    // The runner refuses these already; a message over the bound is never parsed.
    if (message.args.length > MAX_HOST_CALL_ARGS_CHARS) throw new RangeError(hostCallTooLarge(message.module, message.op, message.args.length));
    reply = await active.host({ module: message.module, op: message.op, args: argsFromWire(message.args), fuelLeft: message.fuelLeft, signal: cancel.signal, ...(message.attribution ? { attribution: message.attribution } : {}) });
  } catch (error) {
    reply = { ok: false, fuel: 0, error: { name: 'Error', message: `host call ${message.module}.${message.op} failed: ${describe(error)}` } };
  } finally {
    active.calls.delete(message.callId);
  }
  // The run ended, or the program gave up on the call, meanwhile: discard.
  if (active.settled || cancel.signal.aborted || !runner.child.connected) return;
  let wire: string;
  try {
    wire = replyToWire(reply);
  } catch (error) {
    reply = { ok: false, fuel: reply.fuel, error: { name: 'Error', message: `host call ${message.module}.${message.op}: the reply could not be encoded (${describe(error)})` } };
    wire = replyToWire(reply);
  }
  const fuel = Number.isFinite(reply.fuel) && reply.fuel >= 0 ? reply.fuel : 0;
  deliver(active, { type: 'host-reply', runId: message.runId, callId: message.callId, reply: wire, fuel }, message.blocking === true);
}
