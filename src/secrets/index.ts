// Public API of the sealed secret store.
export { SecretStore, SecretStoreError, storeKeyProblem, type SecretStoreErrorCode } from './secret-store';
