// The Blueprint hash: the reference test vectors, stability under formatting, key order,
// comments, quoting and explicit defaults, and change under any semantic change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { parseBlueprint } from '../../../src/blueprints';

function hashOf(yaml: string): string {
  const result = parseBlueprint(yaml);
  if (!result.ok) throw new Error(result.problem.message);
  return result.blueprint.hash;
}

const DEMO = `name: demo
idle_timeout: 1h
vfs:
  mode: per_session
  size_limit: 50MB
variables:
  team:
    required: true
permissions:
  main:
    - capability: fs.read
      filter: path glob "/teams/\${vars.team}/*"
      action: allow
`;

test('the reference test vectors hash as documented', () => {
  assert.equal(hashOf('kind: blueprint\nname: minimal\ndefault: deny\npermissions: {main: []}\n'), 'fab6fba239e0de2944717a4ffb054655ef65973dfa1b874ae8cea4d6cfc74e91');
  assert.equal(hashOf(DEMO), 'bc115813402eb8fb6ed947b7a6be386ee5c64edbe42303c1623e96c783fb2633');
});

test('key order, comments, quoting, flow style, kind and explicit defaults do not change the hash', () => {
  const rewritten = `# the demo Blueprint, rewritten
permissions: {main: [{action: allow, filter: 'path glob "/teams/\${vars.team}/*"', capability: "fs.read"}]}
variables: {"team": {required: true}}
vfs: {size_limit: 52428800, mode: per_session, cwd: /}
kind: blueprint
allow_insecure_http: false
default: deny
idle_timeout: 60m
name: "demo"
`;
  assert.equal(hashOf(rewritten), hashOf(DEMO));
  assert.equal(hashOf('name: x\nidle_timeout: 24h\nvfs: ephemeral\npackages: []\n'), hashOf('name: x\n'));
  assert.equal(hashOf('name: x\npermissions: {main: [{capability: a, filter: "n==1", action: allow}]}\n'), hashOf('name: x\npermissions: {main: [{capability: a, filter: "n == 1.0", action: allow}]}\n'));
});

test('any semantic change changes the hash', () => {
  const base = hashOf(DEMO);
  const variants = [
    DEMO.replace('1h', '2h'),
    DEMO.replace('per_session', 'ephemeral'),
    DEMO.replace('50MB', '51MB'),
    DEMO.replace('required: true', 'required: false'),
    DEMO.replace('action: allow', 'action: deny'),
    DEMO.replace('fs.read', 'fs.write'),
    DEMO.replace('/teams/', '/team/'),
    DEMO.replace('name: demo', 'name: demo2'),
    `${DEMO}default: allow\n`,
    `${DEMO}allow_insecure_http: true\n`,
  ];
  const hashes = new Set(variants.map(hashOf));
  assert.equal(hashes.size, variants.length);
  assert.ok(!hashes.has(base));
});

const FULL = `name: full
secrets:
  K: {store: k}
  H: {harness: {}}
variables:
  v: {default: x}
packages: ["@acme/b", "@acme/a"]
auth_proxy:
  - {host: API.Example.com, auth: {bearer: K}, headers: {X-A: "\${secrets.K}"}}
git: {identity: {name: bot, email: bot@example.com}}
mcp:
  s: {url: "https://mcp.example/x", transport: streamable_http}
llm:
  providers: {p: {type: openai, api_key: "\${secrets.K}", supports_structured_outputs: true}}
  models: {m: {provider: p}}
  embedding_models: {e: {provider: p, dimensions: 8, max_input_bytes: 32768}}
`;

test('defaults written out in every section hash like the omitted form', () => {
  const omitted = FULL.replace(', transport: streamable_http', '').replace(', supports_structured_outputs: true', '').replace(', max_input_bytes: 32768', '').replace('H: {harness: {}}', 'H: {harness: {required: false}}');
  assert.equal(hashOf(omitted), hashOf(FULL));
  assert.equal(hashOf(FULL.replace('transport: streamable_http', 'transport: sse')), hashOf(FULL), 'sse is the same transport');
  assert.equal(hashOf(FULL.replace('["@acme/b", "@acme/a"]', '["@acme/a", "@acme/b"]')), hashOf(FULL), 'packages are a set');
  assert.equal(hashOf(FULL.replace('API.Example.com', 'api.example.com')), hashOf(FULL), 'hosts are lower-cased');
  assert.equal(hashOf('name: x\nvfs: {mode: per_session, size_limit: 1KiB}\n'), hashOf('name: x\nvfs: {mode: per_session, size_limit: 1024}\n'));
  assert.equal(hashOf('name: x\nidle_timeout: 120s\n'), hashOf('name: x\nidle_timeout: 2 M\n'));
});

test('a change in any section changes the hash', () => {
  const variants = [
    FULL.replace('K: {store: k}', 'K: {store: k2}'),
    FULL.replace('H: {harness: {}}', 'H: {harness: {required: true}}'),
    FULL.replace('v: {default: x}', 'v: {default: y}'),
    FULL.replace('v: {default: x}', 'v: {}'),
    FULL.replace('"@acme/a"]', '"@acme/c"]'),
    FULL.replace('headers: {X-A', 'query: {X-A'),
    FULL.replace('{host: API.Example.com,', '{host: API.Example.com, allow_insecure_http: true,'),
    FULL.replace('email: bot@example.com}}', 'email: bot@example.com}, username: bot}'),
    FULL.replace('https://mcp.example/x', 'https://mcp.example/y'),
    FULL.replace('supports_structured_outputs: true', 'supports_structured_outputs: false'),
    FULL.replace('m: {provider: p}', 'm: {provider: p, output_reserve: 10}'),
    FULL.replace('max_input_bytes: 32768', 'max_input_bytes: 1024'),
    FULL.replace('dimensions: 8', 'dimensions: 9'),
    `${FULL}vfs: {mode: ephemeral, cwd: /work}\n`,
    `${FULL}permissions: {main: [{capability: fs.read, action: allow}]}\n`,
    `${FULL}permissions: {main: [{name: r, capability: fs.read, action: allow}]}\n`,
  ];
  const base = hashOf(FULL);
  const hashes = variants.map(hashOf);
  hashes.forEach((hash, i) => assert.notEqual(hash, base, `variant ${i} hashed like the original`));
  assert.equal(new Set(hashes).size, variants.length, 'two different variants hashed alike');
});

test('the hash is the SHA-256 of canonical JSON with byte-sorted keys', () => {
  const result = parseBlueprint('name: x\nvariables: {b: {}, B: {}, a: {}}\n');
  assert.ok(result.ok);
  if (!result.ok) return;
  const json = '{"name":"x","variables":{"B":{},"a":{},"b":{}}}';
  assert.equal(result.blueprint.hash, createHash('sha256').update(json).digest('hex'));
});
