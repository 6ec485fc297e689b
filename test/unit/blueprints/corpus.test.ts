// A table-driven corpus of valid and invalid Blueprints: each invalid one names its error
// class and the YAML path of the fault; valid ones parse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBlueprint } from '../../../src/blueprints';

const valid: Array<[string, string]> = [
  ['minimal', 'name: minimal\n'],
  ['kind and explicit defaults', 'kind: blueprint\nname: a\nallow_insecure_http: false\nidle_timeout: 24h\nvfs: ephemeral\n'],
  ['vfs none', 'name: a\nvfs: none\n'],
  ['vfs per_session with size', 'name: a\nvfs: {mode: per_session, size_limit: 10MB, cwd: /work}\n'],
  ['vfs named with subPath template', 'name: a\nvariables: {team: {required: true}}\nvfs: {mode: named, volume: notes, subPath: "teams/${vars.team}", access: read_only}\n'],
  ['mounts', 'name: a\nvfs:\n  mode: per_session\n  mounts:\n    /handbook: {mode: named, volume: handbook, access: read_only}\n    /shared: {mode: named, volume: notes}\n'],
  ['secrets store and harness', 'name: a\nsecrets:\n  API_KEY: {store: billing/api_key}\n  USER_TOKEN: {harness: {required: true}}\n  OPTIONAL: {harness: {}}\n'],
  ['variables', 'name: a\nvariables:\n  team: {required: true}\n  region: {default: eu}\n  note:\n'],
  ['packages', 'name: a\npackages: ["@acme/billing", "@acme/tools"]\n'],
  ['auth_proxy bearer', 'name: a\nsecrets: {TOKEN: {store: t}}\nauth_proxy:\n  - host: api.example.com\n    auth: {bearer: TOKEN}\n'],
  ['auth_proxy basic and query', 'name: a\nsecrets: {PW: {store: pw}, K: {store: k}}\nauth_proxy:\n  - host: api.example.com\n    auth: {basic: {username: bot, password: PW}}\n    query: {key: "${secrets.K}"}\n'],
  ['git', 'name: a\nvariables: {user: {}}\ngit: {identity: {name: "Bot ${vars.user}", email: bot@example.com}, username: bot}\n'],
  ['permissions with filters', 'name: a\ndefault: deny\npermissions:\n  main:\n    - name: notes\n      capability: fs.read\n      filter: \'path glob "/notes/*"\'\n      action: allow\n    - capability: http.get\n      action: ask-human\n'],
  ['default allow', 'name: a\ndefault: allow\n'],
  ['mcp server', 'name: a\nmcp: {linear: {url: "https://mcp.linear.app/mcp"}}\npermissions: {main: [{capability: mcp.linear, filter: \'tool == "save_issue"\', action: allow}]}\n'],
  ['llm', 'name: a\nsecrets: {OPENAI: {store: openai}}\nllm:\n  providers: {openai: {type: openai, api_key: "${secrets.OPENAI}"}}\n  models: {gpt: {provider: openai}}\n'],
  ['anchors', 'name: a\nx_rules: &r\n'.replace('x_rules: &r\n', '') + 'permissions:\n  main: &rules\n    - {capability: fs.read, action: allow}\n  "@acme/x": *rules\n'],
  ['unquoted string fields keep their text', 'name: a\nvariables: {v: {default: 10}}\n'],
  ['idle timeout units', 'name: a\nidle_timeout: 90 M\n'],
  ['empty permissions list', 'name: a\npermissions: {main: []}\n'],
];

const invalid: Array<[string, string, string, Array<string | number> | undefined]> = [
  ['empty document', '', 'parse_error', undefined],
  ['comments only', '# nothing\n', 'parse_error', undefined],
  ['two documents', 'name: a\n---\nname: b\n', 'parse_error', undefined],
  ['top level is a list', '- a\n', 'parse_error', undefined],
  ['yaml syntax', 'name: [a\n', 'parse_error', undefined],
  ['missing name', 'kind: blueprint\n', 'parse_error', ['name']],
  ['unknown top-level key', 'name: a\nextra: 1\n', 'parse_error', ['extra']],
  ['duplicate key', 'name: a\nname: b\n', 'parse_error', ['name']],
  ['bad kind', 'kind: policy\nname: a\n', 'invalid_kind', ['kind']],
  ['empty name', 'name: ""\n', 'invalid_name', ['name']],
  ['name with space', 'name: my agent\n', 'invalid_name', ['name']],
  ['allow_insecure_http as string', 'name: a\nallow_insecure_http: "true"\n', 'parse_error', ['allow_insecure_http']],
  ['allow_insecure_http yes', 'name: a\nallow_insecure_http: yes\n', 'parse_error', ['allow_insecure_http']],
  ['duration without unit', 'name: a\nidle_timeout: 10\n', 'parse_error', ['idle_timeout']],
  ['duration with days', 'name: a\nidle_timeout: 1d\n', 'parse_error', ['idle_timeout']],
  ['compound duration', 'name: a\nidle_timeout: 1h30m\n', 'parse_error', ['idle_timeout']],
  ['zero duration', 'name: a\nidle_timeout: 0s\n', 'parse_error', ['idle_timeout']],
  ['unknown vfs mode', 'name: a\nvfs: temporary\n', 'parse_error', ['vfs']],
  ['bare named', 'name: a\nvfs: named\n', 'parse_error', ['vfs']],
  ['size_limit under named', 'name: a\nvfs: {mode: named, volume: v, size_limit: 1MB}\n', 'parse_error', ['vfs', 'size_limit']],
  ['volume without mode', 'name: a\nvfs: {volume: v}\n', 'parse_error', ['vfs']],
  ['mounts under none', 'name: a\nvfs: {mode: none, mounts: {/x: {mode: named, volume: v}}}\n', 'parse_error', ['vfs', 'mounts']],
  ['named without volume', 'name: a\nvfs: {mode: named}\n', 'parse_error', ['vfs', 'volume']],
  ['numeric volume', 'name: a\nvfs: {mode: named, volume: 7}\n', 'parse_error', ['vfs', 'volume']],
  ['unknown vfs key', 'name: a\nvfs: {mode: ephemeral, idle_timeout: 1h}\n', 'parse_error', ['vfs', 'idle_timeout']],
  ['bad size unit', 'name: a\nvfs: {mode: ephemeral, size_limit: 10XB}\n', 'parse_error', ['vfs', 'size_limit']],
  ['mount at root', 'name: a\nvfs: {mode: ephemeral, mounts: {/: {mode: named, volume: v}}}\n', 'parse_error', ['vfs', 'mounts', '/']],
  ['mount with .git', 'name: a\nvfs: {mode: ephemeral, mounts: {/a/.GIT: {mode: named, volume: v}}}\n', 'parse_error', ['vfs', 'mounts', '/a/.GIT']],
  ['overlapping mounts', 'name: a\nvfs: {mode: ephemeral, mounts: {/a: {mode: named, volume: v}, /A/b: {mode: named, volume: w}}}\n', 'parse_error', ['vfs', 'mounts', '/A/b']],
  ['mount without named mode', 'name: a\nvfs: {mode: ephemeral, mounts: {/a: {volume: v}}}\n', 'parse_error', ['vfs', 'mounts', '/a', 'mode']],
  ['mount with size_limit', 'name: a\nvfs: {mode: ephemeral, mounts: {/a: {mode: named, volume: v, size_limit: 1MB}}}\n', 'parse_error', ['vfs', 'mounts', '/a', 'size_limit']],
  ['relative cwd', 'name: a\nvfs: {mode: ephemeral, cwd: work}\n', 'invalid_vfs', ['vfs', 'cwd']],
  ['cwd with dotdot', 'name: a\nvfs: {mode: ephemeral, cwd: /a/../b}\n', 'invalid_vfs', ['vfs', 'cwd']],
  ['partial variable component', 'name: a\nvariables: {u: {}}\nvfs: {mode: ephemeral, cwd: "/home-${vars.u}"}\n', 'invalid_vfs', ['vfs', 'cwd']],
  ['undeclared variable in cwd', 'name: a\nvfs: {mode: ephemeral, cwd: "/${vars.u}"}\n', 'invalid_vfs', ['vfs', 'cwd']],
  ['absolute subPath', 'name: a\nvfs: {mode: named, volume: v, subPath: /x}\n', 'invalid_vfs', ['vfs', 'subPath']],
  ['secret without source', 'name: a\nsecrets: {K: {}}\n', 'parse_error', ['secrets', 'K']],
  ['secret with two sources', 'name: a\nsecrets: {K: {store: k, harness: {}}}\n', 'parse_error', ['secrets', 'K']],
  ['secret env source', 'name: a\nsecrets: {K: {env: X}}\n', 'parse_error', ['secrets', 'K', 'env']],
  ['harness true', 'name: a\nsecrets: {K: {harness: true}}\n', 'parse_error', ['secrets', 'K', 'harness']],
  ['bad secret name', 'name: a\nsecrets: {"bad name": {store: k}}\n', 'invalid_secrets', ['secrets', 'bad name']],
  ['bad store key', 'name: a\nsecrets: {K: {store: "../k"}}\n', 'invalid_secrets', ['secrets', 'K', 'store']],
  ['reserved store key', 'name: a\nsecrets: {K: {store: "mcp_oauth/x"}}\n', 'invalid_secrets', ['secrets', 'K', 'store']],
  ['required with default', 'name: a\nvariables: {v: {required: true, default: x}}\n', 'invalid_variables', ['variables', 'v']],
  ['unknown variable key', 'name: a\nvariables: {v: {type: string}}\n', 'parse_error', ['variables', 'v', 'type']],
  ['bad variable name', 'name: a\nvariables: {"a.b": {}}\n', 'invalid_variables', ['variables', 'a.b']],
  ['undeclared filter variable', 'name: a\npermissions: {main: [{capability: fs.read, filter: "path == ${vars.p}", action: allow}]}\n', 'invalid_variables', ['permissions', 'main', 0, 'filter']],
  ['package without scope', 'name: a\npackages: [billing]\n', 'invalid_packages', ['packages']],
  ['svc package', 'name: a\npackages: ["svc:fs"]\n', 'invalid_packages', ['packages']],
  ['mcp package', 'name: a\npackages: ["@mcp/linear"]\n', 'invalid_packages', ['packages']],
  ['duplicate package', 'name: a\npackages: ["@a/b", "@a/b"]\n', 'parse_error', ['packages']],
  ['packages as map', 'name: a\npackages: {"@a/b": "1.0.0"}\n', 'parse_error', ['packages']],
  ['auth_proxy without credentials', 'name: a\nauth_proxy: [{host: x.example}]\n', 'invalid_auth_proxy', ['auth_proxy', 0]],
  ['auth_proxy both auths', 'name: a\nsecrets: {T: {store: t}}\nauth_proxy: [{host: x.example, auth: {bearer: T, basic: {username: u, password: T}}}]\n', 'invalid_auth_proxy', ['auth_proxy', 0, 'auth']],
  ['auth_proxy undeclared secret', 'name: a\nauth_proxy: [{host: x.example, auth: {bearer: T}}]\n', 'invalid_auth_proxy', ['auth_proxy', 0, 'auth', 'bearer']],
  ['auth_proxy host with port', 'name: a\nsecrets: {T: {store: t}}\nauth_proxy: [{host: "x.example:443", auth: {bearer: T}}]\n', 'invalid_auth_proxy', ['auth_proxy', 0, 'host']],
  ['auth_proxy header undeclared secret', 'name: a\nauth_proxy: [{host: x.example, headers: {X-Key: "${secrets.K}"}}]\n', 'invalid_auth_proxy', ['auth_proxy', 0, 'headers', 'X-Key']],
  ['git without identity', 'name: a\ngit: {username: bot}\n', 'parse_error', ['git']],
  ['git email with angle brackets', 'name: a\ngit: {identity: {name: bot, email: "<bot>"}}\n', 'invalid_git', ['git', 'identity', 'email']],
  ['git undeclared variable', 'name: a\ngit: {identity: {name: "${vars.u}", email: b@x}}\n', 'invalid_git', ['git', 'identity', 'name']],
  ['unknown default', 'name: a\ndefault: maybe\n', 'parse_error', ['default']],
  ['unknown action', 'name: a\npermissions: {main: [{capability: fs.read, action: perhaps}]}\n', 'parse_error', ['permissions', 'main', 0, 'action']],
  ['unknown rule key', 'name: a\npermissions: {main: [{capability: fs.read, action: allow, when: x}]}\n', 'parse_error', ['permissions', 'main', 0, 'when']],
  ['empty caller', 'name: a\npermissions: {"": []}\n', 'invalid_permissions', ['permissions', '']],
  ['empty capability', 'name: a\npermissions: {main: [{capability: "", action: allow}]}\n', 'invalid_permissions', ['permissions', 'main', 0, 'capability']],
  ['duplicate rule name', 'name: a\npermissions: {main: [{name: r, capability: a, action: allow}, {name: r, capability: b, action: allow}]}\n', 'invalid_permissions', ['permissions', 'main', 1, 'name']],
  ['filter syntax', 'name: a\npermissions: {main: [{capability: fs.read, filter: "path = 1", action: allow}]}\n', 'parse_error', ['permissions', 'main', 0, 'filter']],
  ['mcp stdio', 'name: a\nmcp: {x: {transport: stdio, url: "https://x"}}\n', 'parse_error', ['mcp', 'x', 'transport']],
  ['mcp http url', 'name: a\nmcp: {x: {url: "http://x.example"}}\n', 'invalid_mcp', ['mcp', 'x', 'url']],
  ['mcp rule for undeclared server', 'name: a\npermissions: {main: [{capability: mcp.linear, action: allow}]}\n', 'invalid_mcp', ['permissions', 'main', 0, 'capability']],
  ['mcp tool capability', 'name: a\nmcp: {linear: {url: "https://x"}}\npermissions: {main: [{capability: mcp.linear/save, action: allow}]}\n', 'invalid_mcp', ['permissions', 'main', 0, 'capability']],
  ['llm unknown provider type', 'name: a\nllm: {providers: {p: {type: mistral}}}\n', 'invalid_llm', ['llm', 'providers', 'p', 'type']],
  ['llm literal api key', 'name: a\nllm: {providers: {p: {type: openai, api_key: sk-123}}}\n', 'invalid_llm', ['llm', 'providers', 'p', 'api_key']],
  ['llm model with undeclared provider', 'name: a\nllm: {models: {m: {provider: p}}}\n', 'invalid_llm', ['llm', 'models', 'm', 'provider']],
  ['merge key', 'name: a\n<<: {idle_timeout: 1h}\n', 'parse_error', ['<<']],
];

test(`the corpus has at least 60 cases (${valid.length + invalid.length})`, () => {
  assert.ok(valid.length + invalid.length >= 60);
});

for (const [label, yaml] of valid) {
  test(`valid: ${label}`, () => {
    const result = parseBlueprint(yaml);
    assert.equal(result.ok, true, result.ok ? '' : result.problem.message);
  });
}

for (const [label, yaml, code, path] of invalid) {
  test(`invalid: ${label} → ${code}${path ? ` at ${JSON.stringify(path)}` : ''}`, () => {
    const result = parseBlueprint(yaml);
    assert.equal(result.ok, false, `${label} parsed`);
    if (result.ok) return;
    assert.equal(result.problem.code, code, result.problem.message);
    if (path) assert.deepEqual(result.problem.diagnostic.path, path, result.problem.message);
    assert.ok(result.problem.message.length > 10);
  });
}

test('a diagnostic carries the line and column of the fault', () => {
  const result = parseBlueprint('name: a\npermissions:\n  main:\n    - capability: fs.read\n      action: perhaps\n');
  assert.equal(result.ok, false);
  if (!result.ok) {
    assert.equal(result.problem.diagnostic.line, 5);
    assert.equal(result.problem.diagnostic.col, 15);
  }
});
