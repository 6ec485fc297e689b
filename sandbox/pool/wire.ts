// The host-call wire between the pool and a runner: the guest's arguments arrive as JSON
// text and replies leave as JSON text, bytes tagged as base64 both ways (the same wire the
// guest's own encoder uses, sandbox/prelude/wire.ts).
import { BYTES_TAG } from '../contract';
import type { HostReply } from './types';

/** Host replies carry bytes as tagged base64, the same wire the guest uses. */
export function replyToWire(reply: HostReply): string {
  return JSON.stringify(reply, (_key, value) => {
    if (value instanceof Uint8Array) return { [BYTES_TAG]: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
    if (value && typeof value === 'object' && value.type === 'Buffer' && Array.isArray(value.data)) return { [BYTES_TAG]: Buffer.from(value.data).toString('base64') };
    return value;
  });
}

/** The guest's arguments: a JSON array (bytes tagged); anything else is a TypeError reply. */
export function argsFromWire(text: string): unknown[] {
  const args: unknown = JSON.parse(text, (_key, value) =>
    value && typeof value === 'object' && typeof value[BYTES_TAG] === 'string' && Object.keys(value).length === 1 ? new Uint8Array(Buffer.from(value[BYTES_TAG], 'base64')) : value,
  );
  if (!Array.isArray(args)) throw new TypeError('the arguments did not arrive as a list');
  return args;
}
