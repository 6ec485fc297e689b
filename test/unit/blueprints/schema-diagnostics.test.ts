// The Blueprint schema parses the document (src/blueprints/schema.ts): each refusal keeps
// the words, the YAML path, the line and the column the section readers gave before the
// schema parsed (these are their diagnostics, pinned), and the first fault in reading order
// is the one reported: a mapping's unknown keys and missing fields before its values, fixed
// mappings by field, maps of names and the top level as written, a missing `name` last.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBlueprint } from '../../../src/blueprints';

type Expected = [yaml: string, code: string, diagnostic: { path: Array<string | number>; line: number; col: number; message: string }];

const refusals: Expected[] = [
  ['name: a\nvfs: {mode: per_session, mounts: {/a: {mode: named, volume: v}, /A/b: {mode: named, volume: w}}}\n', 'parse_error', { path: ['vfs', 'mounts', '/A/b'], line: 2, col: 65, message: "vfs mount '/A/b': overlaps the mount '/a' (mounts may not be inside, contain or equal one another)" }],
  ['name: a\nvfs:\n  mode: named\n  size_limit: 1MB\n', 'parse_error', { path: ['vfs', 'size_limit'], line: 4, col: 3, message: "'size_limit' is not valid for vfs mode 'named'; a named volume's size limit is set by the operator where the server declares it" }],
  ['name: a\nvfs:\n  size_limit: 10XB\n', 'parse_error', { path: ['vfs', 'size_limit'], line: 3, col: 15, message: "size_limit: unknown size unit 'XB' in '10XB' (use B, KB, MB, GB, TB)" }],
  ['name: a\nvfs: {mode: named, volume: 7}\n', 'parse_error', { path: ['vfs', 'volume'], line: 2, col: 28, message: 'vfs.volume must be a string (quote a numeric-looking volume name)' }],
  ['name: a\nsecrets:\n  K: {store: k, harness: {}}\n', 'parse_error', { path: ['secrets', 'K'], line: 3, col: 6, message: "secret 'K': a secret needs exactly one source: store / harness" }],
  ['name: a\nsecrets:\n  K: {env: X}\n', 'parse_error', { path: ['secrets', 'K', 'env'], line: 3, col: 6, message: "secret 'K': unknown source `env`, expected one of `store`, `harness`" }],
  ['name: a\nauth_proxy:\n  - host: api.example.com\n    auth: {}\n', 'invalid_auth_proxy', { path: ['auth_proxy', 0, 'auth'], line: 4, col: 11, message: 'auth must set exactly one of `bearer` or `basic`' }],
  ['name: a\nmcp:\n  s: {transport: stdio, url: "https://x.example.com"}\n', 'parse_error', { path: ['mcp', 's', 'transport'], line: 3, col: 18, message: "stdio transport is not supported; use 'streamable_http'" }],
  ['name: a\nllm:\n  providers: {p: {type: openai}}\n  embedding_models:\n    e: {provider: p}\n', 'parse_error', { path: ['llm', 'embedding_models', 'e'], line: 5, col: 8, message: "embedding model 'e': missing field `dimensions`" }],
  ['name: a\nllm:\n  providers: {p: {type: openai}}\n  models:\n    m: {provider: p, context_window: 0}\n', 'invalid_llm', { path: ['llm', 'models', 'm', 'context_window'], line: 5, col: 38, message: "model 'm': context_window must be at least 1, not 0" }],
  ['name: a\nidle_timeout: 10\n', 'parse_error', { path: ['idle_timeout'], line: 2, col: 15, message: "idle_timeout: duration '10' needs a unit (s, m, or h)" }],
  ['name: a\napproval_timeout: 31d\n', 'parse_error', { path: ['approval_timeout'], line: 2, col: 19, message: "approval_timeout: duration '31d' is over the most allowed, 30d" }],
  ['name: a\npackages: ["@a/b", "@a/b"]\n', 'parse_error', { path: ['packages'], line: 2, col: 20, message: 'duplicate package `@a/b` in packages' }],
  ['name: a\ngit:\n  identity: {name: Bot}\n', 'parse_error', { path: ['git', 'identity'], line: 3, col: 13, message: 'git.identity: missing field `email`' }],
  ['name: a\nvariables:\n  v: {type: string}\n', 'parse_error', { path: ['variables', 'v', 'type'], line: 3, col: 7, message: 'unknown field `type` in variables.v, expected one of `required`, `default`' }],
  ['kind: blueprint\n', 'parse_error', { path: ['name'], line: 1, col: 1, message: 'missing field `name`' }],
  ['name: a\ntypecheck: loose\nextra: 1\n', 'parse_error', { path: ['typecheck'], line: 2, col: 12, message: "typecheck: unknown value 'loose': expected `strict`, `on` (the default) or `off`" }],
];

test('each section refuses with its own words, path, line and column', () => {
  for (const [yaml, code, diagnostic] of refusals) {
    const parsed = parseBlueprint(yaml);
    assert.ok(!parsed.ok, `refused: ${yaml}`);
    assert.equal(parsed.problem.code, code, yaml);
    assert.deepEqual(parsed.problem.diagnostic, diagnostic, yaml);
  }
});

test('the first fault in reading order is reported, structure before meaning', () => {
  const first = (yaml: string) => {
    const parsed = parseBlueprint(yaml);
    assert.ok(!parsed.ok, yaml);
    return parsed.problem.diagnostic.message;
  };
  assert.match(first('extra: 1\nkind: x\n'), /^unknown field `extra`/, 'a structure fault before a missing name and a wrong kind');
  assert.match(first('name: a\nvfs: {mode: 3, bogus: 1}\n'), /^unknown field `bogus` in vfs/, 'unknown keys before the values of their mapping');
  assert.match(first('name: a\ngit: {username: [1]}\n'), /^git: missing field `identity`/, 'a missing field before the written ones');
  assert.match(first('name: a\nmcp: {s: {url: [1], transport: ws}}\n'), /^unknown transport 'ws'/, 'a fixed mapping in field order, not as written');
  assert.match(first('name: a\nsecrets: {B: {store: [1]}, A: {}}\n'), /^secrets\.B\.store: expected a string/, 'a map of names as written');
  assert.match(first('kind: x\nname: a b\n'), /^unknown kind 'x'/, 'faults of meaning in their fixed order');
});

test('the typed model comes out of the schema: written text kept, sizes and durations read, defaults filled', () => {
  const parsed = parseBlueprint('name: a\nidle_timeout: 90 M\nvfs: {mode: per_session, size_limit: 2KiB, mounts: {/h: {mode: named, volume: h, access: read_only}}}\nvariables: {v: {default: 10}, w:}\nsecrets: {K: {harness: {}}}\nauth_proxy:\n  - {host: API.Example.com, headers: {X-Empty: }}\n');
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.problem.message);
  const b = parsed.blueprint;
  assert.equal(b.idleTimeoutSecs, 5400);
  assert.deepEqual(b.vfs, { mode: 'per_session', size_limit: 2048, mounts: { '/h': { volume: 'h', access: 'read_only' } } });
  assert.deepEqual([...b.declarations.variables], [['v', { required: false, default: '10' }], ['w', { required: false }]]);
  assert.deepEqual([...b.declarations.secrets], [['K', { source: 'harness', required: false }]]);
  assert.deepEqual(b.authProxy, [{ host: 'api.example.com', headers: { 'X-Empty': '' } }]);
  assert.equal(b.approvalTimeoutSecs, 86_400);
  assert.equal(b.typecheck, 'on');
});
