// Wire shapes of the /v1 responses as zod schemas, for the OpenAPI document (request bodies
// come from the route modules that validate them).
import { z } from 'zod';

export const ErrorBody = z.looseObject({ error: z.string(), message: z.string().optional() }).describe('`error` is a stable code, `message` is for people; some routes add fields');

export const Diagnostic = z.object({ path: z.array(z.union([z.string(), z.number().int()])).optional(), line: z.number().int().optional(), col: z.number().int().optional(), message: z.string() });
export const BlueprintError = z.object({
  error: z.string(),
  message: z.string(),
  name: z.string().optional(),
  diagnostics: z.array(Diagnostic).optional(),
});

const Note = z.object({ line: z.number().int(), column: z.number().int(), message: z.string() });
export const ExecuteError = z.object({
  kind: z.string().describe('compile_error, runtime_error, permission_denied, timeout, fuel_exhausted, memory_exhausted, stack_exhausted, package_resolution, blueprint_not_found, invalid_request'),
  message: z.string(),
  caller: z.string().optional(),
  capability: z.string().optional(),
  source: z.string().optional().describe('permission_denied only: policy, invariant or read_only'),
  diagnostics: z.array(z.object({ severity: z.string(), line: z.number().int(), column: z.number().int(), message: z.string(), notes: z.array(Note).optional(), help: z.string().optional() })).optional(),
});

export const ExecuteResult = z.object({
  execution_id: z.string(),
  session_id: z.string(),
  result: z.string().nullable(),
  console: z.array(z.string()),
  error: ExecuteError.nullable(),
  discovery_warnings: z.array(z.string()).optional(),
});

export const LastRunRecord = z.object({ result: z.string().nullable(), console: z.array(z.string()), error: ExecuteError.nullable() });

export const SessionCreated = z.object({ session_id: z.string() });
export const SessionError = z.looseObject({ error: z.string(), message: z.string().optional(), name: z.string().optional(), session_id: z.string().optional(), required: z.array(z.string()).optional(), limit: z.number().int().optional() });
export const IdempotencyRefusal = z.object({ execution_id: z.string().optional(), error: z.string(), session_id: z.string(), detail: z.string() });

export const Prompt = z.object({
  name: z.string(),
  prompt: z.string(),
  tools: z.object({ search: z.string(), docs: z.string(), builtins: z.string(), builtins_list: z.string(), builtins_docs: z.string(), last_run: z.string() }),
});
const SearchEntry = z.object({ name: z.string(), description: z.string(), source: z.enum(['host', 'registry', 'mcp']) });
export const PackageSearch = z.object({
  results: z.array(SearchEntry),
  available_packages: z.array(SearchEntry).optional(),
  builtins: z.string().optional(),
  available_packages_omitted: z.number().int().optional(),
});
export const PackageDocs = z.object({ name: z.string(), source: z.string(), description: z.string(), declarations: z.string() });
export const DiscoveryError = z.object({ error: z.string(), message: z.string(), name: z.string().optional(), did_you_mean: z.string().optional() });
export const BuiltinsList = z.object({
  namespaces: z.array(z.string()),
  types: z.array(z.string()),
  functions: z.array(z.string()).describe('Global functions, the web platform\'s among them (fetch, setTimeout, queueMicrotask, ...)'),
});
export const BuiltinsDocs = z.object({
  results: z.array(
    z.union([
      z.object({ name: z.string(), declarations: z.string() }),
      z.object({ name: z.string(), error: z.enum(['unknown_builtin', 'not_a_builtin']), message: z.string(), did_you_mean: z.string().optional() }),
    ]),
  ),
});

export const BlueprintRegistered = z.object({ name: z.string(), hash: z.string() });
export const BlueprintReplaced = z.object({ name: z.string(), created: z.boolean(), hash: z.string() });
export const BlueprintStored = z.object({ name: z.string(), yaml: z.string(), hash: z.string().nullable() });
export const BlueprintName = z.object({ name: z.string() });
export const BlueprintSummary = z.object({
  name: z.string(),
  hash: z.string(),
  vfs_mode: z.string(),
  idle_timeout_secs: z.number().int().nullable(),
  packages: z.array(z.string()),
  secrets: z.array(z.object({ name: z.string(), source: z.enum(['store', 'harness']), store_key: z.string().optional() })),
  variables: z.array(z.string()),
  mcp_servers: z.array(z.string()),
  auth_proxy_hosts: z.array(z.string()),
  default_action: z.enum(['allow', 'deny', 'ask-human']).describe('The Blueprint\'s `default` (deny when it has none)'),
  caller_count: z.number().int(),
  rule_count: z.number().int(),
  capability_count: z.number().int(),
});
export const BlueprintList = z.object({ blueprints: z.array(BlueprintSummary) });
export const Capabilities = z.object({
  groups: z.array(
    z.object({
      source: z.string(),
      kind: z.enum(['stdlib', 'package']),
      capabilities: z.array(
        z.object({
          name: z.string(),
          summary: z.string(),
          filter_fields: z.array(z.string()),
          fields: z.record(z.string(), z.looseObject({ type: z.string(), description: z.string() })),
          example_filter: z.string().nullable(),
          main_denial: z.string().optional(),
        }),
      ),
      requires: z.array(z.object({ capability: z.string(), filter: z.string().optional() })).optional().describe('Package groups: what its own code requires'),
    }),
  ),
});

export const Status = z.object({
  status: z.literal('running'),
  bind_addr: z.string(),
  pid: z.number().int(),
  active_sessions: z.number().int(),
  blueprints: z.array(z.string()),
  lookups: z.record(z.string(), z.number()).optional(),
  token_budgets: z.record(z.string(), z.object({ spent: z.number(), reserved: z.number(), budget: z.number() })).optional(),
});
export const ShutdownAccepted = z.object({ status: z.literal('shutting-down') });
export const SecretKey = z.object({ key: z.string() });
export const SecretKeys = z.object({ keys: z.array(z.string()) });

const PackageRef = z.object({ name: z.string(), version: z.string(), digest: z.string() });
export const PackageInstalled = z.object({ sha: z.string(), installed: z.array(PackageRef), up_to_date: z.array(PackageRef), warnings: z.array(z.string()) });
export const PackageRemoved = PackageRef.extend({ still_available_from: z.string().optional() });
export const PackageList = z.object({
  roots: z.array(z.string()),
  packages: z.array(z.looseObject({ name: z.string(), version: z.string(), description: z.string().optional(), digest: z.string().nullable(), root: z.string(), managed: z.boolean() })),
});
export const VolumeList = z.object({ volumes: z.array(z.string()) });
export const OAuthState = z.object({ state: z.enum(['active', 'pending']), unauthenticated: z.array(z.string()).optional() });
export const OAuthStatus = z.object({
  blueprint: z.string(),
  state: z.enum(['active', 'pending']),
  servers: z.array(z.object({ name: z.string(), kind: z.enum(['oauth', 'static', 'none']), authenticated: z.boolean().optional() })),
});
export const OAuthConfig = z.looseObject({ url: z.string(), client_id: z.string().optional(), authorization_endpoint: z.string().optional(), token_endpoint: z.string().optional(), scopes: z.array(z.string()).optional() });

