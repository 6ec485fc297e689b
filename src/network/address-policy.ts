// The outbound address block (interface.md "Outbound network block"): which resolved
// addresses a program's connections may reach, given the server's grants.
import ipaddr from 'ipaddr.js';

export type BlockedKind = 'loopback' | 'private' | 'link-local' | 'broadcast' | 'unspecified';

export interface AddressGrants {
  allowLocalhost: boolean;
  allowPrivate: boolean;
  /** Canonical CIDR strings (`127.0.0.1/32`). */
  allowIp: readonly string[];
}

type Parsed = ipaddr.IPv4 | ipaddr.IPv6;

/** Parses an address, unwrapping IPv4-mapped IPv6 so `::ffff:127.0.0.1` counts as loopback. */
export function normalizeAddress(text: string): Parsed {
  const parsed = ipaddr.parse(text.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed;
}

const blockedRanges: Array<{ kind: BlockedKind; cidr: [Parsed, number] }> = [
  ['loopback', '127.0.0.0/8'],
  ['loopback', '::1/128'],
  ['private', '10.0.0.0/8'],
  ['private', '172.16.0.0/12'],
  ['private', '192.168.0.0/16'],
  ['private', '100.64.0.0/10'],
  ['private', 'fc00::/7'],
  ['link-local', '169.254.0.0/16'],
  ['link-local', 'fe80::/10'],
  ['broadcast', '255.255.255.255/32'],
  ['unspecified', '0.0.0.0/32'],
  ['unspecified', '::/128'],
].map(([kind, cidr]) => ({ kind: kind as BlockedKind, cidr: ipaddr.parseCIDR(cidr) }));

/** The blocked kind of an address, or null for a public address. */
export function classifyAddress(address: Parsed): BlockedKind | null {
  for (const range of blockedRanges) {
    if (range.cidr[0].kind() === address.kind() && address.match(range.cidr)) return range.kind;
  }
  return null;
}

export class AddressPolicy {
  private readonly allowed: Array<[Parsed, number]>;

  constructor(private readonly grants: AddressGrants) {
    this.allowed = grants.allowIp.map((cidr) => ipaddr.parseCIDR(cidr));
  }

  /** null when the address may be reached, else why it may not. */
  refusal(addressText: string): BlockedKind | null {
    const address = normalizeAddress(addressText);
    const kind = classifyAddress(address);
    if (kind === null) return null;
    if (this.allowed.some((range) => range[0].kind() === address.kind() && address.match(range))) return null;
    if (kind === 'loopback' && this.grants.allowLocalhost) return null;
    if (kind === 'private' && this.grants.allowPrivate) return null;
    return kind;
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
