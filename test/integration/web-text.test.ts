// The text-side web platform through the real server: encodings (labels, utf-16, the
// single-byte encodings, fatal, streaming, encodeInto), DOMException, atob/btoa errors,
// URL setters and statics, URLSearchParams decoding, the console namespace, and the
// ES2024+ built-ins the engine lacks. Programs are type-checked (the default), so the
// declarations of these members are exercised too.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../harness';

let server: TestServer;
before(async () => {
  server = await startServer({ runners: 1 });
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\ndefault: allow\nvfs: none\n' } });
  assert.equal(created.status, 200, created.text);
});
after(async () => server?.stop());

/** Runs `main`'s body; returns the parsed result (the program returns JSON-able values). */
async function run(body: string): Promise<any> {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code: `export async function main() {\n${body}\n}` } });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.error, null, JSON.stringify(reply.json.error));
  return JSON.parse(reply.json.result);
}

/** Runs a body that logs and then fails on purpose: the run's console lines. */
async function consoleOf(body: string): Promise<string[]> {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code: `export function main() {\n${body}\nthrow new Error("end");\n}` } });
  assert.equal(reply.status, 200, reply.text);
  assert.match(reply.json.error?.message ?? '', /end/);
  return reply.json.console;
}

describe('encodings', () => {
  test('TextDecoder takes WHATWG labels and decodes utf-16le/be and single-byte encodings', async () => {
    const value = await run(`
      const bytes = (list) => new Uint8Array(list);
      return {
        label: new TextDecoder('unicode-1-1-utf-8').encoding,
        latin1: new TextDecoder('latin1').encoding,
        le: new TextDecoder('utf-16').decode(bytes([0x68, 0, 0x69, 0])),
        be: new TextDecoder('utf-16be').decode(bytes([0, 0x68, 0, 0x69])),
        cyrillic: new TextDecoder('koi8-r').decode(bytes([0xc1, 0xc2])),
        euro: new TextDecoder('windows-1252').decode(bytes([0x80])),
        bom: new TextDecoder().decode(bytes([0xef, 0xbb, 0xbf, 0x41])),
        keptBom: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes([0xef, 0xbb, 0xbf, 0x41])).length,
        unknown: (() => { try { new TextDecoder('nope'); return 'accepted'; } catch (e) { return e.name; } })(),
      };`);
    assert.deepEqual(value, { label: 'utf-8', latin1: 'windows-1252', le: 'hi', be: 'hi', cyrillic: 'аб', euro: '€', bom: 'A', keptBom: 2, unknown: 'RangeError' });
  });

  test('fatal throws a TypeError, the default replaces each malformed subpart, streaming keeps split characters', async () => {
    const value = await run(`
      const bad = new Uint8Array([0x61, 0xc2, 0x78, 0xf0, 0x9f]);
      let fatal;
      try { new TextDecoder('utf-8', { fatal: true }).decode(bad); fatal = 'decoded'; } catch (e) { fatal = e instanceof TypeError; }
      const euro = new TextEncoder().encode('€');
      const stream = new TextDecoder();
      const parts = [stream.decode(euro.subarray(0, 1), { stream: true }), stream.decode(euro.subarray(1), { stream: true }), stream.decode()];
      return { fatal, loose: new TextDecoder().decode(bad), parts };`);
    assert.deepEqual(value, { fatal: true, loose: 'a\uFFFDx\uFFFD', parts: ['', '€', ''] });
  });

  test('TextEncoder.encodeInto writes whole characters and reports read and written', async () => {
    const value = await run(`
      const target = new Uint8Array(3);
      const result = new TextEncoder().encodeInto('a€b', target);
      return { read: result.read, written: result.written, bytes: Array.from(target) };`);
    assert.deepEqual(value, { read: 1, written: 1, bytes: [0x61, 0, 0] });
  });
});

describe('DOMException and base64', () => {
  test('DOMException has its name, message, legacy code and constants; atob and btoa throw InvalidCharacterError', async () => {
    const value = await run(`
      const e = new DOMException('gone', 'NotFoundError');
      const caught = (fn) => { try { fn(); return null; } catch (err) { return { isDom: err instanceof DOMException, name: err.name, code: err.code }; } };
      return {
        name: e.name, message: e.message, code: e.code, custom: new DOMException('x', 'Custom').code,
        constant: DOMException.INVALID_CHARACTER_ERR, onPrototype: e.DATA_CLONE_ERR, isError: e instanceof Error,
        tag: Object.prototype.toString.call(e), text: String(e),
        atob: caught(() => atob('a===')), btoa: caught(() => btoa('ā')), decoded: atob(' YW Jj '),
      };`);
    assert.deepEqual(value, {
      name: 'NotFoundError', message: 'gone', code: 8, custom: 0, constant: 5, onPrototype: 25, isError: true,
      tag: '[object DOMException]', text: 'NotFoundError: gone',
      atob: { isDom: true, name: 'InvalidCharacterError', code: 5 }, btoa: { isDom: true, name: 'InvalidCharacterError', code: 5 }, decoded: 'abc',
    });
  });
});

describe('URL', () => {
  test('setters follow the standard: C0 controls, tabs and newlines are stripped, invalid values are ignored', async () => {
    const value = await run(`
      const url = new URL('https://example.com/a?x=1#f');
      url.protocol = '\\u0000http';
      const first = url.protocol;
      url.host = 'exa\\tmple.org\\n';
      url.pathname = 'b c';
      url.port = '99999';
      url.search = '?q= 1';
      url.hash = '';
      return { first, href: url.href, params: url.searchParams.get('q') };`);
    assert.deepEqual(value, { first: 'https:', href: 'https://example.org/b%20c?q=%201', params: ' 1' });
  });

  test('URL.parse and URL.canParse; an invalid href assignment throws a TypeError', async () => {
    const value = await run(`
      const url = new URL('https://a.example/');
      let thrown;
      try { url.href = 'not a url'; } catch (e) { thrown = e instanceof TypeError; }
      return { parsed: URL.parse('/x', 'https://b.example/y').href, missing: URL.parse('nope'), can: URL.canParse('https://c.example'), cannot: URL.canParse('::'), thrown, kept: url.href };`);
    assert.deepEqual(value, { parsed: 'https://b.example/x', missing: null, can: true, cannot: false, thrown: true, kept: 'https://a.example/' });
  });

  test('URLSearchParams decodes invalid percent sequences to U+FFFD, serialises as forms do, and stays in step with its URL', async () => {
    const value = await run(`
      const params = new URLSearchParams('a=%C2x&b=%2sf%2a&c=%FF');
      const url = new URL('https://x.example/?k=v');
      url.searchParams.append('sp ace', '*~');
      const afterAppend = url.href;
      url.searchParams.delete('k');
      url.searchParams.delete('sp ace');
      return { a: params.get('a'), b: params.get('b'), c: params.get('c'), text: new URLSearchParams({ 'x y': 'a*b~' }).toString(), afterAppend, emptied: url.href, size: params.size };`);
    assert.deepEqual(value, { a: '\uFFFDx', b: '%2sf*', c: '\uFFFD', text: 'x+y=a*b%7E', afterAppend: 'https://x.example/?k=v&sp+ace=*%7E', emptied: 'https://x.example/', size: 3 });
  });
});

describe('console', () => {
  test('count, countReset, time/timeEnd, group indentation, assert, table, dir and format specifiers become lines', async () => {
    const lines = await consoleOf(`
      console.count(); console.count(); console.count('x'); console.countReset(); console.count();
      console.group('outer'); console.info('inside'); console.groupEnd(); console.log('outside');
      console.assert(1 === 1, 'not shown'); console.assert(false, 'shown %s', 'here');
      console.log('%s is %d years and %o', 'Ada', 36.6, { a: 1 });
      console.table([{ a: 1, b: 'x' }, { a: 2 }]);
      console.dir({ deep: [1] });
      console.time('t'); console.timeEnd('t'); console.timeEnd('t');`);
    assert.deepEqual(lines.slice(0, 9), ['default: 1', 'default: 2', 'x: 1', 'default: 1', 'outer', '  inside', 'outside', 'Assertion failed: shown here', 'Ada is 36 years and {"a":1}']);
    assert.match(lines[9], /^┌─+┬─+┬─+┐\n│ \(index\) │ +a +│ +b +│\n/);
    assert.match(lines[9], /│ +1 +│ +2 +│ +│/);
    assert.equal(lines[10], '{"deep":[1]}');
    assert.match(lines[11], /^t: \d+ms$/);
    assert.equal(lines[12], "Timer 't' does not exist");
  });

  test('console is a namespace object with its @@toStringTag; labels convert with toString and rethrow', async () => {
    const value = await run(`
      let thrown;
      // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
      try { console.count({ toString() { throw new RangeError('label'); } }); } catch (e) { thrown = e.name; }
      return { tag: Object.prototype.toString.call(console), protoKeys: Object.getOwnPropertyNames(Object.getPrototypeOf(console)).length, methods: ['trace', 'dirxml', 'groupCollapsed', 'timeLog'].every((m) => typeof console[m] === 'function'), thrown };`);
    assert.deepEqual(value, { tag: '[object console]', protoKeys: 0, methods: true, thrown: 'RangeError' });
  });
});

describe('ES2024+ built-ins', () => {
  test('Object.groupBy, Map.groupBy, Promise.withResolvers, Set methods, iterator helpers and Array.fromAsync work', async () => {
    const value = await run(`
      const grouped = Object.groupBy([1, 2, 3, 4], (n) => (n % 2 ? 'odd' : 'even'));
      const byMap = Map.groupBy(['a', 'bb', 'cc'], (s) => s.length);
      const { promise, resolve } = Promise.withResolvers();
      setTimeout(() => resolve('resolved'), 0);
      const union = [...new Set([1, 2]).union(new Set([2, 3]))];
      const inter = [...new Set([1, 2]).intersection(new Set([2, 3]))];
      const helpers = [1, 2, 3, 4, 5].values().filter((n) => n % 2).map((n) => n * 10).take(2).toArray();
      const fromIterator = Iterator.from({ next() { return { done: true, value: undefined }; } }).toArray();
      const fromAsync = await Array.fromAsync((async function* () { yield 1; yield 2; })());
      return { grouped, byMap: [...byMap.entries()], resolved: await promise, union, inter, helpers, fromIterator, fromAsync, subset: new Set([1]).isSubsetOf(new Set([1, 2])), name: Object.groupBy.name, length: Object.groupBy.length };`);
    assert.deepEqual(value, {
      grouped: { odd: [1, 3], even: [2, 4] },
      byMap: [[1, ['a']], [2, ['bb', 'cc']]],
      resolved: 'resolved', union: [1, 2, 3], inter: [2], helpers: [10, 30], fromIterator: [], fromAsync: [1, 2], subset: true, name: 'groupBy', length: 2,
    });
  });
});

describe('performance and WebCrypto errors', () => {
  test('performance is an EventTarget with marks and measures; now() counts from the run start', async () => {
    const value = await run(`
      performance.mark('a', { startTime: 5, detail: { step: 1 } });
      performance.mark('b', { startTime: 12 });
      const measure = performance.measure('a-b', 'a', 'b');
      let missing;
      try { performance.measure('x', 'nope'); } catch (e) { missing = e.name; }
      return {
        target: performance instanceof EventTarget, tag: Object.prototype.toString.call(performance),
        duration: measure.duration, start: measure.startTime, marks: performance.getEntriesByType('mark').map((m) => m.name),
        detail: (performance.getEntriesByName('a')[0] as PerformanceMark).detail, missing, now: performance.now() >= 0 && performance.now() < 60000,
        cleared: (performance.clearMarks(), performance.getEntries().map((e) => e.entryType)),
      };`);
    assert.deepEqual(value, { target: true, tag: '[object Performance]', duration: 7, start: 5, marks: ['a', 'b'], detail: { step: 1 }, missing: 'SyntaxError', now: true, cleared: ['measure'] });
  });

  test('getRandomValues past 65536 bytes is a QuotaExceededError and on floats a TypeMismatchError; a bad AES length to generate is an OperationError', async () => {
    const value = await run(`
      const nameOf = async (fn) => { try { await fn(); return 'none'; } catch (e) { return (e instanceof DOMException ? 'DOMException ' : '') + e.name; } };
      return {
        quota: await nameOf(() => crypto.getRandomValues(new Uint8Array(65537))),
        floats: await nameOf(() => crypto.getRandomValues(new Float32Array(4))),
        aes: await nameOf(() => crypto.subtle.generateKey({ name: 'AES-GCM', length: 64 }, false, ['encrypt'])),
      };`);
    assert.deepEqual(value, { quota: 'DOMException QuotaExceededError', floats: 'DOMException TypeMismatchError', aes: 'DOMException OperationError' });
  });
});
