// `svc run` local runs under a Blueprint file: the built-in compute-only Blueprint denies,
// a file with --var grants a file area of its own; invalid files and volumes exit 3.
// Every command is about what runCli prints and returns (cli-run-local shows the process),
// so they run in-process (svcInProcess): one Node start and one checker serve them all.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { svcInProcess, writeRunPrograms } from '../support/cli';

const dir = writeRunPrograms();

describe('svc run, local, with --blueprint <file>', () => {
  test('the built-in Blueprint denies file access; --blueprint <file> with --var grants it in a file area of its own', async () => {
    const denied = await svcInProcess(['run', 'files.ts'], { cwd: dir });
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /permission denied: caller=main capability=fs\.write/);
    const missingVar = await svcInProcess(['run', 'files.ts', '--blueprint', 'files.yaml'], { cwd: dir });
    assert.equal(missingVar.code, 3);
    assert.match(missingVar.stderr, /files\.yaml: invalid variables: required variable 'team' was not supplied/);
    const granted = await svcInProcess(['run', 'files.ts', '--blueprint', 'files.yaml', '--var', 'team=ops'], { cwd: dir });
    assert.deepEqual([granted.code, granted.stdout], [0, 'kept for this run\n'], granted.stderr);
    assert.ok(!fs.existsSync(path.join(dir, 'notes.txt')), 'the file area is not the working directory');
  });

  test('an invalid Blueprint file or one naming a volume cannot be run: exit 3 with file, line and column', async () => {
    const invalid = await svcInProcess(['run', 'hello.ts', '--blueprint', 'invalid.yaml'], { cwd: dir });
    assert.equal(invalid.code, 3);
    assert.match(invalid.stderr, /^error: invalid\.yaml:5:15: blueprint parse error: .*perhaps/m);
    assert.match(invalid.stderr, /at permissions\.main\[0\]\.action/);
    const volume = await svcInProcess(['run', 'hello.ts', '--blueprint', 'volume.yaml'], { cwd: dir });
    assert.equal(volume.code, 3);
    assert.match(volume.stderr, /local runs cannot use volumes/);
  });
});
