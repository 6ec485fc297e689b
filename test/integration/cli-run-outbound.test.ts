// `svc run` local runs and the network: the outbound block, --allow-localhost and
// SVC_ALLOW_LOCALHOST, and --secret NAME read from the environment and injected by auth_proxy.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { tempDir } from '../harness';
import { runSvc } from '../support/cli';

const dir = tempDir('svc-cli-run-');
const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);

write('hello.ts', 'export function main() {\n  console.log("working on it");\n  return { sum: [1, 2, 3].reduce((a, b) => a + b) };\n}\n');
write('nothing.ts', 'export function main() {}\n');
write('throws.ts', 'export function main() {\n  console.log("before the throw");\n  throw new Error("the widget is missing");\n}\n');
write('broken.ts', 'export function main() {\n  return 1 +;\n}\n');
write('spin.ts', 'export function main() { let i = 0; for (;;) { i++; } }\n');
write('files.ts', 'import * as fs from "svc:fs";\nexport function main() { fs.writeText("notes.txt", "kept for this run"); return fs.readText("notes.txt"); }\n');
write('files.yaml', '# a workspace for local runs\nname: files\nvfs: {mode: ephemeral, cwd: "/work/${vars.team}"}\nvariables:\n  team: {required: true}\npermissions:\n  main:\n    - {capability: fs.write, action: allow}\n    - {capability: fs.read, action: allow}\n');
write('invalid.yaml', 'name: invalid\npermissions:\n  main:\n    - capability: fs.read\n      action: perhaps\n');
write('volume.yaml', 'name: vol\nvfs: {mode: named, volume: shared}\n');

describe('svc run, local: outbound calls', () => {
  let far: http.Server;
  let port = 0;
  const seen: string[] = [];
  const secret = `token-${randomBytes(8).toString('hex')}`;
  before(async () => {
    far = http.createServer((req, res) => {
      seen.push(req.headers.authorization ?? '');
      res.end('pong');
    });
    await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
    port = (far.address() as net.AddressInfo).port;
    write('call.ts', `import * as http from "svc:http";\nexport function main() { return http.get("http://127.0.0.1:${port}/ping").body; }\n`);
    write(
      'caller.yaml',
      'name: caller\nallow_insecure_http: true\nsecrets:\n  API: {harness: {required: true}}\nauth_proxy:\n  - host: 127.0.0.1\n    allow_insecure_http: true\n    auth: {bearer: API}\npermissions:\n  main:\n    - {capability: http.get, action: allow}\n',
    );
  });
  after(() => new Promise<void>((resolve) => far.close(() => resolve())));

  test('loopback is blocked unless --allow-localhost; --secret NAME comes from the environment and is injected, never printed', async () => {
    const env = { API: secret };
    const blocked = await runSvc(['run', 'call.ts', '--blueprint', 'caller.yaml', '--secret', 'API'], { cwd: dir, env });
    assert.equal(blocked.code, 1);
    assert.match(blocked.stderr, /blocked by network policy/);
    assert.equal(seen.length, 0);
    const noSecret = await runSvc(['run', 'call.ts', '--blueprint', 'caller.yaml', '--allow-localhost'], { cwd: dir });
    assert.equal(noSecret.code, 3);
    assert.match(noSecret.stderr, /required harness secret 'API'/);
    const allowed = await runSvc(['run', 'call.ts', '--blueprint', 'caller.yaml', '--secret', 'API', '--allow-localhost'], { cwd: dir, env });
    assert.deepEqual([allowed.code, allowed.stdout], [0, 'pong\n'], allowed.stderr);
    assert.deepEqual(seen, [`Bearer ${secret}`]);
    assert.ok(!allowed.stderr.includes(secret) && !allowed.stdout.includes(secret));
    const viaVariable = await runSvc(['run', 'call.ts', '--blueprint', 'caller.yaml', '--secret', 'API'], { cwd: dir, env: { ...env, SVC_ALLOW_LOCALHOST: '1' } });
    assert.equal(viaVariable.code, 0, viaVariable.stderr);
  });
});
