// The server's side of arguments sent in pieces (sandbox/runner/args-pieces.ts): each piece
// is copied into a buffer of its own as it arrives (at most ARGS_PIECE_BYTES per message),
// and the call that follows takes them all, to be moved (not copied) to a host worker thread
// that decodes them. A runner sends a call's pieces and then the call, back to back, so at
// most one call's pieces wait here at a time.
import { MAX_HOST_CALL_ARGS_BYTES } from '../runner/protocol';
import type { HostCallMessage } from './report';

export class ArgsPieces {
  private readonly calls = new Map<string, { pieces: Uint8Array[]; bytes: number }>();
  private bytes = 0;

  /** Keeps a copy of `piece`; false past MAX_HOST_CALL_ARGS_BYTES waiting (the runner broke the protocol). */
  add(runId: number, callId: number, piece: Uint8Array): boolean {
    if (this.bytes + piece.byteLength > MAX_HOST_CALL_ARGS_BYTES) return false;
    const key = `${runId}:${callId}`;
    let call = this.calls.get(key);
    if (!call) this.calls.set(key, (call = { pieces: [], bytes: 0 }));
    // A copy: the piece is a view into the channel's read buffer, which the next message may share.
    call.pieces.push(new Uint8Array(piece));
    call.bytes += piece.byteLength;
    this.bytes += piece.byteLength;
    return true;
  }

  /** The pieces of `call`'s arguments, taken; null unless exactly `argsBytes` arrived. */
  take(call: HostCallMessage): Uint8Array[] | null {
    const key = `${call.runId}:${call.callId}`;
    const found = this.calls.get(key);
    this.calls.delete(key);
    if (found) this.bytes -= found.bytes;
    return (found?.bytes ?? 0) === call.argsBytes ? (found?.pieces ?? []) : null;
  }
}

/** The arguments' text from their pieces (where no worker thread decodes them). */
export function textOfPieces(pieces: readonly Uint8Array[]): string {
  return Buffer.concat(pieces).toString('utf8');
}
