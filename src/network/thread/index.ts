// Public API of the network thread: the dispatcher programs' outbound HTTP goes through.
// Without the built worker (unit tests under tsx, the CLI's local runs) requests are sent by
// an egress-guarded dispatcher in this thread, as before.
import fs from 'node:fs';
import type { Dispatcher } from 'undici';
import { EgressGuard } from '../egress-guard';
import { NetworkThread, type NetworkThreadOptions } from './dispatcher';

export { NetworkThread, NetworkThreadLostError, NETWORK_THREAD_NAME, type ExchangeSink, type NetworkThreadOptions } from './dispatcher';
export type { ExchangeRequest, FromNetwork, WireError } from './protocol';

function builtWorker(): URL | null {
  // The server bundle sits beside it; the CLI's chunks one folder down.
  for (const relative of ['./network-worker.js', '../network-worker.js']) {
    const candidate = new URL(relative, import.meta.url);
    if (candidate.protocol === 'file:' && fs.existsSync(candidate)) return candidate;
  }
  return null;
}

/** The network thread's dispatcher when the worker is built, else an egress guard's in this thread. */
export function programsDispatcher(options: Omit<NetworkThreadOptions, 'file'>): Dispatcher {
  const file = builtWorker();
  if (file) return new NetworkThread({ ...options, file });
  return new EgressGuard({ grants: options.grants, hosts: options.hosts, onBlocked: options.onBlocked }).dispatcher();
}
