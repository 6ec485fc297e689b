// The outbound address block: which resolved addresses a program's connections may reach,
// given the server's grants. Every range of the IANA IPv4 and IPv6 special-purpose registries that is not
// globally reachable is blocked (multicast too); IPv4 carried inside IPv6 (mapped,
// translated, compatible, NAT64, 6to4, Teredo) is judged as the IPv4 it carries; the
// server host's own interface addresses count as loopback.
import os from 'node:os';
import ipaddr from 'ipaddr.js';

export type BlockedKind = 'loopback' | 'private' | 'link-local' | 'broadcast' | 'unspecified' | 'multicast' | 'reserved';

export interface AddressGrants {
  allowLocalhost: boolean;
  allowPrivate: boolean;
  /** Canonical CIDR strings (`127.0.0.1/32`). */
  allowIp: readonly string[];
}

type Parsed = ipaddr.IPv4 | ipaddr.IPv6;

/** The addresses of this host's interfaces (they change with DHCP, VPNs, containers: see HOST_ADDRESSES_FRESH_MS). */
export type HostAddresses = () => readonly string[];

/**
 * How long one reading of the host's interface addresses is used. Listing the interfaces
 * and parsing their addresses was ~0.5 ms per new outbound connection (a burst of 64 runs
 * that each open one read them 64 times); an address that appears counts within a second.
 */
export const HOST_ADDRESSES_FRESH_MS = 1000;
/** Decided addresses kept between readings (a bound: a program may make up many). */
const DECISIONS_KEPT = 1024;

const systemHostAddresses: HostAddresses = () =>
  Object.values(os.networkInterfaces())
    .flat()
    .map((entry) => entry?.address)
    .filter((address): address is string => typeof address === 'string');

/** Parses an address, unwrapping IPv4-mapped IPv6 so `::ffff:127.0.0.1` is `127.0.0.1`. */
export function normalizeAddress(text: string): Parsed {
  const parsed = ipaddr.parse(text.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed;
}

type Range = { kind: BlockedKind; cidr: [Parsed, number] };
const ranges = (list: Array<[BlockedKind, string]>): Range[] => list.map(([kind, cidr]) => ({ kind, cidr: ipaddr.parseCIDR(cidr) }));

/** Globally reachable exceptions inside the blocked ranges (the registries say so). */
const globallyReachable = ranges([
  ['reserved', '2001::/32'], // Teredo: judged by the IPv4 addresses it carries instead
  ['reserved', '192.0.0.9/32'], // Port Control Protocol anycast
  ['reserved', '192.0.0.10/32'], // TURN anycast
  ['reserved', '2001:1::1/128'], // PCP anycast
  ['reserved', '2001:1::2/128'], // TURN anycast
  ['reserved', '2001:1::3/128'], // DNS-SD SRP anycast
  ['reserved', '2001:3::/32'], // AMT
  ['reserved', '2001:4:112::/48'], // AS112-v6
  ['reserved', '2001:20::/28'], // ORCHIDv2
  ['reserved', '2001:30::/28'], // DRIP DETs
]);

/** First match wins; the IPv4-in-IPv6 forms are judged separately (embeddedIPv4). */
const blockedRanges = ranges([
  // IPv4 special-purpose registry (RFC 6890 and successors), plus multicast.
  ['unspecified', '0.0.0.0/8'], // "this network": 0.x.x.x reaches this host on Linux
  ['private', '10.0.0.0/8'],
  ['private', '100.64.0.0/10'], // shared address space (carrier-grade NAT)
  ['loopback', '127.0.0.0/8'],
  ['link-local', '169.254.0.0/16'], // includes the cloud metadata address
  ['private', '172.16.0.0/12'],
  ['reserved', '192.0.0.0/24'], // IETF protocol assignments
  ['reserved', '192.0.2.0/24'], // documentation (TEST-NET-1)
  ['reserved', '192.88.99.0/24'], // deprecated 6to4 relay anycast
  ['private', '192.168.0.0/16'],
  ['reserved', '198.18.0.0/15'], // benchmarking
  ['reserved', '198.51.100.0/24'], // documentation (TEST-NET-2)
  ['reserved', '203.0.113.0/24'], // documentation (TEST-NET-3)
  ['multicast', '224.0.0.0/4'],
  ['broadcast', '255.255.255.255/32'],
  ['reserved', '240.0.0.0/4'], // reserved for future use
  // IPv6 special-purpose registry, plus multicast and the deprecated site-local range.
  ['unspecified', '::/128'],
  ['loopback', '::1/128'],
  ['reserved', '100::/64'], // discard-only
  ['reserved', '100:0:0:1::/64'], // dummy prefix
  ['private', '64:ff9b:1::/48'], // local-use NAT64 (its embedded IPv4 is judged as well)
  ['reserved', '2001:2::/48'], // benchmarking
  ['reserved', '2001:db8::/32'], // documentation
  ['reserved', '2001::/23'], // IETF protocol assignments (Teredo 2001::/32 is judged by what it embeds)
  ['reserved', '3fff::/20'], // documentation
  ['reserved', '5f00::/16'], // SRv6 SIDs
  ['private', 'fc00::/7'], // unique local
  ['link-local', 'fe80::/10'],
  ['private', 'fec0::/10'], // deprecated site-local
  ['multicast', 'ff00::/8'],
]);

const inRange = (address: Parsed, range: Range) => range.cidr[0].kind() === address.kind() && address.match(range.cidr);
const TEREDO = ipaddr.parseCIDR('2001::/32');

function v4(bytes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes);
}

/**
 * The IPv4 addresses an IPv6 address carries, by the forms that translate or tunnel to
 * them: IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`,
 * local-use NAT64 `64:ff9b:1::/48` (every RFC 6052 prefix length it allows), 6to4
 * `2002:AABB:CCDD::/48`, Teredo (server, and client with its bits inverted).
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const b = address.toByteArray();
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const out: ipaddr.IPv4[] = [];
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) out.push(v4(b.slice(12))); // ::ffff:a.b.c.d (mapped)
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) out.push(v4(b.slice(12))); // ::ffff:0:a.b.c.d (translated)
  if (zero(0, 12) && !zero(12, 16) && !(zero(12, 15) && b[15] === 1)) out.push(v4(b.slice(12))); // ::a.b.c.d (not :: or ::1)
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    if (zero(4, 12)) out.push(v4(b.slice(12))); // 64:ff9b::/96
    if (b[4] === 0x00 && b[5] === 0x01) {
      // 64:ff9b:1::/48 with a prefix of 48, 56, 64 or 96 bits (RFC 6052 2.2): the shorter
      // forms have a zero u octet (byte 8) and a zero suffix; the operator's length is unknown.
      if (b[8] === 0 && zero(11, 16)) out.push(v4([b[6]!, b[7]!, b[9]!, b[10]!]));
      if (b[8] === 0 && zero(12, 16)) out.push(v4([b[7]!, b[9]!, b[10]!, b[11]!]));
      if (b[8] === 0 && zero(13, 16)) out.push(v4(b.slice(9, 13)));
      out.push(v4(b.slice(12)));
    }
  }
  if (b[0] === 0x20 && b[1] === 0x02) out.push(v4(b.slice(2, 6))); // 6to4
  if (address.match(TEREDO)) out.push(v4(b.slice(4, 8)), v4(b.slice(12).map((x) => x ^ 0xff)));
  return out;
}

/** The blocked kind of one address by range alone (no embedding, no host addresses), or null. */
function rangeKind(address: Parsed): BlockedKind | null {
  if (globallyReachable.some((range) => inRange(address, range))) return null;
  return blockedRanges.find((range) => inRange(address, range))?.kind ?? null;
}

/** Why an address is blocked: each kind with the address it was judged on (itself or an IPv4 it carries). */
interface Finding {
  kind: BlockedKind;
  judged: Parsed;
}

/** An address as one comparable string (`ipv4:127.0.0.1`): the same address always gives the same key. */
const addressKey = (address: Parsed) => `${address.kind()}:${address.toNormalizedString()}`;

/** `own`: the host's addresses as addressKey strings. */
function findings(address: Parsed, own: ReadonlySet<string>): Finding[] {
  const judged: Parsed[] = [address, ...(address.kind() === 'ipv6' ? embeddedIPv4(address as ipaddr.IPv6) : [])];
  const out: Finding[] = [];
  for (const candidate of judged) {
    const kind = rangeKind(candidate);
    if (kind !== null) out.push({ kind, judged: candidate });
    // The server's own addresses reach its own services, like loopback.
    if (own.has(addressKey(candidate))) out.push({ kind: 'loopback', judged: candidate });
  }
  return out;
}

/** The blocked kind of an address (the first of several), or null for a public address; host addresses not considered. */
export function classifyAddress(address: Parsed): BlockedKind | null {
  return findings(address, new Set())[0]?.kind ?? null;
}

export class AddressPolicy {
  private readonly allowed: Array<[Parsed, number]>;
  private readonly hostAddresses: HostAddresses;
  /** The last reading of the host's addresses (addressKey strings) and when it was taken. */
  private own: { keys: ReadonlySet<string>; at: number } | null = null;
  /**
   * Refusals decided since that reading, by address text: a burst of connections to one
   * far end judges its address once (cold, the range walk cost ~0.1 ms per connection).
   */
  private readonly decided = new Map<string, BlockedKind | null>();

  constructor(
    private readonly grants: AddressGrants,
    hostAddresses: HostAddresses = systemHostAddresses,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.allowed = grants.allowIp.map((cidr) => ipaddr.parseCIDR(cidr));
    this.hostAddresses = hostAddresses;
  }

  /** The host's own addresses, read again once the last reading is HOST_ADDRESSES_FRESH_MS old. */
  private ownAddresses(): ReadonlySet<string> {
    const now = this.now();
    if (this.own && now - this.own.at < HOST_ADDRESSES_FRESH_MS) return this.own.keys;
    const keys = new Set<string>();
    this.decided.clear();
    for (const text of this.hostAddresses()) {
      try {
        keys.add(addressKey(normalizeAddress(text)));
      } catch {
        // Not an address (an interface without one): nothing to compare against.
      }
    }
    this.own = { keys, at: now };
    return keys;
  }

  private covered(address: Parsed): boolean {
    return this.allowed.some((range) => range[0].kind() === address.kind() && address.match(range));
  }

  /** null when the address may be reached, else why it may not (the first finding no grant covers). */
  refusal(addressText: string): BlockedKind | null {
    const own = this.ownAddresses();
    const known = this.decided.get(addressText);
    if (known !== undefined) return known;
    const decision = this.decide(normalizeAddress(addressText), own);
    if (this.decided.size >= DECISIONS_KEPT) this.decided.clear();
    this.decided.set(addressText, decision);
    return decision;
  }

  private decide(address: Parsed, own: ReadonlySet<string>): BlockedKind | null {
    if (this.covered(address)) return null;
    for (const finding of findings(address, own)) {
      if (this.covered(finding.judged)) continue;
      if (finding.kind === 'loopback' && this.grants.allowLocalhost) continue;
      if (finding.kind === 'private' && this.grants.allowPrivate) continue;
      return finding.kind;
    }
    return null;
  }
}

/**
 * The operator's settings that would let a refused destination through, for the
 * operator's view (log, audit, CLI hints): loopback and private ranges have their own
 * switch, every kind can be granted address by address with `network.allow_ip`.
 */
export function settingsThatAllow(kinds: readonly BlockedKind[]): string {
  const settings: string[] = [];
  if (kinds.includes('loopback')) settings.push('network.allow_localhost (--allow-localhost, SVC_ALLOW_LOCALHOST=1)');
  if (kinds.includes('private')) settings.push('network.allow_private (--allow-private, SVC_ALLOW_PRIVATE=1)');
  settings.push('network.allow_ip with the address (--allow-ip, SVC_ALLOW_IP)');
  return settings.join(' or ');
}
