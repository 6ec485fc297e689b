// Retained last-run records: each token's records are kept within its own byte budget, and
// every record counts at least a fixed overhead, so empty records cannot pile up unbounded.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { LastRunStore } from '../../../src/sessions';

const empty = { result: null, console: [], error: null };

describe('LastRunStore', () => {
  test('records with no result, console or error still count against the budget', () => {
    const store = new LastRunStore(64 * 1024);
    for (let i = 0; i < 10_000; i++) store.remember(`run-${i}`, empty, 'looper');
    assert.ok(store.size < 1_000, `${store.size} empty records kept under a 64 KiB budget`);
    assert.ok(store.bytes <= 64 * 1024);
    assert.notEqual(store.get('run-9999'), null, 'the newest is kept');
    assert.equal(store.get('run-0'), null, 'the oldest went');
  });

  test("one token's records never push out another's", () => {
    const store = new LastRunStore(64 * 1024);
    store.remember('mine', { result: 'x'.repeat(30_000), console: [], error: null }, 'first');
    for (let i = 0; i < 100; i++) store.remember(`theirs-${i}`, { result: 'y'.repeat(30_000), console: [], error: null }, 'second');
    assert.notEqual(store.get('mine'), null);
    assert.notEqual(store.get('theirs-99'), null);
    assert.equal(store.get('theirs-0'), null);
  });

  test("past its count a token's oldest record goes, however small, and only its own", () => {
    const store = new LastRunStore(64 * 1024 * 1024, 3);
    store.remember('mine', empty, 'first');
    for (let i = 0; i < 5; i++) store.remember(`theirs-${i}`, empty, 'second');
    assert.deepEqual(
      ['mine', 'theirs-0', 'theirs-1', 'theirs-2', 'theirs-3', 'theirs-4'].map((id) => store.get(id) !== null),
      [true, false, false, true, true, true],
    );
    assert.equal(store.size, 4);
  });
});
