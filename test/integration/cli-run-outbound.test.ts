// `svc run` local runs and the network, against a loopback HTTPS stand-in under a real
// host name: the outbound block, --allow-localhost / SVC_ALLOW_LOCALHOST, --add-host /
// SVC_ADD_HOSTS, the test CA through NODE_EXTRA_CA_CERTS, and --secret NAME read from
// the environment and injected by auth_proxy (never printed). The runs that reach the stand-in
// are bin/svc processes (they trust its CA through NODE_EXTRA_CA_CERTS); the two refused
// before any connection run in-process (svcInProcess).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../harness';
import { runSvc, svcInProcess } from '../support/cli';
import { startStandIn, testCa, type StandIn } from '../support/stand-in';

const HOST = 'api.example.com';
const dir = tempDir('svc-cli-outbound-');
const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);

describe('svc run, local: outbound calls', () => {
  let api: StandIn;
  const secret = `token-${randomBytes(8).toString('hex')}`;
  before(async () => {
    api = await startStandIn([HOST], () => ({ status: 200, body: 'pong' }));
    write('call.ts', `import * as http from "svc:http";\nexport function main() { return http.get("${api.origin()}/ping").body; }\n`);
    write(
      'caller.yaml',
      `name: caller\nsecrets:\n  API: {harness: {required: true}}\nauth_proxy:\n  - host: ${HOST}\n    auth: {bearer: API}\npermissions:\n  main:\n    - {capability: http.get, action: allow}\n`,
    );
  });
  after(async () => api.close());

  test('loopback is blocked unless granted; --secret NAME comes from the environment and is injected, never printed', async () => {
    const env = { API: secret, NODE_EXTRA_CA_CERTS: testCa().certFile };
    const base = ['run', 'call.ts', '--blueprint', 'caller.yaml', '--add-host', `${HOST}=127.0.0.1`];
    const blocked = await svcInProcess([...base, '--secret', 'API'], { cwd: dir, env });
    assert.equal(blocked.code, 1);
    assert.match(blocked.stderr, /blocked by network policy/);
    assert.equal(api.requests.length, 0);
    const noSecret = await svcInProcess([...base, '--allow-localhost'], { cwd: dir, env });
    assert.equal(noSecret.code, 3);
    assert.match(noSecret.stderr, /required harness secret 'API'/);
    const allowed = await runSvc([...base, '--secret', 'API', '--allow-localhost'], { cwd: dir, env });
    assert.deepEqual([allowed.code, allowed.stdout], [0, 'pong\n'], allowed.stderr);
    assert.deepEqual(
      api.requests.map((r) => r.headers.authorization),
      [`Bearer ${secret}`],
    );
    assert.ok(!allowed.stderr.includes(secret) && !allowed.stdout.includes(secret));
    const viaVariables = await runSvc(['run', 'call.ts', '--blueprint', 'caller.yaml', '--secret', 'API'], {
      cwd: dir,
      env: { ...env, SVC_ALLOW_LOCALHOST: '1', SVC_ADD_HOSTS: `${HOST}=127.0.0.1` },
    });
    assert.equal(viaVariables.code, 0, viaVariables.stderr);
  });
});
