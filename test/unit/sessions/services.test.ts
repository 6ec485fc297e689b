// startSessionServices: builds the manager and ledger, creates the ledger table and
// recovers sessions written by an earlier instance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { silentLog, type AuditRecord } from '../../../src/audit';
import { startSessionServices, type SessionBlueprint } from '../../../src/sessions';
import { tempDir } from '../../support/temp-dirs';

const SCRATCH: SessionBlueprint = { name: 'scratch', idleTimeoutSecs: 60, declarations: { variables: new Map(), secrets: new Map() }, vfs: { mode: 'per_session' }, git: null };

test('sessions opened by one instance are found by the next, which guards with a fresh ledger table', () => {
  const root = tempDir('svc-session-services-');
  const db = new Database(path.join(root, 'svc.db'));
  const audit: AuditRecord[] = [];
  const options = {
    sessionStoreDir: path.join(root, 'sessions'),
    vfsSessionDir: path.join(root, 'vfs'),
    db,
    audit: { write: (record: AuditRecord) => audit.push(record) },
    log: silentLog,
    resolveBlueprint: (name: string) => (name === 'scratch' ? SCRATCH : null),
  };
  const first = startSessionServices(options);
  const { sessionId } = first.sessions.create({ blueprint: 'scratch', principal: 'harness' });
  first.sessions.close();
  assert.ok(db.prepare("SELECT name FROM sqlite_master WHERE name = 'idempotent_requests'").get());

  const second = startSessionServices(options);
  second.sessions.close();
  assert.equal(second.sessions.activeCount(), 1);
  assert.ok(second.ledger);
  assert.deepEqual(
    audit.map((r) => [(r as { event: string }).event, (r as { session_id: string }).session_id]),
    [
      ['created', sessionId],
      ['found', sessionId],
    ],
  );
});

test('without a database there is no ledger', () => {
  const root = tempDir('svc-session-services-');
  const services = startSessionServices({
    sessionStoreDir: path.join(root, 'sessions'),
    vfsSessionDir: path.join(root, 'vfs'),
    db: null,
    audit: { write() {} },
    log: silentLog,
    resolveBlueprint: () => null,
  });
  services.sessions.close();
  assert.equal(services.ledger, null);
});
