// The session lifecycle with real record files and per-session directories in a temp dir,
// a controllable clock and a collecting audit writer.
import { test, describe, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { silentLog, type AuditRecord } from '../../../src/audit';
import {
  IDEMPOTENCY_LEDGER_SQL,
  IdempotencyLedger,
  SessionDirectories,
  SessionError,
  SessionManager,
  SessionRecordStore,
  codeFingerprint,
  LAST_RUN_RESULT_BYTES,
  type SessionBlueprint,
} from '../../../src/sessions';
import { tempDir } from '../../support/temp-dirs';

function blueprint(name: string, overrides: Partial<SessionBlueprint> = {}): SessionBlueprint {
  return {
    name,
    idleTimeoutSecs: 3600,
    declarations: {
      variables: new Map([['team', { required: true }]]),
      secrets: new Map([['USER_TOKEN', { source: 'harness', required: true } as const]]),
    },
    vfs: { mode: 'per_session', cwd: '/teams/${vars.team}' },
    git: null,
    ...overrides,
  };
}

interface Fixture {
  root: string;
  clock: { now: number };
  audit: AuditRecord[];
  blueprints: Map<string, SessionBlueprint>;
  ended: string[];
  db: Database.Database;
  manager: (options?: { lastRunBytes?: number }) => SessionManager;
}

function fixture(): Fixture {
  const root = tempDir('svc-sessions-');
  const clock = { now: 1_700_000_000_000 };
  const audit: AuditRecord[] = [];
  const blueprints = new Map<string, SessionBlueprint>([['notes', blueprint('notes')]]);
  const ended: string[] = [];
  const db = new Database(':memory:');
  db.exec(IDEMPOTENCY_LEDGER_SQL);
  const manager = (options: { lastRunBytes?: number } = {}) =>
    new SessionManager({
      ...options,
      records: new SessionRecordStore(path.join(root, 'records')),
      fileAreas: new SessionDirectories(path.join(root, 'files')),
      ledger: new IdempotencyLedger({ db, generation: randomUUID(), newId: randomUUID, log: silentLog }),
      audit: { write: (record) => audit.push(record) },
      log: silentLog,
      resolveBlueprint: (name) => blueprints.get(name) ?? null,
      newId: randomUUID,
      now: () => clock.now,
      onSessionEnded: (id) => ended.push(id),
    });
  return { root, clock, audit, blueprints, ended, db, manager };
}

const harness = { name: 'harness', role: 'user' } as const;
const alice = { name: 'alice', role: 'user' } as const;
const mallory = { name: 'mallory', role: 'user' } as const;
const admin = { name: 'ops', role: 'admin' } as const;

function sessionEvents(f: Fixture) {
  return f.audit.filter((r) => r.type === 'session').map((r) => (r as { event: string }).event);
}

function refusedWith(code: string) {
  return (error: unknown) => error instanceof SessionError && error.code === code;
}

describe('SessionManager', () => {
  let f: Fixture;
  let sessions: SessionManager;
  beforeEach(() => {
    f = fixture();
    sessions = f.manager();
    sessions.recover();
  });

  const open = () => sessions.create({ blueprint: 'notes', variables: { team: 'blue' }, secrets: { USER_TOKEN: 't' }, principal: 'harness' }).sessionId;

  test('create writes the record and the per-session directory and audits created', () => {
    const id = open();
    const record = JSON.parse(fs.readFileSync(path.join(f.root, 'records', `${id}.json`), 'utf8'));
    assert.equal(record.blueprint, 'notes');
    assert.deepEqual(record.variables, { team: 'blue' });
    assert.deepEqual(record.file_area, { mode: 'per_session', cwd: '/teams/blue', mounts: {} });
    assert.equal(record.idle_timeout_secs, 3600);
    assert.equal(JSON.stringify(record).includes('"t"'), false, 'harness secrets are never written');
    assert.ok(fs.statSync(path.join(f.root, 'files', id)).isDirectory());
    assert.deepEqual(f.audit.at(-1), {
      type: 'session',
      event: 'created',
      session_id: id,
      principal: 'harness',
      blueprint: 'notes',
      vars: [{ name: 'team', value: 'blue' }],
      file_area_mode: 'per_session',
    });
    assert.equal(sessions.activeCount(), 1);
  });

  test('create refuses an unknown blueprint before looking at variables', () => {
    assert.throws(() => sessions.create({ blueprint: 'nope', variables: { bogus: 'x' }, principal: 'harness' }), refusedWith('unknown_blueprint'));
    assert.throws(() => sessions.create({ blueprint: 'notes', variables: { bogus: 'x' }, principal: 'harness' }), /variable 'bogus' is not declared/);
    assert.equal(sessions.activeCount(), 0);
    assert.deepEqual(fs.readdirSync(path.join(f.root, 'records')), []);
  });

  test('an ephemeral session gets no per-session directory', () => {
    f.blueprints.set('calc', blueprint('calc', { vfs: { mode: 'ephemeral' }, declarations: { variables: new Map(), secrets: new Map() } }));
    const { sessionId } = sessions.create({ blueprint: 'calc', principal: 'harness' });
    assert.equal(fs.existsSync(path.join(f.root, 'files', sessionId)), false);
  });

  test('prepareRun checks unknown session, then the blueprint, then required secrets', () => {
    assert.throws(() => sessions.prepareRun(randomUUID(), harness), refusedWith('unknown_session'));
    const id = open();
    assert.equal(sessions.prepareRun(id, harness).session.secrets.USER_TOKEN, 't');
    f.blueprints.delete('notes');
    assert.throws(() => sessions.prepareRun(id, harness), refusedWith('blueprint_gone'));
  });

  test('rebind replaces the secrets, validates them and audits rebound', () => {
    const id = open();
    assert.throws(() => sessions.rebind(id, { OTHER: 'x' }, harness), /invalid secrets: secret 'OTHER' is not declared/);
    assert.throws(() => sessions.rebind(id, {}, harness), /required harness secret 'USER_TOKEN' is missing or empty/);
    sessions.rebind(id, { USER_TOKEN: 'u2' }, { name: 'ops', role: 'admin' });
    assert.equal(sessions.get(id, harness)?.secrets.USER_TOKEN, 'u2');
    const rebound = f.audit.at(-1) as Record<string, unknown>;
    assert.equal(rebound.event, 'rebound');
    assert.equal(rebound.principal, 'ops');
    assert.deepEqual(rebound.old_vars, [{ name: 'team', value: 'blue' }]);
    assert.throws(() => sessions.rebind(randomUUID(), { USER_TOKEN: 'x' }, harness), refusedWith('unknown_session'));
  });

  test('delete removes record, files, ledger rows, last-run and other state, and audits deleted', async () => {
    const id = open();
    fs.writeFileSync(path.join(f.root, 'files', id, 'note.txt'), 'x');
    sessions.recordLastRun(id, { result: '1', console: ['a'], error: null });
    const ledger = new IdempotencyLedger({ db: f.db, generation: 'g', newId: randomUUID, log: silentLog });
    const run = await ledger.begin(id, 'k', codeFingerprint('x'));
    if (run.kind === 'run') run.reservation.complete(200, Buffer.from('{}'));
    assert.equal(sessions.delete(id, harness), true);
    assert.equal(fs.existsSync(path.join(f.root, 'files', id)), false);
    assert.equal(fs.existsSync(path.join(f.root, 'records', `${id}.json`)), false);
    assert.equal(f.db.prepare('SELECT count(*) FROM idempotent_requests').pluck().get(), 0);
    assert.equal(sessions.lastRun(id, harness), null);
    assert.deepEqual(f.ended, [id]);
    assert.deepEqual(f.audit.at(-1), { type: 'session', event: 'deleted', session_id: id, principal: 'harness', reason: 'disconnect' });
    assert.equal(sessions.delete(id, harness), false);
  });

  test('evictBlueprint ends only that blueprint\'s sessions, naming the blueprint', () => {
    f.blueprints.set('other', blueprint('other'));
    const a = open();
    const b = sessions.create({ blueprint: 'other', variables: { team: 'red' }, secrets: { USER_TOKEN: 't' }, principal: 'harness' }).sessionId;
    assert.equal(sessions.evictBlueprint('notes', 'admin'), 1);
    assert.equal(sessions.get(a, harness), null);
    assert.ok(sessions.get(b, harness));
    assert.deepEqual(f.audit.at(-1), { type: 'session', event: 'evicted', session_id: a, principal: 'admin', reason: 'blueprint_deleted', blueprint: 'notes' });
  });

  test('the reaper expires a session idle past the current idle_timeout, but not one with a run in flight', () => {
    const idle = open();
    const busy = open();
    const runEnded = sessions.runStarted(busy);
    f.blueprints.set('notes', blueprint('notes', { idleTimeoutSecs: 10 }));
    f.clock.now += 9_000;
    assert.equal(sessions.reap(), 0);
    f.clock.now += 2_000;
    assert.equal(sessions.reap(), 1);
    assert.equal(sessions.get(idle, harness), null);
    assert.equal(fs.existsSync(path.join(f.root, 'files', idle)), false);
    assert.deepEqual(f.audit.at(-1), { type: 'session', event: 'expired', session_id: idle, principal: 'harness', reason: 'idle_timeout' });
    runEnded();
    assert.ok(sessions.get(busy, harness), 'the end of a run counts as activity');
  });

  test('activity keeps a session open; a lookup after the timeout expires it at once', () => {
    f.blueprints.set('notes', blueprint('notes', { idleTimeoutSecs: 10 }));
    const id = open();
    f.clock.now += 8_000;
    sessions.touch(id);
    f.clock.now += 8_000;
    assert.ok(sessions.get(id, harness));
    f.clock.now += 11_000;
    assert.equal(sessions.lastRun(id, harness), null);
    assert.deepEqual(sessionEvents(f), ['created', 'expired']);
  });

  test('activity is written to the record at most once per 30 seconds, and on close', () => {
    const id = open();
    const recordFile = path.join(f.root, 'records', `${id}.json`);
    const created = f.clock.now;
    const written = () => JSON.parse(fs.readFileSync(recordFile, 'utf8')).last_activity_ms;
    f.clock.now += 10_000;
    sessions.touch(id);
    assert.equal(written(), created);
    f.clock.now += 25_000;
    sessions.touch(id);
    assert.equal(written(), created + 35_000);
    f.clock.now += 1_000;
    sessions.touch(id);
    assert.equal(written(), created + 35_000);
    sessions.close();
    assert.equal(written(), created + 36_000);
  });

  test('last-run: per open session, and for recent one-off runs', () => {
    const id = open();
    assert.equal(sessions.lastRun(id, harness), null);
    sessions.recordLastRun(id, { result: null, console: ['x'], error: null });
    assert.deepEqual(sessions.lastRun(id, harness), { result: null, console: ['x'], error: null });
    const oneOff = randomUUID();
    sessions.rememberOneOffRun(oneOff, { result: 'r', console: [], error: null }, 'harness');
    assert.equal(sessions.lastRun(oneOff, harness)?.result, 'r');
    assert.equal(sessions.get(oneOff, harness), null, 'a one-off session is not addressable');
    assert.equal(sessions.activeCount(), 1);
  });

  test('a session answers its owner and admin tokens; to another user token it does not exist', () => {
    const id = open();
    const record = JSON.parse(fs.readFileSync(path.join(f.root, 'records', `${id}.json`), 'utf8'));
    assert.equal(record.owner, 'harness', 'the owner (a token name, never a token) is persisted');
    sessions.recordLastRun(id, { result: '1', console: [], error: null });
    assert.equal(sessions.get(id, mallory), null);
    assert.equal(sessions.lastRun(id, mallory), null);
    assert.throws(() => sessions.prepareRun(id, mallory), refusedWith('unknown_session'));
    assert.throws(() => sessions.rebind(id, { USER_TOKEN: 'm' }, mallory), refusedWith('unknown_session'));
    assert.equal(sessions.delete(id, mallory), false);
    assert.equal(sessions.get(id, harness)?.secrets.USER_TOKEN, 't', 'nothing the other token did changed the session');
    assert.equal(sessions.lastRun(id, admin)?.result, '1');
    assert.equal(sessions.delete(id, admin), true);
    assert.deepEqual(f.audit.at(-1), { type: 'session', event: 'deleted', session_id: id, principal: 'ops', reason: 'disconnect' });
  });

  test('one-off last-runs answer only the token that ran them (and admin tokens)', () => {
    const oneOff = randomUUID();
    sessions.rememberOneOffRun(oneOff, { result: 'r', console: [], error: null }, 'harness');
    assert.equal(sessions.lastRun(oneOff, mallory), null);
    assert.equal(sessions.lastRun(oneOff, harness)?.result, 'r');
    assert.equal(sessions.lastRun(oneOff, admin)?.result, 'r');
  });

  test('a record written before owners existed answers admin tokens only', () => {
    const id = open();
    const file = path.join(f.root, 'records', `${id}.json`);
    const record = JSON.parse(fs.readFileSync(file, 'utf8'));
    delete record.owner;
    fs.writeFileSync(file, JSON.stringify(record));
    const restarted = f.manager();
    restarted.recover();
    assert.equal(restarted.get(id, harness), null, 'not even the token named as principal');
    assert.ok(restarted.get(id, admin));
  });

  // Each record counts its text plus a fixed overhead (256 bytes): three of 300 fit in 2,000 bytes, four do not.
  test('one-off last-runs are kept by total bytes, oldest first; a huge result is not kept, its console is', () => {
    const small = f.manager({ lastRunBytes: 2000 });
    const ids = Array.from({ length: 5 }, () => randomUUID());
    for (const id of ids) small.rememberOneOffRun(id, { result: 'x'.repeat(300), console: [], error: null }, 'harness');
    assert.deepEqual(ids.map((id) => small.lastRun(id, harness) !== null), [false, false, true, true, true]);
    const huge = randomUUID();
    sessions.rememberOneOffRun(huge, { result: 'y'.repeat(LAST_RUN_RESULT_BYTES + 1), console: ['kept'], error: null }, 'harness');
    const kept = sessions.lastRun(huge, harness)!;
    assert.equal(kept.result, null);
    assert.equal(kept.console[0], 'kept');
    assert.match(kept.console[1], /the result \(1048577 bytes\) was not kept for last-run/);
  });
});

describe('open sessions\' last-runs (red team)', () => {
  // Each record counts its text plus a fixed overhead (256 bytes): three of 300 fit in 2,000 bytes, four do not.
  test('are kept by total bytes too: many sessions with large runs cannot grow the server without bound; an ended session\'s record goes', () => {
    const f = fixture();
    const small = f.manager({ lastRunBytes: 2000 });
    small.recover();
    const ids = Array.from({ length: 5 }, () => small.create({ blueprint: 'notes', variables: { team: 'blue' }, secrets: { USER_TOKEN: 't' }, principal: 'harness' }).sessionId);
    for (const id of ids) small.recordLastRun(id, { result: 'x'.repeat(300), console: [], error: null });
    assert.deepEqual(ids.map((id) => small.lastRun(id, harness) !== null), [false, false, true, true, true]);
    assert.equal(small.lastRun(ids[4], harness)!.result, 'x'.repeat(300));
    assert.ok(small.delete(ids[4], harness));
    assert.equal(small.lastRun(ids[4], harness), null);
  });
});

describe('boot recovery', () => {
  test('found, lost, evicted and expired records, orphan sweep and ledger cleanup', async () => {
    const f = fixture();
    f.blueprints.set('gone', blueprint('gone'));
    f.blueprints.set('short', blueprint('short', { idleTimeoutSecs: 60 }));
    const first = f.manager();
    first.recover();
    const make = (name: string) => first.create({ blueprint: name, variables: { team: 'blue' }, secrets: { USER_TOKEN: 't' }, principal: 'alice' }).sessionId;
    const kept = make('notes');
    const lost = make('notes');
    const evicted = make('gone');
    const expired = make('short');
    fs.writeFileSync(path.join(f.root, 'files', kept, 'keep.txt'), 'still here');
    fs.rmSync(path.join(f.root, 'files', lost), { recursive: true });
    fs.mkdirSync(path.join(f.root, 'files', randomUUID()));
    fs.writeFileSync(path.join(f.root, 'records', 'garbage.json'), '{not json');
    fs.writeFileSync(path.join(f.root, 'records', '.tmp-file'), 'ignored');
    const ledger = new IdempotencyLedger({ db: f.db, generation: 'old', newId: randomUUID, log: silentLog });
    await ledger.begin(kept, 'k', 'f');
    await ledger.begin(lost, 'k', 'f');
    first.close();

    f.blueprints.delete('gone');
    f.clock.now += 120_000;
    f.audit.length = 0;
    const second = f.manager();
    const summary = second.recover();

    assert.deepEqual(summary, { found: 1, lost: 1, evicted: 1, expired: 1, malformed: 1, swept: 1 });
    const byId = (id: string) => f.audit.find((r) => (r as { session_id?: string }).session_id === id) as Record<string, unknown>;
    assert.deepEqual(byId(kept), { type: 'session', event: 'found', session_id: kept, principal: 'alice', blueprint: 'notes' });
    assert.deepEqual(byId(lost), { type: 'session', event: 'lost', session_id: lost, principal: 'alice', reason: 'workspace_missing' });
    assert.deepEqual(byId(evicted), { type: 'session', event: 'evicted', session_id: evicted, principal: 'alice', reason: 'blueprint_deleted', blueprint: 'gone' });
    assert.deepEqual(byId(expired), { type: 'session', event: 'expired', session_id: expired, principal: 'alice', reason: 'idle_timeout' });
    assert.deepEqual(fs.readdirSync(path.join(f.root, 'files')), [kept]);
    assert.equal(fs.readFileSync(path.join(f.root, 'files', kept, 'keep.txt'), 'utf8'), 'still here');
    assert.deepEqual(fs.readdirSync(path.join(f.root, 'records')).sort(), ['.tmp-file', `${kept}.json`, 'garbage.json'].sort());
    assert.deepEqual(f.db.prepare('SELECT session_id, state FROM idempotent_requests').all(), [{ session_id: kept, state: 'indeterminate' }]);

    assert.equal(second.activeCount(), 1);
    assert.throws(() => second.prepareRun(kept, alice), (error: unknown) => error instanceof SessionError && error.code === 'session_requires_secrets' && error.details.required?.[0] === 'USER_TOKEN');
    second.rebind(kept, { USER_TOKEN: 'again' }, alice);
    assert.equal(second.prepareRun(kept, alice).session.fileArea.cwd, '/teams/blue');
  });
});
