// The Blueprint document's shape, declared once (zod), and its parser: validate.ts parses
// the YAML (read under it by yaml-input.ts) with it, each field's error map words its
// refusal, refinements check what one field cannot (exactly one source, mount paths), and
// transforms give the typed model. From it also come the value lists, which placeholders
// each text field fills (placeholders.ts), the key tables of docs/blueprints.md and the
// published JSON Schema (`svc blueprint schema`, docs/blueprint.schema.json), both by
// `npm run generate`. The meaning (names declared, hosts, URLs) stays in the stage-3 checks.
// The vfs and llm parts are schema-vfs.ts and schema-llm.ts.
import { z } from 'zod';
import { ActionSchema, RuleSchema } from '../policy/rule-schema';
import type { TypecheckMode } from '../../sandbox';
import { MAX_APPROVAL_TIMEOUT_SECS, type AuthProxyRule, type McpServerDeclaration, type SecretDeclaration, type VariableDeclaration } from './model';
import { durationReading, NAME } from './readers';
import { described, isMapping, meta, missing, nameAt, nonEmpty, pathOf, quotedList, secretsText, varsText, whereOf, type FieldMeta, type Issue, type Placeholder } from './schema-kit';
import { LlmSchema } from './schema-llm';
import { VfsSchema } from './schema-vfs';

export type { FieldMeta, Placeholder } from './schema-kit';
export { EmbeddingModelSchema, LlmModelSchema, LlmProviderSchema, LlmSchema, PROVIDER_TYPES } from './schema-llm';
export { VfsMappingSchema, VfsMountSchema } from './schema-vfs';
export { VFS_MODES, VOLUME_ACCESS } from './model';

/** The `typecheck` values (the checker in sandbox/typecheck owns what each means). */
export const TYPECHECK_MODES = ['strict', 'on', 'off'] as const satisfies readonly TypecheckMode[];

function duration(days: boolean, most?: { seconds: number; written: string }) {
  return z
    .string()
    .regex(days ? /^\s*[0-9]+\s*[smhdSMHD]\s*$/ : new RegExp(DURATION_PATTERN), { error: (issue) => `${whereOf(issue)}: ${durationReading(String(issue.input), days).problem}` })
    .transform((raw, ctx) => {
      const reading = durationReading(raw, days);
      const problem = reading.problem ?? (most && reading.seconds! > most.seconds ? `duration '${raw}' is over the most allowed, ${most.written}` : undefined);
      if (problem) ctx.issues.push({ code: 'custom', input: raw, params: { problem } });
      return reading.seconds ?? 0;
    });
}

export const DURATION_PATTERN = '^\\s*[0-9]+\\s*[smhSMH]\\s*$';
export const MCP_TRANSPORTS = ['streamable_http', 'sse'] as const;

export const HarnessSecretSchema = z.strictObject(
  { required: z.boolean().optional() },
  { error: (issue) => (issue.code === 'invalid_type' && !missing(issue) ? `secret '${nameAt(issue, 1)}': \`harness\` takes \`{}\` or \`{required: true}\`, not a ${Array.isArray(issue.input) ? 'list' : 'plain value'}` : undefined) },
);
const SECRET_SOURCES = ['store', 'harness'];
/** Exactly one source: a store key or the harness. */
export const SecretSourceSchema = z
  .strictObject(
    { store: z.string().optional().meta({ description: 'The secret store key' }), harness: HarnessSecretSchema.optional() },
    {
      error: (issue) => {
        if (issue.code === 'unrecognized_keys') {
          return described(issue, `secret '${nameAt(issue, 1)}': unknown source \`${issue.keys[0]}\`, expected one of ${quotedList(SECRET_SOURCES)}`, { path: [...pathOf(issue), issue.keys[0]], caret: pathOf(issue) });
        }
        return issue.input === null ? oneSource(issue) : undefined;
      },
    },
  )
  .meta({ minProperties: 1, maxProperties: 1, 'x-empty-is-written': true })
  .refine((source) => Object.keys(source).length === 1 && Object.values(source)[0] !== null, { error: (issue) => oneSource(issue), when: (payload) => isMapping(payload.value) })
  .transform((source): SecretDeclaration => (source.store !== undefined ? { source: 'store', key: source.store } : { source: 'harness', required: source.harness?.required ?? false }));
function oneSource(issue: Issue): string {
  // An empty source (`K:`) is pointed at by its name.
  return described(issue, `secret '${nameAt(issue, 1)}': a secret needs exactly one source: store / harness`, { mappingLevel: true, ...(issue.input === null ? { at: 'key' as const } : {}) });
}

export const VariableSchema = z.strictObject({ required: z.boolean().optional(), default: z.string().optional() });
const VariableEntry = VariableSchema.nullable().transform((v): VariableDeclaration => ({ required: v?.required ?? false, ...(v?.default !== undefined ? { default: v.default } : {}) }));

const basicNeeds = (issue: Issue) => (missing(issue) ? 'auth.basic needs `username` and `password`' : undefined);
export const BasicAuthSchema = z.strictObject({ username: z.string({ error: basicNeeds }), password: z.string({ error: basicNeeds }).meta({ description: 'A declared secret\'s name' }) });
/** `bearer` or `basic`, exactly one. */
export const ProxyAuthSchema = z
  .strictObject({ bearer: z.string().optional().meta({ description: 'A declared secret\'s name' }), basic: BasicAuthSchema.optional() })
  .meta({ minProperties: 1, maxProperties: 1 })
  .refine((auth) => Object.keys(auth).length === 1, { error: (issue) => described(issue, 'auth must set exactly one of `bearer` or `basic`', { code: 'invalid_auth_proxy', mappingLevel: true }), when: (payload) => isMapping(payload.value) });

const headerMap = (description: string) => meta(z.record(z.string(), secretsText(description)).optional(), { description: 'map header → value; values may embed `${secrets.NAME}`' });

export const AuthProxyRuleSchema = z.strictObject(
  {
    host: meta(z.string({ error: (issue) => (missing(issue) ? 'auth_proxy: missing field `host`' : undefined) }), { description: 'exact host name or IP (lower case, no scheme or port)' }),
    allow_insecure_http: meta(z.boolean().optional(), { description: 'also inject over `http://` (with the top-level opt-in)' }),
    auth: meta(ProxyAuthSchema.optional(), {
      description: '`bearer`: a declared secret\'s name (sends `Authorization: Bearer <value>`), or `basic`: `{username: <text>, password: <secret name>}` (`username` literal, `password` a declared secret\'s name)',
    }),
    headers: headerMap('A header value'),
    query: meta(z.record(z.string(), secretsText('A query parameter value')).optional(), { description: 'map parameter → value; values may embed `${secrets.NAME}`' }),
  },
  { error: (issue) => (issue.code === 'invalid_type' && issue.input === null ? 'auth_proxy: a rule must be a mapping' : undefined) },
);
const AuthProxyRuleEntry = AuthProxyRuleSchema.transform(
  (rule): AuthProxyRule => ({
    host: rule.host.toLowerCase(),
    ...(rule.allow_insecure_http !== undefined ? { allow_insecure_http: rule.allow_insecure_http } : {}),
    ...(rule.auth ? { auth: rule.auth as AuthProxyRule['auth'] } : {}),
    ...(nonEmpty(rule.headers) ? { headers: rule.headers } : {}),
    ...(nonEmpty(rule.query) ? { query: rule.query } : {}),
  }),
);

export const GitIdentitySchema = z.strictObject({ name: varsText('Commit author name; may embed ${vars.NAME}'), email: varsText('Commit author email; may embed ${vars.NAME}') });
export const GitSchema = z.strictObject({ identity: GitIdentitySchema, username: varsText('Sent with the secret GIT_TOKEN to HTTPS remotes; may embed ${vars.NAME}').optional() });

export const McpAuthSchema = z.strictObject({
  type: z.literal('oauth2', {
    error: (issue) => (missing(issue) ? 'mcp auth: missing field `type` (only `oauth2` is supported)' : typeof issue.input === 'string' ? `unknown variant \`${issue.input}\`, expected \`oauth2\`` : `${whereOf(issue)}: expected a string`),
  }),
  client_id: secretsText('OAuth client id; may embed ${secrets.NAME}').optional(),
  authorization_endpoint: secretsText('may embed ${secrets.NAME}').optional(),
  token_endpoint: secretsText('may embed ${secrets.NAME}').optional(),
  scopes: z.array(secretsText('A scope; may embed ${secrets.NAME}'), { error: (issue) => (issue.code === 'invalid_type' && !missing(issue) ? 'mcp auth.scopes must be a list of strings' : undefined) }).optional(),
});

export const McpServerSchema = z.strictObject(
  {
    transport: meta(
      z
        .enum(MCP_TRANSPORTS, {
          error: (issue) =>
            typeof issue.input !== 'string' ? `${whereOf(issue)}: expected a string` : issue.input === 'stdio' ? "stdio transport is not supported; use 'streamable_http'" : `unknown transport '${issue.input}', expected one of ${quotedList(MCP_TRANSPORTS)}`,
        })
        .optional(),
      { description: '`streamable_http` (default) or its alias `sse`' },
    ),
    // Read after `transport` (a refused transport is the first thing to fix).
    url: meta(z.string({ error: (issue) => (missing(issue) ? described(issue, `mcp server '${nameAt(issue, 1)}': missing field \`url\``, { inTurn: true }) : undefined) }), { description: 'required: `https://` (or `http://` with `allow_insecure_http`)' }),
    headers: headerMap('A header value'),
    auth: meta(McpAuthSchema.optional(), { description: 'OAuth: `type` (required, `oauth2`), optional `client_id`, `authorization_endpoint`, `token_endpoint`, `scopes` (list); log in with `svc mcp authenticate`' }),
  },
  { error: (issue) => (issue.code === 'invalid_type' && issue.input === null ? `mcp server '${nameAt(issue, 1)}': missing field \`url\`` : undefined) },
);
const McpServerEntry = McpServerSchema.transform(
  (server): McpServerDeclaration => ({ url: server.url, ...(nonEmpty(server.headers) ? { headers: server.headers } : {}), ...(server.auth ? { auth: server.auth } : {}) }),
);

const packagesError = (issue: Issue) =>
  issue.code === 'invalid_type' && !missing(issue) ? (isMapping(issue.input) ? 'packages: versions are not supported; list package names only (a YAML list)' : 'packages: expected a list of package names') : undefined;
const Packages = z.array(z.string(), { error: packagesError }).check(
  z.superRefine(
    (names, ctx) => {
      names.forEach((name, i) => {
        if (typeof name === 'string' && names.indexOf(name) < i) ctx.addIssue({ code: 'custom', input: name, message: `duplicate package \`${name}\` in packages`, path: [i], params: { path: ['packages'], caret: ['packages', i] } });
      });
    },
    { when: (payload) => Array.isArray(payload.value) },
  ),
);

/** The whole document; the order of its keys is the docs' and the refusals' order. */
export const BlueprintDocumentSchema = z
  .strictObject({
    kind: meta(
      z.literal('blueprint', {
        error: (issue) => (typeof issue.input === 'string' ? described(issue, `unknown kind '${issue.input}': expected \`blueprint\` (or omit \`kind\`)`, { code: 'invalid_kind', semantic: true }) : 'kind: expected a string'),
      }).optional(),
      { 'x-doc-type': '`blueprint`', 'x-doc-default': 'absent', description: 'Optional document marker; any other value is refused' },
    ),
    name: meta(
      z.string().regex(NAME, {
        error: (issue) =>
          described(issue, issue.input === '' ? 'blueprint name must not be empty' : `blueprint name '${String(issue.input)}' contains characters outside [A-Za-z0-9_-]`, { code: 'invalid_name', semantic: true }),
      }),
      { 'x-doc-type': '`[A-Za-z0-9_-]+`', 'x-doc-default': 'required', description: 'The name clients send as `blueprint`' },
    ),
    allow_insecure_http: meta(z.boolean().optional(), {
      'x-doc-type': 'boolean',
      'x-doc-default': '`false`',
      description: 'Also allow `http://` URLs (svc:http, fetch, MCP servers); an `auth_proxy` host additionally needs its rule\'s own `allow_insecure_http`',
    }),
    idle_timeout: meta(duration(false).optional(), { 'x-doc-type': 'duration (`30s`, `10m`, `24h`)', 'x-doc-default': '`24h`', description: 'A session idle this long is closed and its state and files deleted' }),
    approval_timeout: meta(duration(true, { seconds: MAX_APPROVAL_TIMEOUT_SECS, written: '30d' }).optional(), {
      'x-doc-type': 'duration (`90s`, `30m`, `24h`, `7d`)',
      'x-doc-default': '`24h`',
      description: 'How long an `ask-human` approval waits for an answer before it expires, which counts as a denial (at most `30d`)',
    }),
    vfs: meta(VfsSchema.optional(), { 'x-doc-type': 'mode or mapping', 'x-doc-default': '`ephemeral`', description: 'The program\'s file system (below)' }),
    secrets: meta(z.record(z.string(), SecretSourceSchema).optional(), { 'x-doc-type': 'map name → source', 'x-doc-default': '`{}`', description: 'Secrets the run may use (below)' }),
    variables: meta(z.record(z.string(), VariableEntry).optional(), { 'x-doc-type': 'map name → declaration', 'x-doc-default': '`{}`', description: 'Per-session string values (below)' }),
    packages: meta(Packages.optional(), { 'x-doc-type': 'list of `@scope/name`', 'x-doc-default': '`[]`', description: 'Installed Packages the program may import' }),
    auth_proxy: meta(z.array(AuthProxyRuleEntry, { error: (issue) => (issue.code === 'invalid_type' && !missing(issue) ? 'auth_proxy: expected a list of rules' : undefined) }).optional(), {
      'x-doc-type': 'list of rules',
      'x-doc-default': '`[]`',
      description: 'Credentials injected into outbound requests (below)',
    }),
    git: meta(GitSchema.optional(), { 'x-doc-type': 'mapping', 'x-doc-default': 'absent', description: 'Commit identity; without it `svc:git` cannot be imported' }),
    default: meta(ActionSchema.optional(), { 'x-doc-type': '`allow`, `deny`, `ask-human`', 'x-doc-default': 'absent = `deny`', description: 'The action when no rule matches' }),
    permissions: meta(z.record(z.string(), z.array(RuleSchema)).optional(), { 'x-doc-type': 'map caller → list of rules', 'x-doc-default': '`{}`', description: 'The rules (below)' }),
    mcp: meta(z.record(z.string(), McpServerEntry).optional(), { 'x-doc-type': 'map server → declaration', 'x-doc-default': '`{}`', description: 'Remote MCP servers imported as `@mcp/<server>`' }),
    llm: meta(LlmSchema.optional(), { 'x-doc-type': '`{providers, models, embedding_models}`', 'x-doc-default': 'empty', description: 'Models for `svc:llm` and `svc:embedding`' }),
    typecheck: meta(
      z
        .enum(TYPECHECK_MODES, {
          error: (issue) => (typeof issue.input === 'string' ? `typecheck: unknown value '${issue.input}': expected \`strict\`, \`on\` (the default) or \`off\`` : 'typecheck: expected a string'),
        })
        .optional(),
      {
        'x-doc-type': '`strict`, `on`, `off`',
        'x-doc-default': '`on`',
        description: 'Whether programs are type-checked before they run: `on` catches wrong names, arguments, property names and imports; `strict` adds strict null checks and no implicit `any`; `off` only strips types',
      },
    ),
  })
  .meta({ title: 'svc Blueprint', description: 'An operator Blueprint: the file system, Packages, secrets, variables and permission rules a run gets' });

/** The parser: the document schema with `default`/`permissions` left to the policy module (the rule grammar). */
export const BlueprintParser = BlueprintDocumentSchema.extend({ default: z.unknown().optional(), permissions: z.unknown().optional() });

export type BlueprintDocument = z.infer<typeof BlueprintDocumentSchema>;

/** The schema an optional, nullable, default or transform wraps (a transform's input side). */
function wrapped(schema: z.ZodType): z.ZodType | undefined {
  const def = schema._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
  return def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
}

/** A field's meta, read through its optional/nullable/default wrappers (the innermost declaration of each key wins). */
export function fieldMeta(schema: z.ZodType): FieldMeta {
  const chain: z.ZodType[] = [];
  for (let current: z.ZodType | undefined = schema; current; current = wrapped(current)) chain.push(current);
  return Object.assign({}, ...chain.map((s) => s.meta() ?? {})) as FieldMeta;
}

/** The keys a mapping accepts: an object's own, or every key of a union of objects. */
export function fieldNames(schema: z.ZodType): string[] {
  const def = schema._zod.def as { type: string; shape?: Record<string, z.ZodType>; options?: z.ZodType[] };
  if (def.type === 'object') return Object.keys(def.shape!);
  if (def.type === 'union') return [...new Set(def.options!.flatMap(fieldNames))];
  const inner = wrapped(schema);
  if (inner) return fieldNames(inner);
  return [];
}

/** The published JSON Schema of a Blueprint document (what an editor's YAML support reads); the docs-only keys left out. */
export function blueprintJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(BlueprintDocumentSchema, {
    io: 'input',
    override: ({ jsonSchema }) => {
      delete (jsonSchema as Record<string, unknown>)['x-doc-type'];
      delete (jsonSchema as Record<string, unknown>)['x-doc-default'];
      delete (jsonSchema as Record<string, unknown>)['x-empty-is-written'];
      delete (jsonSchema as Record<string, unknown>)['x-yaml-string'];
    },
  });
}

/** Every text field that fills placeholders, as `auth_proxy[].headers.*` → its kinds, in schema order. */
export function placeholderFields(schema: z.ZodType = BlueprintDocumentSchema, path = ''): Array<{ path: string; fills: readonly Placeholder[] }> {
  const declared = fieldMeta(schema)['x-placeholders'];
  if (declared) return [{ path, fills: declared }];
  const def = schema._zod.def as { type: string; shape?: Record<string, z.ZodType>; valueType?: z.ZodType; element?: z.ZodType; options?: z.ZodType[] };
  const inner = wrapped(schema);
  if (inner) return placeholderFields(inner, path);
  if (def.type === 'object') return Object.entries(def.shape!).flatMap(([key, child]) => placeholderFields(child, path ? `${path}.${key}` : key));
  if (def.type === 'record') return placeholderFields(def.valueType!, `${path}.*`);
  if (def.type === 'array') return placeholderFields(def.element!, `${path}[]`);
  if (def.type === 'union') return def.options!.flatMap((option) => placeholderFields(option, path));
  return [];
}
