// Long host-call arguments: the runner sends them ahead of the call in pieces of UTF-8 of
// bounded size, the server keeps each piece in a buffer of its own and hands them to the
// decoder, which gives a file operation its long text as bytes (TextBytes), never as a string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendHostCall } from '../../../sandbox/runner/args-pieces';
import { ARGS_IN_PIECES_CHARS, ARGS_PIECE_BYTES, MAX_HOST_CALL_ARGS_BYTES, type FromRunner } from '../../../sandbox/runner/protocol';
import { ArgsPieces } from '../../../sandbox/pool/args-pieces';
import { readArgsPiece, readHostCall, type HostCallMessage } from '../../../sandbox/pool/report';
import { argsFromDecoded, decodeArgsOffThread, TextBytes } from '../../../sandbox/pool/wire';
import { BYTES_TAG } from '../../../sandbox/contract';

type Call = Extract<FromRunner, { type: 'host-call' }>;

const call = (args: string): Call => ({ type: 'host-call', runId: 7, callId: 3, call: 0, module: 'svc:fs', op: 'writeText', args, fuelLeft: 1 });

/** Text of characters of 1 to 4 UTF-8 bytes (a surrogate pair among them), `units` UTF-16 units long. */
function mixedText(units: number): string {
  return 'aé€😀'.repeat(Math.ceil(units / 5)).slice(0, units - (units % 5));
}

function sent(message: Call): FromRunner[] {
  const out: FromRunner[] = [];
  sendHostCall(message, (m) => out.push(m));
  return out;
}

test('short arguments go as they are, in the call itself', () => {
  const args = JSON.stringify(['/a.txt', 'x'.repeat(ARGS_IN_PIECES_CHARS - 20)]);
  assert.deepEqual(sent(call(args)), [call(args)]);
});

test('long arguments go ahead in bounded pieces that never split a character; the server reassembles them exactly', () => {
  const text = mixedText(1_500_000);
  const args = JSON.stringify(['/big.txt', text]);
  const messages = sent(call(args));
  const pieces = messages.slice(0, -1);
  const last = messages.at(-1) as Call;
  assert.ok(pieces.length > 1);
  assert.equal(last.type, 'host-call');
  assert.equal(last.args, '');
  assert.equal(last.argsBytes, Buffer.byteLength(args, 'utf8'));
  const kept = new ArgsPieces();
  for (const message of pieces) {
    const piece = readArgsPiece(message);
    assert.ok(piece, 'a piece in its known shape');
    assert.ok(piece.piece.byteLength <= ARGS_PIECE_BYTES);
    // Each piece is whole UTF-8 on its own: no character is split between two.
    assert.equal(Buffer.from(piece.piece).toString('utf8').includes('\uFFFD'), false);
    assert.equal(kept.add(piece.runId, piece.callId, piece.piece), true);
  }
  const read = readHostCall(last) as HostCallMessage;
  assert.equal(read.argsBytes, last.argsBytes);
  const taken = kept.take(read);
  assert.ok(taken);
  assert.equal(Buffer.concat(taken).toString('utf8'), args);
  // Each piece has a buffer of its own (moved to a worker thread, not copied).
  for (const piece of taken) assert.equal(piece.buffer.byteLength, piece.byteLength);
  // Taken once: nothing is left behind for the call.
  assert.equal(kept.take(read), null);
});

test('a call whose pieces did not all arrive gets none; pieces past the bound are refused; an odd total is a malformed call', () => {
  const kept = new ArgsPieces();
  kept.add(1, 1, new Uint8Array(10));
  assert.equal(kept.take({ ...call(''), runId: 1, callId: 1, argsBytes: 11 }), null);
  assert.equal(readArgsPiece({ type: 'host-call-args', runId: 1, callId: 1, piece: new Uint8Array(ARGS_PIECE_BYTES + 1) }), null);
  assert.equal(readArgsPiece({ type: 'host-call-args', runId: 1, callId: 1, piece: 'text' }), null);
  assert.equal(readHostCall({ ...call('not empty'), argsBytes: 3 }), null);
  assert.equal(readHostCall({ ...call(''), argsBytes: MAX_HOST_CALL_ARGS_BYTES + 1 }), null);
  const full = new ArgsPieces();
  const piece = new Uint8Array(ARGS_PIECE_BYTES);
  let refused = false;
  for (let i = 0; i <= MAX_HOST_CALL_ARGS_BYTES / ARGS_PIECE_BYTES && !refused; i++) refused = !full.add(2, 2, piece);
  assert.equal(refused, true, 'pieces past MAX_HOST_CALL_ARGS_BYTES are refused');
});

test('decoded off the event loop: a file operation gets its long text as UTF-8 bytes, other operations and short strings as strings', () => {
  const text = mixedText(300_000);
  const bytes = new Uint8Array([1, 2, 3]);
  const args = JSON.stringify(['/big.txt', text, { [BYTES_TAG]: Buffer.from(bytes).toString('base64') }]);
  const pieces = [Buffer.from(args.slice(0, 1000)), Buffer.from(args.slice(1000))].map((b) => new Uint8Array(b));
  const asBytes = decodeArgsOffThread({ text: pieces, textAsBytes: true, call: { module: 'svc:fs', op: 'writeText' } });
  assert.deepEqual(asBytes.texts, [1]);
  // The decoded text and the tagged bytes are buffers of the decoder's own, to be moved.
  assert.equal(asBytes.transfer.length, 2);
  const decoded = argsFromDecoded(asBytes);
  assert.equal(decoded[0], '/big.txt');
  assert.ok(decoded[1] instanceof TextBytes);
  assert.equal(Buffer.from((decoded[1] as TextBytes).bytes).toString('utf8'), text);
  assert.deepEqual(decoded[2], bytes);
  const asText = argsFromDecoded(decodeArgsOffThread({ text: args, textAsBytes: false, call: { module: 'svc:session', op: 'set' } }));
  assert.equal(asText[1], text);
});
