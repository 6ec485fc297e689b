// bin/svc over HTTPS: Node's trust store decides, so a private CA is refused with a hint
// until NODE_EXTRA_CA_CERTS names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, tempDir } from '../harness';
import { START_TIMEOUT_MS, runSvc } from '../support/cli';
import { selfSignedCertificate } from '../support/tls';

test('an untrusted certificate is refused with a NODE_EXTRA_CA_CERTS hint; trusted through it, the same command works', async () => {
  const { certFile, keyFile } = selfSignedCertificate(tempDir());
  const server = await startServer({ args: ['--tls-cert-file', certFile, '--tls-key-file', keyFile], timeoutMs: START_TIMEOUT_MS });
  try {
    const url = `https://localhost:${server.port}`;
    const env = { SVC_SERVER_URL: url, SVC_SERVER_TOKEN: server.adminToken };
    const untrusted = await runSvc(['server', 'status'], { env });
    assert.equal(untrusted.code, 1);
    assert.match(untrusted.stderr, new RegExp(`the server at ${url} presented a certificate this machine does not trust`));
    assert.match(untrusted.stderr, /NODE_EXTRA_CA_CERTS/);
    const trusted = await runSvc(['server', 'status'], { env: { ...env, NODE_EXTRA_CA_CERTS: certFile } });
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.match(trusted.stdout, /^status: +running$/m);
  } finally {
    await server.stop();
  }
});
