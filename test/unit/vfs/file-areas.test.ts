// Ephemeral areas live in a private directory of the (possibly shared) temp directory:
// a directory or link someone planted there in advance under a name svc would use (its
// pid is no secret) is never taken over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FileAreas, writeNoFollow } from '../../../src/vfs';
import { tempDir } from '../../support/temp-dirs';

test('a planted svc-ephemeral-<pid> link in the temp directory does not carry ephemeral areas elsewhere', () => {
  const base = tempDir('svc-areas-');
  try {
    const shared = path.join(base, 'tmp');
    const outside = path.join(base, 'outside');
    fs.mkdirSync(shared);
    fs.mkdirSync(outside);
    // Before: the ephemeral root was always <temp>/svc-ephemeral-<pid>, created on first use, so a link put there first took every run's files outside.
    fs.symlinkSync(outside, path.join(shared, `svc-ephemeral-${process.pid}`));
    const areas = new FileAreas({ paths: { vfsEphemeralDir: shared, vfsSessionDir: path.join(base, 'sessions') }, volumes: [] } as never);
    const area = areas.open({ mode: 'ephemeral', cwd: '/' } as never, { sessionId: 's1', runId: 'r1' });
    writeNoFollow(area.resolve('/note.txt'), 'run data');
    assert.deepEqual(fs.readdirSync(outside), []);
    const own = fs.readdirSync(shared).filter((name) => name !== `svc-ephemeral-${process.pid}`);
    assert.equal(own.length, 1, `one private directory: ${JSON.stringify(fs.readdirSync(shared))}`);
    assert.equal(fs.lstatSync(path.join(shared, own[0])).mode & 0o777, 0o700);
    assert.equal(fs.readFileSync(path.join(shared, own[0], 'r1', 'note.txt'), 'utf8'), 'run data');
    area.release();
    areas.close();
    assert.deepEqual(fs.readdirSync(shared), [`svc-ephemeral-${process.pid}`]);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});
