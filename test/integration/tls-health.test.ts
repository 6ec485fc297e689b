// HTTPS serving with a certificate generated at test time, and `--health-check` exit
// codes over HTTP and HTTPS.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { newToken, runServerBinary, startServer, tempDir } from '../harness';
import { selfSignedCertificate } from '../support/tls';

describe('TLS and health check', () => {
  test('serves HTTPS with both files and --health-check accepts the configured key', async () => {
    const scratch = tempDir();
    const { certFile, keyFile } = selfSignedCertificate(scratch);
    const server = await startServer({ runners: 1,  env: { SVC_TLS_CERT_FILE: certFile, SVC_TLS_KEY_FILE: keyFile } });
    try {
      assert.ok(server.url.startsWith('https://'));
      const listening = server.logs({ msg: 'svc-server listening' })[0];
      assert.equal(listening.protocol, 'https');
      assert.equal((await server.request('GET', '/healthz', { token: null })).status, 200);
      assert.equal((await server.request('GET', '/v1/status')).status, 200);
      assert.equal((await server.request('GET', '/v1/status', { token: null })).status, 401);

      const env = { SVC_PORT: String(server.port), SVC_TLS_CERT_FILE: certFile, SVC_TLS_KEY_FILE: keyFile };
      const ok = await runServerBinary(['--health-check'], env, tempDir());
      assert.equal(ok.code, 0, ok.stderr);

      // A different certificate's public key is not accepted.
      const other = selfSignedCertificate(scratch, 'other');
      const mismatch = await runServerBinary(['--health-check'], { ...env, SVC_TLS_CERT_FILE: other.certFile, SVC_TLS_KEY_FILE: other.keyFile }, tempDir());
      assert.equal(mismatch.code, 1);
    } finally {
      await server.stop();
    }
  });

  test('--health-check exits 0 against a running HTTP server and 1 when nothing listens', async () => {
    const server = await startServer({ runners: 1 });
    const port = server.port;
    try {
      const up = await runServerBinary(['--health-check'], { SVC_PORT: String(port) }, tempDir());
      assert.equal(up.code, 0, up.stderr);
    } finally {
      await server.stop();
    }
    const down = await runServerBinary(['--health-check'], { SVC_PORT: String(port) }, tempDir());
    assert.equal(down.code, 1);
    assert.match(down.stderr, /health check failed/);
  });

  test('--health-check never needs a token', async () => {
    const server = await startServer({ runners: 1,  adminToken: newToken() });
    try {
      const result = await runServerBinary(['--health-check', '--port', String(server.port)], {}, tempDir());
      assert.equal(result.code, 0, result.stderr);
    } finally {
      await server.stop();
    }
  });
});
