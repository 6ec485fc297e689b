// HTTPS serving with a certificate generated at test time, and `--health-check` exit
// codes over HTTP and HTTPS. The health checks are separate processes with no token.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { runServerBinary, startServer, tempDir, type TestServer } from '../harness';
import { selfSignedCertificate } from '../support/tls';

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('TLS and health check', () => {
  test('serves HTTPS with both files and --health-check accepts the configured key', async () => {
    const scratch = tempDir();
    const { certFile, keyFile } = selfSignedCertificate(scratch);
    const server = await startServer({ env: { SVC_TLS_CERT_FILE: certFile, SVC_TLS_KEY_FILE: keyFile } });
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

  describe('over HTTP', () => {
    let server: TestServer;
    before(async () => {
      server = await startServer();
    });
    after(async () => {
      await server.stop();
    });

    test('--health-check exits 0 against a running server (port from --port) and never needs a token', async () => {
      const up = await runServerBinary(['--health-check', '--port', String(server.port)], {}, tempDir());
      assert.equal(up.code, 0, up.stderr);
    });

    test('--health-check exits 1 when nothing listens (port from SVC_PORT)', async () => {
      const down = await runServerBinary(['--health-check'], { SVC_PORT: String(await closedPort()) }, tempDir());
      assert.equal(down.code, 1);
      assert.match(down.stderr, /health check failed/);
    });
  });
});
