// Response bodies of the /v1 routes as zod schemas, each named (`.openapi(name)`) as a
// component of the OpenAPI document; the route declarations in routes/ reference them.
// Strict objects: the document says a body has exactly these fields (the OpenAPI test
// holds real answers to that), except where a body is declared loose.
// The execute result and last-run record are src/execution's, the Blueprint diagnostic
// src/blueprints' (and its list summary).
import { z } from '@hono/zod-openapi';
import { BlueprintDiagnostic, BlueprintSummary as BlueprintSummaryShape } from '../blueprints';
import { ExecuteResult, LastRunRecord } from '../execution';

export { ExecuteResult, LastRunRecord };

export const ErrorBody = z.looseObject({ error: z.string(), message: z.string().optional() }).describe('`error` is a stable code, `message` is for people; some routes add fields').openapi('Error');

export const BlueprintError = z
  .strictObject({
    error: z.string(),
    message: z.string(),
    name: z.string().optional(),
    diagnostics: z.array(BlueprintDiagnostic).optional(),
  })
  .openapi('BlueprintError');

export const SessionCreated = z.strictObject({ session_id: z.string() }).openapi('SessionCreated');
const SessionSummary = z
  .strictObject({
    session_id: z.string(),
    blueprint: z.string(),
    owner: z.string().nullable().openapi({ description: 'Name of the token that opened it (null: a session recorded before owners existed)' }),
    mcp: z.boolean().openapi({ description: 'Opened through the MCP endpoint' }),
    created_at_ms: z.number().int(),
    last_activity_ms: z.number().int(),
    idle_timeout_secs: z.number().int(),
    runs_in_flight: z.number().int(),
  })
  .openapi('SessionSummary');
export const SessionList = z
  .strictObject({
    sessions: z.array(SessionSummary),
    max_sessions_per_token: z.number().int().openapi({ description: 'Sessions one token may have open at once' }),
  })
  .openapi('SessionList');
export const SessionError = z.looseObject({ error: z.string(), message: z.string().optional(), name: z.string().optional(), session_id: z.string().optional(), required: z.array(z.string()).optional(), limit: z.number().int().optional() }).openapi('SessionError');
export const IdempotencyRefusal = z.strictObject({ execution_id: z.string().optional(), error: z.string(), session_id: z.string(), detail: z.string() }).openapi('IdempotencyRefusal');

export const Prompt = z.strictObject({
  name: z.string(),
  prompt: z.string(),
  tools: z.strictObject({ search: z.string(), docs: z.string(), builtins: z.string(), builtins_list: z.string(), builtins_docs: z.string(), last_run: z.string() }),
}).openapi('Prompt');
const SearchEntry = z.strictObject({ name: z.string(), description: z.string(), source: z.enum(['host', 'registry', 'mcp']) }).openapi('SearchEntry');
export const PackageSearch = z.strictObject({
  results: z.array(SearchEntry),
  available_packages: z.array(SearchEntry).optional(),
  builtins: z.string().optional(),
  available_packages_omitted: z.number().int().optional(),
}).openapi('PackageSearchResults');
export const PackageDocs = z.strictObject({ name: z.string(), source: z.string(), description: z.string(), declarations: z.string() }).openapi('PackageDocs');
export const DiscoveryError = z.strictObject({ error: z.string(), message: z.string(), name: z.string().optional(), did_you_mean: z.string().optional() }).openapi('DiscoveryError');
export const BuiltinsList = z.strictObject({
  namespaces: z.array(z.string()),
  types: z.array(z.string()),
  functions: z.array(z.string()).describe('Global functions, the web platform\'s among them (fetch, setTimeout, queueMicrotask, ...)'),
}).openapi('BuiltinsList');
export const BuiltinsDocs = z.strictObject({
  results: z.array(
    z.union([
      z.strictObject({ name: z.string(), declarations: z.string() }),
      z.strictObject({ name: z.string(), error: z.enum(['unknown_builtin', 'not_a_builtin']), message: z.string(), did_you_mean: z.string().optional() }),
    ]),
  ),
}).openapi('BuiltinsDocs');

export const BlueprintRegistered = z.strictObject({ name: z.string(), hash: z.string() }).openapi('BlueprintRegistered');
export const BlueprintReplaced = z.strictObject({ name: z.string(), created: z.boolean(), hash: z.string() }).openapi('BlueprintReplaced');
export const BlueprintStored = z.strictObject({ name: z.string(), yaml: z.string(), hash: z.string().nullable() }).openapi('BlueprintStored');
export const BlueprintName = z.strictObject({ name: z.string() }).openapi('BlueprintName');
// Rebuilt with the OpenAPI-aware `z` from the blueprints' plain declaration (its fields as they are).
export const BlueprintSummary = z.strictObject(BlueprintSummaryShape.shape).openapi('BlueprintSummary');
export const BlueprintList = z.strictObject({ blueprints: z.array(BlueprintSummary) }).openapi('BlueprintList');
export const Capabilities = z.strictObject({
  groups: z.array(
    z.strictObject({
      source: z.string(),
      kind: z.enum(['stdlib', 'package']),
      capabilities: z.array(
        z.strictObject({
          name: z.string(),
          summary: z.string(),
          filter_fields: z.array(z.string()),
          fields: z.record(z.string(), z.looseObject({ type: z.string(), description: z.string() })),
          example_filter: z.string().nullable(),
          main_denial: z.string().optional(),
        }),
      ),
      requires: z.array(z.strictObject({ capability: z.string(), filter: z.string().optional() })).optional().describe('Package groups: what its own code requires'),
    }),
  ),
}).openapi('Capabilities');

export const Status = z.strictObject({
  status: z.literal('running'),
  bind_addr: z.string(),
  pid: z.number().int(),
  active_sessions: z.number().int(),
  blueprints: z.array(z.string()),
  lookups: z.record(z.string(), z.number()).optional(),
  token_budgets: z.record(z.string(), z.strictObject({ spent: z.number(), reserved: z.number(), budget: z.number() })).optional(),
  runner_sandbox: z.strictObject({ level: z.enum(['full', 'partial', 'env-only']), features: z.array(z.string()), missing: z.array(z.string()) }).optional(),
}).openapi('Status');
export const ShutdownAccepted = z.strictObject({ status: z.literal('shutting-down') }).openapi('ShutdownAccepted');
export const SecretKey = z.strictObject({ key: z.string() }).openapi('SecretKey');
export const SecretKeys = z.strictObject({ keys: z.array(z.string()) }).openapi('SecretKeys');

const PackageRef = z.strictObject({ name: z.string(), version: z.string(), digest: z.string() }).openapi('PackageRef');
export const PackageInstalled = z.strictObject({ sha: z.string(), installed: z.array(PackageRef), up_to_date: z.array(PackageRef), warnings: z.array(z.string()) }).openapi('PackageInstalled');
export const PackageRemoved = z.strictObject({ ...PackageRef.shape, still_available_from: z.string().optional() }).openapi('PackageRemoved');
export const PackageList = z.strictObject({
  roots: z.array(z.string()),
  packages: z.array(z.looseObject({ name: z.string(), version: z.string(), description: z.string().optional(), digest: z.string().nullable(), root: z.string(), managed: z.boolean() })),
}).openapi('PackageList');
export const VolumeList = z.strictObject({ volumes: z.array(z.string()) }).openapi('VolumeList');
export const OAuthState = z.strictObject({ state: z.enum(['active', 'pending']), unauthenticated: z.array(z.string()).optional() }).openapi('OAuthState');
export const OAuthStatus = z.strictObject({
  blueprint: z.string(),
  state: z.enum(['active', 'pending']),
  servers: z.array(z.strictObject({ name: z.string(), kind: z.enum(['oauth', 'static', 'none']), authenticated: z.boolean().optional() })),
}).openapi('OAuthStatus');
export const OAuthConfig = z.looseObject({ url: z.string(), client_id: z.string().optional(), authorization_endpoint: z.string().optional(), token_endpoint: z.string().optional(), scopes: z.array(z.string()).optional() }).openapi('OAuthConfig');

