// The OpenAPI 3.1 document served at GET /v1/openapi.json. Request bodies are the zod
// schemas the routes validate with, response bodies those of openapi-schemas.ts; both are
// turned into JSON Schema (2020-12) by zod, so the document follows the code.
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from './types';
import * as S from './openapi-schemas';
import { yamlBody } from './routes/blueprints';
import { oneOffBody } from './routes/execute';
import { credentialBody, exchangeBody } from './routes/mcp-oauth';
import { installBody } from './routes/packages';
import { putBody } from './routes/secrets';
import { createBody, executeBody, rebindBody } from './routes/sessions';

type Method = 'get' | 'post' | 'put' | 'delete';
/** A response: a component schema name, any JSON object, Markdown, or no body. */
type Answer = { schema: keyof typeof responseSchemas; description: string; orMarkdown?: boolean } | { object: string } | { markdown: string } | { empty: string };

interface RouteDoc {
  method: Method;
  path: string;
  role: 'user' | 'admin';
  summary: string;
  tag: string;
  body?: keyof typeof requestSchemas;
  query?: Array<{ name: string; required?: boolean; repeated?: boolean; description: string }>;
  headers?: Array<{ name: string; description: string; schema: Record<string, unknown> }>;
  responseHeaders?: Record<string, string>;
  responses: Record<number, Answer>;
}

const requestSchemas = {
  CreateSessionRequest: createBody,
  ExecuteInSessionRequest: executeBody,
  RebindRequest: rebindBody,
  OneOffExecuteRequest: oneOffBody,
  BlueprintDocument: yamlBody,
  PutSecretRequest: putBody,
  PackageInstallRequest: installBody,
  RefreshTokenRequest: credentialBody,
  OAuthExchangeRequest: exchangeBody,
};

const responseSchemas = {
  Error: S.ErrorBody,
  BlueprintError: S.BlueprintError,
  ExecuteError: S.ExecuteError,
  ExecuteResult: S.ExecuteResult,
  LastRunRecord: S.LastRunRecord,
  SessionCreated: S.SessionCreated,
  SessionError: S.SessionError,
  IdempotencyRefusal: S.IdempotencyRefusal,
  Prompt: S.Prompt,
  PackageSearchResults: S.PackageSearch,
  PackageDocs: S.PackageDocs,
  DiscoveryError: S.DiscoveryError,
  BuiltinsList: S.BuiltinsList,
  BuiltinsDocs: S.BuiltinsDocs,
  BlueprintRegistered: S.BlueprintRegistered,
  BlueprintReplaced: S.BlueprintReplaced,
  BlueprintStored: S.BlueprintStored,
  BlueprintName: S.BlueprintName,
  BlueprintSummary: S.BlueprintSummary,
  BlueprintList: S.BlueprintList,
  Capabilities: S.Capabilities,
  Status: S.Status,
  ShutdownAccepted: S.ShutdownAccepted,
  SecretKey: S.SecretKey,
  SecretKeys: S.SecretKeys,
  PackageInstalled: S.PackageInstalled,
  PackageRemoved: S.PackageRemoved,
  PackageList: S.PackageList,
  VolumeList: S.VolumeList,
  OAuthState: S.OAuthState,
  OAuthStatus: S.OAuthStatus,
  OAuthConfig: S.OAuthConfig,
};

const json = (schema: keyof typeof responseSchemas, description: string): Answer => ({ schema, description });
const mcpSessionHeader = { 'mcp-session-id': 'The session the request ran in' };
const idempotencyKey = {
  name: 'Idempotency-Key',
  description: 'Printable ASCII, 1 to 120 bytes, sent once: the same key with the same code replays the recorded outcome',
  schema: { type: 'string', minLength: 1, maxLength: 120, pattern: '^[\\x20-\\x7e]+$' },
};
const replayedHeader = { 'Idempotent-Replayed': '`true` when the answer was replayed from an earlier request with the same Idempotency-Key (nothing ran, no audit records); absent for a run' };
const notRegistered = json('DiscoveryError', 'Blueprint not registered (`not_found`)');

/** Every /v1 route the server serves. */
export const routeDocs: readonly RouteDoc[] = [
  { method: 'get', path: '/v1/openapi.json', role: 'user', tag: 'ops', summary: 'This document', responses: { 200: { object: 'The OpenAPI 3.1 document of the routes this server serves' } } },
  { method: 'get', path: '/v1/status', role: 'admin', tag: 'ops', summary: 'Server status', responses: { 200: json('Status', 'Running'), 500: json('Error', 'Storage unavailable') } },
  { method: 'post', path: '/v1/shutdown', role: 'admin', tag: 'ops', summary: 'Drain and exit', responses: { 200: json('ShutdownAccepted', 'The drain starts after this response') } },

  { method: 'post', path: '/v1/sessions', role: 'user', tag: 'sessions', summary: 'Open a session', body: 'CreateSessionRequest', responseHeaders: mcpSessionHeader,
    responses: { 200: json('SessionCreated', 'Opened'), 400: json('SessionError', 'Invalid variables, secrets or filled paths'), 404: json('SessionError', 'Unknown Blueprint'), 429: json('SessionError', '`session_limit`: the token has `max_sessions_per_token` sessions open'), 500: json('SessionError', 'The session could not be created') } },
  { method: 'post', path: '/v1/sessions/{session_id}/execute', role: 'user', tag: 'sessions', summary: 'Run a program in a session', body: 'ExecuteInSessionRequest', headers: [idempotencyKey], responseHeaders: { ...mcpSessionHeader, ...replayedHeader },
    responses: { 200: json('ExecuteResult', 'Every program outcome, failures included'), 400: json('IdempotencyRefusal', 'Invalid Idempotency-Key'), 404: json('SessionError', 'Unknown session, or its Blueprint is gone'), 409: json('SessionError', '`session_requires_secrets`, `idempotency_conflict` or `idempotency_incomplete`'), 503: json('IdempotencyRefusal', '`idempotency_in_progress` or `idempotency_unavailable`') } },
  { method: 'post', path: '/v1/sessions/{session_id}/rebind', role: 'user', tag: 'sessions', summary: 'Replace the harness secrets', body: 'RebindRequest',
    responses: { 204: { empty: 'Rebound' }, 400: json('SessionError', 'Invalid secrets'), 404: json('SessionError', 'Unknown session, or its Blueprint is gone') } },
  { method: 'get', path: '/v1/sessions/{session_id}/last-run', role: 'user', tag: 'sessions', summary: 'The last run with its full console', responses: { 200: json('LastRunRecord', 'The last run'), 404: { empty: 'No run recorded' } } },
  { method: 'delete', path: '/v1/sessions/{session_id}', role: 'user', tag: 'sessions', summary: 'End a session', responses: { 204: { empty: 'Ended' }, 404: { empty: 'Unknown session' } } },
  { method: 'post', path: '/v1/execute', role: 'user', tag: 'sessions', summary: 'One-off run in a throw-away session', body: 'OneOffExecuteRequest', responseHeaders: mcpSessionHeader,
    responses: { 200: json('ExecuteResult', 'Every outcome, including `blueprint_not_found` and `invalid_request`') } },

  { method: 'get', path: '/v1/blueprints/{name}/prompt', role: 'user', tag: 'discovery', summary: 'Execute-tool description and the other tool descriptions', responses: { 200: json('Prompt', 'Prompt'), 404: notRegistered } },
  { method: 'get', path: '/v1/blueprints/{name}/packages/search', role: 'user', tag: 'discovery', summary: 'Search modules and Packages', query: [{ name: 'q', description: 'Substring of names, descriptions and exported symbols; empty lists everything' }],
    responses: { 200: json('PackageSearchResults', 'Hits, or the catalogue when nothing matched'), 404: notRegistered } },
  { method: 'get', path: '/v1/blueprints/{name}/packages/docs', role: 'user', tag: 'discovery', summary: 'A module\'s or Package\'s declarations', query: [{ name: 'name', required: true, description: 'Module, Package or built-in name' }],
    responses: { 200: { ...json('PackageDocs', 'JSON for a standard-library module or built-in; Markdown (documentation, then declarations) for an installed or @mcp/ Package'), orMarkdown: true }, 404: json('DiscoveryError', '`not_found`, `unknown_package` (with `did_you_mean`) or `unknown_mcp_server`') } },
  { method: 'get', path: '/v1/blueprints/{name}/builtins', role: 'user', tag: 'discovery', summary: 'Built-ins in scope without import', responses: { 200: json('BuiltinsList', 'Namespaces and types'), 404: notRegistered } },
  { method: 'get', path: '/v1/blueprints/{name}/builtins/docs', role: 'user', tag: 'discovery', summary: 'Declarations of built-ins', query: [{ name: 'name', required: true, repeated: true, description: 'A built-in, e.g. `Math.max`; repeat for several' }],
    responses: { 200: json('BuiltinsDocs', 'One entry per name, in request order'), 404: notRegistered } },

  { method: 'post', path: '/v1/blueprints', role: 'admin', tag: 'blueprints', summary: 'Register a Blueprint', body: 'BlueprintDocument',
    responses: { 200: json('BlueprintRegistered', 'Registered'), 400: json('BlueprintError', 'Invalid document or refused registration'), 409: json('BlueprintError', '`already_exists`'), 500: json('Error', 'Store unavailable') } },
  { method: 'get', path: '/v1/blueprints', role: 'admin', tag: 'blueprints', summary: 'Usable Blueprints', responses: { 200: json('BlueprintList', 'Summaries, sorted by name') } },
  { method: 'get', path: '/v1/blueprints/{name}', role: 'admin', tag: 'blueprints', summary: 'Stored text and hash', responses: { 200: json('BlueprintStored', 'Stored document'), 404: json('BlueprintError', '`not_found`') } },
  { method: 'put', path: '/v1/blueprints/{name}', role: 'admin', tag: 'blueprints', summary: 'Create or replace', body: 'BlueprintDocument',
    responses: { 200: json('BlueprintReplaced', 'Created or replaced'), 400: json('BlueprintError', 'Invalid document, refused registration or `name_mismatch`'), 500: json('Error', 'Store unavailable') } },
  { method: 'delete', path: '/v1/blueprints/{name}', role: 'admin', tag: 'blueprints', summary: 'Remove a Blueprint (ends its sessions)', responses: { 200: json('BlueprintName', 'Removed'), 404: json('BlueprintError', '`not_found`'), 500: json('Error', 'Store unavailable') } },
  { method: 'get', path: '/v1/capabilities', role: 'admin', tag: 'blueprints', summary: 'Capability catalogue with filter fields', responses: { 200: json('Capabilities', 'Grouped by module') } },

  { method: 'post', path: '/v1/secrets', role: 'admin', tag: 'secrets', summary: 'Store a secret (never returned)', body: 'PutSecretRequest',
    responses: { 200: json('SecretKey', 'Stored'), 400: json('Error', '`invalid_key` or `invalid_value`'), 500: json('Error', 'Store failure'), 503: json('Error', '`no_secret_store`') } },
  { method: 'get', path: '/v1/secrets', role: 'admin', tag: 'secrets', summary: 'Secret keys', query: [{ name: 'prefix', description: 'Only keys starting with this' }],
    responses: { 200: json('SecretKeys', 'Byte-sorted keys'), 503: json('Error', '`no_secret_store`') } },
  { method: 'delete', path: '/v1/secrets/{key}', role: 'admin', tag: 'secrets', summary: 'Remove a secret (`/` allowed in the key, raw or `%2F`)',
    responses: { 200: json('SecretKey', 'Removed'), 400: json('Error', '`invalid_key`'), 404: json('Error', '`not_found`'), 503: json('Error', '`no_secret_store`') } },

  { method: 'get', path: '/v1/packages', role: 'admin', tag: 'packages', summary: 'Installed Packages', responses: { 200: json('PackageList', 'Packages of every store root') } },
  { method: 'post', path: '/v1/packages/install', role: 'admin', tag: 'packages', summary: 'Install Packages from a repository', body: 'PackageInstallRequest',
    responses: { 200: json('PackageInstalled', 'Installed'), 400: json('Error', 'Invalid request or package'), 409: json('Error', '`dependency_conflict` or `already_installed`'), 502: json('Error', 'Download failed'), 503: json('Error', '`github_rate_limited`') } },
  { method: 'delete', path: '/v1/packages/{name}', role: 'admin', tag: 'packages', summary: 'Remove an installed Package', responses: { 200: json('PackageRemoved', 'Removed'), 400: json('Error', '`invalid_name`'), 404: json('Error', '`not_found`'), 409: json('Error', '`not_managed`') } },
  { method: 'get', path: '/v1/volumes', role: 'admin', tag: 'ops', summary: 'Declared volume names', responses: { 200: json('VolumeList', 'Sorted names') } },

  { method: 'get', path: '/v1/mcp/{blueprint}/auth-status', role: 'admin', tag: 'mcp', summary: 'OAuth state of a Blueprint\'s MCP servers', responses: { 200: json('OAuthStatus', 'State'), 404: json('Error', '`unknown_blueprint`') } },
  { method: 'get', path: '/v1/mcp/{blueprint}/{server}/auth-config', role: 'admin', tag: 'mcp', summary: 'OAuth metadata for a login', query: [{ name: 'redirect_uri', description: 'Enables dynamic client registration' }],
    responses: { 200: json('OAuthConfig', 'Metadata, never a secret'), 400: json('Error', 'Not an OAuth server'), 404: json('Error', 'Unknown Blueprint or server'), 502: json('Error', 'Discovery failed') } },
  { method: 'post', path: '/v1/mcp/{blueprint}/{server}/refresh-token', role: 'admin', tag: 'mcp', summary: 'Store a refresh or access token', body: 'RefreshTokenRequest',
    responses: { 200: json('OAuthState', 'Stored'), 400: json('Error', 'Invalid credential'), 404: json('Error', 'Unknown Blueprint or server'), 503: json('Error', '`no_secret_store`') } },
  { method: 'delete', path: '/v1/mcp/{blueprint}/{server}/refresh-token', role: 'admin', tag: 'mcp', summary: 'Remove the stored credential', responses: { 200: json('OAuthState', 'Removed'), 404: json('Error', 'Nothing stored, or unknown Blueprint or server') } },
  { method: 'post', path: '/v1/mcp/{blueprint}/{server}/oauth/exchange', role: 'admin', tag: 'mcp', summary: 'Exchange an authorization code (PKCE)', body: 'OAuthExchangeRequest',
    responses: { 200: json('OAuthState', 'Exchanged and stored'), 400: json('Error', 'Invalid request'), 404: json('Error', 'Unknown Blueprint or server'), 502: json('Error', '`exchange_failed`') } },
];

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const textContent = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

/** JSON Schema (2020-12) of each named zod schema, cross-referenced as components. */
function componentSchemas(schemas: Record<string, z.ZodType>, io: 'input' | 'output'): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const converted = z.toJSONSchema(registry, { target: 'draft-2020-12', io, uri: (id) => `#/components/schemas/${id}` }).schemas;
  const out: Record<string, unknown> = {};
  for (const [id, schema] of Object.entries(converted)) {
    const { $schema: _schema, $id: _id, ...rest } = schema as Record<string, unknown>;
    out[id] = rest;
  }
  return out;
}

function answer(a: Answer) {
  if ('schema' in a) {
    const markdown = a.orMarkdown ? { 'text/markdown': { schema: { type: 'string' } } } : {};
    return { description: a.description, content: { 'application/json': { schema: ref(a.schema) }, ...markdown } };
  }
  if ('object' in a) return { description: a.object, content: { 'application/json': { schema: { type: 'object' } } } };
  if ('markdown' in a) return { description: a.markdown, content: { 'text/markdown': { schema: { type: 'string' } } } };
  return { description: a.empty };
}

function operation(route: RouteDoc) {
  const parameters: unknown[] = [];
  for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  for (const q of route.query ?? []) {
    parameters.push({
      name: q.name,
      in: 'query',
      required: q.required ?? false,
      description: q.description,
      schema: q.repeated ? { type: 'array', items: { type: 'string' } } : { type: 'string' },
      ...(q.repeated ? { style: 'form', explode: true } : {}),
    });
  }
  for (const h of route.headers ?? []) parameters.push({ name: h.name, in: 'header', required: false, description: h.description, schema: h.schema });

  const responses: Record<string, unknown> = {};
  for (const [status, a] of Object.entries(route.responses)) {
    const doc = answer(a) as Record<string, unknown>;
    if (route.responseHeaders && status === '200') {
      doc.headers = Object.fromEntries(Object.entries(route.responseHeaders).map(([name, description]) => [name, { description, schema: { type: 'string' } }]));
    }
    responses[status] = doc;
  }
  // Refusals before the endpoint runs (plain text), then authentication.
  const plain400 = (why: string) => {
    const existing = responses['400'] as { description: string; content?: Record<string, unknown> } | undefined;
    if (!existing) responses['400'] = textContent(why);
    else existing.content = { ...existing.content, 'text/plain': { schema: { type: 'string' } } };
  };
  if (route.body) {
    plain400('Body is not JSON');
    responses['413'] = textContent('Body over 2 MiB');
    responses['415'] = textContent('`Content-Type: application/json` absent');
    responses['422'] = textContent('JSON of the wrong shape; the message names the field');
  } else if (route.query?.some((q) => q.required)) {
    plain400('Required query parameter missing');
  }
  responses['401'] = { description: 'Missing or unknown token', headers: { 'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } } }, content: { 'application/json': { schema: ref('Error') } } };
  if (route.role === 'admin') responses['403'] = { description: 'A `user` token on an admin route', content: { 'application/json': { schema: ref('Error') } } };
  responses['503'] ??= textContent('The server is shutting down');

  return {
    operationId: `${route.method}${route.path.replace(/\{(\w+)\}/g, (_, p: string) => `By_${p}`).replace(/[^A-Za-z0-9_]+(.)?/g, (_, c?: string) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    tags: [route.tag],
    'x-svc-role': route.role,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: ref(route.body) } } } } : {}),
    responses,
  };
}

/** `/v1/secrets/{key}`, `/v1/secrets/*` and `/v1/secrets/:key{.+}` alike. */
export function routeShape(method: string, path: string): string {
  return `${method.toLowerCase()} ${path.replace(/\{\w+\}|:\w+(\{[^}]*\})?|\*/g, '*')}`;
}

/** The document of the routes in `served` (method and path pairs; all documented routes when omitted). */
export function buildOpenApiDocument(version: string, served?: ReadonlyArray<{ method: string; path: string }>): Record<string, unknown> {
  const shapes = served ? new Set(served.map((r) => routeShape(r.method, r.path))) : null;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routeDocs) {
    if (shapes && !shapes.has(routeShape(route.method, route.path))) continue;
    (paths[route.path] ??= {})[route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc program-execution server',
      version,
      description: 'Runs agent-written TypeScript programs under operator Blueprints. A program failure is a 200 execute result, not an HTTP error.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    security: [{ bearer: [] }],
    tags: ['ops', 'sessions', 'discovery', 'blueprints', 'secrets', 'packages', 'mcp'].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A token from SVC_SERVER_TOKEN or api_tokens; `x-svc-role` names the role each operation needs' } },
      schemas: { ...componentSchemas(requestSchemas, 'input'), ...componentSchemas(responseSchemas, 'output') },
    },
  };
}

/** GET /v1/openapi.json for any valid token: the documented routes this app serves, built once. */
export function mountOpenApiRoute(app: Hono<AppEnv>, version: string): void {
  let body: string | null = null;
  app.get('/v1/openapi.json', (c) => {
    body ??= JSON.stringify(buildOpenApiDocument(version, app.routes));
    return c.body(body, 200, { 'content-type': 'application/json' });
  });
}
