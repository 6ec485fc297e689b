// Wire shapes of the svc HTTP API under friendly names. They come from openapi-types.ts,
// which is generated from the server's OpenAPI document (`npm run generate` in the svc
// repository); only PackageDocs, which the client tags by format, is shaped here.
import type { components } from './openapi-types.js';

type Schemas = components['schemas'];

/** Every `error.kind` an execute result can carry. */
export type ExecuteErrorKind = Schemas['ExecuteError']['kind'];
export type ExecuteError = Schemas['ExecuteError'];
/** Every program outcome, failures included (HTTP 200). */
export type ExecuteResult = Schemas['ExecuteResult'];
export type LastRunRecord = Schemas['LastRunRecord'];

/** A run's record: state, times and, once finished, its execute result. */
export type RunRecord = Schemas['RunRecord'];
/** A record in a listing (no result). */
export type RunSummary = Schemas['RunSummary'];
export type RunState = RunRecord['state'];
/** The 202 answer of an asynchronous start: follow it with `getRun(execution_id, { wait })`. */
export type RunStarted = Schemas['RunStarted'];

export type Prompt = Schemas['Prompt'];
export type SearchEntry = Schemas['SearchEntry'];
export type PackageSearchResults = Schemas['PackageSearchResults'];

/** JSON for modules and built-ins; Markdown text for installed and `@mcp/` Packages. */
export type PackageDocs = ({ format: 'json' } & Schemas['PackageDocs']) | { format: 'markdown'; text: string };

export type BuiltinsList = Schemas['BuiltinsList'];
export type BuiltinsDocs = Schemas['BuiltinsDocs'];

export type SessionRequest = Schemas['CreateSessionRequest'];
export type OneOffRequest = Schemas['OneOffExecuteRequest'];

export type BlueprintSummary = Schemas['BlueprintSummary'];
export type Status = Schemas['Status'];

export type PackageRef = Schemas['PackageRef'];
export type PackageInstallRequest = Schemas['PackageInstallRequest'];
export type PackageInstalled = Schemas['PackageInstalled'];

export type OAuthState = Schemas['OAuthState'];
export type RefreshTokenRequest = Schemas['RefreshTokenRequest'];
export type OAuthExchangeRequest = Schemas['OAuthExchangeRequest'];

/** An approval an `ask-human` call waits on. */
export type Approval = Schemas['Approval'];
export type ApprovalDecisionRequest = Schemas['ApprovalDecisionRequest'];
