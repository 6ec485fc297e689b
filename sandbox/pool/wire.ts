// The host-call wire between the pool and a runner: the guest's arguments arrive as JSON
// text (bytes tagged as base64, the guest encoder's wire, sandbox/prelude/wire.ts); replies
// leave as JSON text whose bytes are left out of the text: each Uint8Array becomes
// `{ [BYTES_TAG]: n }`, n its index in the reply's list of blobs, which travel as binary
// over the runner's channel (no base64, no JSON escaping of guest-sized data).
import { BYTES_TAG } from '../contract';
import { hostCallTooLarge, MAX_HOST_CALL_ARGS_CHARS } from '../runner/protocol';
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

/**
 * A long string argument of an operation that takes text as bytes (`textAsBytes`,
 * src/stdlib/types.ts): its UTF-8 bytes, encoded where the arguments were parsed (a host
 * worker thread) and moved to the server's thread without a copy, so a 16 MiB text is never
 * copied, re-encoded or held in the server's heap as a string.
 */
export class TextBytes {
  constructor(readonly bytes: Uint8Array) {}
}

/** Top-level string arguments at least this long become TextBytes when the operation takes them. */
export const TEXT_AS_BYTES_CHARS = 64 * 1024;

/** Large arguments as a host worker decodes them: a plain value to post back, with the buffers to move. */
export interface DecodedArgs {
  args: unknown[];
  /** Positions in `args` that hold the UTF-8 bytes of a string argument (TextBytes once back). */
  texts: number[];
  /** Buffers the decoding allocated, moved (not copied) to the server's thread. */
  transfer: ArrayBuffer[];
}

/** argsFromWire in a host worker; with `textAsBytes`, long top-level strings leave as UTF-8 bytes. */
export function decodeArgsOffThread({ text, textAsBytes, call }: { text: string | Uint8Array[]; textAsBytes: boolean; call: { module: string; op: string } }): DecodedArgs {
  const transfer: ArrayBuffer[] = [];
  const json = typeof text === 'string' ? text : Buffer.concat(text).toString('utf8');
  // Pieces are bounded in bytes; the characters are bounded as the runner bounds them.
  if (json.length > MAX_HOST_CALL_ARGS_CHARS) throw new RangeError(hostCallTooLarge(call.module, call.op, json.length));
  const args = argsFromWire(json, transfer);
  const texts: number[] = [];
  if (textAsBytes) {
    for (let i = 0; i < args.length; i++) {
      const value = args[i];
      if (typeof value !== 'string' || value.length < TEXT_AS_BYTES_CHARS) continue;
      const bytes = new Uint8Array(Buffer.byteLength(value, 'utf8'));
      Buffer.from(bytes.buffer, 0, bytes.byteLength).write(value, 'utf8');
      args[i] = bytes;
      texts.push(i);
      transfer.push(bytes.buffer as ArrayBuffer);
    }
  }
  return { args, texts, transfer };
}

/** The server's side of decodeArgsOffThread: the positions it names become TextBytes. */
export function argsFromDecoded({ args, texts }: Pick<DecodedArgs, 'args' | 'texts'>): unknown[] {
  for (const i of texts) if (args[i] instanceof Uint8Array) args[i] = new TextBytes(args[i] as Uint8Array);
  return args;
}

/**
 * The guest's arguments: a JSON array (bytes tagged); anything else is a TypeError reply.
 * `transfer` hears each tagged value's buffer (its own, allocated here).
 */
export function argsFromWire(text: string, transfer?: ArrayBuffer[]): unknown[] {
  // Most calls carry no bytes (a fan-out's fetches): JSON.parse without a reviver is several
  // times faster, and a tag is always spelled out in the guest encoder's text (JSON.stringify
  // escapes no letter), so text without it holds nothing to revive.
  const args: unknown = !text.includes(BYTES_TAG) ? JSON.parse(text) : JSON.parse(text, (_key, value) => {
    if (!(value && typeof value === 'object' && typeof value[BYTES_TAG] === 'string' && Object.keys(value).length === 1)) return value;
    const bytes = new Uint8Array(Buffer.from(value[BYTES_TAG], 'base64'));
    transfer?.push(bytes.buffer as ArrayBuffer);
    return bytes;
  });
  if (!Array.isArray(args)) throw new TypeError('the arguments did not arrive as a list');
  return args;
}
