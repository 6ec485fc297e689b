// `console` is made the first time a program reads it (sandbox/prelude/console.ts, through
// sandbox/prelude/lazy-group.ts), and the prelude's own defines skip their descriptor copies
// only until a program may run (sandbox/prelude/primordials.ts `programMayRun`). By the first
// read the program may have replaced built-ins and put getters on Object.prototype: the
// namespace made then must be the one made before, and nothing the program did may run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webServer } from '../support/web-server';
import { POISONING } from '../support/poisoning';

const { execute } = webServer();

/**
 * A program's value and its console lines: the program throws its value as JSON (a one-off
 * run's answer carries its console when the run failed).
 */
async function valueAndConsole(body: string): Promise<{ value: unknown; console: string[] }> {
  const reply = await execute(`export function main() {\nconst value = (() => {\n${body}\n})();\nthrow new Error('VALUE' + JSON.stringify(value) + 'END');\n}`);
  const message: string = reply.error?.message ?? '';
  const at = message.indexOf('VALUE');
  assert.ok(at >= 0, JSON.stringify(reply.error));
  return { value: JSON.parse(message.slice(at + 5, message.indexOf('END', at))), console: reply.console };
}

test('console waits for its first read, then is one namespace with the descriptors it had when made eagerly', async () => {
  const reply = await valueAndConsole(`
    const before = Object.getOwnPropertyDescriptor(globalThis, 'console');
    const waited = typeof before.get === 'function' && !('value' in before);
    const listed = Object.keys(globalThis).includes('console');
    const first = console;
    first.log('hello %s', 'there', 2);
    const after = Object.getOwnPropertyDescriptor(globalThis, 'console');
    const method = Object.getOwnPropertyDescriptor(console, 'log');
    const tag = Object.getOwnPropertyDescriptor(console, Symbol.toStringTag);
    console.count();
    console.count();
    return {
      waited, listed,
      same: first === globalThis.console && after.value === first,
      after: [after.writable, after.enumerable, after.configurable],
      method: [typeof method.value, method.writable, method.enumerable, method.configurable],
      tag: [Object.prototype.toString.call(console), tag.writable, tag.enumerable],
      namespace: Object.getPrototypeOf(Object.getPrototypeOf(console)) === Object.prototype && Object.getOwnPropertyNames(Object.getPrototypeOf(console)).length === 0,
      methods: Object.keys(console).length,
      inGlobals: Object.getOwnPropertyNames(globalThis).includes('console'),
    };`);
  assert.deepEqual(reply.value, {
    waited: true,
    listed: false,
    same: true,
    after: [true, false, true],
    method: ['function', true, true, true],
    tag: ['[object console]', false, false],
    namespace: true,
    methods: 22,
    inGlobals: true,
  });
  assert.deepEqual(reply.console, ['hello there 2', 'default: 1', 'default: 2']);
});

test('a program that poisons built-ins and Object.prototype before first reading console cannot reach the console made then', async () => {
  const reply = await valueAndConsole(`
    ${POISONING}
    const realSymbol = Symbol;
    const hooks = [];
    Object.defineProperty = function (...args) { hooks.push('defineProperty'); return Reflect.apply(realDefine, this, args); };
    Object.create = function () { hooks.push('create'); return {}; };
    Object.keys = function () { hooks.push('keys'); return []; };
    globalThis.Symbol = { toStringTag: 'poisoned' };
    Map.prototype.get = function () { hooks.push('Map.get'); return 100; };
    Map.prototype.set = function () { hooks.push('Map.set'); return this; };
    const realGet = Map.prototype.get;
    const realSet = Map.prototype.set;
    const realJoin = Array.prototype.join;
    const realSplit = String.prototype.split;
    Array.prototype.join = function () { hooks.push('join'); return 'joined'; };
    String.prototype.split = function () { hooks.push('split'); return []; };
    console.count('c');
    console.count('c');
    console.group('g');
    console.log('a\\nb');
    console.groupEnd();
    console.log('%d items', 3);
    const tag = Object.prototype.toString.call(console);
    Object.defineProperty = realDefine;
    globalThis.Symbol = realSymbol;
    Map.prototype.get = realGet;
    Map.prototype.set = realSet;
    Array.prototype.join = realJoin;
    String.prototype.split = realSplit;
    unpoison();
    return { reads, hooks, tag };`);
  assert.deepEqual(reply.value, { reads: [], hooks: [], tag: '[object console]' });
  assert.deepEqual(reply.console, ['c: 1', 'c: 2', 'g', '  a\n  b', '3 items']);
});

test('a program may replace or delete console before its first read', async () => {
  const replaced = await valueAndConsole(`
    const mine = { log() {} };
    globalThis.console = mine;
    console.log('not sent');
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'console');
    return { mine: console === mine, writable: descriptor.writable, enumerable: descriptor.enumerable };`);
  assert.deepEqual(replaced.value, { mine: true, writable: true, enumerable: false });
  assert.deepEqual(replaced.console, []);
  const deleted = await valueAndConsole(`
    delete globalThis.console;
    return { kind: typeof console, listed: Object.getOwnPropertyNames(globalThis).includes('console') };`);
  assert.deepEqual(deleted.value, { kind: 'undefined', listed: false });
});

// The ES2024+ built-ins start as stand-ins that evaluate core-js on first call
// (sandbox/prelude/builtins.ts): before that they must look like the real ones.
test('the newer built-ins have their names and lengths before first use, and work when first called', async () => {
  const { value } = await valueAndConsole(`
    const shape = (f) => [typeof f, f.name, f.length, 'prototype' in f];
    const before = [shape(Object.groupBy), shape(Map.groupBy), shape(Promise.withResolvers), shape(Promise.try), shape(Set.prototype.union), shape(Set.prototype.isSubsetOf)];
    const standIn = Object.groupBy;
    const grouped = Object.groupBy([1, 2, 3], (n) => (n % 2 ? 'odd' : 'even'));
    return {
      before,
      grouped: [grouped.odd, grouped.even],
      union: [...new Set([1]).union(new Set([2]))],
      replaced: Object.groupBy !== standIn,
      after: shape(Object.groupBy).slice(0, 3),
    };`);
  assert.deepEqual(value, {
    before: [['function', 'groupBy', 2, false], ['function', 'groupBy', 2, false], ['function', 'withResolvers', 0, false], ['function', 'try', 1, false], ['function', 'union', 1, false], ['function', 'isSubsetOf', 1, false]],
    grouped: [[1, 3], [2]],
    union: [1, 2],
    replaced: true,
    after: ['function', 'groupBy', 2],
  });
});

// Each stand-in evaluates its own core-js module (sandbox/prelude/builtins.ts); the iterator
// helpers' the Iterator constructor's and Iterator.from's first.
test('the first call of a newer built-in replaces only its own stand-in; the others wait for theirs and work then', async () => {
  const { value } = await valueAndConsole(`
    const union = Set.prototype.union;
    const iteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
    const take = iteratorPrototype.take;
    const withResolvers = Promise.withResolvers;
    const grouped = Object.groupBy([1, 2, 3], (n) => (n % 2 ? 'odd' : 'even'));
    const waiting = [Set.prototype.union === union, iteratorPrototype.take === take, Promise.withResolvers === withResolvers];
    const taken = [1, 2, 3].values().take(2).toArray();
    const afterHelpers = [Set.prototype.union === union, iteratorPrototype.take === take, typeof Iterator, typeof Iterator.from, Iterator.prototype === iteratorPrototype];
    const unioned = [...new Set([1]).union(new Set([2]))];
    return { grouped: [grouped.odd, grouped.even], waiting, taken, afterHelpers, unioned, replaced: Set.prototype.union !== union, from: Iterator.from({ next() { return { done: true }; } }).toArray() };`);
  assert.deepEqual(value, {
    grouped: [[1, 3], [2]],
    waiting: [true, true, true],
    taken: [1, 2],
    afterHelpers: [true, false, 'function', 'function', true],
    unioned: [1, 2],
    replaced: true,
    from: [],
  });
});

// core-js is one function the first stand-in call evaluates (scripts/build/prelude.mjs); its module
// helper keeps the prelude's captured Object.getOwnPropertyNames, as when it was bundled inline.
test('a program that replaced Object.getOwnPropertyNames before first calling a newer built-in is not called back while core-js is evaluated', async () => {
  const { value } = await valueAndConsole(`
    const real = Object.getOwnPropertyNames;
    const seen = [];
    Object.getOwnPropertyNames = function (target) { seen.push(real(target).join(',')); return real(target); };
    const grouped = Object.groupBy([1, 2, 3], (n) => (n % 2 ? 'odd' : 'even'));
    const taken = [1, 2, 3].values().take(2).toArray();
    Object.getOwnPropertyNames = real;
    return { grouped: [grouped.odd, grouped.even], taken, modules: seen.filter((names) => names.includes('core-js')).length };`);
  assert.deepEqual(value, { grouped: [[1, 3], [2]], taken: [1, 2], modules: 0 });
});

// The event classes, the global scope's event functions and `performance` are one lazy group
// (sandbox/prelude/web/event-globals.ts); the platform's classes extend the same classes.
test('the event globals and performance wait for their first read, and are the classes the platform extends whichever comes first', async () => {
  const { value } = await valueAndConsole(`
    const waits = (name) => { const d = Object.getOwnPropertyDescriptor(globalThis, name); return typeof d.get === 'function' && !('value' in d); };
    const waited = ['Event', 'EventTarget', 'addEventListener', 'performance', 'PerformanceMark'].map(waits);
    // The platform first: AbortSignal extends the EventTarget the global names later.
    const signal = new AbortController().signal;
    const names = Object.getOwnPropertyNames(globalThis);
    const order = ['performance', 'navigator', 'Event', 'reportError', 'DOMException'].map((name) => names.indexOf(name));
    const heard = [];
    addEventListener('ping', (event) => heard.push([event.type, event instanceof Event, event.isTrusted]));
    dispatchEvent(new CustomEvent('ping', { detail: 1 }));
    const mark = performance.mark('m');
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'EventTarget');
    return {
      waited,
      kinds: [typeof Event, typeof performance, typeof reportError],
      extendsGlobal: signal instanceof EventTarget && Object.getPrototypeOf(AbortSignal.prototype) === EventTarget.prototype,
      sameTwice: globalThis.Event === Event && globalThis.performance === performance,
      heard,
      ordered: order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1])),
      mark: [mark instanceof PerformanceMark, mark instanceof PerformanceEntry, performance instanceof Performance, performance instanceof EventTarget, performance.now() >= 0],
      tags: [Object.prototype.toString.call(performance), Object.prototype.toString.call(new Event('x'))],
      frozen: [Object.isFrozen(Event), Object.isFrozen(EventTarget.prototype)],
      descriptor: ['value' in descriptor, descriptor.writable, descriptor.enumerable, descriptor.configurable],
    };`);
  assert.deepEqual(value, {
    waited: [true, true, true, true, true],
    kinds: ['function', 'object', 'function'],
    extendsGlobal: true,
    sameTwice: true,
    heard: [['ping', true, false]],
    ordered: true,
    mark: [true, true, true, true, true],
    tags: ['[object Performance]', '[object Event]'],
    frozen: [true, true],
    descriptor: [true, true, false, true],
  });
});

test('a program that replaces built-ins and puts getters on Object.prototype before first touching the event globals cannot hook their evaluation', async () => {
  const { value } = await valueAndConsole(`${POISONING}
    trap(Object, 'defineProperty', 'Object.defineProperty');
    trap(Object, 'freeze', 'Object.freeze');
    trap(Object, 'create', 'Object.create');
    trap(Array.prototype, 'push', 'Array.prototype.push');
    trap(Array.prototype, Symbol.iterator, 'Array.prototype[Symbol.iterator]');
    trap(WeakSet.prototype, 'add', 'WeakSet.prototype.add');
    trap(Map.prototype, 'set', 'Map.prototype.set');
    trap(Map.prototype, 'get', 'Map.prototype.get');
    const realSymbol = Symbol;
    globalThis.Symbol = { toStringTag: 'poisoned', iterator: 'poisoned' };
    const kinds = [typeof EventTarget, typeof performance];
    let count = 0;
    const target = new EventTarget();
    target.addEventListener('x', () => { count++; });
    target.dispatchEvent(new Event('x'));
    const mark = performance.mark('m').name;
    globalThis.Symbol = realSymbol;
    unpoison();
    return { reads, calls, kinds, count, mark, tag: Object.prototype.toString.call(performance) };`);
  assert.deepEqual(value, { reads: [], calls: [], kinds: ['function', 'object'], count: 1, mark: 'm', tag: '[object Performance]' });
});

// The prelude's safe collections (sandbox/prelude/primordials.ts) copy their built-in's
// methods when first constructed, which may be after the program replaced those methods.
test('a program that replaces the collections\' methods before the prelude first builds one cannot hook what the prelude keeps in it', async () => {
  const reply = await valueAndConsole(`
    const hooks = [];
    const restore = [];
    const collections = [Map, Set, WeakMap, WeakSet];
    for (let c = 0; c < collections.length; c++) {
      const prototype = collections[c].prototype;
      const names = Reflect.ownKeys(prototype);
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
        if (name === 'constructor' || typeof descriptor.value !== 'function') continue;
        restore.push([prototype, name, descriptor]);
        const original = descriptor.value;
        const label = collections[c].name + '.' + String(name);
        prototype[name] = function (...args) { hooks.push(label); return Reflect.apply(original, this, args); };
      }
    }
    console.log({ nested: [1, { two: 2 }] });
    console.count('c');
    const target = new EventTarget();
    let heard = 0;
    target.addEventListener('x', () => { heard++; });
    target.dispatchEvent(new Event('x'));
    const copy = structuredClone({ list: [1, 2], again: null });
    for (let i = restore.length - 1; i >= 0; i--) Object.defineProperty(restore[i][0], restore[i][1], restore[i][2]);
    return { hooks, heard, copy };`);
  assert.deepEqual(reply.value, { hooks: [], heard: 1, copy: { list: [1, 2], again: null } });
  assert.deepEqual(reply.console, ['{"nested":[1,{"two":2}]}', 'c: 1']);
});
