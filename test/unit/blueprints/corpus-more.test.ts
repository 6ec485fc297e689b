// More of the Blueprint corpus: document order of structure faults, the exact node each
// diagnostic points at (line and column), vfs mount rules, secret references, MCP and the
// llm section. Each row: label, YAML, error class, path, and optionally [line, col].
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBlueprint } from '../../../src/blueprints';

type Row = [label: string, yaml: string, code: string, path: Array<string | number> | undefined, position?: [number, number]];

const invalid: Row[] = [
  // Structure faults are found in document order, and before any semantic fault.
  ['an earlier section fault wins over a later unknown key', 'name: a\nvfs: {bad: 1}\nextra: 1\n', 'parse_error', ['vfs', 'bad'], [2, 7]],
  ['an earlier unknown key wins over a later section fault', 'extra: 1\nname: a\nvfs: {bad: 1}\n', 'parse_error', ['extra'], [1, 1]],
  ['a later structure fault wins over an earlier semantic one', 'kind: policy\nname: a\nidle_timeout: 5\n', 'parse_error', ['idle_timeout'], [3, 15]],
  ['missing name is reported after the other keys are read', 'vfs: {mode: none, cwd: /x}\n', 'parse_error', ['vfs', 'cwd']],
  ['a null name counts as absent', 'name:\n', 'parse_error', ['name']],
  ['semantic checks run in the fixed order: kind before name', 'name: "a b"\nkind: other\n', 'invalid_kind', ['kind'], [2, 7]],
  ['semantic checks: packages before secrets', 'name: a\nsecrets: {"x y": {store: k}}\npackages: [nope]\n', 'invalid_packages', ['packages']],
  ['semantic checks: auth_proxy before permissions', 'name: a\npermissions: {"": []}\nauth_proxy: [{host: h.example}]\n', 'invalid_auth_proxy', ['auth_proxy', 0]],
  // vfs: mode conflicts point at the key when `mode:` comes first, else at the block.
  ['volume before mode points at vfs', 'name: a\nvfs: {volume: v, mode: ephemeral}\n', 'parse_error', ['vfs'], [2, 6]],
  ['volume after mode points at the key', 'name: a\nvfs: {mode: ephemeral, volume: v}\n', 'parse_error', ['vfs', 'volume'], [2, 24]],
  ['subPath under per_session', 'name: a\nvfs: {mode: per_session, subPath: x}\n', 'parse_error', ['vfs', 'subPath']],
  ['cwd under none', 'name: a\nvfs: {mode: none, cwd: /}\n', 'parse_error', ['vfs', 'cwd']],
  ['empty volume', 'name: a\nvfs: {mode: named, volume: ""}\n', 'parse_error', ['vfs', 'volume']],
  ['boolean volume', 'name: a\nvfs: {mode: named, volume: true}\n', 'parse_error', ['vfs', 'volume']],
  ['unknown access', 'name: a\nvfs: {mode: named, volume: v, access: write}\n', 'parse_error', ['vfs', 'access']],
  ['size of zero bytes', 'name: a\nvfs: {mode: ephemeral, size_limit: 0}\n', 'parse_error', ['vfs', 'size_limit']],
  ['malformed size', 'name: a\nvfs: {mode: ephemeral, size_limit: ten MB}\n', 'parse_error', ['vfs', 'size_limit']],
  ['size overflow', 'name: a\nvfs: {mode: ephemeral, size_limit: 9000000TB}\n', 'parse_error', ['vfs', 'size_limit']],
  ['mount path with a variable', 'name: a\nvfs: {mode: ephemeral, mounts: {"/${vars.u}": {mode: named, volume: v}}}\n', 'parse_error', ['vfs', 'mounts', '/${vars.u}']],
  ['mount path with a trailing slash', 'name: a\nvfs: {mode: ephemeral, mounts: {/a/: {mode: named, volume: v}}}\n', 'parse_error', ['vfs', 'mounts', '/a/']],
  ['mount path component ending in a dot', 'name: a\nvfs: {mode: ephemeral, mounts: {/a./b: {mode: named, volume: v}}}\n', 'parse_error', ['vfs', 'mounts', '/a./b']],
  ['relative mount path', 'name: a\nvfs: {mode: ephemeral, mounts: {a: {mode: named, volume: v}}}\n', 'parse_error', ['vfs', 'mounts', 'a']],
  ['mount equal ignoring case', 'name: a\nvfs: {mode: ephemeral, mounts: {/Data: {mode: named, volume: v}, /data: {mode: named, volume: w}}}\n', 'parse_error', ['vfs', 'mounts', '/data']],
  ['mount with per_session mode', 'name: a\nvfs: {mode: ephemeral, mounts: {/a: {mode: per_session, volume: v}}}\n', 'parse_error', ['vfs', 'mounts', '/a', 'mode']],
  ['mount without volume', 'name: a\nvfs: {mode: ephemeral, mounts: {/a: {mode: named}}}\n', 'parse_error', ['vfs', 'mounts', '/a', 'volume']],
  ['mount subPath with a partial variable', 'name: a\nvariables: {u: {}}\nvfs: {mode: ephemeral, mounts: {/a: {mode: named, volume: v, subPath: "x/pre${vars.u}"}}}\n', 'invalid_vfs', ['vfs', 'mounts', '/a', 'subPath'], [3, 71]],
  ['subPath with a backslash', 'name: a\nvfs: {mode: named, volume: v, subPath: "a\\\\b"}\n', 'invalid_vfs', ['vfs', 'subPath']],
  // secrets and references
  ['a secret with a null store', 'name: a\nsecrets: {K: {store: null}}\n', 'parse_error', ['secrets', 'K']],
  ['a harness with an unknown key', 'name: a\nsecrets: {K: {harness: {optional: true}}}\n', 'parse_error', ['secrets', 'K', 'harness', 'optional']],
  ['a harness required as a string', 'name: a\nsecrets: {K: {harness: {required: "yes"}}}\n', 'parse_error', ['secrets', 'K', 'harness', 'required']],
  ['an unterminated secret reference', 'name: a\nsecrets: {K: {store: k}}\nauth_proxy: [{host: h.example, query: {key: "${secrets.K"}}]\n', 'invalid_auth_proxy', ['auth_proxy', 0, 'query', 'key']],
  ['auth with an Authorization header', 'name: a\nsecrets: {K: {store: k}}\nauth_proxy: [{host: h.example, auth: {bearer: K}, headers: {authorization: x}}]\n', 'invalid_auth_proxy', ['auth_proxy', 0, 'headers', 'authorization']],
  ['basic password naming an undeclared secret', 'name: a\nauth_proxy: [{host: h.example, auth: {basic: {username: u, password: P}}}]\n', 'invalid_auth_proxy', ['auth_proxy', 0, 'auth', 'basic', 'password']],
  ['auth_proxy host with a scheme', 'name: a\nsecrets: {K: {store: k}}\nauth_proxy: [{host: "https://h.example", auth: {bearer: K}}]\n', 'invalid_auth_proxy', ['auth_proxy', 0, 'host']],
  ['auth_proxy rule insecure as a string', 'name: a\nauth_proxy: [{host: h.example, allow_insecure_http: "true"}]\n', 'parse_error', ['auth_proxy', 0, 'allow_insecure_http']],
  // variables and git
  ['required as yes', 'name: a\nvariables: {v: {required: yes}}\n', 'parse_error', ['variables', 'v', 'required']],
  ['git username with a colon', 'name: a\ngit: {identity: {name: n, email: e@x}, username: "a:b"}\n', 'invalid_git', ['git', 'username']],
  ['git identity with another reference', 'name: a\ngit: {identity: {name: "${env.USER}", email: e@x}}\n', 'invalid_git', ['git', 'identity', 'name']],
  ['git identity with an unterminated reference', 'name: a\nvariables: {u: {}}\ngit: {identity: {name: "${vars.u", email: e@x}}\n', 'invalid_git', ['git', 'identity', 'name']],
  ['git identity missing email', 'name: a\ngit: {identity: {name: n}}\n', 'parse_error', ['git', 'identity']],
  // mcp
  ['mcp unknown transport', 'name: a\nmcp: {s: {transport: websocket, url: "https://x.example"}}\n', 'parse_error', ['mcp', 's', 'transport']],
  ['mcp without url', 'name: a\nmcp: {s: {transport: sse}}\n', 'parse_error', ['mcp', 's']],
  ['mcp auth of another type', 'name: a\nmcp: {s: {url: "https://x.example", auth: {type: apikey}}}\n', 'parse_error', ['mcp', 's', 'auth', 'type']],
  ['mcp headers and auth together', 'name: a\nmcp: {s: {url: "https://x.example", headers: {A: b}, auth: {type: oauth2}}}\n', 'invalid_mcp', ['mcp', 's']],
  ['mcp server name with a dot', 'name: a\nmcp: {"s.t": {url: "https://x.example"}}\n', 'invalid_mcp', ['mcp', 's.t']],
  ['mcp scope with an undeclared secret', 'name: a\nmcp: {s: {url: "https://x.example", auth: {type: oauth2, scopes: [read, "${secrets.S}"]}}}\n', 'invalid_mcp', ['mcp', 's', 'auth', 'scopes', 1]],
  ['mcp url that is not a URL', 'name: a\nmcp: {s: {url: "mcp.example/x"}}\n', 'invalid_mcp', ['mcp', 's', 'url']],
  // llm
  ['llm provider without type', 'name: a\nllm: {providers: {p: {base_url: "https://x.example"}}}\n', 'parse_error', ['llm', 'providers', 'p']],
  ['llm unknown key', 'name: a\nllm: {budgets: {}}\n', 'parse_error', ['llm', 'budgets']],
  ['openai-compatible without base_url', 'name: a\nllm: {providers: {p: {type: openai-compatible}}}\n', 'invalid_llm', ['llm', 'providers', 'p']],
  ['base_url over http', 'name: a\nllm: {providers: {p: {type: openai, base_url: "http://x.example"}}}\n', 'invalid_llm', ['llm', 'providers', 'p', 'base_url']],
  ['base_url on localhost', 'name: a\nllm: {providers: {p: {type: openai, base_url: "https://localhost./v1"}}}\n', 'invalid_llm', ['llm', 'providers', 'p', 'base_url']],
  ['base_url on a private address', 'name: a\nllm: {providers: {p: {type: openai, base_url: "https://192.168.1.10/v1"}}}\n', 'invalid_llm', ['llm', 'providers', 'p', 'base_url'], [2, 47]],
  ['base_url in 100.64.0.0/10', 'name: a\nllm: {providers: {p: {type: openai, base_url: "https://100.64.3.4"}}}\n', 'invalid_llm', ['llm', 'providers', 'p', 'base_url']],
  ['base_url on an IPv4-mapped loopback', 'name: a\nllm: {providers: {p: {type: openai, base_url: "https://[::ffff:127.0.0.1]/"}}}\n', 'invalid_llm', ['llm', 'providers', 'p', 'base_url']],
  ['base_url with a secret in the host', 'name: a\nsecrets: {S: {store: s}}\nllm: {providers: {p: {type: openai, base_url: "https://${secrets.S}.example"}}}\n', 'invalid_llm', ['llm', 'providers', 'p', 'base_url']],
  ['api_key with text around the reference', 'name: a\nsecrets: {S: {store: s}}\nllm: {providers: {p: {type: openai, api_key: "Bearer ${secrets.S}"}}}\n', 'invalid_llm', ['llm', 'providers', 'p', 'api_key']],
  ['api_key naming an undeclared secret', 'name: a\nllm: {providers: {p: {type: openai, api_key: "${secrets.S}"}}}\n', 'invalid_llm', ['llm', 'providers', 'p', 'api_key']],
  ['structured outputs as a string', 'name: a\nllm: {providers: {p: {type: openai, supports_structured_outputs: "false"}}}\n', 'parse_error', ['llm', 'providers', 'p', 'supports_structured_outputs']],
  ['provider name with surrounding whitespace', 'name: a\nllm: {providers: {" p": {type: openai}}}\n', 'invalid_llm', ['llm', 'providers', ' p']],
  ['model context_window quoted', 'name: a\nllm: {providers: {p: {type: openai}}, models: {m: {provider: p, context_window: "4000"}}}\n', 'parse_error', ['llm', 'models', 'm', 'context_window']],
  ['model output_reserve of zero', 'name: a\nllm: {providers: {p: {type: openai}}, models: {m: {provider: p, output_reserve: 0}}}\n', 'invalid_llm', ['llm', 'models', 'm', 'output_reserve']],
  ['model description over 512 characters', `name: a\nllm: {providers: {p: {type: openai}}, models: {m: {provider: p, description: "${'x'.repeat(513)}"}}}\n`, 'invalid_llm', ['llm', 'models', 'm', 'description']],
  ['model description with a zero-width character', 'name: a\nllm: {providers: {p: {type: openai}}, models: {m: {provider: p, description: "a\\u200bb"}}}\n', 'invalid_llm', ['llm', 'models', 'm', 'description']],
  ['embedding model on an anthropic provider', 'name: a\nllm: {providers: {p: {type: anthropic}}, embedding_models: {e: {provider: p, dimensions: 8}}}\n', 'invalid_llm', ['llm', 'embedding_models', 'e', 'provider']],
  ['embedding model without dimensions', 'name: a\nllm: {providers: {p: {type: openai}}, embedding_models: {e: {provider: p}}}\n', 'parse_error', ['llm', 'embedding_models', 'e']],
  ['llm.call filter naming an undeclared model', 'name: a\nllm: {providers: {p: {type: openai}}, models: {m: {provider: p}}}\npermissions:\n  main:\n    - {capability: llm.call, filter: \'model == "m" or model == "other"\', action: allow}\n', 'invalid_llm', ['permissions', 'main', 0, 'filter'], [5, 38]],
  ['embedding.embed filter naming a chat model', 'name: a\nllm: {providers: {p: {type: openai}}, models: {m: {provider: p}}}\npermissions: {"@acme/x": [{capability: embedding.embed, filter: \'model == "m"\', action: allow}]}\n', 'invalid_llm', ['permissions', '@acme/x', 0, 'filter']],
  // YAML container rules
  ['a custom tag', 'name: !custom a\n', 'parse_error', undefined, [1, 7]],
  ['an integer field written as a float', 'name: a\nllm: {providers: {p: {type: openai}}, models: {m: {provider: p, context_window: 1.5}}}\n', 'parse_error', ['llm', 'models', 'm', 'context_window']],
  ['a duplicate variable name', 'name: a\nvariables:\n  v: {}\n  v: {}\n', 'parse_error', ['variables', 'v'], [4, 3]],
  ['a duplicate mount path', 'name: a\nvfs:\n  mounts:\n    /a: {mode: named, volume: v}\n    /a: {mode: named, volume: v}\n', 'parse_error', ['vfs', 'mounts', '/a'], [5, 5]],
];

const valid: Array<[string, string]> = [
  ['document order does not matter for a valid document', 'permissions: {main: []}\nvfs: none\nname: late\n'],
  ['an http MCP url with the Blueprint opt-in', 'name: a\nallow_insecure_http: true\nmcp: {s: {url: "http://mcp.example/x", transport: sse}}\n'],
  ['an oauth MCP server with secret references in its auth', 'name: a\nsecrets: {C: {store: c}}\nmcp: {s: {url: "https://x.example", auth: {type: oauth2, client_id: "${secrets.C}", scopes: [read]}}}\n'],
  ['a base_url with a secret after the host', 'name: a\nsecrets: {S: {store: s}}\nllm: {providers: {p: {type: openai-compatible, base_url: "https://api.example/v1?key=${secrets.S}"}}}\n'],
  ['embedding models with limits', 'name: a\nllm: {providers: {g: {type: google}}, embedding_models: {e: {provider: g, dimensions: 768, max_input_bytes: 1024, max_input_tokens: 512, description: Small.}}}\n'],
  ['model filters naming declared models', 'name: a\nllm: {providers: {p: {type: openai}}, models: {m: {provider: p}}}\npermissions: {main: [{capability: llm.call, filter: \'model == "m" and prompt_count <= 5\', action: allow}]}\n'],
  ['a null entry under secrets-free sections', 'name: a\nvfs:\nsecrets:\npermissions:\n  main:\n'],
  ['the same volume mounted twice and as the root', 'name: a\nvfs: {mode: named, volume: v, mounts: {/x: {mode: named, volume: v}, /y: {mode: named, volume: v, access: read_only}}}\n'],
];

for (const [label, yaml, code, path, position] of invalid) {
  test(`invalid: ${label} → ${code}${path ? ` at ${JSON.stringify(path)}` : ''}`, () => {
    const result = parseBlueprint(yaml);
    assert.equal(result.ok, false, `${label} parsed`);
    if (result.ok) return;
    assert.equal(result.problem.code, code, result.problem.message);
    assert.deepEqual(result.problem.diagnostic.path, path, result.problem.message);
    if (position) assert.deepEqual([result.problem.diagnostic.line, result.problem.diagnostic.col], position, result.problem.message);
    assert.ok(result.problem.message.endsWith(result.problem.diagnostic.message), 'the leaf message ends the full message');
  });
}

for (const [label, yaml] of valid) {
  test(`valid: ${label}`, () => {
    const result = parseBlueprint(yaml);
    assert.equal(result.ok, true, result.ok ? '' : result.problem.message);
  });
}

test('the full message carries the class prefix and the leaf message does not', () => {
  const prefixes: Array<[string, string]> = [
    ['name: a\nextra: 1\n', 'blueprint parse error: '],
    ['kind: x\nname: a\n', 'invalid blueprint kind: '],
    ['name: "a b"\n', 'invalid blueprint name: '],
    ['name: a\npackages: [x]\n', 'invalid packages config: '],
    ['name: a\nsecrets: {"a b": {store: k}}\n', 'invalid secrets config: '],
    ['name: a\nauth_proxy: [{host: h}]\n', 'invalid auth_proxy config: '],
    ['name: a\npermissions: {"": []}\n', 'invalid permissions config: '],
    ['name: a\nvariables: {v: {required: true, default: x}}\n', 'invalid variables config: '],
    ['name: a\ngit: {identity: {name: "<x>", email: e}}\n', 'invalid git config: '],
    ['name: a\nvfs: {cwd: relative}\n', 'invalid vfs config: '],
    ['name: a\nmcp: {s: {url: "ftp://x"}}\n', 'invalid mcp config: '],
    ['name: a\nllm: {providers: {p: {type: x}}}\n', 'invalid llm config: '],
  ];
  for (const [yaml, prefix] of prefixes) {
    const result = parseBlueprint(yaml);
    assert.ok(!result.ok, yaml);
    if (result.ok) continue;
    assert.ok(result.problem.message.startsWith(prefix), `${result.problem.message} should start with ${prefix}`);
    assert.ok(!result.problem.diagnostic.message.startsWith(prefix));
  }
  const empty = parseBlueprint('  \n# only a comment\n');
  assert.ok(!empty.ok && empty.problem.message === 'blueprint YAML is empty');
});

test('a filter syntax error renders the filter, its source and a caret line under the fault', () => {
  const result = parseBlueprint('name: a\npermissions:\n  main:\n    - {capability: fs.read, filter: "path == ", action: allow}\n');
  assert.ok(!result.ok);
  if (result.ok) return;
  assert.equal(result.problem.code, 'parse_error');
  const lines = result.problem.diagnostic.message.split('\n');
  assert.match(lines[0], /^invalid filter `path == `: /);
  assert.equal(lines[1], '  path == ');
  assert.match(lines[2], /^ {2}\s*\^+$/);
});
