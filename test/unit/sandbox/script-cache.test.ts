// A runner's shared code caches: a script compiled in one isolate is deserialised in the
// next from the cache its first compile made, and a cache only ever meets its own content
// key (V8 itself checks just the length), so another script of the same length compiles anew.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ivm from 'isolated-vm';
import { compileShared, contentKey } from '../../../sandbox/runner/script-cache';

type Compiled = ivm.Script & { cachedDataRejected?: boolean };

test('the second isolate compiles a script from the first one\'s cache; same-length content does not share it', () => {
  const isolates = Array.from({ length: 3 }, () => new ivm.Isolate({ memoryLimit: 32 }));
  try {
    const one = '1 + 1';
    const two = '2 + 3';
    assert.equal(one.length, two.length);
    const first = compileShared(isolates[0], one, 'shared-test.js', contentKey(one)) as Compiled;
    assert.equal(first.cachedDataRejected, undefined, 'the first compile has no cache to take');
    const second = compileShared(isolates[1], one, 'shared-test.js', contentKey(one)) as Compiled;
    assert.equal(second.cachedDataRejected, false, 'the second compile takes the cache');
    const other = compileShared(isolates[2], two, 'shared-test.js', contentKey(two)) as Compiled;
    assert.equal(other.cachedDataRejected, undefined, 'another content gets no cache');
    assert.equal(second.runSync(isolates[1].createContextSync()), 2);
    assert.equal(other.runSync(isolates[2].createContextSync()), 5);
  } finally {
    for (const isolate of isolates) isolate.dispose();
  }
});
