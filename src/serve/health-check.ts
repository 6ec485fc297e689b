// `svc-server --health-check`: probe GET /healthz at the address from this process's own
// settings and report by exit code. Over HTTPS the server is accepted when its public key
// equals the configured certificate's (no hostname, chain or expiry check).
import http from 'node:http';
import https from 'node:https';
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { HealthCheckTarget } from '../config';

const TIMEOUT_MS = 4_000;

export async function runHealthCheck(target: HealthCheckTarget): Promise<{ ok: true } | { ok: false; reason: string }> {
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  const url = `${target.tls ? 'https' : 'http'}://${host}:${target.port}/healthz`;
  return new Promise((resolve) => {
    const done = (result: { ok: true } | { ok: false; reason: string }) => {
      clearTimeout(timer);
      resolve(result);
    };
    const onResponse = (res: http.IncomingMessage) => {
      res.resume();
      const status = res.statusCode ?? 0;
      done(status >= 200 && status < 300 ? { ok: true } : { ok: false, reason: `${url} answered ${status}` });
    };
    const request = target.tls
      ? https.get(url, { rejectUnauthorized: false, agent: false }, onResponse)
      : http.get(url, { agent: false }, onResponse);
    if (target.tls) {
      const expected = new X509Certificate(target.tls.certPem).publicKey;
      request.on('socket', (socket) => {
        socket.once('secureConnect', () => {
          const peer = (socket as TLSSocket).getPeerX509Certificate();
          if (!peer || !peer.publicKey.equals(expected)) {
            request.destroy(new Error('the server certificate does not carry the configured public key'));
          }
        });
      });
    }
    request.on('error', (error) => done({ ok: false, reason: `${url}: ${error.message}` }));
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
  });
}
