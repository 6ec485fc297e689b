// removeTree (src/vfs/remove-tree.ts): removes a tree deeper than PATH_MAX, which rmSync
// cannot, and a wide one; links are removed, never followed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { removeTree } from '../../../src/vfs';
import { tempDir } from '../../support/temp-dirs';

test('a tree deeper than PATH_MAX goes completely', async () => {
  const root = tempDir();
  const top = path.join(root, 'deep');
  fs.mkdirSync(top);
  // Made one level at a time from inside: the full path is never named.
  const home = process.cwd();
  process.chdir(top);
  try {
    for (let i = 0; i < 300; i++) {
      fs.mkdirSync('n'.repeat(20));
      fs.writeFileSync('file.txt', 'x');
      process.chdir('n'.repeat(20));
    }
  } finally {
    process.chdir(home);
  }
  assert.throws(() => fs.rmSync(top, { recursive: true }), /ENAMETOOLONG/);
  await removeTree(top);
  assert.deepEqual(fs.readdirSync(root), []);
});

test('a wide tree goes; a link inside is removed, its target kept; a missing path is fine', async () => {
  const root = tempDir();
  const outside = path.join(root, 'outside.txt');
  fs.writeFileSync(outside, 'kept');
  const top = path.join(root, 'wide');
  for (let d = 0; d < 20; d++) {
    fs.mkdirSync(path.join(top, `d${d}`, 'inner'), { recursive: true });
    for (let f = 0; f < 100; f++) fs.writeFileSync(path.join(top, `d${d}`, `f${f}`), 'x');
  }
  fs.symlinkSync(root, path.join(top, 'd0', 'link'));
  await removeTree(top);
  assert.deepEqual(fs.readdirSync(root), ['outside.txt']);
  assert.equal(fs.readFileSync(outside, 'utf8'), 'kept');
  await removeTree(top);
});
