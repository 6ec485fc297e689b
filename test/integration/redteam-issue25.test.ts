// Red-team probes of the issue-25 hardening through the real server.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { registerBlueprint } from '../support/sessions';
import { startServer, type TestServer } from '../harness';
import { serverOptions, startStandIn, type StandIn } from '../support/stand-in';

const CLOSED = 'name: closed\ndefault: deny\nvfs: ephemeral\n';

function oneOff(server: TestServer, blueprint: string, code: string) {
  return server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint, code } });
}

// One server for the probes that need no stand-in: a small last-run budget (for the
// last-runs probe; the other probes keep results of a few bytes) and names mapped to
// special ranges (for the address probe). The redirect probe needs loopback allowed, so it
// has its own.
let server: TestServer;
before(async () => {
  server = await startServer({
    runners: 1,
    args: ['--max-last-run-memory', '1', '--add-host', 'cgnat.rt.test=100.64.0.1', '--add-host', 'mapped.rt.test=::ffff:127.0.0.1', '--add-host', 'teredo.rt.test=2001:0:4136:e378:8000:63bf:80ff:fffe'],
  });
  await registerBlueprint(server, CLOSED);
  await registerBlueprint(server, 'name: open\ndefault: allow\nvfs: ephemeral\n');
  await registerBlueprint(server, 'name: web\ndefault: allow\n');
});
after(async () => {
  await server?.stop();
});

describe('red team: audit and argument bounds', () => {
  test('check() from main with ever new capability names cannot flood the audit: long names are refused, new kinds counted together', async () => {
    const linesBefore = server.lines().length;
    // Before: 2,000 such refusals with 100 KB names wrote 2,003 records, 201 MB of audit.
    // Past the 1,024 kinds written one by one, a few more are enough to show the rest counted.
    const KINDS = 1100;
    const code = `import { check } from "svc:security";
export function main() {
  let long = "";
  try { check("c" + "x".repeat(100000), {}); } catch (e) { long = e.name + ": " + e.message; }
  let refused = 0;
  for (let i = 0; i < ${KINDS}; i++) { try { check("acme.com/op" + i + "x".repeat(200), { blob: "y".repeat(1000) }); } catch (e) { refused++; } }
  return { long, refused };
}`;
    const run = await oneOff(server, 'closed', code);
    assert.equal(run.json.error, null, run.text.slice(0, 500));
    const result = JSON.parse(run.json.result);
    assert.match(result.long, /^RangeError: security\.check: capability is 100001 characters long; a capability name takes at most 256/);
    assert.equal(result.refused, KINDS);
    const lines = server.lines().slice(linesBefore).filter((line) => line.includes('msg=decision') && line.includes(run.json.execution_id));
    const bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    assert.ok(bytes < 4 * 1024 * 1024, `${lines.length} decision records, ${bytes} bytes`);
    const counted = server.audit({ type: 'decision', execution_id: run.json.execution_id, capability: '*' });
    assert.equal(counted.length, 1, 'the kinds past the limit end in one counted record');
    assert.equal(counted[0].count, String(KINDS - 1024));
  });
});

describe('red team: open sessions\' last-runs', () => {
  test('are kept by total bytes like one-off runs: opening more sessions cannot grow the server without bound', async () => {
    // Before: each open session kept its last run (up to 1 MiB of result and of console) whatever their number.
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const opened = await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'open' } });
      assert.equal(opened.status, 200, opened.text);
      const id = opened.json.session_id;
      const run = await server.request('POST', `/v1/sessions/${id}/execute`, { token: server.userToken, body: { code: `export function main() { return "${i}".repeat(300000); }` } });
      assert.equal(run.json.error, null, run.text.slice(0, 500));
      ids.push(id);
    }
    const statuses = [];
    for (const id of ids) statuses.push((await server.request('GET', `/v1/sessions/${id}/last-run`, { token: server.userToken })).status);
    assert.deepEqual(statuses, [404, 404, 200, 200, 200]);
    const newest = await server.request('GET', `/v1/sessions/${ids[4]}/last-run`, { token: server.userToken });
    assert.equal(newest.json.result, '4'.repeat(300000));
    const again = await server.request('POST', `/v1/sessions/${ids[0]}/execute`, { token: server.userToken, body: { code: 'export function main() { return "again"; }' } });
    assert.equal(again.json.error, null);
    assert.equal((await server.request('GET', `/v1/sessions/${ids[0]}/last-run`, { token: server.userToken })).json.result, 'again', 'a session that runs again has its record back');
  });
});

describe('red team: redirects and the `port` of http.* contexts', () => {
  const HOST = 'ports.rt.test';
  let allowed: StandIn;
  let other: StandIn;
  let portsServer: TestServer;
  before(async () => {
    other = await startStandIn([HOST], () => ({ status: 200, body: 'other port' }));
    allowed = await startStandIn([HOST], (request) => ({ status: 302, headers: { location: request.path === '/hop-host' ? 'https://127.0.0.1:' + other.port + '/x' : `https://${HOST}:${other.port}/x` } }));
    portsServer = await startServer({ ...serverOptions(allowed), runners: 1, timeoutMs: 60_000 });
    const yaml = ['name: ports', 'permissions:', '  main:', `    - {capability: http.get, filter: 'host == "${HOST}" and port == ${allowed.port}', action: allow}`, ''].join('\n');
    assert.equal((await portsServer.request('POST', '/v1/blueprints', { body: { yaml } })).status, 200);
  });
  after(async () => {
    await portsServer?.stop();
    await allowed?.close();
    await other?.close();
  });

  test('a redirect to another port or host of the far end is judged again and refused, for svc:http and fetch', async () => {
    const program = `import * as http from "svc:http";
export async function main() {
  const attempt = async (f) => { try { return await f(); } catch (e) { return e.name + ": " + (e.cause ?? e).message; } };
  const base = "https://${HOST}:" + PORT;
  return [
    await attempt(() => http.get(base + "/hop-port").body),
    await attempt(async () => (await fetch(base + "/hop-port")).text()),
    await attempt(() => http.get(base + "/hop-host").body),
    await attempt(async () => (await fetch(base + "/hop-host")).text()),
  ];
}`.replace('PORT', String(allowed.port));
    const reply = await portsServer.request('POST', '/v1/execute', { token: portsServer.userToken, body: { blueprint: 'ports', code: program } });
    assert.equal(reply.status, 200, reply.text);
    const results: string[] = JSON.parse(reply.json.result);
    assert.equal(results.length, 4);
    for (const result of results) assert.match(result, /permission denied: caller=main capability=http\.get/, JSON.stringify(results));
    const denied = portsServer.audit({ type: 'decision', execution_id: reply.json.execution_id, decision: 'deny' }).map((r) => [JSON.parse(r['context.payload_json']).host, JSON.parse(r['context.payload_json']).port]);
    assert.deepEqual(denied, [[HOST, other.port], [HOST, other.port], ['127.0.0.1', other.port], ['127.0.0.1', other.port]]);
    assert.equal(other.requests.length, 0, 'nothing reached the other port or host');
  });
});

describe('red team: address forms', () => {
  test('IPv4 literals in decimal, hex, octal and short forms, IPv6 forms and names mapped to special ranges are all refused before connecting', async () => {
    const urls = [
      'https://2130706433:9/', 'https://0x7f.1:9/', 'https://0177.0.0.1:9/', 'https://127.1:9/', 'https://0:9/',
      'https://[::ffff:127.0.0.1]:9/', 'https://[::ffff:7f00:1]:9/', 'https://[::]:9/', 'https://[64:ff9b:1::7f00:1]:9/',
      'https://169.254.169.254/', 'https://cgnat.rt.test:9/', 'https://mapped.rt.test:9/', 'https://teredo.rt.test:9/',
    ];
    const code = `import * as http from "svc:http";
export function main() { return ${JSON.stringify(urls)}.map((u) => { try { return http.get(u).status; } catch (e) { return String(e.message); } }); }`;
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code } });
    assert.equal(reply.json.error, null, reply.text.slice(0, 500));
    const results: string[] = JSON.parse(reply.json.result);
    results.forEach((result, i) => assert.match(String(result), /blocked by network policy/, `${urls[i]}: ${result}`));
  });
});
