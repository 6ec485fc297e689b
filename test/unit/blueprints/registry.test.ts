// The Blueprint registry over a real SQLite store: revisions, the name reservation of an
// unusable stored Blueprint, the deletion hook, the blueprint_dir import, registration
// checks in their documented order, and the list summary of the reference examples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerLog } from '../../../src/audit';
import { blueprintSummary, BlueprintRegistry, type RegistrationContext } from '../../../src/blueprints';
import type { VolumeDeclaration } from '../../../src/config';
import { closeDatabase, openDatabase, type Database } from '../../../src/store';
import { tempDir } from '../../support/temp-dirs';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/blueprints');
const fixture = (name: string) => fs.readFileSync(path.join(fixtures, name), 'utf8');

interface LogLine {
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}

function recordingLog(lines: LogLine[]): ServerLog {
  const at = (level: string) => (_target: string, msg: string, fields: Record<string, unknown> = {}) => void lines.push({ level, msg, fields });
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), trace: at('trace'), enabled: () => true } as ServerLog;
}

function volume(name: string, access: 'read_only' | 'read_write'): VolumeDeclaration {
  return { name, kind: 'managed-local', directory: path.join(os.tmpdir(), name), access, sizeLimit: 'unlimited' };
}

function setUp(context: Partial<RegistrationContext> = {}, db: Database = openDatabase(':memory:')) {
  const lines: LogLine[] = [];
  const registry = new BlueprintRegistry(
    db,
    { volumes: [volume('handbook', 'read_only'), volume('notes', 'read_write')], secretStoreEnabled: true, hasSecret: () => true, isPackageInstalled: () => true, ...context },
    recordingLog(lines),
  );
  registry.load();
  return { registry, lines, db };
}

test('every POST and PUT adds a revision; DELETE keeps the history and a re-add continues the numbering', () => {
  const { registry, db } = setUp();
  assert.equal(registry.create('name: a\n').ok, true);
  assert.equal(registry.replace('a', 'name: a\nvfs: none\n').ok, true);
  assert.deepEqual(registry.revisions('a'), [1, 2]);
  assert.deepEqual(registry.delete('a', 'admin') !== undefined, true);
  assert.equal(registry.get('a'), null);
  assert.deepEqual(registry.revisions('a'), [1, 2]);
  assert.equal(registry.create('name: a\n').ok, true);
  assert.deepEqual(registry.revisions('a'), [1, 2, 3]);
  assert.equal((db.prepare('SELECT current_revision AS r FROM blueprints WHERE name = ?').get('a') as { r: number }).r, 3);
  closeDatabase(db);
});

test('create refuses a registered name with already_exists; replace reports created and the old hash', () => {
  const { registry } = setUp();
  const first = registry.create('name: a\n');
  assert.ok(first.ok);
  const again = registry.create('name: a\nvfs: none\n');
  assert.equal(again.ok, false);
  if (!again.ok) assert.equal(again.problem.code, 'already_exists');
  const replaced = registry.replace('a', 'name: a\nvfs: none\n');
  assert.ok(replaced.ok);
  if (replaced.ok && first.ok) {
    assert.equal(replaced.created, false);
    assert.equal(replaced.oldHash, first.blueprint.hash);
  }
  const fresh = registry.replace('b', 'name: b\n');
  assert.ok(fresh.ok && fresh.created && fresh.oldHash === null);
});

test('the stored text is kept byte for byte', () => {
  const { registry } = setUp();
  const text = '# heading comment\nname:   spaced   # trailing\n\n';
  registry.create(text);
  assert.equal(registry.stored('spaced')?.yaml, text);
});

test('PUT checks the name against the path before the server checks', () => {
  const { registry } = setUp({ volumes: [] });
  const result = registry.replace('b', 'name: a\nvfs: {mode: named, volume: missing}\n');
  assert.equal(result.ok, false);
  if (!result.ok) {
    assert.equal(result.problem.code, 'name_mismatch');
    assert.deepEqual(result.problem.diagnostic.path, ['name']);
    assert.match(result.problem.message, /'a' in the file does not match 'b'/);
  }
});

test('registration checks run in order: volumes, access, store secrets, packages', () => {
  const calls: string[] = [];
  const { registry } = setUp({
    hasSecret: (key) => (calls.push(`secret:${key}`), false),
    isPackageInstalled: (name) => (calls.push(`package:${name}`), false),
  });
  const base = 'name: x\nsecrets: {K: {store: k}}\npackages: ["@acme/a"]\n';
  const codeOf = (yaml: string) => {
    const result = registry.create(yaml);
    return result.ok ? 'ok' : result.problem.code;
  };
  assert.equal(codeOf(`${base}vfs: {mode: named, volume: nowhere}\n`), 'undeclared_volume');
  assert.equal(codeOf(`${base}vfs: {mode: named, volume: handbook, access: read_write}\n`), 'volume_access_exceeded');
  assert.deepEqual(calls, []);
  assert.equal(codeOf(`${base}vfs: {mode: named, volume: handbook, access: read_only}\n`), 'unresolved_secret');
  assert.equal(codeOf('name: x\npackages: ["@acme/a"]\n'), 'package_missing');
  assert.deepEqual(calls, ['secret:k', 'package:@acme/a']);
});

test('without a secret store a store secret is unresolved and the message says no store is configured', () => {
  const { registry } = setUp({ secretStoreEnabled: false, hasSecret: () => false });
  const result = registry.create('name: s\nsecrets: {K: {store: k}, H: {harness: {required: true}}}\n');
  assert.equal(result.ok, false);
  if (!result.ok) {
    assert.equal(result.problem.code, 'unresolved_secret');
    assert.deepEqual(result.problem.diagnostic.path, ['secrets', 'K']);
    assert.match(result.problem.message, /no secret store is configured/);
  }
  assert.equal(registry.create('name: h\nsecrets: {H: {harness: {required: true}}}\n').ok, true, 'harness secrets are not checked');
});

test('a package dependency that is missing is named with the package that imports it; grants need a rule', () => {
  const packages: Record<string, { dependencies: string[]; requires: Array<{ capability: string; filter?: string }> }> = {
    '@acme/billing': { dependencies: ['@acme/http-kit'], requires: [{ capability: 'secrets.get', filter: 'name == "BILLING_API_KEY"' }] },
    '@acme/http-kit': { dependencies: [], requires: [] },
  };
  const installed = new Set(['@acme/billing']);
  const { registry } = setUp({ isPackageInstalled: (name) => installed.has(name), packageRequirements: (name) => packages[name] ?? null });
  const missing = registry.create('name: p\npackages: ["@acme/billing"]\n');
  assert.ok(!missing.ok && missing.problem.code === 'package_missing' && /`@acme\/http-kit` \(imported by `@acme\/billing`\)/.test(missing.problem.message));
  installed.add('@acme/http-kit');
  const ungranted = registry.create('name: p\npackages: ["@acme/billing"]\n');
  assert.ok(!ungranted.ok);
  if (!ungranted.ok) {
    assert.equal(ungranted.problem.code, 'invalid_packages');
    assert.deepEqual(ungranted.problem.diagnostic.path, ['permissions', '@acme/billing']);
    assert.match(ungranted.problem.message, /requires `secrets.get` with filter `name == "BILLING_API_KEY"`/);
  }
  const granted = registry.create('name: p\npackages: ["@acme/billing"]\npermissions:\n  "@acme/billing": [{capability: secrets.get, action: deny}]\n');
  assert.equal(granted.ok, true, granted.ok ? '' : granted.problem.message);
});

test('a stored Blueprint this server cannot parse is logged, left out of the list, reserves its name and can be replaced', () => {
  const db = openDatabase(':memory:');
  db.prepare('INSERT INTO blueprint_revisions (name, revision, yaml, created_at_ms) VALUES (?, 1, ?, 0)').run('old', 'name: old\nretired_key: 1\n');
  db.prepare('INSERT INTO blueprints (name, current_revision) VALUES (?, 1)').run('old');
  const { registry, lines } = setUp({}, db);
  assert.ok(lines.some((l) => l.level === 'warn' && l.msg === 'stored Blueprint cannot be used' && l.fields.name === 'old'));
  assert.deepEqual(registry.names(), []);
  assert.equal(registry.get('old'), null);
  assert.match(registry.stored('old')?.problem ?? '', /retired_key/);
  const post = registry.create('name: old\n');
  assert.ok(!post.ok && post.problem.code === 'already_exists');
  const put = registry.replace('old', 'name: old\n');
  assert.ok(put.ok && !put.created && put.oldHash === null);
  assert.deepEqual(registry.names(), ['old']);
});

test('deleting calls every deletion listener with the name, even when one throws', () => {
  const { registry, lines } = setUp();
  registry.create('name: gone\n');
  const heard: string[] = [];
  registry.onDeleted(() => {
    throw new Error('listener broke');
  });
  registry.onDeleted((name) => heard.push(name));
  assert.ok(registry.delete('gone', 'admin'));
  assert.deepEqual(heard, ['gone']);
  assert.ok(lines.some((l) => l.level === 'error' && l.fields.error === 'listener broke'));
  assert.equal(registry.delete('gone', 'admin'), undefined);
});

test('the blueprint_dir import registers valid files, logs and skips invalid ones, and archives the directory', () => {
  const home = tempDir('svc-');
  const dir = path.join(home, 'blueprints');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'a.yaml'), 'name: first\n');
  fs.writeFileSync(path.join(dir, 'b.yml'), 'name: second\n');
  fs.writeFileSync(path.join(dir, 'c.yaml'), 'name: [broken\n');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'name: ignored\n');
  const { registry, lines } = setUp();
  registry.importDirectory(dir);
  assert.deepEqual(registry.names(), ['first', 'second']);
  assert.ok(lines.some((l) => l.level === 'warn' && l.fields.file === 'c.yaml' && l.fields.error === 'parse_error'));
  assert.equal(fs.existsSync(dir), false);
  assert.deepEqual(fs.readdirSync(path.join(home, 'archive', 'blueprints')).sort(), ['a.yaml', 'b.yml', 'c.yaml', 'notes.txt']);
  registry.importDirectory(dir);
  assert.deepEqual(registry.names(), ['first', 'second']);
});

test('the reference examples register with their server context and summarise as documented', () => {
  const { registry } = setUp();
  for (const file of ['compute-only.yaml', 'team-workspace.yaml', 'support-agent.yaml']) {
    const result = registry.create(fixture(file));
    assert.equal(result.ok, true, result.ok ? '' : `${file}: ${result.problem.message}`);
  }
  assert.equal(registry.get('minimal')?.hash, 'fab6fba239e0de2944717a4ffb054655ef65973dfa1b874ae8cea4d6cfc74e91');
  const support = blueprintSummary(registry.get('support')!);
  assert.deepEqual(support.secrets, [
    { name: 'ANTHROPIC_API_KEY', source: 'store', store_key: 'anthropic_api_key' },
    { name: 'BILLING_API_KEY', source: 'store', store_key: 'billing_api_key' },
    { name: 'GIT_TOKEN', source: 'store', store_key: 'support_git_token' },
    { name: 'LINEAR_TOKEN', source: 'harness' },
  ]);
  assert.deepEqual(support.variables, ['agentName', 'customerId']);
  assert.deepEqual(support.packages, ['@acme/billing']);
  assert.deepEqual(support.mcp_servers, ['linear']);
  assert.equal(support.default_action, 'deny');
  assert.equal(support.caller_count, 2);
  assert.equal(support.rule_count, 10);
  assert.equal(support.capability_count, 10);
  const workspace = blueprintSummary(registry.get('field-notes')!);
  assert.equal(workspace.vfs_mode, 'per_session');
  assert.equal(workspace.idle_timeout_secs, 7200);
  assert.deepEqual(workspace.auth_proxy_hosts, ['api.weather.example']);
  assert.equal(blueprintSummary(registry.get('minimal')!).default_action, 'deny');
  assert.equal(blueprintSummary(registry.get('minimal')!).caller_count, 1);
});

test('the team workspace example is refused on a server where its volume is not declared', () => {
  const { registry } = setUp({ volumes: [volume('notes', 'read_write')] });
  const result = registry.create(fixture('team-workspace.yaml'));
  assert.ok(!result.ok);
  if (!result.ok) {
    assert.equal(result.problem.code, 'undeclared_volume');
    assert.deepEqual(result.problem.diagnostic.path, ['vfs', 'mounts', '/handbook', 'volume']);
    assert.equal(result.problem.message, "volume 'handbook' is not declared on this server; declared volumes: notes");
  }
});
