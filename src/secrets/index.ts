// Public API of the sealed secret store.
export { SecretStore, SecretStoreError, storeKeyProblem, RESERVED_PREFIX, KEY_MISMATCH_MESSAGE, NO_STORE_MESSAGE, type SecretStoreErrorCode, type KeyAccess } from './secret-store';
