// The outbound block for special-purpose and embedded addresses and the `port` field of
// `http.*` contexts, through the real server: names mapped by `network.hosts` to this
// machine's own interface address, to special-purpose ranges and to IPv6 forms carrying
// loopback are refused (nothing reaches the stand-in; an egress_guard denial is audited);
// a rule `host == … and port == …` allows that port only, for svc:http and fetch alike.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { startServer, type TestServer } from '../harness';
import { serverOptions, startStandIn, testCa, type StandIn } from '../support/stand-in';

const HOST = 'api.example-service.test';
const START_MS = 60_000;

/** A non-loopback IPv4 address of one of this machine's interfaces, if it has one. */
function ownAddress(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flat()
    .find((entry) => entry && !entry.internal && entry.family === 'IPv4')?.address;
}

const getProgram = (url: string) =>
  `import * as http from "svc:http";\nexport function main() { try { return String(http.get(${JSON.stringify(url)}).status); } catch (e) { return String(e.message); } }`;

describe('special-purpose and own addresses are blocked', () => {
  const own = ownAddress();
  // Names mapped to special-purpose ranges and IPv6 forms carrying loopback.
  const targets: Record<string, string> = {
    'this-network.test': '0.0.0.7',
    'ietf.test': '192.0.0.8',
    'benchmark.test': '198.18.0.1',
    'future.test': '240.0.0.1',
    'compat.test': '::7f00:1',
    'nat64.test': '64:ff9b::7f00:1',
    'sixtofour.test': '2002:7f00:1::1',
  };

  // One server for the own-address refusal and the special ranges: allow_private (without
  // it a private interface address would be refused by its range alone) leaves every
  // special range above refused, none of them is private.
  let blocked: TestServer;
  before(async () => {
    const hosts = { ...targets, ...(own === undefined ? {} : { [HOST]: own }) };
    blocked = await startServer({ runners: 1, args: ['--allow-private', ...Object.entries(hosts).flatMap(([name, address]) => ['--add-host', `${name}=${address}`])], env: { NODE_EXTRA_CA_CERTS: testCa().certFile }, timeoutMs: START_MS });
    await blocked.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\ndefault: allow\ntypecheck: off\n' } });
  });
  after(async () => {
    await blocked?.stop();
  });

  test("this machine's own interface address is refused unless allow_ip covers it", { skip: own === undefined ? 'no non-loopback interface address on this machine' : false }, async () => {
    const api = await startStandIn([HOST], () => ({ status: 200, body: 'reached' }), { address: own });
    try {
      const reply = await blocked.request('POST', '/v1/execute', { token: blocked.userToken, body: { blueprint: 'web', code: getProgram(`${api.origin()}/x`) } });
      assert.equal(reply.status, 200, reply.text);
      assert.match(reply.json.result, /blocked by network policy: api\.example-service\.test resolves only to (loopback|reserved) address space/);
      assert.equal(api.requests.length, 0, 'nothing reached the stand-in');
      assert.equal(blocked.audit({ type: 'decision', execution_id: reply.json.execution_id, source: 'egress_guard' }).length, 1);
      // The same call with the address granted reaches the stand-in: the block was what stopped it.
      const granted = await startServer({ runners: 1,  args: ['--allow-ip', own!, '--add-host', `${HOST}=${own}`], env: { NODE_EXTRA_CA_CERTS: testCa().certFile }, timeoutMs: START_MS });
      try {
        await granted.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\ndefault: allow\ntypecheck: off\n' } });
        const reply = await granted.request('POST', '/v1/execute', { token: granted.userToken, body: { blueprint: 'web', code: getProgram(`${api.origin()}/x`) } });
        assert.equal(String(JSON.parse(reply.json.result)), '200', reply.text);
        assert.equal(api.requests.length, 1);
      } finally {
        await granted.stop();
      }
    } finally {
      await api.close();
    }
  });

  test('special-purpose ranges and IPv6 forms carrying loopback are refused before any connection, each audited', async () => {
    const code = `import * as http from "svc:http";\nexport function main() { return ${JSON.stringify(Object.keys(targets))}.map((name) => { try { return http.get("https://" + name + ":9/").status; } catch (e) { return e.message; } }); }`;
    const reply = await blocked.request('POST', '/v1/execute', { token: blocked.userToken, body: { blueprint: 'web', code } });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(JSON.parse(reply.json.result), [
      'blocked by network policy: this-network.test resolves only to unspecified address space, which this server does not let programs reach',
      'blocked by network policy: ietf.test resolves only to reserved address space, which this server does not let programs reach',
      'blocked by network policy: benchmark.test resolves only to reserved address space, which this server does not let programs reach',
      'blocked by network policy: future.test resolves only to reserved address space, which this server does not let programs reach',
      'blocked by network policy: compat.test resolves only to loopback address space, which this server does not let programs reach',
      'blocked by network policy: nat64.test resolves only to loopback address space, which this server does not let programs reach',
      'blocked by network policy: sixtofour.test resolves only to loopback address space, which this server does not let programs reach',
    ]);
    // Five refusals of one kind are written one by one, the rest counted into one record at the run's end.
    const records = blocked.audit({ type: 'decision', execution_id: reply.json.execution_id, source: 'egress_guard' });
    assert.equal(records.reduce((sum, record) => sum + (record.count === undefined ? 1 : Number(record.count)), 0), 7);
  });
});

describe('`port` in http.* contexts', () => {
  let allowed: StandIn;
  let other: StandIn;
  before(async () => {
    allowed = await startStandIn([HOST], () => ({ status: 200, body: 'allowed port' }));
    other = await startStandIn([HOST], () => ({ status: 200, body: 'other port' }));
  });
  after(async () => {
    await allowed.close();
    await other.close();
  });

  test('a rule `host == … and port == …` allows that port only, for svc:http and fetch; an https URL without a port is judged as port 443', async () => {
    // Every allow audited one by one, so each decision's context can be read.
    const server = await startServer({ runners: 1,  ...serverOptions(allowed), config: { logging: { audit: { allows: 'all' } } }, timeoutMs: START_MS });
    try {
      const yaml = [
        'name: ports',
        'typecheck: off',
        'permissions:',
        '  main:',
        `    - {capability: http.get, filter: 'host == "${HOST}" and port == ${allowed.port}', action: allow}`,
        `    - {capability: http.head, filter: 'host == "${HOST}" and port == 443', action: allow}`,
        '',
      ].join('\n');
      const registered = await server.request('POST', '/v1/blueprints', { body: { yaml } });
      assert.equal(registered.status, 200, registered.text);
      const code = `import * as http from "svc:http";
export async function main() {
  const attempt = async (f) => { try { return await f(); } catch (e) { return (e.cause ?? e).message; } };
  return [
    await attempt(() => http.get("${allowed.origin()}/a").body),
    await attempt(() => http.get("${other.origin()}/b").body),
    await attempt(async () => (await fetch("${allowed.origin()}/c")).text()),
    await attempt(async () => (await fetch("${other.origin()}/d")).text()),
    await attempt(() => http.head("https://${HOST}/e").status),
    await attempt(() => http.head("${allowed.origin()}/f").status),
  ];
}`;
      const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'ports', code } });
      assert.equal(reply.status, 200, reply.text);
      const [a, b, c, d, e, f] = JSON.parse(reply.json.result);
      assert.equal(a, 'allowed port');
      assert.match(b, /permission denied: .*http\.get/);
      assert.equal(c, 'allowed port');
      assert.match(d, /permission denied: .*http\.get/);
      // Allowed by policy as port 443 (the stand-in is not there, so the connection fails).
      assert.doesNotMatch(String(e), /permission denied/);
      assert.match(f, /permission denied: .*http\.head/);
      assert.deepEqual(allowed.requests.map((r) => r.path), ['/a', '/c']);
      assert.equal(other.requests.length, 0, 'nothing reached the other port');
      const decisions = server.audit({ type: 'decision', execution_id: reply.json.execution_id });
      const ports = decisions.filter((r) => r.capability === 'http.get' || r.capability === 'http.head').map((r) => [r.capability, r.decision, JSON.parse(r['context.payload_json']).port]);
      assert.deepEqual(ports, [
        ['http.get', 'allow', allowed.port],
        ['http.get', 'deny', other.port],
        ['http.get', 'allow', allowed.port],
        ['http.get', 'deny', other.port],
        ['http.head', 'allow', 443],
        ['http.head', 'deny', allowed.port],
      ]);
      // The catalogue (registration's field check and GET /v1/capabilities) lists `port` for every http.* capability.
      const catalogue = await server.request('GET', '/v1/capabilities');
      const http = catalogue.json.groups.find((g: { source: string }) => g.source === 'svc:http');
      for (const capability of http.capabilities) assert.ok(capability.filter_fields.includes('port'), capability.name);
      assert.ok(http.capabilities.length >= 8);
    } finally {
      await server.stop();
    }
  });
});
