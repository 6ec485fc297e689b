// The server bundle's own code cache (src/launch/server.ts): a server that listened writes
// it (0600) into its code_cache_dir when it exits, the next start reads it without writing
// it again, a damaged one is replaced, and a command that does not serve writes none.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runServerBinary, startServer, tempDir } from '../harness';

const serverCaches = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => /^svc-server-[0-9a-f]{32}\.v8cache$/.test(name)) : []);

async function startAndStop(env: Record<string, string | undefined>, home?: string): Promise<void> {
  const server = await startServer({ env, ...(home ? { home } : {}) });
  const health = await server.request('GET', '/healthz', { token: null });
  assert.equal(health.status, 200, health.text);
  assert.equal(await server.stop(), 0);
}

describe("the server bundle's code cache", () => {
  test('written at exit by a server that listened, read by the next start without a rewrite, a damaged one replaced', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    await startAndStop({ SVC_CODE_CACHE_DIR: cacheDir });
    const [name] = serverCaches(cacheDir);
    assert.ok(name, `a cache in ${fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).join(', ') : 'no directory'}`);
    const file = path.join(cacheDir, name);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const written = fs.readFileSync(file);

    // V8 accepted it: the second server leaves the file as it was.
    await startAndStop({ SVC_CODE_CACHE_DIR: cacheDir });
    assert.ok(fs.readFileSync(file).equals(written), 'an accepted cache is not written again');

    // V8 refuses a damaged one; the server starts all the same and writes a good one at exit.
    const damaged = Buffer.alloc(4096, 7);
    fs.writeFileSync(file, damaged);
    await startAndStop({ SVC_CODE_CACHE_DIR: cacheDir });
    assert.deepEqual(serverCaches(cacheDir), [name]);
    assert.ok(fs.statSync(file).size > 64 * 1024 && !fs.readFileSync(file).equals(damaged), 'the damaged cache was replaced');
  });

  test('without SVC_CODE_CACHE_DIR it lives in $SVC_HOME/server/cache, the default code_cache_dir', async () => {
    const home = tempDir();
    await startAndStop({ SVC_CODE_CACHE_DIR: undefined }, home);
    assert.equal(serverCaches(path.join(home, 'server', 'cache')).length, 1);
  });

  test('--help, --version and a refused start write none', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    for (const args of [['--help'], ['--version']]) assert.equal((await runServerBinary(args, { SVC_CODE_CACHE_DIR: cacheDir }, tempDir())).code, 0);
    const refused = await runServerBinary(['--port', 'not-a-port'], { SVC_CODE_CACHE_DIR: cacheDir }, tempDir());
    assert.notEqual(refused.code, 0, refused.stderr);
    assert.equal(fs.existsSync(cacheDir), false);
  });

  test('a code_cache_dir the config file moves elsewhere gets none (the launcher reads no config), and the default place stays empty', async () => {
    const home = tempDir();
    const configured = path.join(tempDir(), 'configured-cache');
    const server = await startServer({ home, env: { SVC_CODE_CACHE_DIR: undefined }, config: { code_cache_dir: configured } });
    assert.equal(await server.stop(), 0);
    assert.deepEqual(serverCaches(configured), []);
    assert.deepEqual(serverCaches(path.join(home, 'server', 'cache')), []);
  });

  test('a cache directory that cannot be made (mkdir answers ENOENT beneath /proc) costs the cache, not the exit', async () => {
    const server = await startServer({ env: { SVC_CODE_CACHE_DIR: '/proc/svc-no-such-directory/cache' } });
    assert.equal(await server.stop(), 0);
  });
});
