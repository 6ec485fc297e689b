// The egress guard against real loopback servers: blocked by default (also through a
// name that resolves inside), let through by each grant, and nothing is sent when blocked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { AddressPolicy, EgressGuard } from '../../../src/network';

const none = { allowLocalhost: false, allowPrivate: false, allowIp: [] };

test('the block table classifies loopback, private, link-local, broadcast, unspecified and mapped addresses', () => {
  const policy = new AddressPolicy(none);
  assert.equal(policy.refusal('127.0.0.1'), 'loopback');
  assert.equal(policy.refusal('::1'), 'loopback');
  assert.equal(policy.refusal('::ffff:127.0.0.1'), 'loopback');
  assert.equal(policy.refusal('10.1.2.3'), 'private');
  assert.equal(policy.refusal('172.20.0.1'), 'private');
  assert.equal(policy.refusal('192.168.1.1'), 'private');
  assert.equal(policy.refusal('100.64.0.1'), 'private');
  assert.equal(policy.refusal('fd00::1'), 'private');
  assert.equal(policy.refusal('169.254.169.254'), 'link-local');
  assert.equal(policy.refusal('fe80::1'), 'link-local');
  assert.equal(policy.refusal('255.255.255.255'), 'broadcast');
  assert.equal(policy.refusal('0.0.0.0'), 'unspecified');
  assert.equal(policy.refusal('::'), 'unspecified');
  assert.equal(policy.refusal('93.184.216.34'), null);
  assert.equal(policy.refusal('2606:4700::1111'), null);
});

test('grants: allow_localhost, allow_private and allow_ip ranges', () => {
  assert.equal(new AddressPolicy({ ...none, allowLocalhost: true }).refusal('127.0.0.5'), null);
  assert.equal(new AddressPolicy({ ...none, allowLocalhost: true }).refusal('10.0.0.1'), 'private');
  assert.equal(new AddressPolicy({ ...none, allowPrivate: true }).refusal('10.0.0.1'), null);
  assert.equal(new AddressPolicy({ ...none, allowIp: ['127.0.0.0/8'] }).refusal('127.9.9.9'), null);
  assert.equal(new AddressPolicy({ ...none, allowIp: ['169.254.169.254/32'] }).refusal('169.254.169.254'), null);
  assert.equal(new AddressPolicy({ ...none, allowIp: ['169.254.169.254/32'] }).refusal('169.254.169.253'), 'link-local');
});

async function withServer(fn: (port: number, hits: () => number) => Promise<void>): Promise<void> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    res.end('hello');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await fn((server.address() as AddressInfo).port, () => hits);
  } finally {
    server.close();
  }
}

test('a loopback server is blocked by default, also through a name resolving to it, and records no hit', async () => {
  await withServer(async (port, hits) => {
    const blocked: string[] = [];
    const guard = new EgressGuard({ grants: none, lookup: async () => [{ address: '127.0.0.1', family: 4 }], onBlocked: (host) => blocked.push(host) });
    const dispatcher = guard.dispatcher();
    await assert.rejects(request(`http://127.0.0.1:${port}/`, { dispatcher }), /blocked by network policy/);
    await assert.rejects(request(`http://public-looking.example:${port}/`, { dispatcher }), /blocked by network policy: public-looking\.example resolves only to loopback/);
    assert.equal(hits(), 0);
    assert.deepEqual(blocked, ['127.0.0.1', 'public-looking.example']);
  });
});

test('with allow_localhost the request goes through to the checked address', async () => {
  await withServer(async (port, hits) => {
    const guard = new EgressGuard({ grants: { ...none, allowLocalhost: true }, lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    const response = await request(`http://any-name.example:${port}/`, { dispatcher: guard.dispatcher() });
    assert.equal(await response.body.text(), 'hello');
    assert.equal(hits(), 1);
  });
});

test('a name resolving to one blocked and one permitted address connects only to the permitted one', async () => {
  await withServer(async (port, hits) => {
    const guard = new EgressGuard({ grants: { ...none, allowIp: ['127.0.0.1/32'] }, lookup: async () => [{ address: '10.0.0.7', family: 4 }, { address: '127.0.0.1', family: 4 }] });
    const response = await request(`http://mixed.example:${port}/`, { dispatcher: guard.dispatcher() });
    assert.equal(response.statusCode, 200);
    await response.body.text();
    assert.equal(hits(), 1);
  });
});

test('a network.hosts entry replaces DNS for its name (case and trailing dot ignored) and still passes the block', async () => {
  await withServer(async (port, hits) => {
    const lookups: string[] = [];
    const lookup = async (name: string) => {
      lookups.push(name);
      return [{ address: '93.184.216.34', family: 4 }];
    };
    const hosts = { 'api.stand-in.example': '127.0.0.1' };
    const blocked = new EgressGuard({ grants: none, hosts, lookup });
    await assert.rejects(request(`http://api.stand-in.example:${port}/`, { dispatcher: blocked.dispatcher() }), /blocked by network policy: api\.stand-in\.example resolves only to loopback/);
    assert.equal(hits(), 0);
    const open = new EgressGuard({ grants: { ...none, allowLocalhost: true }, hosts, lookup });
    for (const name of ['api.stand-in.example', 'API.Stand-In.Example.']) {
      const response = await request(`http://${name}:${port}/`, { dispatcher: open.dispatcher() });
      assert.equal(await response.body.text(), 'hello');
    }
    assert.equal(hits(), 2);
    assert.deepEqual(lookups, []);
    // Other names still go to DNS.
    assert.deepEqual(await open.resolve('other.example'), { address: '93.184.216.34', family: 4 });
    assert.deepEqual(lookups, ['other.example']);
  });
});
