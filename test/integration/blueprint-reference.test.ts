// docs/blueprints.md stays true: every key the real server's validator accepts (read from
// its own "expected one of" refusals) is documented, and so is every capability of
// `svc capabilities` with each of its fields. Also through the real server and CLI:
// `svc capabilities` (with a group for an installed Package), the `&&`/`||` hint in a
// filter, and lint's warning on an unknown capability name.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { repoRoot, startServer, tempDir, type TestServer } from '../harness';
import { runSvc, START_TIMEOUT_MS } from '../support/cli';
import { manifest, writeFiles } from '../support/packages';

const reference = fs.readFileSync(path.join(repoRoot, 'docs', 'blueprints.md'), 'utf8');

/** Documents, each with an unknown key at one level of the schema. */
const PROBES: Array<Record<string, unknown>> = [
  { bogus: 1 },
  { vfs: { mode: 'ephemeral', bogus: 1 } },
  { vfs: { mounts: { '/m': { mode: 'named', volume: 'v', bogus: 1 } } } },
  { secrets: { S: { harness: { bogus: 1 } } } },
  { variables: { v: { bogus: 1 } } },
  { secrets: { S: { store: 's' } }, auth_proxy: [{ host: 'a.example.com', bogus: 1 }] },
  { secrets: { S: { store: 's' } }, auth_proxy: [{ host: 'a.example.com', auth: { bogus: 1 } }] },
  { secrets: { S: { store: 's' } }, auth_proxy: [{ host: 'a.example.com', auth: { basic: { bogus: 1 } } }] },
  { git: { bogus: 1 } },
  { git: { identity: { bogus: 1 } } },
  { mcp: { m: { url: 'https://m.example.com/mcp', bogus: 1 } } },
  { mcp: { m: { url: 'https://m.example.com/mcp', auth: { type: 'oauth2', bogus: 1 } } } },
  { llm: { bogus: 1 } },
  { llm: { providers: { p: { type: 'openai', bogus: 1 } } } },
  { llm: { providers: { p: { type: 'openai' } }, models: { m: { provider: 'p', bogus: 1 } } } },
  { llm: { providers: { p: { type: 'openai' } }, embedding_models: { e: { provider: 'p', dimensions: 8, bogus: 1 } } } },
  { permissions: { main: [{ capability: 'fs.read', action: 'allow', bogus: 1 }] } },
];

describe('the Blueprint reference (docs/blueprints.md)', () => {
  let server: TestServer;
  let home: string;
  const env = () => ({ SVC_SERVER_TOKEN: server.adminToken, SVC_SERVER_URL: server.url, SVC_HOME: home });

  before(async () => {
    home = tempDir();
    const project = writeFiles(tempDir(), {
      'svc.toml': manifest([{ name: '@acme/credits' }]),
      'docs/readme.md': '# credits\n',
      'src/lib.ts': `import { check } from "svc:security";
import { post } from "svc:http";

/**
 * Apply a credit.
 * @param amount Cents.
 * @returns The amount.
 * @capability acme.com/credits.apply { amount }
 */
export function apply(amount: number): number {
  check("acme.com/credits.apply", { amount });
  post("https://api.acme.example.com/credits", { amount });
  return amount;
}
`,
    });
    const published = await runSvc(['build', 'publish-local'], { cwd: project, env: { SVC_HOME: home } });
    assert.equal(published.code, 0, published.stdout + published.stderr);
    server = await startServer({ runners: 1, home, timeoutMs: START_TIMEOUT_MS });
  });
  after(async () => server?.stop());

  test('documents every key the validator accepts', async () => {
    const documented = (key: string) => reference.includes(`\`${key}\``);
    let levels = 0;
    for (const probe of PROBES) {
      const reply = await server.request('POST', '/v1/blueprints', { body: { yaml: YAML.stringify({ name: 'probe', ...probe }) } });
      assert.equal(reply.status, 400, reply.text);
      const accepted = /expected one of ((?:`[^`]+`(?:, )?)+)/.exec(reply.json.message);
      assert.ok(accepted, `the refusal lists the accepted keys: ${reply.json.message}`);
      const keys = [...accepted[1].matchAll(/`([^`]+)`/g)].map((m) => m[1]);
      assert.ok(keys.length > 0);
      for (const key of keys) assert.ok(documented(key), `key \`${key}\` (refusal: ${reply.json.message}) is in docs/blueprints.md`);
      levels++;
    }
    assert.equal(levels, PROBES.length);
  });

  test('documents every capability of `svc capabilities` with each of its fields', async () => {
    const listed = await runSvc(['capabilities', '--json'], { env: env() });
    assert.equal(listed.code, 0, listed.stderr);
    const groups = JSON.parse(listed.stdout).groups as Array<{ source: string; kind: string; capabilities: Array<{ name: string; fields: Record<string, unknown> }> }>;
    const stdlib = groups.filter((g) => g.kind === 'stdlib').flatMap((g) => g.capabilities);
    assert.ok(stdlib.length >= 20, 'the catalogue is listed');
    const rows = reference.split('\n').filter((line) => line.startsWith('|'));
    for (const capability of stdlib) {
      const row = rows.find((line) => line.includes(`| \`${capability.name}\` |`));
      assert.ok(row, `capability ${capability.name} has a row`);
      for (const field of Object.keys(capability.fields)) assert.ok(row.includes(`\`${field}\``), `${capability.name} field ${field} is documented`);
    }
  });

  test('GET /v1/capabilities and `svc capabilities` have a group for an installed Package', async () => {
    const reply = await server.request('GET', '/v1/capabilities');
    assert.equal(reply.status, 200);
    const group = reply.json.groups.find((g: { source: string }) => g.source === '@acme/credits');
    assert.ok(group, JSON.stringify(reply.json.groups.map((g: { source: string }) => g.source)));
    assert.equal(group.kind, 'package');
    assert.equal(group.capabilities[0].name, 'acme.com/credits.apply');
    assert.deepEqual(group.capabilities[0].filter_fields, ['amount']);
    assert.equal(group.capabilities[0].fields.amount.type, 'number');
    assert.equal(group.capabilities[0].example_filter, null);
    assert.ok(group.requires.some((r: { capability: string; filter?: string }) => r.capability === 'http.post' && r.filter?.startsWith('host == "api.acme.example.com"')), JSON.stringify(group.requires));

    const text = await runSvc(['capabilities'], { env: env() });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^@acme\/credits \(package\)$/m);
    assert.match(text.stdout, /^ {2}acme\.com\/credits\.apply/m);
    assert.match(text.stdout, /^ {6}amount \(number\)/m);
    assert.match(text.stdout, /^ {2}fs\.read: Read a file/m);
  });

  test('`&&` and `||` in a filter are refused with the keyword to write', async () => {
    for (const [written, keyword] of [['&&', 'and'], ['||', 'or']]) {
      const yaml = `name: ops\npermissions:\n  main:\n    - {capability: fs.read, filter: 'path == "/a" ${written} path == "/b"', action: allow}\n`;
      const reply = await server.request('POST', '/v1/blueprints', { body: { yaml } });
      assert.equal(reply.status, 400, reply.text);
      assert.ok(reply.json.message.includes(`\`${written}\` is not an operator here; write \`${keyword}\``), reply.json.message);
      const file = path.join(tempDir(), 'ops.yaml');
      fs.writeFileSync(file, yaml);
      const linted = await runSvc(['blueprint', 'lint', file]);
      assert.equal(linted.code, 1);
      assert.ok(linted.stderr.includes(`write \`${keyword}\``), linted.stderr);
    }
    assert.equal((await server.request('GET', '/v1/blueprints/ops')).status, 404, 'nothing was registered');
  });

  test('lint warns on an unknown capability name and suggests the near one', async () => {
    const file = path.join(tempDir(), 'typo.yaml');
    fs.writeFileSync(file, 'name: typo\npermissions:\n  main:\n    - {capability: http.gett, action: allow}\n    - {capability: fs.read, action: allow}\n    - {capability: acme.com/credits.apply, action: allow}\n');
    const linted = await runSvc(['blueprint', 'lint', file]);
    assert.equal(linted.code, 0, linted.stderr);
    const warnings = linted.stderr.split('\n').filter((line) => line.startsWith('warning:'));
    assert.equal(warnings.length, 1, linted.stderr);
    assert.match(warnings[0], /typo\.yaml:4:\d+: .*unknown capability `http\.gett`; did you mean `http\.get`\?/);
    const strict = await runSvc(['blueprint', 'lint', '--deny-warnings', file]);
    assert.equal(strict.code, 1);
  });
});
