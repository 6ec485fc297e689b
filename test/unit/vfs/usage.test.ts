// DiskUsage (src/vfs/usage.ts): measured asynchronously, links not followed, a figure kept
// while fresh and moved by svc's own writes, measured again once stale or forgotten.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DiskUsage, measureTree } from '../../../src/vfs';
import { tempDir } from '../../support/temp-dirs';

test('measureTree counts plain files at every level, never through a link', async () => {
  const root = tempDir();
  fs.mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
  fs.writeFileSync(path.join(root, 'one'), 'x'.repeat(10));
  fs.writeFileSync(path.join(root, 'a', 'b', 'two'), 'x'.repeat(5));
  const outside = tempDir();
  fs.writeFileSync(path.join(outside, 'big'), 'x'.repeat(1000));
  fs.symlinkSync(outside, path.join(root, 'a', 'link'));
  assert.equal(await measureTree(root), 15);
  assert.equal(await measureTree(path.join(root, 'missing')), 0);
});

test('a figure is kept while fresh, moved by recorded writes, and measured again when stale or forgotten', async () => {
  const root = tempDir();
  fs.writeFileSync(path.join(root, 'f'), 'x'.repeat(100));
  let now = 1_000_000;
  const usage = new DiskUsage(() => now);
  assert.equal(await usage.of(root), 100);
  fs.writeFileSync(path.join(root, 'g'), 'x'.repeat(50));
  // Fresh: the remembered figure, moved by what svc says it wrote.
  assert.equal(await usage.of(root), 100);
  usage.add(root, 50);
  assert.equal(await usage.of(root), 150);
  fs.writeFileSync(path.join(root, 'h'), 'x'.repeat(7));
  usage.forget(root);
  assert.equal(await usage.of(root), 157);
  fs.rmSync(path.join(root, 'h'));
  now += 60_000;
  assert.equal(await usage.of(root), 150);
  // Callers at once share one measurement.
  usage.forget(root);
  assert.deepEqual(await Promise.all([usage.of(root), usage.of(root)]), [150, 150]);
});
