// The egress guard: an undici dispatcher whose connector resolves the host name itself,
// checks every resolved address against the AddressPolicy and connects to a permitted
// address it checked (never a second lookup, so DNS rebinding cannot slip through).
// Every outbound connection a program causes goes through one of these. Static host
// entries (`network.hosts`) replace the lookup for their names, like /etc/hosts.
import dns from 'node:dns';
import net from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { AddressPolicy, type AddressGrants, type BlockedKind, type HostAddresses } from './address-policy';
import { metrics } from '../metrics';

export type Lookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookup: Lookup = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** Thrown (and seen by the program as a plain Error) when no resolved address may be reached. */
export class EgressBlockedError extends Error {
  readonly code = 'egress_blocked';
  constructor(
    readonly host: string,
    readonly kinds: BlockedKind[],
  ) {
    super(`blocked by network policy: ${host} resolves only to ${[...new Set(kinds)].join('/')} address space, which this server does not let programs reach`);
    this.name = 'Error';
  }
}

export interface EgressGuardOptions {
  grants: AddressGrants;
  /** Static entries (setting `network.hosts`): lower-cased host name → IP, used instead of DNS. */
  hosts?: Readonly<Record<string, string>>;
  lookup?: Lookup;
  /** This host's interface addresses (default: os.networkInterfaces(), read again once a second; see HOST_ADDRESSES_FRESH_MS). */
  hostAddresses?: HostAddresses;
  /** Called once per refused connection (the caller audits it as an egress_guard denial). */
  onBlocked?: (host: string, kinds: BlockedKind[]) => void;
  /** Counts each connection by outcome (default: the server's metrics; the network thread counts for the server). */
  countConnection?: (outcome: 'allowed' | 'blocked') => void;
}

const countInMetrics = (outcome: 'allowed' | 'blocked') => metrics.outboundCalls.inc({ outcome });

export class EgressGuard {
  readonly policy: AddressPolicy;
  private readonly lookup: Lookup;
  private readonly count: (outcome: 'allowed' | 'blocked') => void;

  constructor(private readonly options: EgressGuardOptions) {
    this.policy = new AddressPolicy(options.grants, options.hostAddresses);
    this.lookup = options.lookup ?? systemLookup;
    this.count = options.countConnection ?? countInMetrics;
  }

  /** Resolves `host` and returns the first address the policy permits, or throws EgressBlockedError. */
  async resolve(host: string): Promise<{ address: string; family: number }> {
    const bare = host.replace(/^\[|\]$/g, '');
    const fixed = this.staticAddress(bare);
    const candidates = net.isIP(bare) ? [{ address: bare, family: net.isIP(bare) }] : fixed ? [fixed] : await this.lookup(bare);
    const kinds: BlockedKind[] = [];
    for (const candidate of candidates) {
      const refusal = this.policy.refusal(candidate.address);
      if (refusal === null) {
        this.count('allowed');
        return candidate;
      }
      kinds.push(refusal);
    }
    if (candidates.length === 0) throw new Error(`could not resolve ${host}`);
    this.options.onBlocked?.(host, kinds);
    this.count('blocked');
    throw new EgressBlockedError(host, kinds);
  }

  /** A `network.hosts` entry for the name (case and a trailing dot ignored); it still passes the block. */
  private staticAddress(name: string): { address: string; family: number } | null {
    const hosts = this.options.hosts;
    if (!hosts) return null;
    const key = name.toLowerCase().replace(/\.$/, '');
    const address = Object.prototype.hasOwnProperty.call(hosts, key) ? hosts[key] : undefined;
    return address === undefined ? null : { address, family: net.isIP(address) };
  }

  /** A dispatcher for undici requests; `onBlocked` may be overridden per use (per run). */
  dispatcher(extra: { connectTimeoutMs?: number; onBlocked?: (host: string, kinds: BlockedKind[]) => void } = {}): Dispatcher {
    const connectTls = buildConnector({ timeout: extra.connectTimeoutMs ?? 30_000 });
    const guard = extra.onBlocked ? new EgressGuard({ ...this.options, onBlocked: extra.onBlocked }) : this;
    return new Agent({
      connect: (options, callback) => {
        guard.resolve(options.hostname).then(
          ({ address }) => {
            // Connect to the checked address; TLS still verifies the original name.
            connectTls({ ...options, hostname: address, servername: net.isIP(options.hostname) ? undefined : options.hostname } as buildConnector.Options, callback);
          },
          (error: Error) => callback(error, null),
        );
      },
    });
  }
}
