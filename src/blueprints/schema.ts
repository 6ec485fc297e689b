// The Blueprint document's shape, declared once (zod). From it come: the accepted keys of
// every mapping (the section readers' "unknown field … expected one of" refusals), the
// value lists (vfs modes, access, transports, provider types), which placeholders each text
// field fills (placeholders.ts), the key tables of docs/blueprints.md and the published JSON
// Schema (`svc blueprint schema`, docs/blueprint.schema.json), both by `npm run generate`.
// The section readers walk the YAML tree with it and keep line and column in every
// diagnostic; the meaning (names declared, hosts, URLs) stays in the stage-3 checks.
import { z } from 'zod';
import { ActionSchema, RuleSchema } from '../policy/rule-schema';
import type { TypecheckMode } from '../../sandbox';
import { MAX_APPROVAL_TIMEOUT_SECS, type AuthProxyRule, type McpServerDeclaration, type MountDeclaration, type SecretDeclaration, type VariableDeclaration, type VfsDeclaration } from './model';
import { durationReading, NAME, sizeReading, type Path } from './readers';
import { mountPathProblem } from './mount-paths';
import { described } from './schema-faults';

/** The `typecheck` values (the checker in sandbox/typecheck owns what each means). */
export const TYPECHECK_MODES = ['strict', 'on', 'off'] as const satisfies readonly TypecheckMode[];

/** The placeholders a text field fills; any other `${…}` in it is refused. */
export type Placeholder = 'vars' | 'secrets';

/** What the docs and the placeholder check read beside the JSON Schema keywords. */
export interface FieldMeta {
  description?: string;
  /** The type as the docs write it. */
  'x-doc-type'?: string;
  /** The default as the docs write it. */
  'x-doc-default'?: string;
  'x-placeholders'?: readonly Placeholder[];
  /** A text field whose YAML value must be a string: `7` is refused, not read as the text `7` (yaml-input.ts). */
  'x-yaml-string'?: boolean;
  /** A mapping whose empty values (`key:`) count as written keys (read by yaml-input.ts). */
  'x-empty-is-written'?: boolean;
}

const meta = <T extends z.ZodType>(schema: T, fields: FieldMeta): T => schema.meta(fields as Record<string, unknown>);
/** A text field that fills `${secrets.NAME}` (outside the program, at use). */
const secretsText = (description: string) => meta(z.string(), { description, 'x-placeholders': ['secrets'] });
/** A text field that fills `${vars.NAME}` (with the session's variables). */
const varsText = (description: string) => meta(z.string(), { description, 'x-placeholders': ['vars'] });

type Issue = z.core.$ZodRawIssue;
const pathOf = (issue: Issue) => (issue.path ?? []) as Path;
const whereOf = (issue: Issue) => pathOf(issue).join('.');
/** The name of the entry `depth` steps into the path (`mcp.<server>` → the server). */
const nameAt = (issue: Issue, depth: number) => String(pathOf(issue)[depth]);
const missing = (issue: Issue) => (issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input === undefined;
const isMapping = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
/** `{}` for an absent or empty map (the model leaves empty maps out). */
const nonEmpty = <T>(record: Record<string, T> | undefined) => (record && Object.keys(record).length > 0 ? record : undefined);
const quotedList = (values: readonly string[]) => values.map((v) => `\`${v}\``).join(', ');


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

export const VFS_MODES = ['none', 'ephemeral', 'per_session', 'named'] as const;
export const VOLUME_ACCESS = ['read_only', 'read_write'] as const;
export const MCP_TRANSPORTS = ['streamable_http', 'sse'] as const;
export const PROVIDER_TYPES = ['anthropic', 'google', 'openai', 'openai-compatible'] as const;

/** A mount's or the named volume's refusal; `volume: 7` is refused, not read as the text `7`. */
const mountRefusal = (what: string) => (issue: Issue) => described(issue, `vfs mount '${nameAt(issue, 2)}': ${what}`, { path: pathOf(issue), inTurn: true });
const accessError = (issue: Issue) => (typeof issue.input === 'string' ? `unknown variant \`${issue.input}\`, expected one of ${quotedList(VOLUME_ACCESS)}` : `${whereOf(issue)}: expected a string`);

export const VfsMountSchema = z.strictObject(
  {
    mode: z.literal('named', {
      error: (issue) => (issue.input === undefined || typeof issue.input === 'string' ? mountRefusal('mounts are always named volumes; write `mode: named`')(issue) : `${whereOf(issue)}: expected a string`),
    }),
    volume: meta(z.string({ error: mountRefusal('`volume` must name a volume the operator declared') }).min(1, { error: mountRefusal('`volume` must name a volume the operator declared') }), {
      description: 'A volume the server declares',
      'x-yaml-string': true,
    }),
    subPath: varsText('A relative path inside the volume; ${vars.NAME} as a whole path component').optional(),
    access: z.enum(VOLUME_ACCESS, { error: accessError }).optional(),
  },
  { error: (issue) => (issue.code === 'invalid_type' && issue.input === null ? `vfs mount '${nameAt(issue, 2)}': needs \`mode: named\` and a \`volume\`` : undefined) },
);

/** Mount paths: absolute, plain, none inside another (in written order); at most 16. */
const Mounts = z.record(z.string(), VfsMountSchema).check(
  z.superRefine(
    (mounts, ctx) => {
      const seen: string[] = [];
      for (const mountPath of Object.keys(mounts)) {
        const problem = mountPathProblem(mountPath, seen);
        if (problem) ctx.addIssue({ code: 'custom', input: mountPath, path: [mountPath], message: `vfs mount '${mountPath}': ${problem}`, params: { at: 'key', beforeKeys: true } });
        seen.push(mountPath);
      }
      if (seen.length > 16) ctx.addIssue({ code: 'custom', input: mounts, message: 'vfs: at most 16 mounts', params: { afterFields: true } });
    },
    { when: (payload) => isMapping(payload.value) },
  ),
);

const sizeNumberError = (issue: Issue) => (typeof issue.input === 'number' ? sizeReading(issue.input).problem : undefined);
const Size = z
  .union([z.number({ error: sizeNumberError }).int({ error: sizeNumberError }).min(1, { error: sizeNumberError }), z.string()], { error: (issue) => sizeNumberError(issue) ?? `${whereOf(issue)}: expected a string` })
  .transform((size, ctx) => {
    const reading = sizeReading(size);
    if (reading.problem) ctx.issues.push({ code: 'custom', input: size, message: reading.problem });
    return reading.bytes ?? 0;
  });

const vfsModeError = (issue: Issue) => (typeof issue.input === 'string' ? `unknown vfs mode '${issue.input}', expected one of ${quotedList(VFS_MODES)}` : `${whereOf(issue)}: expected a string`);
const namedVolumeError = (issue: Issue) =>
  issue.code === 'too_small' ? 'vfs.volume is empty: name a volume the operator declared' : 'vfs.volume must be a string (quote a numeric-looking volume name)';

export const VfsMappingSchema = z
  .strictObject({
    mode: z.enum(VFS_MODES, { error: vfsModeError }).optional(),
    size_limit: meta(Size, { description: 'Bytes, or a size such as 100MB or 2GiB (binary units)' }).optional(),
    volume: meta(z.string({ error: namedVolumeError }).min(1, { error: namedVolumeError }), { description: 'mode named: the declared volume', 'x-yaml-string': true }).optional(),
    subPath: varsText('mode named: a relative path inside the volume; ${vars.NAME} as a whole path component').optional(),
    access: z.enum(VOLUME_ACCESS, { error: accessError }).optional(),
    cwd: varsText('The absolute directory relative paths resolve against; ${vars.NAME} as a whole path component').optional(),
    mounts: Mounts.optional().meta({ description: 'Absolute guest path to a named volume; at most 16, none inside another' }),
  })
  // Which fields each mode takes is a pass over the written keys (vfs-section.ts); a named volume needs its name.
  .check(
    z.superRefine(
      (vfs, ctx) => {
        if (vfs.mode === 'named' && vfs.volume === undefined) {
          ctx.addIssue({ code: 'custom', input: vfs, path: ['volume'], message: "vfs mode 'named' needs a `volume`: name a volume the operator declared", params: { at: 'parent', inTurn: true } });
        }
      },
      { when: (payload) => isMapping(payload.value) },
    ),
  );

/** `vfs: ephemeral` or a mapping; the model has both as a mapping. */
const VfsSchema = z
  .union([z.enum(['none', 'ephemeral', 'per_session']), VfsMappingSchema], {
    error: (issue) => {
      if (typeof issue.input === 'string') return issue.input === 'named' ? "vfs mode 'named' needs a volume: write `vfs: {mode: named, volume: <name>}`" : vfsModeError(issue);
      return isMapping(issue.input) ? undefined : 'vfs: expected a mapping';
    },
  })
  .transform((vfs): VfsDeclaration => {
    if (typeof vfs === 'string') return { mode: vfs };
    const mode = vfs.mode ?? 'ephemeral';
    const mounts = Object.entries(vfs.mounts ?? {}).map(([mountPath, m]): [string, MountDeclaration] => [mountPath, { volume: m.volume, ...(m.subPath !== undefined ? { subPath: m.subPath } : {}), ...(m.access ? { access: m.access } : {}) }]);
    return {
      mode,
      ...(vfs.size_limit !== undefined ? { size_limit: vfs.size_limit } : {}),
      ...(mode === 'named' ? { volume: vfs.volume, ...(vfs.subPath !== undefined ? { subPath: vfs.subPath } : {}), ...(vfs.access ? { access: vfs.access } : {}) } : {}),
      ...(vfs.cwd !== undefined ? { cwd: vfs.cwd } : {}),
      ...(mounts.length > 0 ? { mounts: Object.fromEntries(mounts) } : {}),
    };
  });

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

const ENTRY_LABELS: Record<string, string> = { providers: 'llm provider', models: 'llm model', embedding_models: 'embedding model' };
/** An llm entry's refusals: a missing field named after the entry, a limit below 1 (a fault of meaning, invalid_llm). */
const entryLabel = (issue: Issue) => `${ENTRY_LABELS[nameAt(issue, 1)]} '${nameAt(issue, 2)}'`;
function llmEntry<T extends z.core.$ZodLooseShape>(shape: T, required: string) {
  return z.strictObject(shape, { error: (issue) => (issue.code === 'invalid_type' && issue.input === null ? `${entryLabel(issue)}: missing field \`${required}\`` : undefined) });
}
/** A field an llm entry needs: missing, it is named after the entry. */
const entryNeeds = (issue: Issue) => (missing(issue) ? `${entryLabel(issue)}: missing field \`${nameAt(issue, 3)}\`` : undefined);
/** A whole number of at least 1; below 1 is a fault of meaning. */
function atLeastOne(error?: (issue: Issue) => string | undefined) {
  return z.number({ error }).int().min(1, {
    error: (issue) => {
      const owner = `${nameAt(issue, 1) === 'models' ? 'model' : 'embedding model'} '${nameAt(issue, 2)}'`;
      return described(issue, `${owner}: ${nameAt(issue, 3)} must be at least 1, not ${String(issue.input)}`, { code: 'invalid_llm', semantic: true });
    },
  });
}

export const LlmProviderSchema = llmEntry(
  {
    type: z.enum(PROVIDER_TYPES, {
      error: (issue) =>
        missing(issue)
          ? entryNeeds(issue)
          : typeof issue.input !== 'string'
            ? `${whereOf(issue)}: expected a string`
            : described(issue, `provider '${nameAt(issue, 2)}': unknown type '${issue.input}'; expected one of ${PROVIDER_TYPES.join(', ')}`, { code: 'invalid_llm', semantic: true }),
    }),
    base_url: secretsText('Public https:// URL; ${secrets.NAME} only in the path and query').optional(),
    api_key: secretsText('Exactly one ${secrets.NAME} reference').optional(),
    supports_structured_outputs: z.boolean().optional(),
  },
  'type',
);
export const LlmModelSchema = llmEntry({ provider: z.string({ error: entryNeeds }), context_window: atLeastOne().optional(), output_reserve: atLeastOne().optional(), description: z.string().optional() }, 'provider');
export const EmbeddingModelSchema = llmEntry(
  { provider: z.string({ error: entryNeeds }), dimensions: atLeastOne(entryNeeds), max_input_bytes: atLeastOne().optional(), max_input_tokens: atLeastOne().optional(), description: z.string().optional() },
  'provider',
);
export const LlmSchema = z.strictObject({
  providers: z.record(z.string(), LlmProviderSchema).optional(),
  models: z.record(z.string(), LlmModelSchema).optional(),
  embedding_models: z.record(z.string(), EmbeddingModelSchema).optional(),
});

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
