// A host call whose arguments are long leaves in pieces of UTF-8 (./protocol.ts
// ARGS_IN_PIECES_CHARS): each piece is its own message, so the server moves at most
// ARGS_PIECE_BYTES per message instead of one 16 MiB string in one turn of its event loop.
import { ARGS_IN_PIECES_CHARS, ARGS_PIECE_BYTES, type FromRunner } from './protocol';

type HostCallMessage = Extract<FromRunner, { type: 'host-call' }>;

/** Sends `message`, its arguments ahead in pieces when they are long. */
export function sendHostCall(message: HostCallMessage, send: (message: FromRunner) => void): void {
  const text = message.args;
  if (text.length <= ARGS_IN_PIECES_CHARS) return send(message);
  const encoder = new TextEncoder();
  let read = 0;
  let bytes = 0;
  while (read < text.length) {
    const piece = new Uint8Array(ARGS_PIECE_BYTES);
    // encodeInto never splits a surrogate pair: a piece ends where a whole character fits.
    const done = encoder.encodeInto(read === 0 ? text : text.substring(read), piece);
    read += done.read;
    bytes += done.written;
    send({ type: 'host-call-args', runId: message.runId, callId: message.callId, piece: done.written === piece.length ? piece : piece.subarray(0, done.written) });
  }
  send({ ...message, args: '', argsBytes: bytes });
}
