// The host-call wire between the pool and a runner: the guest's arguments arrive as JSON
// text (bytes tagged as base64, the guest encoder's wire, sandbox/prelude/wire.ts); replies
// leave as JSON text whose bytes are left out of the text: each Uint8Array becomes
// `{ [BYTES_TAG]: n }`, n its index in the reply's list of blobs, which travel as binary
// over the runner's channel (no base64, no JSON escaping of guest-sized data).
import { BYTES_TAG } from '../contract';
import type { HostReply } from './types';

/** A reply for the wire: its JSON text and the bytes the text refers to by index (null: sent ahead in chunks). */
export interface WireReply {
  text: string;
  blobs: Array<Uint8Array | null>;
}

/** In a reply, the bytes its call already sent to the runner with `sendBytes` (HostCall, ./types.ts). */
export class StreamedBytes {
  constructor(readonly byteLength: number) {}
}

export function replyToWire(reply: HostReply): WireReply {
  const blobs: Array<Uint8Array | null> = [];
  const text = JSON.stringify(reply, (_key, value) => {
    if (value instanceof StreamedBytes) {
      blobs.push(null);
      return { [BYTES_TAG]: blobs.length - 1 };
    }
    if (value instanceof Uint8Array) {
      blobs.push(value);
      return { [BYTES_TAG]: blobs.length - 1 };
    }
    if (value && typeof value === 'object' && value.type === 'Buffer' && Array.isArray(value.data)) {
      blobs.push(Uint8Array.from(value.data as number[]));
      return { [BYTES_TAG]: blobs.length - 1 };
    }
    return value;
  });
  return { text, blobs };
}

/** The guest's arguments: a JSON array (bytes tagged); anything else is a TypeError reply. */
export function argsFromWire(text: string): unknown[] {
  const args: unknown = JSON.parse(text, (_key, value) =>
    value && typeof value === 'object' && typeof value[BYTES_TAG] === 'string' && Object.keys(value).length === 1 ? new Uint8Array(Buffer.from(value[BYTES_TAG], 'base64')) : value,
  );
  if (!Array.isArray(args)) throw new TypeError('the arguments did not arrive as a list');
  return args;
}
