// structuredClone of every serialisable type a program can build: wrapper objects, views
// sharing one buffer, Blob and File, errors with their cause, cycles, sparse arrays; a
// DataCloneError (a DOMException) for functions, symbols and platform objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webServer } from '../support/web-server';

const { result } = webServer();

test('structuredClone keeps wrapper objects, shared buffers, Blob and File, errors, cycles and holes', async () => {
  const r = await result(`export async function main() {
    const wrappers = structuredClone([new Boolean(false), new Number(3), new String('s'), Object(10n)]).map((x) => [typeof x, Object.prototype.toString.call(x), String(x.valueOf())]);
    const buffer = new ArrayBuffer(8);
    const [view, data] = structuredClone([new Uint8Array(buffer, 2, 3), new DataView(buffer)]);
    view[0] = 7;
    const file = structuredClone(new File(['hello'], 'h.txt', { type: 'text/plain', lastModified: 42 }));
    const blob = structuredClone(new Blob(['x'], { type: 'a/b' }));
    const error = structuredClone(new RangeError('r', { cause: { why: 'c' } }));
    const cyclic = { m: new Map([[1, { s: new Set([1]) }]]), d: new Date(5), re: /a+/gi };
    cyclic.self = cyclic;
    const copy = structuredClone(cyclic);
    const sparse = structuredClone([1, , 3]);
    return {
      wrappers, shared: [view.buffer === data.buffer, data.getUint8(2), view.byteOffset, view.length, new Uint8Array(buffer)[2]],
      file: [file instanceof File, file.name, file.type, file.lastModified, await file.text()],
      blob: [blob instanceof Blob, blob.type, await blob.text()],
      error: [error instanceof RangeError, error.message, error.cause, typeof error.stack],
      cyclic: [copy.self === copy, copy !== cyclic, copy.m.get(1).s.has(1), copy.d.getTime(), String(copy.re)],
      sparse: [sparse.length, 1 in sparse],
    };
  }`);
  assert.deepEqual(r, {
    wrappers: [['object', '[object Boolean]', 'false'], ['object', '[object Number]', '3'], ['object', '[object String]', 's'], ['object', '[object BigInt]', '10']],
    shared: [true, 7, 2, 3, 0],
    file: [true, 'h.txt', 'text/plain', 42, 'hello'],
    blob: [true, 'a/b', 'x'],
    error: [true, 'r', { why: 'c' }, 'string'],
    cyclic: [true, true, true, 5, '/a+/gi'],
    sparse: [3, false],
  });
});

test('structuredClone refuses functions, symbols and platform objects with a DataCloneError; the transfer list is checked', async () => {
  const r = await result(`export function main() {
    const out = [];
    for (const v of [() => 1, Symbol('x'), Object(Symbol('y')), new Headers(), new EventTarget(), Promise.resolve(), new WeakMap(), { nested: [function f() {}] }]) {
      try { structuredClone(v); out.push('cloned'); } catch (e) { out.push(e.name + ':' + (e instanceof DOMException) + ':' + e.code); }
    }
    let transfer = ''; try { structuredClone(1, { transfer: [1] }); } catch (e) { transfer = e.name; }
    const b = new ArrayBuffer(1);
    let twice = ''; try { structuredClone(b, { transfer: [b, b] }); } catch (e) { twice = e.name; }
    // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
    let none = ''; try { structuredClone(); } catch (e) { none = e.name; }
    return { out, transfer, twice, none, transferred: structuredClone(b, { transfer: [b] }).byteLength };
  }`);
  assert.deepEqual(r.out, Array(8).fill('DataCloneError:true:25'));
  assert.deepEqual([r.transfer, r.twice, r.none, r.transferred], ['DataCloneError', 'DataCloneError', 'TypeError', 1]);
});
