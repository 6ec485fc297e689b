// A runner's shared code caches: a script compiled a second time makes a cache (most new
// programs run once: their first compile makes none), later isolates deserialise it, and a
// cache only ever meets its own content key (V8 itself checks just the length), so another
// script of the same length compiles anew.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ivm from 'isolated-vm';
import { compileShared, contentKey } from '../../../sandbox/runner/script-cache';

type Compiled = ivm.Script & { cachedDataRejected?: boolean };

type Produced = Compiled & { cachedData?: ivm.ExternalCopy<ArrayBuffer> };

test('a script\'s first compile makes no cache, its second makes one, the third isolate compiles from it; same-length content does not share it', () => {
  const isolates = Array.from({ length: 4 }, () => new ivm.Isolate({ memoryLimit: 32 }));
  try {
    const one = '1 + 1';
    const two = '2 + 3';
    assert.equal(one.length, two.length);
    const first = compileShared(isolates[0], one, 'shared-test.js', contentKey(one)) as Produced;
    assert.equal(first.cachedDataRejected, undefined, 'the first compile has no cache to take');
    assert.equal(first.cachedData, undefined, 'the first compile makes no cache');
    const second = compileShared(isolates[1], one, 'shared-test.js', contentKey(one)) as Produced;
    assert.equal(second.cachedDataRejected, undefined, 'the second compile has no cache to take either');
    assert.ok(second.cachedData, 'the second compile makes the cache');
    const third = compileShared(isolates[2], one, 'shared-test.js', contentKey(one)) as Compiled;
    assert.equal(third.cachedDataRejected, false, 'the third compile takes the cache');
    const other = compileShared(isolates[3], two, 'shared-test.js', contentKey(two)) as Compiled;
    assert.equal(other.cachedDataRejected, undefined, 'another content gets no cache');
    assert.equal(third.runSync(isolates[2].createContextSync()), 2);
    assert.equal(other.runSync(isolates[3].createContextSync()), 5);
  } finally {
    for (const isolate of isolates) isolate.dispose();
  }
});
