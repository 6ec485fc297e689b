// Web platform timers against the real server: setTimeout/setInterval ordering, clearing,
// queueMicrotask, the run loop ending when main settles (pending timers dropped and said
// so), the time limit while waiting, fuel inside a callback, performance and navigator,
// and AbortController/AbortSignal (abort, timeout, any). Also: what stays absent.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../harness';

let server: TestServer;

before(async () => {
  server = await startServer({ runners: 1, args: ['--max-execution-time', '3', '--max-execution-fuel', '20000000'] });
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\n' } });
  assert.ok(created.status < 300, created.text);
});
after(async () => server.stop());

async function run(code: string) {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json as { result: string | null; console: string[]; error: { kind: string; message: string } | null; execution_id: string };
}

describe('timers', () => {
  test('setTimeout callbacks run by due time then creation order, with arguments, microtasks between them', async () => {
    const out = await run(`export async function main() {
      const seen = [];
      await new Promise((done) => {
        // Created first but due 1 s later: a stall between these statements (a loaded
        // machine) must stay under that gap for due time, not creation, to decide the order.
        // The timer path is loaded and compiled by a first timer before the race (a fresh
        // clone's first runs stalled 200 ms there).
        clearTimeout(setTimeout(() => {}, 0));
        setTimeout((a, b) => seen.push('t200' + a + b), 1000, ':', 'x');
        setTimeout(() => { seen.push('t0a'); Promise.resolve().then(() => seen.push('micro-after-t0a')); }, 0);
        setTimeout(() => seen.push('t0b'), 0);
        queueMicrotask(() => seen.push('micro'));
        setTimeout(done, 1200);
      });
      return seen;
    }`);
    assert.equal(out.error, null, JSON.stringify(out.error));
    assert.deepEqual(JSON.parse(out.result!), ['micro', 't0a', 'micro-after-t0a', 't0b', 't200:x']);
  });

  test('clearTimeout and clearInterval cancel; an interval repeats until cleared', async () => {
    const out = await run(`export async function main() {
      let ticks = 0;
      const cancelled = setTimeout(() => { throw new Error('must not run'); }, 5);
      clearTimeout(cancelled);
      await new Promise((done) => {
        const id = setInterval(() => { ticks++; if (ticks === 3) { clearInterval(id); setTimeout(done, 20); } }, 5);
      });
      return { ticks, idType: typeof setTimeout(() => {}, 0) };
    }`);
    assert.equal(out.error, null, JSON.stringify(out.error));
    assert.deepEqual(JSON.parse(out.result!), { ticks: 3, idType: 'number' });
  });

  test('the run ends when main settles: pending timers are dropped and the console counts them', async () => {
    const out = await run(`export function main() { setTimeout(() => console.log('never'), 60_000); setInterval(() => {}, 10); return 'done'; }`);
    assert.equal(out.result, 'done');
    // The execute result carries console lines on failure: settle main by throwing.
    const failed = await run(`export async function main() { setTimeout(() => console.log('never'), 60_000); setInterval(() => {}, 10); await new Promise((r) => setTimeout(r, 5)); throw new Error('settled'); }`);
    assert.deepEqual(failed.console, ['[2 pending timers were dropped: the run ends when main settles]']);
  });

  test('an error thrown in a callback ends the run with that error', async () => {
    const out = await run(`export function main() { return new Promise(() => { setTimeout(() => { throw new RangeError('from a timer'); }, 1); }); }`);
    assert.equal(out.error?.kind, 'runtime_error');
    assert.match(out.error!.message, /RangeError: from a timer/);
  });

  test('waiting counts against the time limit', async () => {
    const out = await run(`export function main() { return new Promise((done) => setTimeout(done, 60_000)); }`);
    assert.equal(out.error?.kind, 'timeout');
  });

  test('a fuel limit inside a callback ends the run and cannot be caught', async () => {
    const out = await run(`export function main() { return new Promise((done) => setTimeout(() => { try { while (true) {} } catch { done('caught'); } }, 1)); }`);
    assert.equal(out.error?.kind, 'fuel_exhausted');
    assert.equal(out.result, null);
  });

  test('a never-settling main with no timers is still reported', async () => {
    const out = await run(`export function main() { return new Promise(() => {}); }`);
    assert.match(out.error!.message, /can never settle/);
  });

  test('a code string is refused', async () => {
    const out = await run(`export function main() { setTimeout('1 + 1' as any, 0); }`);
    assert.match(out.error!.message, /TypeError: setTimeout: the callback must be a function \(code strings are not evaluated/);
  });
});

describe('performance and navigator', () => {
  test('performance.now grows from 0 across a timer; timeOrigin is the run start; navigator names svc', async () => {
    // No durations compared (a loaded machine stretches them): the run's clock starts inside
    // the request's window, counts from there, and a 30 ms timer moves it at least that far.
    const sent = Date.now();
    const out = await run(`export async function main() {
      const a = performance.now();
      await new Promise((r) => setTimeout(r, 30));
      const b = performance.now();
      return { a, b, origin: performance.timeOrigin, ua: navigator.userAgent };
    }`);
    const answered = Date.now();
    assert.equal(out.error, null, JSON.stringify(out.error));
    const r = JSON.parse(out.result!);
    assert.ok(r.a >= 0 && r.b - r.a >= 25, `performance.now ${r.a} then ${r.b}`);
    assert.ok(r.origin >= sent - 1 && r.origin + r.b <= answered + 1, `timeOrigin ${r.origin} + ${r.b} outside the request (${sent}..${answered})`);
    assert.match(r.ua, /^svc/);
  });
});

describe('AbortController and AbortSignal', () => {
  test('abort() fires listeners and onabort once, in the order they were set, with the reason; throwIfAborted throws it', async () => {
    const out = await run(`export function main() {
      const c = new AbortController();
      const seen = [];
      c.signal.addEventListener('abort', (e) => seen.push('listener:' + e.type));
      c.signal.onabort = () => seen.push('onabort');
      c.abort('why');
      c.abort('again');
      let thrown;
      try { c.signal.throwIfAborted(); } catch (e) { thrown = e; }
      const plain = new AbortController(); plain.abort();
      return { seen, aborted: c.signal.aborted, reason: c.signal.reason, thrown, defaultReason: plain.signal.reason.name, isDom: plain.signal.reason instanceof DOMException, code: plain.signal.reason.code };
    }`);
    assert.equal(out.error, null, JSON.stringify(out.error));
    assert.deepEqual(JSON.parse(out.result!), { seen: ['listener:abort', 'onabort'], aborted: true, reason: 'why', thrown: 'why', defaultReason: 'AbortError', isDom: true, code: 20 });
  });

  test('AbortSignal.timeout aborts with a TimeoutError; AbortSignal.any follows its first source; abort() is pre-aborted', async () => {
    const out = await run(`export async function main() {
      const t = AbortSignal.timeout(10);
      const c = new AbortController();
      const any = AbortSignal.any([c.signal, t]);
      const reason = await new Promise((r) => t.addEventListener('abort', () => r(t.reason.name)));
      return { reason, any: any.aborted, anyReason: any.reason.name, pre: AbortSignal.abort().aborted };
    }`);
    assert.equal(out.error, null, JSON.stringify(out.error));
    assert.deepEqual(JSON.parse(out.result!), { reason: 'TimeoutError', any: true, anyReason: 'TimeoutError', pre: true });
  });

  test('AbortSignal cannot be constructed directly', async () => {
    const out = await run(`export function main() { new AbortSignal(); }`);
    assert.match(out.error!.message, /TypeError: Illegal constructor/);
  });
});

describe('what stays absent', () => {
  test('no Deno, process, require, Buffer, WebAssembly, SharedArrayBuffer or Atomics.wait; eval and Function refuse', async () => {
    const out = await run(`export function main() {
      const names = ['Deno', 'process', 'require', 'Buffer', 'WebAssembly', 'SharedArrayBuffer'];
      const present = names.filter((n) => n in globalThis);
      const atomicsWait = typeof globalThis.Atomics === 'object' && typeof Atomics.wait === 'function';
      let evalRefused = false; try { eval('1'); } catch (e) { evalRefused = e instanceof EvalError; }
      let fnRefused = false; try { Function('return 1')(); } catch (e) { fnRefused = e instanceof EvalError; }
      let ctorRefused = false; try { (() => {}).constructor('return 1'); } catch (e) { ctorRefused = true; }
      return { present, atomicsWait, evalRefused, fnRefused, ctorRefused };
    }`);
    assert.equal(out.error, null, JSON.stringify(out.error));
    assert.deepEqual(JSON.parse(out.result!), { present: [], atomicsWait: false, evalRefused: true, fnRefused: true, ctorRefused: true });
  });
});
