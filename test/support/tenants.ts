// Two tenants on one server: the harness's tokens plus a second user token, `other`, for
// tests where one token attacks with allowed programs and the other's runs must still succeed.
import fs from 'node:fs';
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
