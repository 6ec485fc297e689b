// SVC_OPTIMIZING_COMPILER (bin/svc-server): `off` starts the server's Node without V8's
// optimising compiler (--max-opt=1), for servers that live seconds; programs are checked
// and run as before. Any other value than on/off is refused before Node starts, naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { runServerBinary, startServer, tempDir } from '../harness';

/** The V8 and Node flags the server process was started with. */
const commandLine = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

test('SVC_OPTIMIZING_COMPILER=off starts the server without the optimising compiler; checked programs still run and type errors still block', async () => {
  const server = await startServer({ env: { SVC_OPTIMIZING_COMPILER: 'off' } });
  try {
    assert.ok(commandLine(server.child.pid!).includes('--max-opt=1'), commandLine(server.child.pid!).join(' '));
    const applied = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: checked\ndefault: deny\ntypecheck: strict\n' } });
    assert.ok(applied.status < 300, applied.text);
    const ran = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'checked', code: 'export function main(): string { const n: number = 2; return `hello ${n}`; }' } });
    assert.equal(ran.json?.result, 'hello 2', ran.text);
    const refused = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'checked', code: 'export function main(): number { const n: number = "two"; return n; }' } });
    assert.equal(refused.json?.error?.kind, 'compile_error', refused.text);
  } finally {
    await server.stop();
  }
});

test('by default (and with on) the server keeps the optimising compiler', async () => {
  for (const value of [undefined, 'on']) {
    const server = await startServer({ env: { SVC_OPTIMIZING_COMPILER: value } });
    try {
      assert.ok(!commandLine(server.child.pid!).some((flag) => flag.startsWith('--max-opt')), commandLine(server.child.pid!).join(' '));
    } finally {
      await server.stop();
    }
  }
});

test('a value other than on or off is refused at start, naming the variable and what it accepts', async () => {
  const home = tempDir();
  const failed = await runServerBinary([], { SVC_OPTIMIZING_COMPILER: 'fast' }, home);
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(failed.stderr, /SVC_OPTIMIZING_COMPILER must be on or off, not 'fast'/);
  // Refused before the server did anything: no database in its home.
  assert.deepEqual(fs.readdirSync(home), []);
});
