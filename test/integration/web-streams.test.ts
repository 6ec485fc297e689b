// Streams per the WHATWG standard: ReadableStream.from and async iteration, tee, pull
// back-pressure, byte streams with BYOB readers, WritableStream writers, TransformStream,
// pipeTo/pipeThrough with their options and an AbortSignal, queuing strategies, and the
// constructors' argument validation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webServer } from '../support/web-server';

const { result } = webServer();

test('ReadableStream.from (async and sync iterables), for await, values({ preventCancel }), tee, cancel reaches the iterator', async () => {
  const r = await result(`export async function main() {
    const fromAsync = []; for await (const x of ReadableStream.from((async function* () { yield 1; yield 2; })())) fromAsync.push(x);
    const fromSync = []; for await (const x of ReadableStream.from([1, Promise.resolve(2), 3])) fromSync.push(x);
    const kept = new ReadableStream({ start(c) { c.enqueue('a'); c.enqueue('b'); } });
    for await (const x of kept.values({ preventCancel: true })) break;
    const rest = (await kept.getReader().read()).value;
    const canceled = new ReadableStream({ start(c) { c.enqueue('a'); c.enqueue('b'); } });
    for await (const x of canceled) break;
    let returned = 'no';
    const generator = (function* () { try { yield 1; yield 2; } finally { returned = 'yes'; } })();
    const fromGenerator = ReadableStream.from(generator).getReader(); await fromGenerator.read(); await fromGenerator.cancel('enough');
    const [left, right] = ReadableStream.from(['x', 'y']).tee();
    const l = [], rr = []; for await (const x of left) l.push(x); for await (const x of right) rr.push(x);
    // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
    let notIterable = ''; try { ReadableStream.from(5); } catch (e) { notIterable = e.name; }
    return { fromAsync, fromSync, rest, canceledLocked: canceled.locked, returned, tee: [l, rr], notIterable };
  }`);
  assert.deepEqual(r, { fromAsync: [1, 2], fromSync: [1, 2, 3], rest: 'b', canceledLocked: false, returned: 'yes', tee: [['x', 'y'], ['x', 'y']], notIterable: 'TypeError' });
});

test('a pull source is called only while the queue is below its highWaterMark; readers, closed and releaseLock', async () => {
  const r = await result(`export async function main() {
    let pulls = 0;
    const stream = new ReadableStream({ pull(c) { pulls++; c.enqueue(pulls); if (pulls === 5) c.close(); } }, new CountQueuingStrategy({ highWaterMark: 2 }));
    await new Promise((resolve) => setTimeout(resolve, 0));
    const before = pulls;
    const reader = stream.getReader();
    const values = [];
    for (;;) { const { value, done } = await reader.read(); if (done) break; values.push(value); }
    await reader.closed;
    reader.releaseLock();
    let released = ''; try { await reader.read(); } catch (e) { released = e.name; }
    const errored = new ReadableStream({ start(c) { c.error(new RangeError('bad source')); } });
    let error = ''; try { await errored.getReader().read(); } catch (e) { error = e.name + ':' + e.message; }
    const locked = new ReadableStream(); locked.getReader();
    let lockedError = ''; try { locked.getReader(); } catch (e) { lockedError = e.name; }
    return { before, values, released, error, lockedError, desired: new ReadableStream({ start(c) { this.size = c.desiredSize; } }, { highWaterMark: 3 }) instanceof ReadableStream };
  }`);
  assert.deepEqual(r, { before: 2, values: [1, 2, 3, 4, 5], released: 'TypeError', error: 'RangeError:bad source', lockedError: 'TypeError', desired: true });
});

test('byte streams: BYOB reads fill the given view, autoAllocateChunkSize and byobRequest.respond, byte-stream tee branches, a transferred view refused again', async () => {
  const r = await result(`export async function main() {
    const stream = new ReadableStream({ type: 'bytes', start(c) { c.enqueue(new Uint8Array([1, 2, 3, 4, 5])); c.close(); } });
    const reader = stream.getReader({ mode: 'byob' });
    const first = await reader.read(new Uint8Array(2));
    const second = await reader.read(new Uint8Array(8));
    const third = await reader.read(new Uint8Array(8));
    const responding = new ReadableStream({ type: 'bytes', autoAllocateChunkSize: 4, pull(c) { const view = c.byobRequest.view; view[0] = 9; view[1] = 8; c.byobRequest.respond(2); c.close(); } });
    const auto = await responding.getReader().read();
    let notBytes = ''; try { new ReadableStream().getReader({ mode: 'byob' }); } catch (e) { notBytes = e.name; }
    const [left, right] = new ReadableStream({ type: 'bytes', start(c) { c.enqueue(new Uint8Array([7, 8])); c.close(); } }).tee();
    const leftRead = await left.getReader({ mode: 'byob' }).read(new Uint8Array(4));
    const rightRead = await right.getReader().read();
    const reused = new Uint8Array(2);
    const once = new ReadableStream({ type: 'bytes', start(c) { c.enqueue(new Uint8Array([1])); } }).getReader({ mode: 'byob' });
    await once.read(reused);
    let detached = ''; try { await once.read(reused); } catch (e) { detached = e.name; }
    return { first: [Array.from(first.value), first.done], second: [Array.from(second.value), second.done], third: [third.value.length, third.done], auto: Array.from(auto.value), notBytes,
      tee: [Array.from(leftRead.value), Array.from(rightRead.value), leftRead.value.buffer !== rightRead.value.buffer], detached };
  }`);
  assert.deepEqual(r, { first: [[1, 2], false], second: [[3, 4, 5], false], third: [0, true], auto: [9, 8], notBytes: 'TypeError', tee: [[7, 8], [7, 8], true], detached: 'TypeError' });
});

test('WritableStream: writes in order, back-pressure on writer.ready/desiredSize, close, abort with the controller signal, errors', async () => {
  const r = await result(`export async function main() {
    const written = [];
    let release;
    const gate = new Promise((resolve) => { release = resolve; });
    let abortReason;
    const stream = new WritableStream({
      async write(chunk) { written.push(chunk); if (chunk === 'slow') await gate; },
      close() { written.push('closed'); },
    }, new CountQueuingStrategy({ highWaterMark: 2 }));
    const writer = stream.getWriter();
    const sizes = [writer.desiredSize];
    writer.write('slow'); writer.write('b'); writer.write('c');
    sizes.push(writer.desiredSize);
    release();
    await writer.ready;
    await writer.close();
    await writer.closed;
    const aborted = new WritableStream({ start(c) { c.signal.addEventListener('abort', () => { abortReason = c.signal.reason; }); }, abort(reason) { written.push('abort:' + reason); } });
    await aborted.abort('why');
    const failing = new WritableStream({ write() { throw new TypeError('sink failed'); } });
    const w = failing.getWriter();
    let writeError = ''; try { await w.write('x'); } catch (e) { writeError = e.message; }
    let closedError = ''; try { await w.closed; } catch (e) { closedError = e.message; }
    // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
    let badType = ''; try { new WritableStream({ type: 'bytes' }); } catch (e) { badType = e.name; }
    return { written, sizes, abortReason, writeError, closedError, badType };
  }`);
  assert.deepEqual(r, { written: ['slow', 'b', 'c', 'closed', 'abort:why'], sizes: [2, -1], abortReason: 'why', writeError: 'sink failed', closedError: 'sink failed', badType: 'RangeError' });
});

test('TransformStream, pipeThrough and pipeTo: transform/flush, preventClose, errors both ways, an AbortSignal stops a pipe that would never end', async () => {
  const r = await result(`export async function main() {
    const upper = new TransformStream({ transform(chunk, c) { c.enqueue(String(chunk).toUpperCase()); }, flush(c) { c.enqueue('!'); } });
    const out = []; for await (const x of ReadableStream.from(['a', 'b']).pipeThrough(upper)) out.push(x);
    const identity = new TransformStream();
    const copied = []; const done = ReadableStream.from([1, 2]).pipeTo(identity.writable);
    for await (const x of identity.readable) copied.push(x);
    await done;
    const sink = []; const target = new WritableStream({ write(c) { sink.push(c); } });
    await ReadableStream.from(['p']).pipeTo(target, { preventClose: true });
    const stillOpen = target.getWriter(); await stillOpen.write('q'); stillOpen.releaseLock();
    let sourceError = ''; let sinkAborted = '';
    try { await new ReadableStream({ start(c) { c.error('source broke'); } }).pipeTo(new WritableStream({ abort(r) { sinkAborted = r; } })); } catch (e) { sourceError = e; }
    let sourceCanceled = ''; let destError = '';
    try { await new ReadableStream({ pull(c) { c.enqueue(1); }, cancel(r) { sourceCanceled = r.message; } }).pipeTo(new WritableStream({ write() { throw new Error('sink broke'); } })); } catch (e) { destError = e.message; }
    const controller = new AbortController();
    const never = new ReadableStream({ pull() { return new Promise(() => {}); } });
    const pending = never.pipeTo(new WritableStream(), { signal: controller.signal });
    controller.abort('stop');
    let aborted = ''; try { await pending; } catch (e) { aborted = e; }
    // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
    let badSignal = ''; try { await ReadableStream.from([]).pipeTo(new WritableStream(), { signal: {} }); } catch (e) { badSignal = e.name; }
    // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
    let badDest = ''; try { await ReadableStream.from([]).pipeTo({}); } catch (e) { badDest = e.name; }
    const terminated = new TransformStream({ start(c) { c.enqueue('only'); c.terminate(); } });
    const t = []; for await (const x of terminated.readable) t.push(x);
    return { out, copied, sink, sourceError, sinkAborted, sourceCanceled, destError, aborted, neverLocked: never.locked, badSignal, badDest, t };
  }`);
  assert.deepEqual(r, { out: ['A', 'B', '!'], copied: [1, 2], sink: ['p', 'q'], sourceError: 'source broke', sinkAborted: 'source broke', sourceCanceled: 'sink broke', destError: 'sink broke', aborted: 'stop', neverLocked: false, badSignal: 'TypeError', badDest: 'TypeError', t: ['only'] });
});

test('constructor validation and queuing strategies', async () => {
  const r = await result(`export function main() {
    const errors = [];
    const attempts = [
      // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
      () => new ReadableStream({ type: 'nope' }), () => new ReadableStream({}, { highWaterMark: -1 }), () => new ReadableStream({}, { highWaterMark: NaN }),
      // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
      () => new ReadableStream({ start: 5 }), () => new ReadableStream(5), () => new ReadableStream({ type: 'bytes' }, { size() { return 1; } }),
      // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
      () => new WritableStream({ write: 'x' }), () => new TransformStream({ readableType: 'bytes' }), () => new CountQueuingStrategy(), () => new ByteLengthQueuingStrategy({}),
      // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
      () => new ReadableStreamDefaultReader({}), () => new ReadableStreamDefaultController(),
    ];
    for (const attempt of attempts) { try { attempt(); errors.push('ok'); } catch (e) { errors.push(e.name); } }
    const bytes = new ByteLengthQueuingStrategy({ highWaterMark: 16 });
    const count = new CountQueuingStrategy({ highWaterMark: 4 });
    // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
    return { errors, bytes: [bytes.highWaterMark, bytes.size(new Uint8Array(5))], count: [count.highWaterMark, count.size(), count.size === new CountQueuingStrategy({ highWaterMark: 1 }).size],
      tags: [String(new ReadableStream()), String(new WritableStream()), String(new TransformStream())] };
  }`);
  assert.deepEqual(r.errors, ['TypeError', 'RangeError', 'RangeError', 'TypeError', 'TypeError', 'RangeError', 'TypeError', 'RangeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError']);
  assert.deepEqual(r.bytes, [16, 5]);
  assert.deepEqual(r.count, [4, 1, true]);
  assert.deepEqual(r.tags, ['[object ReadableStream]', '[object WritableStream]', '[object TransformStream]']);
});
