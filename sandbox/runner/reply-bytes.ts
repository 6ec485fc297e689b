// A host reply's bytes on the runner's side: blobs arrive as binary, large ones in chunks
// ahead of their reply (sandbox/pool/host-calls.ts). Whatever a call's bytes would add to
// the run's isolate counts against its memory limit as it arrives: a reply bigger than the
// memory the run has left ends the run as memory_exhausted instead of being copied in.
import ivm from 'isolated-vm';
import { memoryInUse } from './engines';
import type { HostReplyBytesMessage, HostReplyMessage } from './protocol';

/** Chunks received for a call's large blobs, by call id. */
export interface IncomingBytes {
  bytes: number;
  blobs: Map<number, Uint8Array[]>;
}

/** What this module reads of a run's slot (context.ts's Slot), narrow so the two need not import each other. */
export interface ReplySlot {
  isolate: ivm.Isolate;
  live: boolean;
  limit: unknown;
  pendingCalls: ReadonlyMap<number, unknown>;
  incoming: Map<number, IncomingBytes>;
  memoryLimitBytes: number;
}

/** The run has room for `bytes` more in its isolate; if not, `outOfRoom` ends it (as memory_exhausted). */
function roomFor(slot: ReplySlot, bytes: number, outOfRoom: () => void): boolean {
  if (slot.isolate.isDisposed) return false;
  let inUse: number;
  try {
    inUse = memoryInUse(slot.isolate);
  } catch {
    return false;
  }
  if (inUse + bytes <= slot.memoryLimitBytes) return true;
  outOfRoom();
  return false;
}

/** One chunk of a large blob: kept for its reply, unless the call is gone or the run has no room. */
export function receiveChunk(slot: ReplySlot, message: HostReplyBytesMessage, outOfRoom: () => void): void {
  if (!slot.live || slot.limit !== null || !slot.pendingCalls.has(message.callId)) return;
  if (!(message.chunk instanceof Uint8Array) || !Number.isInteger(message.blob)) return;
  let incoming = slot.incoming.get(message.callId);
  if (!incoming) slot.incoming.set(message.callId, (incoming = { bytes: 0, blobs: new Map() }));
  incoming.bytes += message.chunk.byteLength;
  if (!roomFor(slot, incoming.bytes, outOfRoom)) {
    slot.incoming.delete(message.callId);
    return;
  }
  const chunks = incoming.blobs.get(message.blob);
  if (chunks) chunks.push(message.chunk);
  else incoming.blobs.set(message.blob, [message.chunk]);
}

/** The reply as the guest receives it: its text alone, or a copy of [text, ...blobs as ArrayBuffers]; null when the run has no room. */
export function guestReply(slot: ReplySlot, message: HostReplyMessage, outOfRoom: () => void): { value: string | ivm.Copy<unknown>; bytes: number } | null {
  const incoming = slot.incoming.get(message.callId);
  slot.incoming.delete(message.callId);
  const listed = Array.isArray(message.blobs) ? message.blobs : [];
  if (listed.length === 0) return { value: message.reply, bytes: 0 };
  const buffers: ArrayBuffer[] = [];
  let bytes = 0;
  for (let index = 0; index < listed.length; index++) {
    const inline = listed[index];
    const parts = inline instanceof Uint8Array ? [inline] : (incoming?.blobs.get(index) ?? []);
    const buffer = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
    let offset = 0;
    for (const part of parts) {
      buffer.set(part, offset);
      offset += part.byteLength;
    }
    bytes += buffer.byteLength;
    buffers.push(buffer.buffer);
  }
  // The copy into the isolate needs this much room beside what the run holds.
  if (!roomFor(slot, bytes, outOfRoom)) return null;
  return { value: new ivm.ExternalCopy([message.reply, ...buffers], { transferList: buffers }).copyInto({ release: true }), bytes };
}
