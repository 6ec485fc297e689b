// The outbound address block as a table: every special-purpose range of the IANA IPv4 and
// IPv6 registries that is not globally reachable, IPv4 carried in IPv6 (mapped, translated,
// compatible, NAT64, local-use NAT64, 6to4, Teredo) judged by the IPv4 it carries, this
// host's own addresses as loopback, and what each grant lets through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AddressPolicy, embeddedIPv4, HOST_ADDRESSES_FRESH_MS, type AddressGrants, type BlockedKind } from '../../../src/network';
import ipaddr from 'ipaddr.js';

const none: AddressGrants = { allowLocalhost: false, allowPrivate: false, allowIp: [] };
/** A host with one public and one private interface address besides loopback. */
const hostAddresses = () => ['127.0.0.1', '::1', '198.51.99.7', '10.9.8.7', 'fe80::1%eth0', '2a01:4f8::7'];

const table: Array<[string, BlockedKind | null]> = [
  // IPv4 special-purpose ranges
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['10.1.2.3', 'private'],
  ['100.64.0.1', 'private'],
  ['100.127.255.254', 'private'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'link-local'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.0.0.1', 'reserved'],
  ['192.0.0.170', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['192.168.1.1', 'private'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['254.1.2.3', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  // globally reachable neighbours and exceptions
  ['192.0.0.9', null],
  ['192.0.0.10', null],
  ['192.0.1.1', null],
  ['198.17.255.255', null],
  ['198.20.0.0', null],
  ['172.32.0.1', null],
  ['100.128.0.1', null],
  ['1.0.0.0', null],
  ['93.184.216.34', null],
  ['223.255.255.255', null],
  // IPv6 special-purpose ranges
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['100::1', 'reserved'],
  ['100:0:0:1::1', 'reserved'],
  ['2001:2::1', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['2001:10::1', 'reserved'],
  ['3fff::1', 'reserved'],
  ['5f00::1', 'reserved'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['fe80::1', 'link-local'],
  ['fec0::1', 'private'],
  ['ff02::1', 'multicast'],
  ['2001:1::1', null],
  ['2001:4:112::1', null],
  ['2001:20::1', null],
  ['2606:4700::1111', null],
  ['2a00:1450:4001::200e', null],
  // IPv4 carried in IPv6: judged by the IPv4
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:0:127.0.0.1', 'loopback'],
  ['::7f00:1', 'loopback'],
  ['::127.0.0.2', 'loopback'],
  ['::a9fe:a9fe', 'link-local'],
  ['::0.0.0.2', 'unspecified'],
  ['::93.184.216.34', null],
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::169.254.169.254', 'link-local'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::93.184.216.34', null],
  ['64:ff9b:1::5db8:d822', 'private'], // local-use NAT64: not globally reachable itself
  ['64:ff9b:1:7f00:0:100::', 'private'], // the same range, carrying 127.0.0.1 in its /48 form (see the grants test)
  ['2002:7f00:1::', 'loopback'],
  ['2002:a9fe:a9fe::1', 'link-local'],
  ['2002:c0a8:101::1', 'private'],
  ['2002:5db8:d822::1', null],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // Teredo client 127.0.0.1 (bits inverted)
  ['2001:0:7f00:1::5db8:d822', 'loopback'], // Teredo server 127.0.0.1
  ['2001:0:4136:e378:8000:63bf:a247:2ddd', null], // Teredo between public addresses
];

test('every address of the table is blocked as its kind, or let through', () => {
  const policy = new AddressPolicy(none, () => []);
  for (const [address, kind] of table) assert.equal(policy.refusal(address), kind, address);
});

test('the embedded IPv4 forms are read at their RFC positions', () => {
  const read = (text: string) => embeddedIPv4(ipaddr.parse(text) as ipaddr.IPv6).map(String);
  assert.deepEqual(read('64:ff9b::c000:201'), ['192.0.2.1']);
  assert.deepEqual(read('64:ff9b:1:7f00:0:100::'), ['127.0.0.1', '0.0.1.0', '0.1.0.0', '0.0.0.0']);
  assert.deepEqual(read('64:ff9b:1::5db8:d822'), ['93.184.216.34']);
  assert.deepEqual(read('2002:c000:0201::1'), ['192.0.2.1']);
  assert.deepEqual(read('2001:0:4136:e378:8000:63bf:3fff:fdd2'), ['65.54.227.120', '192.0.2.45']);
  assert.deepEqual(read('::1'), []);
  assert.deepEqual(read('::'), []);
  assert.deepEqual(read('2606:4700::1111'), []);
});

test("this host's own interface addresses count as loopback, also carried in IPv6; allow_localhost lets them through", () => {
  const policy = new AddressPolicy(none, hostAddresses);
  assert.equal(policy.refusal('198.51.99.7'), 'loopback');
  assert.equal(policy.refusal('::ffff:198.51.99.7'), 'loopback');
  assert.equal(policy.refusal('2002:c633:6307::1'), 'loopback');
  assert.equal(policy.refusal('2a01:4f8::7'), 'loopback');
  assert.equal(policy.refusal('fe80::1'), 'link-local');
  assert.equal(policy.refusal('198.51.99.8'), null);
  const localhost = new AddressPolicy({ ...none, allowLocalhost: true }, hostAddresses);
  assert.equal(localhost.refusal('198.51.99.7'), null);
  assert.equal(localhost.refusal('2a01:4f8::7'), null);
  // A private interface address is private and the host's own: both grants are needed.
  assert.equal(localhost.refusal('10.9.8.7'), 'private');
  assert.equal(new AddressPolicy({ ...none, allowPrivate: true }, hostAddresses).refusal('10.9.8.7'), 'loopback');
  assert.equal(new AddressPolicy({ ...none, allowPrivate: true, allowLocalhost: true }, hostAddresses).refusal('10.9.8.7'), null);
  assert.equal(new AddressPolicy({ ...none, allowIp: ['198.51.99.7/32'] }, hostAddresses).refusal('198.51.99.7'), null);
});

test("the host's addresses are read once per HOST_ADDRESSES_FRESH_MS: a burst of connections lists the interfaces once, a new address counts after that", () => {
  let reads = 0;
  let addresses = ['127.0.0.1', '198.51.99.7'];
  let now = 0;
  const policy = new AddressPolicy(none, () => (reads++, addresses), () => now);
  for (let i = 0; i < 64; i++) assert.equal(policy.refusal('198.51.99.7'), 'loopback');
  assert.equal(policy.refusal('198.51.99.9'), null);
  assert.equal(reads, 1);
  addresses = ['127.0.0.1', '198.51.99.7', '198.51.99.9'];
  now = HOST_ADDRESSES_FRESH_MS - 1;
  assert.equal(policy.refusal('198.51.99.9'), null);
  now = HOST_ADDRESSES_FRESH_MS;
  assert.equal(policy.refusal('198.51.99.9'), 'loopback');
  assert.equal(reads, 2);
});

test('grants: allow_localhost and allow_private cover their kinds only (embedded forms included); allow_ip covers any address or the IPv4 it carries', () => {
  const localhost = new AddressPolicy({ ...none, allowLocalhost: true }, () => []);
  for (const address of ['127.0.0.5', '::1', '::7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::']) assert.equal(localhost.refusal(address), null, address);
  for (const [address, kind] of [['10.0.0.1', 'private'], ['0.0.0.0', 'unspecified'], ['198.18.0.1', 'reserved'], ['169.254.169.254', 'link-local']] as const) assert.equal(localhost.refusal(address), kind, address);
  const privateOnly = new AddressPolicy({ ...none, allowPrivate: true }, () => []);
  for (const address of ['10.0.0.1', 'fd00::1', '2002:a00:1::', '64:ff9b::a00:1']) assert.equal(privateOnly.refusal(address), null, address);
  assert.equal(privateOnly.refusal('2002:7f00:1::'), 'loopback');
  // Local-use NAT64 carrying loopback needs both grants.
  assert.equal(privateOnly.refusal('64:ff9b:1:7f00:0:100::'), 'loopback');
  assert.equal(privateOnly.refusal('64:ff9b:1::5db8:d822'), null);
  const ip = new AddressPolicy({ ...none, allowIp: ['198.18.0.0/15', '169.254.169.254/32', '2001:db8::/32'] }, () => []);
  assert.equal(ip.refusal('198.18.3.4'), null);
  assert.equal(ip.refusal('2002:a9fe:a9fe::'), null);
  assert.equal(ip.refusal('2001:db8::5'), null);
  assert.equal(ip.refusal('169.254.169.253'), 'link-local');
  assert.equal(ip.refusal('240.0.0.1'), 'reserved');
});
