// Public API of outbound networking: the address policy and the egress guard.
export { AddressPolicy, classifyAddress, embeddedIPv4, HOST_ADDRESSES_FRESH_MS, normalizeAddress, settingsThatAllow, type AddressGrants, type BlockedKind, type HostAddresses } from './address-policy';
export { EgressGuard, EgressBlockedError, type EgressGuardOptions, type Lookup } from './egress-guard';
