// `svc build test` against a local stand-in of a Package's API: a plain-HTTP loopback
// server under the API's real name. Without the options the outbound rules refuse it;
// with --allow-localhost --allow-insecure-http --add-host the test reaches it.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tempDir } from '../harness';
import { runSvc } from '../support/cli';
import { manifest, writeFiles } from '../support/packages';

describe('svc build test with a local service', () => {
  let service: http.Server;
  let port: number;
  const seen: string[] = [];
  before(async () => {
    service = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.headers.host?.split(':')[0]} ${req.url}`);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ temperature: 21 }));
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    port = (service.address() as AddressInfo).port;
  });
  after(() => service.close());

  test('reaches http://api.weather.example:<port> only with the local-service options', async () => {
    const home = tempDir();
    const project = writeFiles(tempDir(), {
      'svc.toml': manifest([{ name: '@acme/weather' }]),
      'docs/readme.md': '# weather\n',
      'src/lib.ts': `import { check } from "svc:security";
import { get } from "svc:http";

/**
 * Today's temperature.
 * @param base The API's origin.
 * @returns Degrees Celsius.
 * @capability acme.com/weather.read { base }
 */
export function temperature(base: string): number {
  check("acme.com/weather.read", { base });
  return (get(base + "/today").json() as { temperature: number }).temperature;
}
`,
      'tests/network.test.ts': `import { label } from "svc:test";
import { temperature } from "@acme/weather";

export function main() {
  label("reads the temperature from the service");
  const t = temperature("http://api.weather.example:${port}");
  assert(t === 21, String(t));
}
`,
    });
    const refused = await runSvc(['build', 'test'], { cwd: project, env: { SVC_HOME: home } });
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.equal(seen.length, 0);

    const reached = await runSvc(['build', 'test', '--allow-localhost', '--allow-insecure-http', '--add-host', 'api.weather.example=127.0.0.1'], { cwd: project, env: { SVC_HOME: home } });
    assert.equal(reached.code, 0, reached.stdout + reached.stderr);
    assert.match(reached.stdout, /ok {3}tests\/network\.test\.ts — reads the temperature from the service/);
    assert.match(reached.stdout, /\[security\] caller=main capability=acme\.com\/weather\.read/);
    assert.deepEqual(seen, ['GET api.weather.example /today']);
  });
});
