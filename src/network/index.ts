// Public API of outbound networking: the address policy, the egress guard, and the network
// thread that sends programs' HTTP requests off the server's event loop.
export { AddressPolicy, classifyAddress, embeddedIPv4, HOST_ADDRESSES_FRESH_MS, normalizeAddress, settingsThatAllow, type AddressGrants, type BlockedKind, type HostAddresses } from './address-policy';
export { EgressGuard, EgressBlockedError, type EgressGuardOptions, type Lookup } from './egress-guard';
export { programsDispatcher, NetworkThread, NetworkThreadLostError, NETWORK_THREAD_NAME, type ExchangeRequest, type ExchangeSink, type FromNetwork, type WireError } from './thread';
export { deadlineSignal, timeoutReason, type DeadlineSignal } from './deadline-signal';
