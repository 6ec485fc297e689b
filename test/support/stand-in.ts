// Stand-ins for outside HTTPS services under their real host names.
//
// A stand-in is a loopback HTTPS server whose certificate (from a throw-away test CA, one per
// test process) is valid for the host names it plays, e.g. `api.openai.com`. The server under
// test reaches it through the setting `network.hosts` (NAME=127.0.0.1), trusts the CA through
// NODE_EXTRA_CA_CERTS and may connect to loopback with --allow-localhost; `serverOptions(...)`
// returns exactly those args and env for `startServer`. The port is random, so URLs carry it:
// use `standIn.origin(host)` (`https://api.openai.com:40123`) wherever a base URL is set.
//
//   const api = await startStandIn(['api.example.com'], (req) => ({ status: 200, json: { ok: true } }));
//   const server = await startServer(serverOptions(api));
//   ... program calls `${api.origin('api.example.com')}/v1/thing` ...
//   assert.equal(api.requests[0].headers.authorization, 'Bearer ...');
//   api.close();
//
// Every request is recorded (method, host, path, headers, body text and parsed JSON) before
// the handler runs, and `received(n)` resolves when the n-th has come; `inFlight` /
// `maxInFlight` count requests being answered, so tests can assert concurrency ceilings
// without timing. A handler may return a promise and hold the answer back (`release`
// patterns); `{ destroy: true }` drops the connection without a reply.
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tempDir } from '../harness';
import { certificateFor, testCertificateAuthority, type TestCa } from './tls';

export interface StandInRequest {
  method: string;
  /** Host name the client asked for (SNI / Host header, without port), lower-cased. */
  host: string;
  /** Path and query as sent. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any;
}

export interface StandInReply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as is (text/plain unless headers say otherwise). */
  body?: string | Buffer;
  /** Drop the connection without answering. */
  destroy?: boolean;
}

export type StandInHandler = (request: StandInRequest) => StandInReply | Promise<StandInReply>;

export interface StandIn {
  hosts: string[];
  /** Address it listens on (127.0.0.1 unless `defaultPort` or `address`). */
  address: string;
  port: number;
  /** `https://<host>:<port>`; host defaults to the first one. */
  origin(host?: string): string;
  requests: StandInRequest[];
  /** Resolves once `count` requests in all have been received (an event, no polling). */
  received(count: number): Promise<void>;
  inFlight: number;
  maxInFlight: number;
  /** Replace the handler (e.g. per test). */
  handle(handler: StandInHandler): void;
  close(): Promise<void>;
}

let sharedCa: TestCa | undefined;

/** The test process's CA (made once): every stand-in's certificate is signed by it. */
export function testCa(): TestCa {
  sharedCa ??= testCertificateAuthority(tempDir('svc-test-ca-'));
  return sharedCa;
}

export interface StandInOptions {
  /**
   * Listen on port 443 of a random 127.x.y.z address, so that code with a literal base URL
   * (`https://api.search.brave.com`, a curated Package) reaches it unchanged. Needs the
   * right to bind port 443 (root, or net.ipv4.ip_unprivileged_port_start=0).
   */
  defaultPort?: boolean;
  /** Listen on this address (e.g. one of the machine's own interface addresses) instead of 127.0.0.1. */
  address?: string;
}

export async function startStandIn(hosts: string[], handler: StandInHandler = () => ({ status: 404, json: { error: 'no handler' } }), options: StandInOptions = {}): Promise<StandIn> {
  const { certFile, keyFile } = certificateFor(testCa(), hosts, 'stand-in');
  let current = handler;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const standIn: StandIn = {
    hosts,
    address: '127.0.0.1',
    port: 0,
    origin: (host = hosts[0]) => (standIn.port === 443 ? `https://${host}` : `https://${host}:${standIn.port}`),
    requests: [],
    received: (count) =>
      new Promise<void>((resolve) => {
        if (standIn.requests.length >= count) resolve();
        else waiters.push({ count, resolve });
      }),
    inFlight: 0,
    maxInFlight: 0,
    handle: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = https.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = body === '' ? undefined : JSON.parse(body);
      } catch {
        json = undefined;
      }
      const host = String(req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
      const request: StandInRequest = { method: req.method ?? '', host, path: req.url ?? '/', headers: req.headers, body, json };
      standIn.requests.push(request);
      for (const waiter of waiters.filter((w) => standIn.requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      standIn.inFlight++;
      standIn.maxInFlight = Math.max(standIn.maxInFlight, standIn.inFlight);
      let reply: StandInReply;
      try {
        reply = await current(request);
      } catch (error) {
        reply = { status: 500, json: { error: String(error) } };
      } finally {
        standIn.inFlight--;
      }
      if (reply.destroy) return void req.socket.destroy();
      const headers = { ...(reply.json !== undefined ? { 'content-type': 'application/json' } : { 'content-type': 'text/plain' }), ...(reply.headers ?? {}) };
      res.writeHead(reply.status ?? 200, headers).end(reply.json !== undefined ? JSON.stringify(reply.json) : (reply.body ?? ''));
    });
  });
  if (options.defaultPort) {
    standIn.address = await listenOnFreeLoopback443(server);
  } else {
    standIn.address = options.address ?? '127.0.0.1';
    await new Promise<void>((resolve) => server.listen(0, standIn.address, resolve));
  }
  standIn.port = (server.address() as AddressInfo).port;
  return standIn;
}

/** Binds port 443 on a random 127.x.y.z address (test files run in parallel: retry on collision). */
async function listenOnFreeLoopback443(server: https.Server): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const address = `127.${1 + Math.floor(Math.random() * 254)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(443, address, () => {
          server.off('error', reject);
          resolve();
        });
      });
      return address;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 20) throw error;
    }
  }
}

/** Args and env that let a server under test reach these stand-ins by their host names. */
export function serverOptions(...standIns: Array<Pick<StandIn, 'hosts'> & Partial<Pick<StandIn, 'address'>>>): { args: string[]; env: Record<string, string> } {
  return {
    args: ['--allow-localhost', ...standIns.flatMap((s) => s.hosts.flatMap((h) => ['--add-host', `${h}=${s.address ?? '127.0.0.1'}`]))],
    env: { NODE_EXTRA_CA_CERTS: testCa().certFile },
  };
}
