// The Blueprint hash: SHA-256 of the canonical JSON of a
// normalised model, so comments, key order, quoting, `kind` and explicit defaults do not
// change it and any change in behaviour does.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../config';
import { canonicalPolicy } from '../policy';
import { DEFAULT_APPROVAL_TIMEOUT_SECS } from './model';
import type { validateDocument } from './validate';

type Validated = ReturnType<typeof validateDocument>;

export function canonicalModel(b: Validated): Record<string, unknown> {
  const model: Record<string, unknown> = { name: b.name };
  if (b.allowInsecureHttp) model.allow_insecure_http = true;
  if (b.idleTimeoutSecs !== 86_400) model.idle_timeout = `${b.idleTimeoutSecs}s`;
  const vfs = b.vfs;
  const trivialEphemeral = vfs.mode === 'ephemeral' && vfs.size_limit === undefined && !vfs.mounts && (vfs.cwd === undefined || vfs.cwd === '/');
  if (!trivialEphemeral) {
    model.vfs = {
      mode: vfs.mode,
      ...(vfs.size_limit !== undefined ? { size_limit: vfs.size_limit } : {}),
      ...(vfs.volume !== undefined ? { volume: vfs.volume } : {}),
      ...(vfs.subPath !== undefined ? { subPath: vfs.subPath } : {}),
      ...(vfs.access !== undefined ? { access: vfs.access } : {}),
      ...(vfs.cwd !== undefined && vfs.cwd !== '/' ? { cwd: vfs.cwd } : {}),
      ...(vfs.mounts ? { mounts: Object.fromEntries(Object.entries(vfs.mounts).map(([p, m]) => [p, { mode: 'named', volume: m.volume, ...(m.subPath !== undefined ? { subPath: m.subPath } : {}), ...(m.access !== undefined ? { access: m.access } : {}) }])) } : {}),
    };
  }
  if (b.secrets.size > 0) {
    model.secrets = Object.fromEntries([...b.secrets].map(([name, s]) => [name, s.source === 'store' ? { store: s.key } : { harness: { required: s.required } }]));
  }
  if (b.variables.size > 0) {
    model.variables = Object.fromEntries([...b.variables].map(([name, v]) => [name, v.required ? { required: true } : v.default !== undefined ? { default: v.default } : {}]));
  }
  if (b.packages.length > 0) model.packages = [...b.packages].sort();
  if (b.authProxy.length > 0) model.auth_proxy = b.authProxy.map((rule) => ({ ...rule, ...(rule.allow_insecure_http ? { allow_insecure_http: true } : { allow_insecure_http: undefined }) }));
  if (b.git) model.git = b.git;
  const policy = canonicalPolicy(b.policy);
  if (policy.default) model.default = policy.default;
  const nonEmpty = Object.entries(policy.permissions ?? {}).filter(([, rules]) => rules.length > 0);
  if (nonEmpty.length > 0) model.permissions = Object.fromEntries(nonEmpty);
  if (Object.keys(b.mcp).length > 0) model.mcp = b.mcp;
  const llm = b.llm;
  const llmModel: Record<string, unknown> = {};
  if (llm.providers && Object.keys(llm.providers).length > 0) {
    llmModel.providers = Object.fromEntries(Object.entries(llm.providers).map(([n, p]) => [n, { ...p, supports_structured_outputs: p.supports_structured_outputs === false ? false : undefined }]));
  }
  if (llm.models && Object.keys(llm.models).length > 0) llmModel.models = llm.models;
  if (llm.embedding_models && Object.keys(llm.embedding_models).length > 0) {
    llmModel.embedding_models = Object.fromEntries(Object.entries(llm.embedding_models).map(([n, m]) => [n, { ...m, max_input_bytes: m.max_input_bytes === 32_768 ? undefined : m.max_input_bytes }]));
  }
  if (Object.keys(llmModel).length > 0) model.llm = llmModel;
  // `on` is the default and omitted, so Blueprints written before the key keep their hash.
  if (b.typecheck !== 'on') model.typecheck = b.typecheck;
  // The default is omitted likewise.
  if (b.approvalTimeoutSecs !== DEFAULT_APPROVAL_TIMEOUT_SECS) model.approval_timeout = `${b.approvalTimeoutSecs}s`;
  return stripUndefined(model) as Record<string, unknown>;
}

function stripUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripUndefined);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, stripUndefined(v)]));
  }
  return value;
}

export function blueprintHash(model: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(model), 'utf8').digest('hex');
}
