// The local Blueprint-file verbs as a process: `lint` (the server's checks, warnings,
// --deny-warnings / SVC_DENY_WARNINGS) and the editing verbs `add-mcp` and
// `capability add`, which keep comments and key order and never write an invalid file.
// The edits run as processes; lint's warning switches run in-process (svcInProcess).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot, tempDir } from '../harness';
import { runSvc, svcInProcess } from '../support/cli';

const dir = tempDir('svc-cli-bp-');
const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');

test('lint passes a valid file, locates a fault by file, line and column, warns about shadowed rules and fails on warnings when asked', async () => {
  write('good.yaml', 'name: good\npermissions:\n  main:\n    - {capability: fs.read, filter: \'path glob "/data/**"\', action: allow}\n');
  write('fields.yaml', 'name: fields\npermissions:\n  main:\n    - capability: fs.read\n      filter: host == "example.com"\n      action: allow\n');
  write('shadowed.yaml', 'name: shadowed\npermissions:\n  main:\n    - {capability: fs.read, action: deny}\n    - {capability: fs.read, filter: \'path == "/a"\', action: allow}\n');
  const run = await runSvc(['blueprint', 'lint', 'good.yaml', 'fields.yaml', 'shadowed.yaml'], { cwd: dir });
  assert.equal(run.code, 1);
  assert.equal(run.stdout, "ok good.yaml: blueprint 'good'\nok shadowed.yaml: blueprint 'shadowed' with 1 warning(s)\n");
  assert.match(run.stderr, /^error: fields\.yaml:5:15: `permissions\.main` rule 1 \(index 0\) for `fs\.read` tests `host`/m);
  assert.match(run.stderr, /^warning: shadowed\.yaml:5:7: `permissions\.main` rule 2 for `fs\.read` can never match: rule 1 has no filter/m);

  const strict = await svcInProcess(['blueprint', 'lint', '--deny-warnings', 'shadowed.yaml'], { cwd: dir });
  assert.equal(strict.code, 1);
  assert.match(strict.stderr, /shadowed\.yaml: 1 warning\(s\) treated as errors/);
  assert.equal((await svcInProcess(['blueprint', 'lint', 'shadowed.yaml'], { cwd: dir, env: { SVC_DENY_WARNINGS: '1' } })).code, 1);
  const badVariable = await svcInProcess(['blueprint', 'lint', 'good.yaml'], { cwd: dir, env: { SVC_DENY_WARNINGS: 'yes' } });
  assert.equal(badVariable.code, 2);
  assert.match(badVariable.stderr, /\$SVC_DENY_WARNINGS: expected `1` or unset/);
});

test('add-mcp declares the server with a closing deny; capability add inserts the grant before it; comments and key order survive', async () => {
  const original = [
    '# Support agent: keep this comment',
    'name: support  # the registry key',
    'default: deny',
    'permissions:',
    '  main:',
    '    # reads first',
    '    - {capability: fs.read, action: allow}',
    'llm: {}',
    '',
  ].join('\n');
  write('support.yaml', original);
  const added = await runSvc(['blueprint', 'add-mcp', 'linear', 'https://mcp.linear.app/mcp', '--file', 'support.yaml'], { cwd: dir });
  assert.equal(added.code, 0, added.stderr);
  const granted = await runSvc(['blueprint', 'capability', 'add', 'mcp.linear', '--filter', 'tool == "save_issue"', '-f', 'support.yaml'], { cwd: dir });
  assert.equal(granted.code, 0, granted.stderr);
  const text = read('support.yaml');
  assert.match(text, /^# Support agent: keep this comment\nname: support +# the registry key\ndefault: deny\npermissions:\n/);
  assert.match(text, /# reads first\n/);
  const keys = text.split('\n').filter((l) => /^[a-z_]+:/.test(l)).map((l) => l.split(':')[0]);
  assert.deepEqual(keys, ['name', 'default', 'permissions', 'llm', 'mcp']);
  const rules = text.slice(text.indexOf('  main:'), text.indexOf('llm:'));
  const order = [...rules.matchAll(/capability: ([\w.]+)|action: ([\w-]+)/g)].map((m) => m[1] ?? m[2]);
  assert.deepEqual(order, ['fs.read', 'allow', 'mcp.linear', 'allow', 'mcp.linear', 'deny']);
  assert.match(text, /mcp:\n {2}linear:\n {4}url: https:\/\/mcp\.linear\.app\/mcp\n/);
  assert.equal((await runSvc(['blueprint', 'lint', 'support.yaml'], { cwd: dir })).code, 0);

  const again = await runSvc(['blueprint', 'capability', 'add', 'mcp.linear', '--filter', 'tool == "save_issue"', '-f', 'support.yaml'], { cwd: dir });
  assert.equal(again.code, 0);
  assert.match(again.stdout, /already has this rule/);
  assert.equal(read('support.yaml'), text);
});

test('an edit that would not lint is refused and leaves the file byte for byte as it was', async () => {
  write('plain.yaml', 'name: plain\n');
  const before = read('plain.yaml');
  const badFilter = await runSvc(['blueprint', 'capability', 'add', 'fs.read', '--filter', 'path glob "/x', '-f', 'plain.yaml'], { cwd: dir });
  assert.equal(badFilter.code, 1);
  assert.match(badFilter.stderr, /plain\.yaml was not changed: plain\.yaml:\d+:\d+: blueprint parse error: invalid filter/);
  const insecure = await runSvc(['blueprint', 'add-mcp', 'local', 'http://mcp.example.com/mcp', '-f', 'plain.yaml'], { cwd: dir });
  assert.equal(insecure.code, 1);
  assert.match(insecure.stderr, /https:\/\//);
  const undeclared = await runSvc(['blueprint', 'capability', 'add', 'mcp.nobody', '-f', 'plain.yaml'], { cwd: dir });
  assert.equal(undeclared.code, 1);
  assert.equal(read('plain.yaml'), before);
  const badAction = await runSvc(['blueprint', 'capability', 'add', 'fs.read', '--action', 'maybe', '-f', 'plain.yaml'], { cwd: dir });
  assert.equal(badAction.code, 2);
});

test('lint refuses a placeholder its field does not fill with a caret under it; `blueprint schema` prints the published JSON Schema', async () => {
  write('tenant.yaml', 'name: tenant\nvariables: {tenant: {required: true}}\nauth_proxy:\n  - host: api.example.com\n    headers: {X-Tenant: "t-${vars.tenant}"}\n');
  const lint = await runSvc(['blueprint', 'lint', 'tenant.yaml'], { cwd: dir });
  assert.equal(lint.code, 1);
  assert.match(lint.stderr, /^error: tenant\.yaml:5:25: invalid auth_proxy config: `\$\{vars\.tenant\}` is not filled here: auth_proxy\[0\]\.headers\.X-Tenant fills only \$\{secrets\.NAME\}/m);
  assert.match(lint.stderr, /^ {2}t-\$\{vars\.tenant\}\n {4}\^{14}$/m);

  const schema = await runSvc(['blueprint', 'schema'], { cwd: dir });
  assert.equal(schema.code, 0, schema.stderr);
  assert.equal(schema.stdout, fs.readFileSync(path.join(repoRoot, 'docs', 'blueprint.schema.json'), 'utf8'));
  assert.equal(JSON.parse(schema.stdout).properties.auth_proxy.items.properties.headers.additionalProperties['x-placeholders'][0], 'secrets');
});
