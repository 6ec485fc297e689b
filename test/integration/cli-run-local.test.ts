// `svc run` as a process, local runs in the CLI's own sandbox: result on stdout, console
// lines on stderr, limits from SVC_MAX_*, Blueprint files with --var, exit statuses 0/1/2/3.
// The process itself (its streams, exit status and code cache) is shown by `svc run hello.ts`;
// the other runs are about what runCli prints and returns, so they run in-process
// (svcInProcess), where one checker and one Node start serve them all.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runSvc, svcInProcess, writeRunPrograms } from '../support/cli';
import { tempDir } from '../support/temp-dirs';

const dir = writeRunPrograms();

/**
 * An $SVC_HOME of its own, without the suite's shared cache directory (support/cli), as an
 * operator runs it; its first `svc run hello.ts` serves both the output test and the cache test.
 */
const home = tempDir('svc-cli-cache-');
const ownCache = { SVC_HOME: home, SVC_CLI_CODE_CACHE_DIR: undefined };
let firstHello: ReturnType<typeof runSvc> | undefined;
const helloInOwnHome = () => (firstHello ??= runSvc(['run', 'hello.ts'], { cwd: dir, env: ownCache }));

describe('svc run, local', () => {
  test('the result goes to stdout, console lines to stderr, exit 0; a null result prints nothing', async () => {
    const run = await helloInOwnHome();
    assert.deepEqual([run.code, run.stdout, run.stderr], [0, '{"sum":6}\n', 'working on it\n']);
    const empty = await svcInProcess(['run', 'nothing.ts'], { cwd: dir });
    assert.deepEqual([empty.code, empty.stdout], [0, '']);
  });

  test("a checked run leaves the type checker's code cache in $SVC_HOME/cli/cache, and the next command reads it", async () => {
    const cacheDir = path.join(home, 'cli', 'cache');
    const cacheFiles = () => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).filter((f) => f.endsWith('.v8cache')) : []);
    const first = await helloInOwnHome();
    assert.deepEqual([first.code, first.stdout], [0, '{"sum":6}\n']);
    const written = cacheFiles();
    assert.equal(written.length, 1, 'one cache file for this Node build');
    const stamp = fs.statSync(path.join(cacheDir, written[0])).mtimeMs;
    const second = await runSvc(['run', 'hello.ts'], { cwd: dir, env: ownCache });
    assert.deepEqual([second.code, second.stdout], [0, '{"sum":6}\n']);
    assert.deepEqual(cacheFiles(), written);
    assert.equal(fs.statSync(path.join(cacheDir, written[0])).mtimeMs, stamp, 'the second command read the cache instead of writing it again');
  });

  test('a program that throws exits 1 with its console lines and an error naming the file and line; a compile error likewise', async () => {
    const thrown = await svcInProcess(['run', 'throws.ts'], { cwd: dir });
    assert.equal(thrown.code, 1);
    assert.equal(thrown.stdout, '');
    assert.match(thrown.stderr, /^before the throw\nerror: Error: the widget is missing/);
    assert.match(thrown.stderr, /throws\.ts:3:/);
    const broken = await svcInProcess(['run', 'broken.ts'], { cwd: dir });
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /broken\.ts:2:\d+: error: Unexpected ";"/);
  });

  test('SVC_MAX_* limits apply as on the server, and a malformed one is a usage error', async () => {
    const spin = await svcInProcess(['run', 'spin.ts'], { cwd: dir, env: { SVC_MAX_EXECUTION_FUEL: '100K' } });
    assert.equal(spin.code, 1);
    assert.match(spin.stderr, /fuel exhausted: the run used its whole budget of 100000 fuel/);
    const bad = await svcInProcess(['run', 'hello.ts'], { cwd: dir, env: { SVC_MAX_EXECUTION_FUEL: '1.5M' } });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /\$SVC_MAX_EXECUTION_FUEL: a count is a whole number/);
  });

  test('usage errors exit 2: --session without --remote, a --var without =, a --secret whose variable is unset or given as a value', async () => {
    for (const args of [['--session', 'abc'], ['--var', 'novalue'], ['--secret', 'UNSET_FOR_TEST'], ['--secret', 'API=literal']]) {
      const run = await svcInProcess(['run', 'hello.ts', ...args], { cwd: dir });
      assert.equal(run.code, 2, args.join(' '));
    }
    assert.equal((await svcInProcess(['run', 'missing.ts'], { cwd: dir })).code, 2);
  });
});
