// Headers, Blob, File, FormData, ReadableStream, Request and Response without the network:
// construction rules, bodies read once as text/json/arrayBuffer/bytes/blob/formData,
// content types implied by the body, clone(), streams from a program's own source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webServer } from '../support/web-server';

const { result } = webServer();

test('Headers: case-insensitive, combined values, sorted iteration, validation, immutable guard on Response.error()', async () => {
  const r = await result(`export function main() {
    const h = new Headers({ 'X-B': '2', 'x-a': ' 1 ' });
    h.append('X-B', '3');
    const fromPairs = new Headers([['k', 'v']]);
    const copy = new Headers(h); copy.delete('x-b');
    let badName = ''; try { h.set('bad name', 'x'); } catch (e) { badName = e.name; }
    let badValue = ''; try { h.set('x', 'a\\r\\nb'); } catch (e) { badValue = e.name; }
    let immutable = ''; try { Response.error().headers.set('a', 'b'); } catch (e) { immutable = e.name; }
    const seen = []; h.forEach((v, k) => seen.push(k + '=' + v));
    return { entries: [...h], keys: [...h.keys()], values: [...h.values()], b: h.get('x-b'), missing: h.get('nope'), has: h.has('X-A'), pairs: fromPairs.get('K'), copy: [...copy], badName, badValue, immutable, seen };
  }`);
  assert.deepEqual(r, {
    entries: [['x-a', '1'], ['x-b', '2, 3']],
    keys: ['x-a', 'x-b'],
    values: ['1', '2, 3'],
    b: '2, 3',
    missing: null,
    has: true,
    pairs: 'v',
    copy: [['x-a', '1']],
    badName: 'TypeError',
    badValue: 'TypeError',
    immutable: 'TypeError',
    seen: ['x-a=1', 'x-b=2, 3'],
  });
});

test('Blob and File: parts, size, type, slice, text/arrayBuffer/bytes/stream', async () => {
  const r = await result(`export async function main() {
    const blob = new Blob(['héllo ', new Uint8Array([119, 111]), new Blob(['rld'])], { type: 'Text/Plain' });
    const file = new File(['abc'], 'a.txt', { type: 'text/plain', lastModified: 42 });
    const reader = blob.stream().getReader();
    const first = await reader.read();
    const done = await reader.read();
    return {
      size: blob.size, type: blob.type, text: await blob.text(), slice: await blob.slice(1, -3).text(), negative: await blob.slice(-3).text(),
      buffer: (await blob.arrayBuffer()).byteLength, bytes: Array.from((await file.bytes())),
      file: [file.name, file.lastModified, file.size, file.type, file instanceof Blob, String(file)],
      stream: [first.value.length, first.done, done.done],
    };
  }`);
  assert.deepEqual(r, {
    size: 12, type: 'text/plain', text: 'héllo world', slice: 'éllo wo', negative: 'rld', buffer: 12, bytes: [97, 98, 99],
    file: ['a.txt', 42, 3, 'text/plain', true, '[object File]'],
    stream: [12, false, true],
  });
});

test('Response: status rules, text/json/arrayBuffer/bytes/blob, bodyUsed, clone, Response.json, redirect, stream bodies', async () => {
  const r = await result(`export async function main() {
    const a = new Response('{"x":1}', { status: 201, statusText: 'Created', headers: { 'x-y': 'z' } });
    const c = a.clone();
    const json = await a.json();
    let twice = ''; try { await a.text(); } catch (e) { twice = e.name; }
    let badStatus = ''; try { new Response('', { status: 99 }); } catch (e) { badStatus = e.name; }
    let nullBody = ''; try { new Response('x', { status: 204 }); } catch (e) { nullBody = e.name; }
    const j = Response.json({ ok: true }, { status: 202 });
    const redirect = Response.redirect('https://example.com/next', 307);
    const stream = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('str')); c.enqueue('eam'); c.close(); } });
    let pulls = 0;
    const pulled = new ReadableStream({ pull(c) { pulls++; if (pulls <= 2) c.enqueue(new Uint8Array([65 + pulls])); else c.close(); } });
    const chunks = [];
    for await (const chunk of new Response('iter').body) chunks.push(chunk.length);
    const empty = new Response();
    return {
      status: [a.status, a.statusText, a.ok, a.headers.get('content-type'), a.headers.get('x-y'), a.type, a.url, a.redirected],
      json, used: a.bodyUsed, clone: await c.text(), twice, badStatus, nullBody,
      j: [j.status, j.headers.get('content-type'), await j.text()],
      redirect: [redirect.status, redirect.headers.get('location')],
      stream: await new Response(stream).text(), pulled: await new Response(pulled).text(), chunks,
      buffer: (await new Response(new Uint8Array([1, 2, 3])).arrayBuffer()).byteLength,
      bytes: Array.from(await new Response('hi').bytes()),
      blob: [(await new Response('hey', { headers: { 'content-type': 'text/x' } }).blob()).type],
      empty: [empty.body, await empty.text(), Response.error().type, Response.error().status],
    };
  }`);
  assert.deepEqual(r, {
    status: [201, 'Created', true, 'text/plain;charset=UTF-8', 'z', 'default', '', false],
    json: { x: 1 }, used: true, clone: '{"x":1}', twice: 'TypeError', badStatus: 'RangeError', nullBody: 'TypeError',
    j: [202, 'application/json', '{"ok":true}'],
    redirect: [307, 'https://example.com/next'],
    stream: 'stream', pulled: 'BC', chunks: [4],
    buffer: 3, bytes: [104, 105], blob: ['text/x'],
    empty: [null, '', 'error', 0],
  });
});

test('Request: method normalisation, forbidden methods, GET bodies refused, relative URLs refused, body content types, FormData round trip', async () => {
  const r = await result(`export async function main() {
    const req = new Request('https://example.com/a?b=1', { method: 'post', body: new URLSearchParams({ q: 'x y' }), headers: { 'X-Id': '7' } });
    const copy = new Request(req, { redirect: 'manual' });
    let forbidden = ''; try { new Request('https://example.com', { method: 'TRACE' }); } catch (e) { forbidden = e.name; }
    let getBody = ''; try { new Request('https://example.com', { body: 'x' }); } catch (e) { getBody = e.name; }
    let relative = ''; try { new Request('/relative'); } catch (e) { relative = e.message; }
    // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
    let badRedirect = ''; try { new Request('https://example.com', { redirect: 'sometimes' }); } catch (e) { badRedirect = e.name; }
    const form = new FormData();
    form.append('name', 'Ada');
    form.append('note', 'a "quoted"\\nline');
    form.append('file', new Blob(['content']), 'f.txt');
    const sent = new Request('https://example.com/upload', { method: 'PUT', body: form });
    const parsed = await sent.formData();
    const encoded = new Request('https://example.com', { method: 'POST', body: new URLSearchParams('a=1&a=2&b=%20') });
    const fields = await encoded.formData();
    return {
      method: req.method, url: req.url, redirect: [req.redirect, copy.redirect, copy.method], type: copy.headers.get('content-type'), text: await copy.text(), used: req.bodyUsed,
      forbidden, getBody, relative: /not an absolute URL/.test(relative), badRedirect,
      multipart: /^multipart\\/form-data; boundary=/.test(sent.headers.get('content-type')),
      parsed: [parsed.get('name'), parsed.get('note'), parsed.get('file').name, await parsed.get('file').text()],
      fields: [fields.getAll('a'), fields.get('b'), [...fields.keys()]],
      custom: new Request('https://example.com', { method: 'purge' }).method,
    };
  }`);
  assert.deepEqual(r, {
    method: 'POST', url: 'https://example.com/a?b=1', redirect: ['follow', 'manual', 'POST'], type: 'application/x-www-form-urlencoded;charset=UTF-8', text: 'q=x+y', used: true,
    forbidden: 'TypeError', getBody: 'TypeError', relative: true, badRedirect: 'TypeError',
    multipart: true,
    parsed: ['Ada', 'a "quoted"\nline', 'f.txt', 'content'],
    fields: [['1', '2'], ' ', ['a', 'a', 'b']],
    custom: 'purge',
  });
});

test('the web classes are frozen for trusted code: patching a prototype fails, a program-made subclass still works', async () => {
  const r = await result(`export async function main() {
    let patched = false; try { Headers.prototype.get = () => 'evil'; patched = Headers.prototype.get.call(new Headers(), 'x') === 'evil'; } catch { patched = false; }
    Array.prototype[Symbol.iterator] = function* () { yield 'hijacked'; };
    const h = new Headers([['a', '1']]);
    return { patched, value: h.get('a') };
  }`);
  assert.deepEqual(r, { patched: false, value: '1' });
});
