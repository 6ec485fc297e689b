// V8 code caches on disk (sandbox/code-cache.ts): a write keeps the newest few caches of its
// prefix, so processes with other flags or sources sharing the directory (the suite's servers
// without the optimising compiler, a test with it) do not delete each other's at every exit;
// older ones go, and other prefixes are left alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadWithCodeCache, writeCodeCache } from '../../../sandbox/code-cache';
import { tempDir } from '../../support/temp-dirs';

/** Loads a one-line CommonJS file through the cache in `directory` and writes its cache there (each source has a cache name of its own). */
function loadAndWrite(directory: string, sources: string, name: string, prefix: string): string {
  const file = path.join(sources, `${name}.cjs`);
  fs.writeFileSync(file, `module.exports = ${JSON.stringify(name)};\n`);
  const { exports, pending } = loadWithCodeCache(file, prefix, directory);
  assert.equal(exports, name);
  assert.ok(pending, 'no cache yet, so one is to be written');
  assert.deepEqual(writeCodeCache(pending, prefix), { ok: true, written: true });
  return path.basename(pending.file);
}

test('a write keeps the three newest caches of its prefix, drops older ones, and leaves other prefixes alone', () => {
  const directory = tempDir();
  const sources = tempDir();
  const other = loadAndWrite(directory, sources, 'other', 'unrelated');
  const written: string[] = [];
  for (const [i, name] of ['first', 'second', 'third'].entries()) {
    written.push(loadAndWrite(directory, sources, name, 'kept'));
    // Distinct write times, oldest first, whatever the file system's clock resolution.
    fs.utimesSync(path.join(directory, written[i]), 1000 + i, 1000 + i);
  }
  const caches = () => fs.readdirSync(directory).filter((name) => name.startsWith('kept-')).sort();
  assert.deepEqual(caches(), [...written].sort(), 'three caches of one prefix stay side by side');

  const fourth = loadAndWrite(directory, sources, 'fourth', 'kept');
  assert.deepEqual(caches(), [written[1], written[2], fourth].sort(), 'the oldest went');
  assert.ok(fs.existsSync(path.join(directory, other)), 'another prefix is untouched');

  // A kept cache is still read: the second source loads without a cache to write.
  assert.equal(loadWithCodeCache(path.join(sources, 'second.cjs'), 'kept', directory).pending, null);
});

test("a writer's temporary file is named at random and, once abandoned, removed by a later write", () => {
  const directory = tempDir();
  const sources = tempDir();
  const cache = loadAndWrite(directory, sources, 'first', 'kept');
  assert.deepEqual(fs.readdirSync(directory), [cache], 'the temporary file was renamed into place');
  const abandoned = path.join(directory, `${cache}.0123456789abcdef.tmp`);
  const recent = path.join(directory, `${cache}.fedcba9876543210.tmp`);
  fs.writeFileSync(abandoned, 'partial');
  fs.writeFileSync(recent, 'partial');
  fs.utimesSync(abandoned, 1000, 1000);
  loadAndWrite(directory, sources, 'second', 'kept');
  assert.equal(fs.existsSync(abandoned), false, 'an old temporary file goes');
  assert.equal(fs.existsSync(recent), true, 'one a writer may still be filling stays');
});
