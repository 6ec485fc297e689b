// Headers, Request, Response, Blob, File and FileReader per the Fetch standard and the
// File API (without the network): header validation and normalisation, set-cookie kept
// apart, custom iterators, the Body mixin shared by Request and Response (clone tees a
// stream), Request attributes and signal, Blob endings and lengths, FileReader events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webServer } from '../support/web-server';

const { result } = webServer();

test('Headers: null and non-object inits throw, set-cookie is not combined, custom iterators, whitespace and byte validation, live iteration', async () => {
  const r = await result(`export function main() {
    const errors = [];
    // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
    for (const init of [null, 5, [['a']], { 'bad name': 'x' }, [['a', 'b\\u0100']]]) { try { new Headers(init); errors.push('ok'); } catch (e) { errors.push(e.name); } }
    const h = new Headers();
    h.append('Set-Cookie', 'a=1'); h.append('set-cookie', 'b=2'); h.append('X', ' \\t v \\n');
    const pairs: [string, string][] = [['k', 'v']];
    pairs[Symbol.iterator] = function* () { yield ['custom', 'yes']; };
    const live = new Headers({ a: '1', c: '3' });
    const seen = [];
    for (const [name] of live) { seen.push(name); if (name === 'a') live.append('b', '2'); }
    return { errors, entries: [...h], get: h.get('set-cookie'), cookies: h.getSetCookie(), custom: [...new Headers(pairs)], seen,
      iteratorTag: Object.prototype.toString.call(h.entries()), same: Headers.prototype[Symbol.iterator] === Headers.prototype.entries, name: Headers.name, str: String(h) };
  }`);
  assert.deepEqual(r.errors, ['TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError']);
  assert.deepEqual(r.entries, [['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['x', 'v']]);
  assert.equal(r.get, 'a=1, b=2');
  assert.deepEqual(r.cookies, ['a=1', 'b=2']);
  assert.deepEqual(r.custom, [['custom', 'yes']]);
  assert.deepEqual(r.seen, ['a', 'b', 'c']);
  assert.deepEqual([r.iteratorTag, r.same, r.name, r.str], ['[object Headers Iterator]', true, 'Headers', '[object Headers]']);
});

test('the Body mixin: one set of methods on Request and Response; clone() tees a stream; a locked or used body cannot be read or cloned', async () => {
  const r = await result(`export async function main() {
    const streamed = new Response(new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('part')); } }));
    const copy = streamed.clone();
    const first = new TextDecoder().decode((await copy.body.getReader().read()).value);
    const request = new Request('https://api.test/x', { method: 'POST', body: 'payload' });
    const requestCopy = request.clone();
    const texts = [await request.text(), await requestCopy.text()];
    let usedAgain = ''; try { await request.text(); } catch (e) { usedAgain = e.name; }
    let crossed = ''; try { await Request.prototype.text.call(new Response('x')); } catch (e) { crossed = e.name; }
    const locked = new Response('x'); locked.body.getReader();
    let lockedClone = ''; try { locked.clone(); } catch (e) { lockedClone = e.name; }
    let lockedRead = ''; try { await locked.text(); } catch (e) { lockedRead = e.name; }
    const empty = new Response(null);
    const emptyText = await empty.text();
    const members = ['arrayBuffer', 'blob', 'body', 'bodyUsed', 'bytes', 'formData', 'json', 'text'].map((m) => Object.prototype.hasOwnProperty.call(Request.prototype, m) && Object.prototype.hasOwnProperty.call(Response.prototype, m));
    return { first, streamedUsed: streamed.bodyUsed, texts, usedAgain, crossed, lockedClone, lockedRead, emptyText, emptyUsed: empty.bodyUsed, members,
      names: [Request.name, Response.name, String(request), new Response().type] };
  }`);
  assert.deepEqual(r, {
    first: 'part', streamedUsed: false, texts: ['payload', 'payload'], usedAgain: 'TypeError', crossed: 'TypeError', lockedClone: 'TypeError', lockedRead: 'TypeError', emptyText: '', emptyUsed: false,
    members: Array(8).fill(true), names: ['Request', 'Response', '[object Request]', 'default'],
  });
});

test('Request: standard attributes, enum validation, a signal that follows the given one, credentials in URLs refused, relative URLs only with a location', async () => {
  const r = await result(`export function main() {
    const plain = new Request('https://api.test/');
    const controller = new AbortController();
    const followed = new Request('https://api.test/', { signal: controller.signal });
    controller.abort('stop');
    const errors = [];
    for (const init of [{ mode: 'navigate' }, { cache: 'bogus' }, { credentials: 'x' }, { cache: 'only-if-cached' }, { method: 'GET', body: 'x' }, { body: new ReadableStream(), method: 'POST' }]) {
      // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
      try { new Request('https://api.test/', init); errors.push('ok'); } catch (e) { errors.push(e.name); }
    }
    let credentials = ''; try { new Request('https://user:pw@api.test/'); } catch (e) { credentials = e.name; }
    let relative = ''; try { new Request('/path'); } catch (e) { relative = e.name; }
    globalThis.location = { href: 'https://base.test/dir/page' };
    return {
      attributes: [plain.method, plain.mode, plain.credentials, plain.cache, plain.redirect, plain.referrer, plain.referrerPolicy, plain.integrity, plain.keepalive, plain.destination, plain.signal instanceof AbortSignal, plain.signal.aborted],
      followed: [followed.signal.aborted, followed.signal.reason], errors, credentials, relative, resolved: new Request('x?y').url,
    };
  }`);
  assert.deepEqual(r, {
    attributes: ['GET', 'cors', 'same-origin', 'default', 'follow', 'about:client', '', '', false, '', true, false],
    followed: [true, 'stop'], errors: ['TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError'], credentials: 'TypeError', relative: 'TypeError', resolved: 'https://base.test/dir/x?y',
  });
});

test('Blob and File per the File API, and FileReader with its events', async () => {
  const r = await result(`export async function main() {
    const errors = [];
    // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
    for (const make of [() => new Blob('abc'), () => new Blob([], { endings: 'bad' }), () => new Blob([], 5), () => new File(['x'])]) { try { make(); errors.push('ok'); } catch (e) { errors.push(e.name); } }
    const file = new File(['a', new Uint8Array([98]), new Blob(['c'])], 'f.txt', { type: 'Text/Plain', lastModified: 41.9 });
    const native = await new Blob(['a\\r\\nb\\rc'], { endings: 'native' }).text();
    const reader = new FileReader();
    const events = [];
    reader.onloadstart = () => events.push('onloadstart:' + reader.readyState);
    reader.addEventListener('progress', (e) => events.push('progress:' + e.loaded + '/' + e.total));
    reader.onload = () => events.push('onload:' + reader.readyState);
    const done = new Promise((resolve) => reader.addEventListener('loadend', resolve));
    reader.readAsText(file);
    await done;
    const url = new FileReader();
    url.readAsDataURL(new Blob(['hi'], { type: 'text/plain' }));
    await new Promise((resolve) => { url.onloadend = resolve; });
    const buffer = new FileReader();
    buffer.readAsArrayBuffer(new Blob([new Uint8Array([1, 2])]));
    await new Promise((resolve) => { buffer.onload = resolve; });
    let busy = ''; const twice = new FileReader(); twice.readAsText(new Blob(['x'])); try { twice.readAsText(new Blob(['y'])); } catch (e) { busy = e.name; }
    return { errors, file: [file.name, file.type, file.size, file.lastModified, await file.text()], native, lengths: [Blob.length, File.length],
      text: reader.result, events, dataUrl: url.result, bytes: Array.from(new Uint8Array(buffer.result)), busy, constants: [FileReader.EMPTY, FileReader.LOADING, FileReader.DONE] };
  }`);
  assert.deepEqual(r, {
    errors: ['TypeError', 'TypeError', 'TypeError', 'TypeError'], file: ['f.txt', 'text/plain', 3, 41, 'abc'], native: 'a\nb\nc', lengths: [0, 2],
    text: 'abc', events: ['onloadstart:1', 'progress:3/3', 'onload:2'], dataUrl: 'data:text/plain;base64,aGk=', bytes: [1, 2], busy: 'InvalidStateError', constants: [0, 1, 2],
  });
});

test('bodies as the Fetch standard reads them: a Request from a Request takes its body over, a read body stays locked, clones get their own chunks, a stream error wins over formData\'s type check', async () => {
  const r = await result(`export async function main() {
    const streamed = new Request('https://x.test/', { method: 'POST', duplex: 'half', body: new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('s')); setTimeout(() => c.close(), 1); } }) });
    const taken = new Request(streamed);
    const proxy = [streamed.bodyUsed, taken.body !== streamed.body, await taken.text()];
    const text = new Request('https://x.test/', { method: 'POST', body: 'bytes' });
    const fromText = new Request(text);
    let getWithBody = ''; try { new Request(new Request('https://x.test/', { method: 'POST', body: 'x' }), { method: 'GET' }); } catch (e) { getWithBody = e.name; }
    const read = new Response('abc'); await read.text();
    let readerAfterRead = ''; try { read.body.getReader(); } catch (e) { readerAfterRead = e.name; }
    const original = new Response(new ReadableStream({ start(c) { c.enqueue(new Uint8Array([1])); c.close(); } }));
    const copy = original.clone();
    const [a, b] = [await original.body.getReader().read(), await copy.body.getReader().read()];
    const failing = new Response(new ReadableStream({ start(c) { c.error(new RangeError('custom')); } }));
    let formError = ''; try { await failing.formData(); } catch (e) { formError = e.name; }
    return { proxy, fromText: [text.bodyUsed, await fromText.text()], getWithBody, readerAfterRead, chunks: [a.value !== b.value, Array.from(b.value)], formError };
  }`);
  assert.deepEqual(r, { proxy: [true, true, 's'], fromText: [true, 'bytes'], getWithBody: 'TypeError', readerAfterRead: 'TypeError', chunks: [true, [1]], formError: 'RangeError' });
});
