// OAuth for upstream MCP servers: endpoint discovery, logins, stored credentials and refresh.
export { OAuthService, OAuthError, credentialKey, type Credential, type AuthState, type OAuthErrorCode, type OAuthServiceOptions } from './service';
export { TokenManager, type TokenManagerOptions } from './tokens';
export { discoverMetadata, type ServerMetadata } from './metadata';
