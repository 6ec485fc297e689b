// Outbound grants (`network.allow_ip` entries as canonical CIDR) and MCP Host entries.
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { invalid } from './errors';

/** `127.0.0.1` → `127.0.0.1/32`; IPv6 compressed and lower-case; IPv4-mapped unwrapped. */
export function canonicalCidr(raw: string, label: string): string {
  const text = raw.trim();
  try {
    // ipaddr.js also reads `10`, `0x7f.1` or `010.0.0.1` as IPv4; only the usual forms count.
    const [addressText, bitsText, extra] = text.split('/');
    if (extra !== undefined || net.isIP(addressText) === 0 || addressText.includes('%')) throw new Error('invalid');
    if (bitsText !== undefined && !/^[0-9]{1,3}$/.test(bitsText)) throw new Error('invalid');
    if (text.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(text);
      const base = address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96
        ? [(address as ipaddr.IPv6).toIPv4Address(), bits - 96] as const
        : ([address, bits] as const);
      return `${networkAddress(base[0], base[1])}/${base[1]}`;
    }
    let address = ipaddr.parse(text);
    if (!ipaddr.isValid(text)) throw new Error('invalid');
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
    return `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`;
  } catch {
    throw invalid(`${label}: expected an IP address or CIDR range, got \`${raw}\``);
  }
}

function networkAddress(address: ipaddr.IPv4 | ipaddr.IPv6, bits: number): string {
  const bytes = address.toByteArray();
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    bytes[i] &= keep === 0 ? 0 : (0xff << (8 - keep)) & 0xff;
  }
  return ipaddr.fromByteArray(bytes).toString();
}

/** `host`, `host:port` or `[v6]:port`, lower-cased. */
export function canonicalMcpHost(raw: string, label: string): string {
  const text = raw.trim().toLowerCase();
  const fail = () => invalid(`${label}: expected \`host\`, \`host:port\` or \`[v6]:port\`, got \`${raw}\``);
  if (text === '') throw fail();
  const bracketed = /^\[([0-9a-f:.]+)\](?::([0-9]{1,5}))?$/.exec(text);
  if (bracketed) {
    if (!ipaddr.IPv6.isValid(bracketed[1])) throw fail();
    if (bracketed[2] !== undefined && Number(bracketed[2]) > 65535) throw fail();
    return text;
  }
  const plain = /^([a-z0-9.-]+)(?::([0-9]{1,5}))?$/.exec(text);
  if (!plain || (plain[2] !== undefined && Number(plain[2]) > 65535)) throw fail();
  return text;
}

/** A host name for `network.hosts`: DNS labels, lower-cased, a trailing dot dropped; never an IP literal. */
function canonicalHostName(raw: string, label: string): string {
  const name = raw.trim().toLowerCase().replace(/\.$/, '');
  const labelOk = (part: string) => /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/.test(part);
  if (name === '' || name.length > 253 || net.isIP(name) !== 0 || /^[0-9.]+$/.test(name) || !name.split('.').every(labelOk)) {
    throw invalid(`${label}: expected a host name such as \`api.example.com\`, got \`${raw}\``);
  }
  return name;
}

/** An address for `network.hosts`: one IPv4 or IPv6 address (no range, no zone), canonical. */
function canonicalHostAddress(raw: string, name: string, label: string): string {
  const text = raw.trim().replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(text) === 0 || text.includes('%')) throw invalid(`${label}: \`${name}\` needs one IP address, got \`${raw}\``);
  let address = ipaddr.parse(text);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
  return address.toString();
}

/** One `NAME=IP` entry (flag and variable form) as [name, address]. */
export function hostEntry(raw: string, label: string): [string, string] {
  const eq = raw.indexOf('=');
  if (eq === -1) throw invalid(`${label}: expected \`NAME=IP\` (for example \`api.example.com=10.0.0.7\`), got \`${raw}\``);
  return hostMapping(raw.slice(0, eq), raw.slice(eq + 1), label);
}

/** A host name and its address, both canonical; errors name the entry. */
export function hostMapping(name: string, address: string, label: string): [string, string] {
  const host = canonicalHostName(name, label);
  return [host, canonicalHostAddress(address, name.trim(), label)];
}
