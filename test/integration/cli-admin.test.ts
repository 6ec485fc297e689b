// bin/svc with no server listening ("no server at <URL>", stop as already stopped), usage
// errors (exit 2), help, and `server stop` against a real server (it drains and exits).
// Blueprints: cli-blueprints.test.ts; secrets and tokens: cli-secrets.test.ts. One command
// of each kind runs as a process; the other parser and message checks run in-process.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startServer, tempDir } from '../harness';
import { START_TIMEOUT_MS, runSvc, serverEnv, svcInProcess } from '../support/cli';

async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('svc without a server', () => {
  test('status fails with "no server at <URL>", stop succeeds as already stopped; help exits 0 with an example', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const status = await runSvc(['server', 'status', '--server', url]);
    assert.equal(status.code, 1);
    assert.match(status.stderr, new RegExp(`^error: no server at ${url}\\n`));
    const stop = await svcInProcess(['server', 'stop'], { env: { SVC_SERVER_URL: url } });
    assert.equal(stop.code, 0);
    assert.equal(stop.stdout, `already stopped (no server at ${url})\n`);
    const list = await svcInProcess(['blueprint', 'list'], { env: { SVC_SERVER_URL: url } });
    assert.equal(list.code, 1);
    assert.match(list.stderr, /no server at/);

    // test/unit/cli/help.test.ts checks every command's help in-process.
    for (const [command, run] of [[[], runSvc], [['blueprint', 'apply'], svcInProcess]] as const) {
      const help = await run([...command, '--help']);
      assert.equal(help.code, 0, command.join(' '));
      assert.match(help.stdout, /Examples?:\n {2}\$ svc /, `${command.join(' ')} has an example`);
    }
  });

  test('usage errors exit 2: unknown command, missing argument, a malformed --server URL, an empty token file', async () => {
    assert.equal((await runSvc(['frobnicate'])).code, 2);
    const missing = await svcInProcess(['blueprint', 'show']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing required argument 'name'/);
    const badUrl = await svcInProcess(['server', 'status', '--server', 'ftp://x']);
    assert.equal(badUrl.code, 2);
    assert.match(badUrl.stderr, /--server: expected an http:\/\/ or https:\/\/ URL, got `ftp:\/\/x`/);
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'empty.token'), '\n');
    const empty = await svcInProcess(['server', 'status', '--token-file', path.join(dir, 'empty.token')]);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /token file .*empty\.token is empty/);
  });
});

test('server stop asks the server to drain: it exits and audits shutdown_requested', async () => {
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS });
  try {
    const stop = await runSvc(['server', 'stop'], { env: serverEnv(server) });
    assert.deepEqual([stop.code, stop.stdout], [0, `Stopping svc-server at ${server.url}\n`]);
    assert.equal(await server.exited(), 0);
    assert.equal(server.audit({ type: 'admin', event: 'shutdown_requested' }).length, 1);
  } finally {
    await server.stop();
  }
});
