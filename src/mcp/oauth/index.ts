// OAuth for upstream MCP servers (mcp-and-packages A.15).
export { OAuthService, OAuthError, credentialKey, type Credential, type AuthState, type OAuthErrorCode, type OAuthServiceOptions } from './service';
export { TokenManager, type TokenManagerOptions } from './tokens';
export { discoverMetadata, type ServerMetadata } from './metadata';
