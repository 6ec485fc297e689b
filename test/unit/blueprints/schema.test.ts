// The Blueprint schema object (src/blueprints/schema.ts): docs/blueprints.md's generated
// tables and docs/blueprint.schema.json are its current output; the published JSON Schema
// accepts the Blueprints the parser accepts and refuses an unknown key; and each text field
// fills only its own placeholders (a wrong or misspelt one is refused with a caret).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { BLUEPRINT_DOCS_FILE, BLUEPRINT_SCHEMA_FILE, blueprintDocsSource, blueprintSchemaSource } from '../../../scripts/blueprint-docs';
import { parseBlueprint } from '../../../src/blueprints';
import { violation } from '../../../src/json-schema';
import { repoRoot } from '../../harness';

test('docs/blueprints.md tables and docs/blueprint.schema.json are what the schema generates', () => {
  const stale = 'is stale: run `npm run generate` and commit it';
  assert.equal(fs.readFileSync(BLUEPRINT_DOCS_FILE, 'utf8'), blueprintDocsSource(), `docs/blueprints.md ${stale}`);
  assert.equal(fs.readFileSync(BLUEPRINT_SCHEMA_FILE, 'utf8'), blueprintSchemaSource(), `docs/blueprint.schema.json ${stale}`);
});

test('the published JSON Schema accepts every fixture Blueprint and refuses an unknown key at its path', () => {
  const schema = JSON.parse(blueprintSchemaSource());
  const dir = path.join(repoRoot, 'fixtures', 'blueprints');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  assert.ok(files.length >= 3);
  for (const file of files) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    assert.ok(parseBlueprint(text).ok, file);
    assert.equal(violation(schema, YAML.parse(text)), null, file);
  }
  assert.equal(violation(schema, { name: 'a', bogus: 1 }), 'at $.bogus: property is not allowed');
  assert.equal(violation(schema, { name: 'a', auth_proxy: [{ host: 'h', bogus: 1 }] }), 'at $.auth_proxy[0].bogus: property is not allowed');
  assert.equal(violation(schema, { name: 'a', vfs: { mode: 'named', sizee: 1 } }), 'at $.vfs.sizee: property is not allowed');
  assert.equal(violation(schema, { name: 'a', typecheck: 'loose' }), 'at $.typecheck: expected one of ["strict","on","off"]');
});

function refusal(yaml: string) {
  const parsed = parseBlueprint(yaml);
  assert.ok(!parsed.ok, `refused: ${yaml}`);
  return parsed.problem;
}

test('a placeholder of the wrong kind is refused with a caret under it, in the class of its block', () => {
  const problem = refusal('name: a\nvariables: {tenant: {}}\nauth_proxy:\n  - host: api.example.com\n    headers: {X-Tenant: "t-${vars.tenant}"}\n');
  assert.equal(problem.code, 'invalid_auth_proxy');
  assert.deepEqual(problem.diagnostic.path, ['auth_proxy', 0, 'headers', 'X-Tenant']);
  assert.equal(problem.diagnostic.line, 5);
  assert.deepEqual(problem.diagnostic.message.split('\n'), [
    '`${vars.tenant}` is not filled here: auth_proxy[0].headers.X-Tenant fills only ${secrets.NAME}, so it would be used as written',
    '  t-${vars.tenant}',
    '    ^^^^^^^^^^^^^^',
  ]);
});

test('a misspelt placeholder is refused with the form to write', () => {
  const secret = refusal('name: a\nsecrets: {A: {store: a}}\nmcp:\n  m: {url: "https://m.example.com/mcp", headers: {Authorization: "Bearer ${secret.A}"}}\n');
  assert.equal(secret.code, 'invalid_mcp');
  assert.deepEqual(secret.diagnostic.message.split('\n'), ['`${secret.A}` is not a placeholder: write `${secrets.A}`', '  Bearer ${secret.A}', '         ^^^^^^^^^^^']);
  const variable = refusal('name: a\nvariables: {x: {}}\nvfs: {mode: named, volume: v, subPath: "teams/${var.x}"}\n');
  assert.equal(variable.code, 'invalid_vfs', 'the vfs template check keeps its own message');
  const query = refusal('name: a\nsecrets: {K: {store: k}}\nauth_proxy:\n  - {host: api.example.com, query: {key: "${Secrets.K}"}}\n');
  assert.match(query.diagnostic.message, /^`\$\{Secrets\.K\}` is not a placeholder: write `\$\{secrets\.K\}`\n/);
});

test('a field that fills nothing refuses any placeholder; fields that fill theirs pass', () => {
  const url = refusal('name: a\nsecrets: {A: {store: a}}\nmcp:\n  m: {url: "https://m.example.com/${secrets.A}"}\n');
  assert.match(url.diagnostic.message, /^`\$\{secrets\.A\}` is not filled here: mcp\.m\.url takes no placeholders/);
  const description = refusal('name: a\nllm: {providers: {p: {type: openai}}, models: {m: {provider: p, description: "for ${env.TEAM}"}}}\n');
  assert.equal(description.code, 'invalid_llm');
  assert.match(description.diagnostic.message, /only the server config reads/);
  assert.ok(
    parseBlueprint(
      'name: a\nvariables: {team: {}}\nsecrets: {A: {store: a}}\nvfs: {mode: per_session, cwd: "/w/${vars.team}"}\ngit: {identity: {name: "Agent ${vars.team}", email: a@example.com}}\nauth_proxy:\n  - {host: api.example.com, headers: {X-Key: "k-${secrets.A}"}}\npermissions: {main: [{capability: fs.read, filter: \'path == "${var.team}"\', action: allow}]}\nllm: {providers: {p: {type: openai, api_key: "${secrets.A}"}}, models: {m: {provider: p, description: "costs ${} nothing"}}}\n',
    ).ok,
    'declared placeholders in their fields, a filter string (its own grammar) and a non-placeholder `${}` pass',
  );
});
