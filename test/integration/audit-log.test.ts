// The audit trail and server log as written by the real process: logfmt lines, fixed
// header order then alphabetical fields, server started/stopped, separate files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parseLogfmt } from '../../src/audit';
import { startServer, tempDir } from '../harness';

test('audit lines parse as logfmt with the header first and the rest alphabetical; started then stopped', async () => {
  const server = await startServer({ runners: 1 });
  await server.request('GET', '/v1/status', { token: null });
  assert.equal(await server.stop('SIGTERM'), 0);
  const auditLines = server.lines().filter((l) => l.includes('stream=audit'));
  assert.ok(auditLines.length >= 3);
  for (const line of auditLines) {
    const keys = parseLogfmt(line).map(([k]) => k);
    assert.deepEqual(keys.slice(0, 5), ['ts', 'level', 'stream', 'target', 'msg']);
    // Top-level field names are in byte order (nested ones follow their parent).
    const topLevel = [...new Set(keys.slice(5).map((k) => k.split('.')[0]))];
    assert.deepEqual(topLevel, [...topLevel].sort(), `fields sorted in ${line}`);
    const record = Object.fromEntries(parseLogfmt(line));
    assert.equal(record.schema, 'svc.audit/1');
    assert.equal(record.target, 'svc_server::audit');
    assert.match(record.event_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.match(record.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }
  const servers = server.audit({ type: 'server' });
  assert.deepEqual(servers.map((r) => r.event), ['started', 'stopped']);
  assert.match(servers[0].settings_hash, /^[0-9a-f]{64}$/);
  assert.match(servers[0].version, /^\d+\.\d+\.\d+/);
  assert.equal(servers[0].msg, 'server');
});

test('logging.file and logging.audit.file receive the log and the audit records', async () => {
  const dir = tempDir();
  const logFile = path.join(dir, 'svc.log');
  const auditFile = path.join(dir, 'audit.log');
  const server = await startServer({ runners: 1, config: { logging: { audit: { file: auditFile } } }, env: { SVC_LOG_FILE: logFile } }).catch((e) => {
    throw e;
  });
  await server.stop();
  const log = fs.readFileSync(logFile, 'utf8');
  const audit = fs.readFileSync(auditFile, 'utf8');
  assert.match(log, /msg="svc-server listening"/);
  assert.ok(!log.includes('stream=audit'));
  assert.match(audit, /type=server/);
  assert.ok(!audit.includes('stream=log'));
});
