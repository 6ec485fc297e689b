// The web classes a run does not use are evaluated the first time a program touches one
// (sandbox/prelude/web/lazy.ts). By then the program may have replaced any built-in: the
// platform's evaluation must not call what it replaced, and the classes must work as if
// they had been there from the start. (The encoding classes are a library that uses the
// built-ins as it finds them, whenever it is evaluated: only the program's own TextDecoder
// could be affected, so they are checked for working, not for not calling.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webServer } from '../support/web-server';
import { POISONING } from '../support/poisoning';

const { result } = webServer();

test('a program that replaces built-ins before first touching a web class cannot hook the platform evaluation', async () => {
  const r = await result(`export async function main() {
    const apply = Reflect.apply;
    const defineProperty = Object.defineProperty;
    const calls = [];
    let armed = false;
    const note = (label) => { if (armed) calls[calls.length] = label; };
    const restore = [];
    const trap = (owner, key, label) => {
      const original = owner[key];
      restore[restore.length] = [owner, key, original];
      defineProperty(owner, key, { value: function (...args) { note(label); return apply(original, this, args); }, writable: true, configurable: true });
    };
    trap(Array.prototype, 'push', 'Array.prototype.push');
    trap(Array.prototype, Symbol.iterator, 'Array.prototype[Symbol.iterator]');
    trap(Object.getPrototypeOf([][Symbol.iterator]()), 'next', 'ArrayIterator.next');
    trap(Promise.prototype, 'then', 'Promise.prototype.then');
    trap(Promise, 'resolve', 'Promise.resolve');
    trap(Function.prototype, 'call', 'Function.prototype.call');
    trap(Function.prototype, 'apply', 'Function.prototype.apply');
    trap(Function.prototype, 'bind', 'Function.prototype.bind');
    trap(Reflect, 'apply', 'Reflect.apply');
    trap(Object, 'defineProperty', 'Object.defineProperty');
    trap(Object, 'freeze', 'Object.freeze');
    trap(Object, 'create', 'Object.create');
    trap(Object, 'getPrototypeOf', 'Object.getPrototypeOf');
    trap(Object, 'getOwnPropertyDescriptor', 'Object.getOwnPropertyDescriptor');
    trap(Object, 'getOwnPropertyDescriptors', 'Object.getOwnPropertyDescriptors');
    trap(Map.prototype, 'set', 'Map.prototype.set');
    trap(Set.prototype, 'add', 'Set.prototype.add');
    trap(WeakMap.prototype, 'set', 'WeakMap.prototype.set');
    trap(Date.prototype, 'getTime', 'Date.prototype.getTime');
    const globals = ['Symbol', 'Map', 'WeakMap', 'Set', 'Object', 'Array', 'RegExp', 'Error', 'TypeError', 'Uint8Array', 'Int8Array', 'DataView', 'Promise'];
    for (let i = 0; i < globals.length; i++) {
      const name = globals[i];
      const real = globalThis[name];
      restore[restore.length] = [globalThis, name, real];
      globalThis[name] = new Proxy(real, {
        get(target, key) { note(name + '.' + String(key)); return target[key]; },
        apply(target, self, args) { note(name + '()'); return apply(target, self, args); },
        construct(target, args) { note('new ' + name); return new target(...args); },
      });
    }
    const setters = ['pipeTo', 'pipeThrough', 'exports', 'globals', 'subtle'];
    for (let i = 0; i < setters.length; i++) {
      const key = setters[i];
      defineProperty(Object.prototype, key, { set(v) { note('Object.prototype.' + key + ' ='); defineProperty(this, key, { value: v, writable: true, enumerable: true, configurable: true }); }, configurable: true });
    }
    armed = true;
    const kinds = [typeof ReadableStream, typeof fetch, typeof FileReader, typeof structuredClone, typeof crypto.subtle];
    armed = false;
    for (let i = 0; i < setters.length; i++) delete Object.prototype[setters[i]];
    for (let i = restore.length - 1; i >= 0; i--) defineProperty(restore[i][0], restore[i][1], { value: restore[i][2], writable: true, configurable: true });

    const stream = new ReadableStream({ start(c) { c.enqueue('a'); c.enqueue('b'); c.close(); } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const copy = structuredClone(new Map([[1, new Date(5)]]));
    return {
      calls, kinds, chunks,
      text: await new Response('hi').text(),
      headers: [...new Headers({ b: '2', a: '1' })],
      clone: [copy.get(1).getTime(), copy instanceof Map],
      decoded: new TextDecoder().decode(new Uint8Array([104, 105])),
      read: await new Promise((resolve) => { const reader = new FileReader(); reader.onload = () => resolve(reader.result); reader.readAsText(new Blob([new Uint8Array([0xe9])]), 'latin1'); }),
      tag: Object.prototype.toString.call(new Blob([])),
    };
  }`);
  assert.deepEqual(r, {
    calls: [],
    kinds: ['function', 'function', 'function', 'function', 'object'],
    chunks: ['a', 'b'],
    text: 'hi',
    headers: [['a', '1'], ['b', '2']],
    clone: [5, true],
    decoded: 'hi',
    read: 'é',
    tag: '[object Blob]',
  });
});

test('web classes wait for their first use, and a program may replace or delete them before it', async () => {
  const r = await result(`export async function main() {
    const before = Object.getOwnPropertyDescriptor(globalThis, 'ReadableStream');
    const waited = typeof before.get === 'function' && !('value' in before);
    globalThis.Headers = 'mine';
    delete globalThis.Blob;
    const touched = typeof Response;
    const descriptor = (owner, name) => { const d = Object.getOwnPropertyDescriptor(owner, name); return d && ['value' in d, d.writable, d.enumerable, d.configurable]; };
    return {
      waited, touched,
      headers: globalThis.Headers,
      blob: typeof globalThis.Blob,
      stream: descriptor(globalThis, 'ReadableStream'),
      subtle: descriptor(crypto, 'subtle'),
      encoder: [TextEncoder.name, new TextEncoder().encode('é').length],
    };
  }`);
  assert.deepEqual(r, {
    waited: true,
    touched: 'function',
    headers: 'mine',
    blob: 'undefined',
    stream: [true, true, false, true],
    subtle: [true, false, true, false],
    encoder: ['TextEncoder', 2],
  });
});

test('the encoding classes wait for their first use, and a program that broke array iteration first still gets them working', async () => {
  const r = await result(`export async function main() {
    const before = Object.getOwnPropertyDescriptor(globalThis, 'TextDecoder');
    const waited = typeof before.get === 'function' && !('value' in before);
    const iteratorPrototype = Object.getPrototypeOf([][Symbol.iterator]());
    const realNext = iteratorPrototype.next;
    const realIterator = Array.prototype[Symbol.iterator];
    let calls = 0;
    // A next that lies (the library's module bodies would iterate it for a long while).
    const endless = function () { calls++; return { done: calls > 1000, value: 'x' }; };
    const values = function () { calls++; return { next: endless, [Symbol.iterator]() { return this; } }; };
    iteratorPrototype.next = endless;
    Object.defineProperty(Array.prototype, Symbol.iterator, { value: values, writable: true, configurable: true });
    // The first touch evaluates the library; the patches are the program's again afterwards.
    const kind = typeof TextDecoder;
    const kept = [iteratorPrototype.next === endless, Array.prototype[Symbol.iterator] === values, calls];
    iteratorPrototype.next = realNext;
    Object.defineProperty(Array.prototype, Symbol.iterator, { value: realIterator, writable: true, configurable: true });
    const decoded = new TextDecoder('windows-1252').decode(new Uint8Array([0x80, 0x68, 0x69]));
    const encoded = new TextEncoder().encode('é').length;
    const labels = [new TextDecoder('latin1').encoding, new TextDecoder('utf-16').encoding, new TextDecoder('koi8').encoding];
    return { waited, kind, decoded, encoded, labels, kept, stream: typeof TextDecoderStream };
  }`);
  assert.deepEqual(r, {
    waited: true,
    kind: 'function',
    decoded: '€hi',
    encoded: 2,
    labels: ['windows-1252', 'utf-16le', 'koi8-r'],
    kept: [true, true, 0],
    stream: 'function',
  });
});

// (The encoding classes are left out: their library defines properties with the built-ins it
// finds, as the header says, so such getters only break the program's own TextDecoder.)
test('getters named like descriptor fields on Object.prototype are never read by the platform defining its properties', async () => {
  const r = await result(`export async function main() {
    ${POISONING}
    const stream = new ReadableStream({ start(c) { c.enqueue('a'); c.close(); } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const event = new Event('x');
    const trusted = event.isTrusted;
    const text = await new Response('hi').text();
    const headers = [];
    for (const pair of new Headers({ a: '1' })) headers.push(pair);
    unpoison();
    return { reads, chunks, trusted, text, headers };
  }`);
  assert.deepEqual(r, { reads: [], chunks: ['a'], trusted: false, text: 'hi', headers: [['a', '1']] });
});

// DOMException is made the first time a program reads it or the prelude raises one
// (sandbox/prelude/dom-exception.ts): by then the program may have replaced built-ins and put
// getters named like descriptor fields on Object.prototype.
test('DOMException waits for its first use, and a program that hooked built-ins first gets the real one', async () => {
  const r = await result(`export async function main() {
    const before = Object.getOwnPropertyDescriptor(globalThis, 'DOMException');
    const waited = typeof before.get === 'function' && !('value' in before);
    ${POISONING}
    const realFreeze = Object.freeze;
    let hooked = 0;
    Object.defineProperty = function (...args) { hooked++; return Reflect.apply(realDefine, this, args); };
    Object.freeze = function (value) { hooked++; return value; };
    // The prelude raises the first DOMException (atob's): the class is made now.
    let error;
    try { atob('%'); } catch (caught) { error = caught; }
    Object.defineProperty = realDefine;
    Object.freeze = realFreeze;
    unpoison();
    const after = Object.getOwnPropertyDescriptor(globalThis, 'DOMException');
    const made = new DOMException('m', 'AbortError');
    const forged = Object.create(DOMException.prototype);
    let refused = false;
    try { forged.name; } catch (e) { refused = e instanceof TypeError; }
    return {
      waited, reads, hooked, refused,
      same: error instanceof DOMException && error.constructor === DOMException,
      error: [error.name, error.code, error.message.length > 0, Object.prototype.toString.call(error)],
      made: [made.name, made.code, made.message, made.ABORT_ERR, DOMException.DATA_CLONE_ERR, DOMException.name],
      after: [after.value === DOMException, after.writable, after.enumerable, after.configurable],
      frozen: [Object.isFrozen(DOMException), Object.isFrozen(DOMException.prototype)],
    };
  }`);
  assert.deepEqual(r, {
    waited: true,
    reads: [],
    hooked: 0,
    refused: true,
    same: true,
    error: ['InvalidCharacterError', 5, true, '[object DOMException]'],
    made: ['AbortError', 20, 'm', 20, 25, 'DOMException'],
    after: [true, true, false, true],
    frozen: [true, true],
  });
});

test('a program that deleted or replaced DOMException before its first use still gets DOMExceptions from the platform', async () => {
  const r = await result(`export async function main() {
    delete globalThis.DOMException;
    let error;
    try { atob('%'); } catch (caught) { error = caught; }
    const deleted = typeof globalThis.DOMException;
    globalThis.DOMException = 'mine';
    const signal = AbortSignal.abort();
    return { deleted, mine: globalThis.DOMException, error: [error.name, error.code], reason: [signal.reason.name, signal.reason.code, signal.reason.constructor === error.constructor] };
  }`);
  assert.deepEqual(r, { deleted: 'undefined', mine: 'mine', error: ['InvalidCharacterError', 5], reason: ['AbortError', 20, true] });
});

// URL and URLSearchParams are a lazy group too (sandbox/prelude/web/url-globals.ts): the
// platform's fetch and bodies and svc:url's guest code take them from the group, not the global.
test('URL and URLSearchParams wait for their first read, then have the places, descriptors and class strings they had when made eagerly', async () => {
  const r = await result(`export async function main() {
    const waits = (name) => { const d = Object.getOwnPropertyDescriptor(globalThis, name); return typeof d.get === 'function' && !('value' in d); };
    const waited = [waits('URL'), waits('URLSearchParams')];
    const names = Object.getOwnPropertyNames(globalThis);
    const order = ['btoa', 'URL', 'URLSearchParams', 'assert'].map((name) => names.indexOf(name));
    const url = new URL('https://a.example/p?x=1&y=2');
    url.searchParams.append('z', 'a b');
    const iterator = new URLSearchParams('k=v')[Symbol.iterator]();
    const arrayIterator = [][Symbol.iterator]();
    const descriptor = (name) => { const d = Object.getOwnPropertyDescriptor(globalThis, name); return ['value' in d, d.writable, d.enumerable, d.configurable]; };
    return {
      waited,
      ordered: order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1])),
      descriptors: [descriptor('URL'), descriptor('URLSearchParams')],
      names: [URL.name, URLSearchParams.name],
      tags: [Object.prototype.toString.call(url), Object.prototype.toString.call(url.searchParams), Object.prototype.toString.call(iterator)],
      iteratorChain: Object.getPrototypeOf(Object.getPrototypeOf(iterator)) === Object.getPrototypeOf(Object.getPrototypeOf(arrayIterator)),
      frozen: [Object.isFrozen(URL.prototype), Object.isFrozen(URLSearchParams.prototype), Object.isFrozen(URL)],
      href: url.href,
      entries: [...iterator],
      request: new Request(new URL('https://b.example/q')).url,
      form: new Response(new URLSearchParams('a=1')).headers.get('content-type'),
    };
  }`);
  assert.deepEqual(r, {
    waited: [true, true],
    ordered: true,
    descriptors: [[true, true, false, true], [true, true, false, true]],
    names: ['URL', 'URLSearchParams'],
    tags: ['[object URL]', '[object URLSearchParams]', '[object URLSearchParams Iterator]'],
    iteratorChain: true,
    frozen: [true, true, false],
    href: 'https://a.example/p?x=1&y=2&z=a+b',
    entries: [['k', 'v']],
    request: 'https://b.example/q',
    form: 'application/x-www-form-urlencoded;charset=UTF-8',
  });
});

test('a program that replaces URL and hooks built-ins before svc:url first parses gets answers from the real URL, and nothing it hooked runs', async () => {
  const r = await result(`import * as url from 'svc:url';
  export async function main() {
    const before = Object.getOwnPropertyDescriptor(globalThis, 'URL');
    const waited = typeof before.get === 'function' && !('value' in before);
    ${POISONING}
    globalThis.URL = class {
      constructor(input) { calls[calls.length] = 'URL ' + input; this.protocol = 'mine:'; this.hostname = 'mine'; this.pathname = '/mine'; this.search = ''; this.hash = ''; }
    };
    trap(Object, 'defineProperty', 'Object.defineProperty');
    trap(Object, 'freeze', 'Object.freeze');
    trap(Object, 'getPrototypeOf', 'Object.getPrototypeOf');
    trap(Object, 'setPrototypeOf', 'Object.setPrototypeOf');
    trap(Array.prototype, Symbol.iterator, 'Array.prototype[Symbol.iterator]');
    trap(JSON, 'parse', 'JSON.parse');
    const realSymbol = Symbol;
    globalThis.Symbol = { toStringTag: 'poisoned', iterator: 'poisoned' };
    const parsed = url.parse('https://Example.COM:8443/a/b?x=1#frag');
    const params = new URLSearchParams('k=v&k=w');
    globalThis.Symbol = realSymbol;
    unpoison();
    return {
      waited, calls, reads,
      parsed: [parsed.protocol, parsed.host, parsed.port, parsed.path, parsed.query.get('x'), parsed.fragment],
      params: [params.getAll('k'), Object.prototype.toString.call(params)],
      mine: new URL('x').hostname,
    };
  }`);
  assert.deepEqual(r, {
    waited: true,
    calls: ['URL x'],
    reads: [],
    parsed: ['https', 'example.com', 8443, '/a/b', '1', 'frag'],
    params: [['v', 'w'], '[object URLSearchParams]'],
    mine: 'mine',
  });
});
