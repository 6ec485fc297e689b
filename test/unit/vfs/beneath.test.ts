// The no-follow primitives of src/vfs when a directory turned into a link after the walk
// (the race the walk alone cannot close): the descriptor is checked against the area's
// real root before a byte is read or written, and a file created outside is removed.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appendNoFollow, createExclusive, FileArea, FileAreaError, readNoFollow, writeNoFollow } from '../../../src/vfs';
import { tempDir } from '../../support/temp-dirs';

describe('no-follow file primitives', () => {
  let base: string;
  let area: string;
  let outside: string;
  before(() => {
    base = tempDir('svc-beneath-');
    area = path.join(base, 'area');
    outside = path.join(base, 'outside');
    fs.mkdirSync(area);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'kept.txt'), 'outside\n');
    // "swapped" was a directory when the walk passed it; now it leads outside.
    fs.symlinkSync(outside, path.join(area, 'swapped'));
    fs.symlinkSync(path.join(outside, 'kept.txt'), path.join(area, 'final'));
  });
  after(() => fs.rmSync(base, { recursive: true, force: true }));

  const at = (...parts: string[]) => ({ hostPath: path.join(area, ...parts), root: fs.realpathSync(area) });
  const onLinux = fs.existsSync('/proc/self/fd');

  test('the walk refuses a link anywhere on the path, and a final one unless taken as itself', () => {
    const files = new FileArea('ephemeral', '/', [{ guestRoot: '/', anchor: area, hostRoot: area, access: 'read_write', sizeLimit: null, volume: '', create: false }]);
    assert.throws(() => files.resolve('/swapped/kept.txt'), (e: Error) => e instanceof FileAreaError && e.message === '/swapped is a symbolic link; file operations never follow links');
    assert.throws(() => files.resolve('/final'), /\/final is a symbolic link/);
    assert.equal(files.resolve('/final', 'itself').hostPath, path.join(area, 'final'));
    assert.equal(files.resolve('/missing/deeper.txt').hostPath, path.join(area, 'missing', 'deeper.txt'));
    assert.throws(() => files.resolveHost(files.root!, path.join(area, '..', 'outside', 'kept.txt')), /outside the file area/);
  });

  test("a volume's subPath is walked the same way: a link in it makes the volume unavailable, never followed", () => {
    const volume = { guestRoot: '/', anchor: area, hostRoot: path.join(area, 'swapped'), access: 'read_write' as const, sizeLimit: null, volume: 'notes', create: true };
    const files = new FileArea('named', '/', [volume]);
    assert.throws(() => files.resolve('/new.txt'), (e: Error) => e instanceof FileAreaError && e.message === "the subPath swapped of the volume 'notes' is a symbolic link; file operations never follow links");
    assert.deepEqual(fs.readdirSync(outside), ['kept.txt']);
  });

  test('a final link is refused by O_NOFOLLOW: no read, no write, no file created', () => {
    assert.throws(() => readNoFollow(at('final')), { code: 'ELOOP' });
    assert.throws(() => appendNoFollow(at('final'), Buffer.from('x')), { code: 'ELOOP' });
    assert.throws(() => writeNoFollow(at('final'), 'x'), { code: 'ELOOP' });
    assert.throws(() => createExclusive(at('final'), Buffer.from('x')), { code: 'EEXIST' });
    assert.equal(fs.readFileSync(path.join(outside, 'kept.txt'), 'utf8'), 'outside\n');
  });

  test('a directory swapped for a link: refused after open, nothing read, changed or left outside', { skip: !onLinux && 'needs /proc/self/fd' }, () => {
    const swapped = /changed into a symbolic link while it was being opened/;
    assert.throws(() => readNoFollow(at('swapped', 'kept.txt')), swapped);
    assert.throws(() => writeNoFollow(at('swapped', 'kept.txt'), 'truncated?'), swapped);
    assert.throws(() => appendNoFollow(at('swapped', 'kept.txt'), Buffer.from('x')), swapped);
    assert.throws(() => appendNoFollow(at('swapped', 'appended.txt'), Buffer.from('x')), swapped);
    assert.throws(() => createExclusive(at('swapped', 'created.txt'), Buffer.from('x')), swapped);
    assert.deepEqual(fs.readdirSync(outside), ['kept.txt']);
    assert.equal(fs.readFileSync(path.join(outside, 'kept.txt'), 'utf8'), 'outside\n');
  });
});
