// The Blueprint admin API against the real server: create, replace, read, list, delete,
// the documented errors, registration checks, and the admin audit records.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../harness';

const NOTES = 'name: notes\n# a comment kept byte for byte\nvfs: per_session\ndefault: deny\n';

// The admin API and the request pre-checks share one server (the pre-checks register nothing).
let server: TestServer;
before(async () => {
  server = await startServer({
    runners: 1,
    config: {
      volumes: { handbook: { kind: 'managed-local', access: 'read_only', size_limit: '10MB' }, shared: { kind: 'managed-local', size_limit: 'unlimited' } },
    },
  });
});
after(async () => server?.stop());

describe('blueprint admin API', () => {

  test('POST registers, GET returns the stored text byte for byte, list shows the summary', async () => {
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: NOTES } });
    assert.equal(created.status, 200);
    assert.equal(created.json.name, 'notes');
    assert.match(created.json.hash, /^[0-9a-f]{64}$/);
    const read = await server.request('GET', '/v1/blueprints/notes');
    assert.deepEqual(read.json, { name: 'notes', yaml: NOTES, hash: created.json.hash });
    const list = await server.request('GET', '/v1/blueprints');
    const summary = list.json.blueprints.find((b: { name: string }) => b.name === 'notes');
    assert.equal(summary.vfs_mode, 'per_session');
    assert.equal(summary.default_action, 'deny');
    assert.equal(summary.idle_timeout_secs, 86400);
    const audit = server.audit({ type: 'admin', event: 'blueprint_created', name: 'notes' })[0];
    assert.equal(audit.new_hash, created.json.hash);
    assert.equal(audit.old_hash, 'null');
    assert.equal(audit.status, '200');
    assert.equal(audit.outcome, 'ok');
    assert.equal(audit.principal, 'SVC_SERVER_TOKEN');
    assert.equal(audit.route, '/v1/blueprints');
  });

  test('POST of a registered name is 409 already_exists', async () => {
    const again = await server.request('POST', '/v1/blueprints', { body: { yaml: NOTES } });
    assert.equal(again.status, 409);
    assert.equal(again.json.error, 'already_exists');
    assert.equal(again.json.name, 'notes');
  });

  test('PUT replaces (created false, old hash audited) or creates (created true)', async () => {
    const before = await server.request('GET', '/v1/blueprints/notes');
    const replaced = await server.request('PUT', '/v1/blueprints/notes', { body: { yaml: 'name: notes\nvfs: none\n' } });
    assert.equal(replaced.status, 200);
    assert.equal(replaced.json.created, false);
    const record = server.audit({ type: 'admin', event: 'blueprint_replaced', name: 'notes' })[0];
    assert.equal(record.old_hash, before.json.hash);
    assert.equal(record.new_hash, replaced.json.hash);
    const fresh = await server.request('PUT', '/v1/blueprints/fresh', { body: { yaml: 'name: fresh\n' } });
    assert.equal(fresh.json.created, true);
  });

  test('PUT with another name in the file is 400 name_mismatch', async () => {
    const reply = await server.request('PUT', '/v1/blueprints/notes', { body: { yaml: 'name: other\n' } });
    assert.equal(reply.status, 400);
    assert.equal(reply.json.error, 'name_mismatch');
    assert.deepEqual(reply.json.diagnostics[0].path, ['name']);
  });

  test('an invalid document is 400 with the class, the message and a diagnostic with path, line and column', async () => {
    const reply = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: bad\npermissions:\n  main:\n    - capability: fs.read\n      action: perhaps\n' } });
    assert.equal(reply.status, 400);
    assert.equal(reply.json.error, 'parse_error');
    assert.match(reply.json.message, /^blueprint parse error: /);
    assert.deepEqual(reply.json.diagnostics[0].path, ['permissions', 'main', 0, 'action']);
    assert.equal(reply.json.diagnostics[0].line, 5);
    assert.equal(reply.json.name, undefined);
    assert.equal((await server.request('GET', '/v1/blueprints/bad')).status, 404);
  });

  test('volumes: undeclared is refused, widening a read-only volume is refused, narrowing is fine', async () => {
    const undeclared = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: v1\nvfs: {mode: named, volume: nowhere}\n' } });
    assert.equal(undeclared.json.error, 'undeclared_volume');
    assert.match(undeclared.json.message, /handbook, shared/);
    const widened = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: v2\nvfs: {mode: ephemeral, mounts: {/h: {mode: named, volume: handbook, access: read_write}}}\n' } });
    assert.equal(widened.json.error, 'volume_access_exceeded');
    assert.deepEqual(widened.json.diagnostics[0].path, ['vfs', 'mounts', '/h', 'access']);
    const narrowed = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: v3\nvfs: {mode: named, volume: shared, access: read_only}\n' } });
    assert.equal(narrowed.status, 200);
  });

  test('GET /v1/volumes lists the declared volume names, sorted, to admin tokens only', async () => {
    const listed = await server.request('GET', '/v1/volumes');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.json, { volumes: ['handbook', 'shared'] });
    assert.equal((await server.request('GET', '/v1/volumes', { token: server.userToken })).status, 403);
  });

  test('a store secret without a value is unresolved_secret; a listed package is package_missing', async () => {
    const secret = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: s\nsecrets: {API_KEY: {store: api_key}}\n' } });
    assert.equal(secret.json.error, 'unresolved_secret');
    const pkg = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: p\npackages: ["@acme/billing"]\n' } });
    assert.equal(pkg.json.error, 'package_missing');
    assert.match(pkg.json.message, /@acme\/billing/);
  });

  test('DELETE removes the Blueprint (audit with old hash); unknown names are 404 not_found', async () => {
    const hash = (await server.request('GET', '/v1/blueprints/fresh')).json.hash;
    const deleted = await server.request('DELETE', '/v1/blueprints/fresh');
    assert.deepEqual(deleted.json, { name: 'fresh' });
    assert.equal(server.audit({ type: 'admin', event: 'blueprint_deleted', name: 'fresh' })[0].old_hash, hash);
    const missing = await server.request('DELETE', '/v1/blueprints/fresh');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error, 'not_found');
    assert.equal((await server.request('GET', '/v1/blueprints/nope')).json.error, 'not_found');
  });

  test('a filter on a field the capability never reports is refused as invalid_filter', async () => {
    const reply = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: f\npermissions:\n  main:\n    - {capability: fs.read, filter: \'host == "x"\', action: allow}\n' } });
    assert.equal(reply.json.error, 'invalid_filter');
    assert.deepEqual(reply.json.diagnostics[0].path, ['permissions', 'main', 0, 'filter']);
    assert.match(reply.json.message, /chunkSize, length, path/);
  });

  test('GET /v1/capabilities lists the catalogue with filter fields', async () => {
    const reply = await server.request('GET', '/v1/capabilities');
    const fs = reply.json.groups.find((g: { source: string }) => g.source === 'svc:fs');
    const read = fs.capabilities.find((c: { name: string }) => c.name === 'fs.read');
    assert.deepEqual(read.filter_fields, ['chunkSize', 'length', 'path']);
    const secrets = reply.json.groups.find((g: { source: string }) => g.source === 'svc:secrets');
    assert.ok(secrets.capabilities[0].main_denial);
  });

  test('a failed POST is audited with the name the document yielded and no hashes; the body of an invalid document has no name', async () => {
    const reply = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: half\nvfs: {mode: named}\n' } });
    assert.equal(reply.status, 400);
    assert.equal(reply.json.name, undefined);
    assert.equal(reply.json.diagnostics.length, 1);
    const record = server.audit({ type: 'admin', event: 'blueprint_created', name: 'half' })[0];
    assert.equal(record.status, '400');
    assert.equal(record.outcome, 'error');
    assert.equal(record.new_hash, undefined);
  });

  test('a 409 carries the name and no diagnostics; a registration refusal carries the file name', async () => {
    const conflict = await server.request('POST', '/v1/blueprints', { body: { yaml: NOTES } });
    assert.deepEqual(Object.keys(conflict.json).sort(), ['error', 'message', 'name']);
    assert.equal(conflict.json.message, "blueprint 'notes' is already registered");
    const refused = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: needs-volume\nvfs: {mode: named, volume: nowhere}\n' } });
    assert.equal(refused.json.name, 'needs-volume');
    assert.deepEqual(refused.json.diagnostics[0].path, ['vfs', 'volume']);
  });

  test('a PUT that fails on an unregistered name is audited as blueprint_created with status 400', async () => {
    const reply = await server.request('PUT', '/v1/blueprints/never', { body: { yaml: 'name: never\nidle_timeout: 5\n' } });
    assert.equal(reply.status, 400);
    assert.equal(reply.json.error, 'parse_error');
    assert.deepEqual(reply.json.diagnostics[0].path, ['idle_timeout']);
    const record = server.audit({ type: 'admin', event: 'blueprint_created', name: 'never' })[0];
    assert.equal(record.status, '400');
    assert.equal(record.route, '/v1/blueprints/never');
  });

  test('names in the path are percent-decoded; a name that can never be registered is 404', async () => {
    assert.equal((await server.request('GET', '/v1/blueprints/not%20a%20name')).status, 404);
    assert.equal((await server.request('GET', '/v1/blueprints/%6Eotes')).json.name, 'notes');
    const deleted = await server.request('DELETE', '/v1/blueprints/bad%2Fname');
    assert.equal(deleted.status, 404);
    assert.equal(deleted.json.error, 'not_found');
  });

  test('the list holds only usable Blueprints, sorted by name, with 64-hex hashes', async () => {
    const list = (await server.request('GET', '/v1/blueprints')).json.blueprints as Array<{ name: string; hash: string }>;
    const names = list.map((b) => b.name);
    assert.deepEqual(names, [...names].sort());
    for (const entry of list) assert.match(entry.hash, /^[0-9a-f]{64}$/);
  });

  test('a user token may not manage Blueprints', async () => {
    const reply = await server.request('POST', '/v1/blueprints', { token: server.userToken, body: { yaml: 'name: u\n' } });
    assert.equal(reply.status, 403);
  });
});

test('Blueprints in the obsolete blueprint_dir are imported once, invalid ones skipped, and the directory archived', async () => {
  const home = tempDir();
  const dir = path.join(home, 'server', 'blueprints');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'good.yaml'), 'name: imported\n');
  fs.writeFileSync(path.join(dir, 'bad.yaml'), 'name: [broken\n');
  const server = await startServer({ home });
  try {
    const list = await server.request('GET', '/v1/blueprints');
    assert.deepEqual(list.json.blueprints.map((b: { name: string }) => b.name), ['imported']);
    assert.equal(fs.existsSync(dir), false);
    assert.ok(fs.existsSync(path.join(home, 'server', 'archive', 'blueprints', 'good.yaml')));
    assert.ok(server.logs({ target: 'svc_server::blueprints', file: 'bad.yaml' }).length === 1);
  } finally {
    await server.stop();
  }
});

describe('request pre-checks', () => {
  test('415 without Content-Type: application/json, as plain text', async () => {
    const reply = await server.request('POST', '/v1/blueprints', { rawBody: '{"yaml":"name: a"}', headers: { 'content-type': 'text/plain' } });
    assert.equal(reply.status, 415);
    assert.match(reply.headers.get('content-type') ?? '', /text\/plain/);
  });

  test('400 for a body that is not JSON', async () => {
    const reply = await server.request('POST', '/v1/blueprints', { rawBody: '{"yaml": ', headers: { 'content-type': 'application/json; charset=utf-8' } });
    assert.equal(reply.status, 400);
    assert.match(reply.text, /not valid JSON/);
  });

  test('422 for JSON of the wrong shape, naming the field', async () => {
    const reply = await server.request('POST', '/v1/blueprints', { body: { yaml: 5 } });
    assert.equal(reply.status, 422);
    assert.match(reply.text, /yaml/);
    const execute = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'x' } });
    assert.equal(execute.status, 422);
    assert.match(execute.text, /code/);
  });

  test('413 for a body over 2 MiB', async () => {
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, rawBody: JSON.stringify({ blueprint: 'x', code: 'x'.repeat(3 * 1024 * 1024) }), headers: { 'content-type': 'application/json' } });
    assert.equal(reply.status, 413);
  });
});
