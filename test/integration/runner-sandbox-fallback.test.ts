// The runner sandbox's probe is the pool's first start (sandbox/pool/confined-start.ts): on a
// host whose bubblewrap refuses to run, the first runner fails through it and starts again
// through the next wrapper (util-linux's unshare with setpriv); the server reports what that
// one holds, names bubblewrap's refusal in its one start-up warning, and answers runs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../harness';

const REFUSAL = 'bwrap: creating new namespace failed: Operation not permitted';

/** A PATH with Node, the launcher's dirname, the real unshare and setpriv, and a bwrap that always refuses. */
function pathWithRefusingBubblewrap(): string {
  const bin = tempDir();
  const real = (tool: string) => execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
  fs.symlinkSync(process.execPath, path.join(bin, 'node'));
  for (const tool of ['dirname', 'unshare', 'setpriv']) fs.symlinkSync(real(tool), path.join(bin, tool));
  fs.writeFileSync(path.join(bin, 'bwrap'), `#!/bin/sh\necho '${REFUSAL}' >&2\nexit 1\n`, { mode: 0o755 });
  return bin;
}

/** unshare with setpriv can make a network namespace here (as the server's user). */
function hostOffersUnshare(): boolean {
  try {
    execFileSync('unshare', [...(process.getuid?.() === 0 ? [] : ['--user']), '--net', '--', 'setpriv', '--no-new-privs', '--', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('runner sandbox when bubblewrap refuses to run', { skip: !hostOffersUnshare() && 'unshare cannot make a network namespace here' }, () => {
  let server: TestServer;

  before(async () => {
    server = await startServer({ runners: 2, env: { PATH: pathWithRefusingBubblewrap() } });
  });
  after(async () => {
    await server?.stop();
  });

  test('the runners start through unshare: partial, with a network namespace but neither the PID namespace nor the filter', async () => {
    const { runner_sandbox: sandbox } = (await server.request('GET', '/v1/status')).json;
    assert.equal(sandbox.level, 'partial');
    assert.ok(sandbox.features.includes('network'), JSON.stringify(sandbox));
    for (const feature of ['processes', 'filesystem', 'seccomp']) assert.ok(sandbox.missing.includes(feature), JSON.stringify(sandbox));
  });

  test('one start-up warning names bubblewrap\'s refusal; the refusal is not copied to the server\'s stderr', () => {
    const warnings = server.logs({ target: 'svc_server::sandbox' }).filter((line) => line.msg?.startsWith('runner sandbox'));
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.equal(warnings[0]!.level, 'warn');
    assert.equal(warnings[0]!.wrapper, 'unshare');
    assert.equal(warnings[0]!.refused, `bubblewrap: ${REFUSAL}`);
    assert.ok(!server.stderr().split('\n').includes(REFUSAL), 'the refusal was read, not passed on');
  });

  test('runs answer', async () => {
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: calc\n' } });
    assert.ok(created.status < 300, created.text);
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'calc', code: 'export function main() { return 6 * 7; }' } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.result, '42', reply.text);
  });
});
