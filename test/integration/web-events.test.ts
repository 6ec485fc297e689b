// EventTarget, Event, CustomEvent and AbortSignal per the DOM standard: listener options
// (capture, once, passive, signal), handleEvent objects, phases and composedPath, errors in
// listeners reported on the global scope without stopping the dispatch, AbortSignal.any
// and timeout, and the web classes' own names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webServer } from '../support/web-server';

const { execute, result } = webServer();

test('the web classes carry their own names (not the bundler\'s _Request ...)', async () => {
  const names = ['Request', 'Response', 'Headers', 'Blob', 'File', 'FormData', 'AbortSignal', 'AbortController', 'EventTarget', 'Event', 'CustomEvent', 'ReadableStream'];
  const r = await result(`export function main() { return [${names.join(', ')}].map((c) => c.name); }`);
  assert.deepEqual(r, names);
});

test('listeners: capture first, handleEvent objects, once, passive ignores preventDefault, phases, composedPath, constants', async () => {
  const r = await result(`export function main() {
    const t = new EventTarget();
    const log = [];
    t.addEventListener('x', (e) => log.push('plain:' + e.eventPhase + ':' + (e.composedPath()[0] === t) + ':' + (e.currentTarget === t)));
    t.addEventListener('x', () => log.push('capture'), { capture: true });
    t.addEventListener('x', { handleEvent(e) { log.push('object:' + (this !== t)); } });
    t.addEventListener('x', () => log.push('once'), { once: true });
    t.addEventListener('x', (e) => { e.preventDefault(); log.push('passive:' + e.defaultPrevented); }, { passive: true });
    t.addEventListener('x', (e) => { e.stopImmediatePropagation(); log.push('stop'); });
    t.addEventListener('x', () => log.push('never'));
    const first = new Event('x', { cancelable: true });
    const notCanceled = t.dispatchEvent(first);
    t.dispatchEvent(new Event('x'));
    const cancel = new EventTarget();
    cancel.addEventListener('c', (e) => { e.returnValue = false; });
    const canceled = new Event('c', { cancelable: true });
    const dispatched = cancel.dispatchEvent(canceled);
    const custom = new CustomEvent('c', { detail: { n: 1 } });
    let noType = ''; try { new Event(); } catch (e) { noType = e.name; }
    // @ts-expect-error: a deliberately invalid argument, probing the runtime's validation
    let badSignal = ''; try { t.addEventListener('x', () => {}, { signal: {} }); } catch (e) { badSignal = e.name; }
    return { log, notCanceled, after: [first.eventPhase, first.currentTarget, first.composedPath().length, first.target === t, first.isTrusted],
      canceled: [dispatched, canceled.defaultPrevented], detail: custom.detail, noType, badSignal,
      constants: [Event.NONE, Event.CAPTURING_PHASE, Event.AT_TARGET, Event.BUBBLING_PHASE, first.AT_TARGET], timeStamp: typeof first.timeStamp };
  }`);
  assert.deepEqual(r.log, ['capture', 'plain:2:true:true', 'object:true', 'once', 'passive:false', 'stop', 'capture', 'plain:2:true:true', 'object:true', 'passive:false', 'stop']);
  assert.equal(r.notCanceled, true);
  assert.deepEqual(r.after, [0, null, 0, true, false]);
  assert.deepEqual(r.canceled, [false, true]);
  assert.deepEqual(r.detail, { n: 1 });
  assert.equal(r.noType, 'TypeError');
  assert.equal(r.badSignal, 'TypeError');
  assert.deepEqual(r.constants, [0, 1, 2, 3, 2]);
  assert.equal(r.timeStamp, 'number');
});

test('an error in a listener goes to the global error event; the other listeners and the dispatcher go on', async () => {
  const r = await result(`export function main() {
    const t = new EventTarget();
    const log = [];
    t.addEventListener('x', () => { throw new Error('boom'); });
    t.addEventListener('x', () => log.push('next listener'));
    addEventListener('error', (e) => { log.push(e.constructor.name + ':' + e.error.message); e.preventDefault(); });
    t.dispatchEvent(new Event('x'));
    log.push('after dispatch');
    reportError(new Error('reported'));
    return log;
  }`);
  assert.deepEqual(r, ['ErrorEvent:boom', 'next listener', 'after dispatch', 'ErrorEvent:reported']);
});

test('an error in a listener that nothing handles is the run\'s uncaught error (as in Deno), after the dispatch finished', async () => {
  const reply = await execute(`export function main() {
    const t = new EventTarget();
    let after = false;
    t.addEventListener('x', () => { throw new RangeError('listener failed'); });
    t.addEventListener('x', () => { after = true; });
    t.dispatchEvent(new Event('x'));
    return after;
  }`);
  assert.notEqual(reply.error, null);
  assert.match(JSON.stringify(reply.error), /listener failed/);
});

test('10,000 listeners added with a signal are removed by one abort, without deep recursion', async () => {
  const r = await result(`export function main() {
    const t = new EventTarget();
    const controller = new AbortController();
    let calls = 0;
    for (let i = 0; i < 10000; i++) t.addEventListener('y', () => calls++, { signal: controller.signal });
    t.dispatchEvent(new Event('y'));
    controller.abort();
    t.dispatchEvent(new Event('y'));
    t.addEventListener('y', () => calls++, { signal: controller.signal });
    t.dispatchEvent(new Event('y'));
    let chain = new AbortController().signal;
    const root = new AbortController();
    chain = root.signal;
    for (let i = 0; i < 10000; i++) chain = AbortSignal.any([chain]);
    root.abort('deep');
    return { calls, chain: [chain.aborted, chain.reason] };
  }`);
  assert.deepEqual(r, { calls: 10000, chain: [true, 'deep'] });
});

test('AbortSignal: abort, any (dependents abort with the reason, trusted event, onabort), throwIfAborted, timeout', async () => {
  const r = await result(`export async function main() {
    const a = new AbortController(), b = new AbortController();
    const any = AbortSignal.any([a.signal, b.signal]);
    const seen = [];
    any.onabort = (e) => seen.push('onabort:' + e.isTrusted);
    any.addEventListener('abort', () => seen.push('listener:' + any.reason));
    b.abort('second');
    a.abort('first');
    let thrown; try { any.throwIfAborted(); } catch (e) { thrown = e; }
    const already = AbortSignal.any([AbortSignal.abort('pre')]);
    const timeout = AbortSignal.timeout(1);
    const timedOut = await new Promise((resolve) => timeout.addEventListener('abort', () => resolve(timeout.reason.name)));
    let illegal = ''; try { new AbortSignal(); } catch (e) { illegal = e.name; }
    return { seen, thrown, already: [already.aborted, already.reason], defaultReason: AbortSignal.abort().reason.name, timedOut, illegal };
  }`);
  assert.deepEqual(r, { seen: ['onabort:true', 'listener:second'], thrown: 'second', already: [true, 'pre'], defaultReason: 'AbortError', timedOut: 'TimeoutError', illegal: 'TypeError' });
});
