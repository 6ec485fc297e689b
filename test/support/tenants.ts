// Two tenants on one server: the harness's tokens plus a second user token, `other`, for
// tests where one token attacks with allowed programs and the other's runs must still succeed.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { newToken, startServer, tempDir, type StartOptions, type TestServer } from '../harness';

/** A second user token, `other`, written under `home`, and the config entry that adds it. */
export function otherToken(home: string): { other: string; config: { api_tokens: Array<Record<string, string>> } } {
  const other = newToken();
  const file = path.join(home, 'other.token');
  fs.writeFileSync(file, `${other}\n`);
  return { other, config: { api_tokens: [{ name: 'other', role: 'user', token_file: file }] } };
}

/** A server with a second user token, `other`, next to the harness's `harness` user token. */
export async function startWithOther(options: StartOptions = {}): Promise<{ server: TestServer; other: string }> {
  const home = options.home ?? tempDir();
  const { other, config } = otherToken(home);
  const server = await startServer({ runners: 1, ...options, home, config: { ...options.config, ...config } });
  return { server, other };
}

/** The value of one sample of a metric (`name{labels} value`), or null when absent. */
export async function metricValue(server: TestServer, sample: string): Promise<number | null> {
  const text = (await server.request('GET', '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : null;
}

/** A loopback far end, and a two-token server allowed to reach it with one Blueprint. */
export interface FarEndTenants {
  server: TestServer;
  other: string;
  farUrl: string;
  /** Runs `code` as `token` under the Blueprint. */
  execute: (token: string, code: string) => ReturnType<TestServer['request']>;
  /** Closes every connection the far end holds (its requests fail at the server). */
  dropConnections: () => void;
  /** Closes the far end's connections and stops the server. */
  stop: () => Promise<void>;
}

/**
 * Starts `handler` as a plain-HTTP far end on 127.0.0.1 and a server (`startWithOther`, with
 * --allow-localhost) holding a Blueprint `name` that allows everything over plain HTTP, plus
 * `extraYaml` lines.
 */
export async function startFarEndTenants(handler: http.RequestListener, options: { name: string; extraYaml?: string; args?: string[] }): Promise<FarEndTenants> {
  const far = http.createServer(handler);
  await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
  const farUrl = `http://127.0.0.1:${(far.address() as AddressInfo).port}`;
  const { server, other } = await startWithOther({ args: ['--allow-localhost', ...(options.args ?? [])] });
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: `name: ${options.name}\nallow_insecure_http: true\ndefault: allow\n${options.extraYaml ?? ''}` } });
  if (created.status >= 300) throw new Error(`the test Blueprint was refused: ${created.text}`);
  return {
    server,
    other,
    farUrl,
    execute: (token, code) => server.request('POST', '/v1/execute', { token, body: { blueprint: options.name, code } }),
    dropConnections: () => far.closeAllConnections(),
    stop: async () => {
      far.closeAllConnections();
      await new Promise<void>((resolve) => far.close(() => resolve()));
      await server.stop();
    },
  };
}
