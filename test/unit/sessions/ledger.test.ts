// The idempotency ledger against a real SQLite database: key rules, reserve/complete/
// release/abandon, replay bytes, conflicts, waiting duplicates, boot recovery, failures.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { silentLog } from '../../../src/audit';
import { codeFingerprint, IDEMPOTENCY_LEDGER_SQL, IdempotencyError, IdempotencyLedger, idempotencyKeyFrom } from '../../../src/sessions';

function openDb() {
  const db = new Database(':memory:');
  db.exec(IDEMPOTENCY_LEDGER_SQL);
  return db;
}

function ledgerOn(db: Database.Database, options: { generation?: string; waitMs?: number } = {}) {
  return new IdempotencyLedger({ db, generation: options.generation ?? randomUUID(), newId: randomUUID, log: silentLog, waitMs: options.waitMs });
}

async function refusalCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof IdempotencyError, String(error));
    return error.code;
  }
  assert.fail('expected a refusal');
}

const S = '11111111-1111-4111-8111-111111111111';
const A = codeFingerprint('export function main() { return 1; }');
const B = codeFingerprint('export function main() { return 2; }');

describe('idempotencyKeyFrom', () => {
  test('no header means no key', () => {
    assert.equal(idempotencyKeyFrom(['Content-Type', 'application/json']), null);
  });

  test('a printable key of 1 to 120 bytes is accepted, header name in any case', () => {
    assert.equal(idempotencyKeyFrom(['idempotency-KEY', 'a b~!']), 'a b~!');
    assert.equal(idempotencyKeyFrom(['Idempotency-Key', 'k'.repeat(120)]), 'k'.repeat(120));
  });

  for (const [label, raw] of [
    ['empty', ['Idempotency-Key', '']],
    ['121 bytes', ['Idempotency-Key', 'k'.repeat(121)]],
    ['a control byte', ['Idempotency-Key', 'a\tb']],
    ['a non-ASCII character', ['Idempotency-Key', 'caf\u00e9']],
    ['sent twice', ['Idempotency-Key', 'a', 'idempotency-key', 'a']],
  ] as const) {
    test(`a key that is ${label} is idempotency_key_invalid`, () => {
      assert.throws(
        () => idempotencyKeyFrom(raw),
        (error: unknown) => error instanceof IdempotencyError && error.code === 'idempotency_key_invalid' && error.status === 400,
      );
    });
  }
});

describe('IdempotencyLedger', () => {
  test('first use runs; after completion the same code replays the exact bytes', async () => {
    const ledger = ledgerOn(openDb());
    const first = await ledger.begin(S, 'k1', A);
    assert.equal(first.kind, 'run');
    const body = Buffer.from('{"execution_id":"e1","result":"\\u00e9"}');
    if (first.kind === 'run') first.reservation.complete(200, body);
    const again = await ledger.begin(S, 'k1', A);
    assert.equal(again.kind, 'replay');
    if (again.kind === 'replay') {
      assert.equal(again.status, 200);
      assert.ok(again.body.equals(body));
    }
  });

  test('the same key with different code is idempotency_conflict, while running and after', async () => {
    const ledger = ledgerOn(openDb());
    const first = await ledger.begin(S, 'k', A);
    assert.equal(await refusalCode(ledger.begin(S, 'k', B)), 'idempotency_conflict');
    if (first.kind === 'run') first.reservation.complete(200, Buffer.from('{}'));
    assert.equal(await refusalCode(ledger.begin(S, 'k', B)), 'idempotency_conflict');
  });

  test('a concurrent duplicate waits and gets the original response', async () => {
    const ledger = ledgerOn(openDb());
    const first = await ledger.begin(S, 'k', A);
    const waiting = ledger.begin(S, 'k', A);
    setTimeout(() => first.kind === 'run' && first.reservation.complete(200, Buffer.from('{"x":1}')), 20);
    const second = await waiting;
    assert.equal(second.kind, 'replay');
    if (second.kind === 'replay') assert.equal(second.body.toString(), '{"x":1}');
  });

  test('a duplicate still waiting at the deadline is idempotency_in_progress', async () => {
    const ledger = ledgerOn(openDb(), { waitMs: 30 });
    await ledger.begin(S, 'k', A);
    assert.equal(await refusalCode(ledger.begin(S, 'k', A)), 'idempotency_in_progress');
  });

  test('a released reservation leaves no row and a waiter runs in its place', async () => {
    const db = openDb();
    const ledger = ledgerOn(db);
    const first = await ledger.begin(S, 'k', A);
    const waiting = ledger.begin(S, 'k', A);
    if (first.kind === 'run') first.reservation.release();
    const second = await waiting;
    assert.equal(second.kind, 'run');
    const rows = db.prepare('SELECT state FROM idempotent_requests').all();
    assert.deepEqual(rows, [{ state: 'reserved' }]);
  });

  test('release deletes the row so the key may be used again, also with other code', async () => {
    const db = openDb();
    const ledger = ledgerOn(db);
    const first = await ledger.begin(S, 'k', A);
    if (first.kind === 'run') first.reservation.release();
    assert.equal(db.prepare('SELECT count(*) FROM idempotent_requests').pluck().get(), 0);
    assert.equal((await ledger.begin(S, 'k', B)).kind, 'run');
  });

  test('an abandoned run tells waiters and later requests idempotency_incomplete', async () => {
    const ledger = ledgerOn(openDb());
    const first = await ledger.begin(S, 'k', A);
    const waiting = ledger.begin(S, 'k', A);
    if (first.kind === 'run') first.reservation.abandon();
    assert.equal(await refusalCode(waiting), 'idempotency_incomplete');
    assert.equal(await refusalCode(ledger.begin(S, 'k', A)), 'idempotency_incomplete');
  });

  test('after a restart a reservation of the earlier process becomes indeterminate and is incomplete', async () => {
    const db = openDb();
    await ledgerOn(db, { generation: 'old' }).begin(S, 'k', A);
    const restarted = ledgerOn(db, { generation: 'new' });
    restarted.recoverAtBoot(new Set([S]));
    assert.deepEqual(db.prepare('SELECT state FROM idempotent_requests').all(), [{ state: 'indeterminate' }]);
    assert.equal(await refusalCode(restarted.begin(S, 'k', A)), 'idempotency_incomplete');
  });

  test('boot recovery deletes rows of sessions that did not come back; deleteSession drops a session\'s rows', async () => {
    const db = openDb();
    const ledger = ledgerOn(db);
    const other = '22222222-2222-4222-8222-222222222222';
    for (const session of [S, other]) {
      const run = await ledger.begin(session, 'k', A);
      if (run.kind === 'run') run.reservation.complete(200, Buffer.from('{}'));
    }
    ledger.recoverAtBoot(new Set([S]));
    assert.deepEqual(db.prepare('SELECT session_id FROM idempotent_requests').pluck().all(), [S]);
    ledger.deleteSession(S);
    assert.equal(db.prepare('SELECT count(*) FROM idempotent_requests').pluck().get(), 0);
  });

  test('keys are scoped per session', async () => {
    const ledger = ledgerOn(openDb());
    const first = await ledger.begin(S, 'k', A);
    if (first.kind === 'run') first.reservation.complete(200, Buffer.from('{}'));
    assert.equal((await ledger.begin('33333333-3333-4333-8333-333333333333', 'k', A)).kind, 'run');
  });

  test('an unreadable ledger is idempotency_unavailable and leaves no claim behind', async () => {
    const db = openDb();
    const ledger = ledgerOn(db);
    db.exec('DROP TABLE idempotent_requests');
    assert.equal(await refusalCode(ledger.begin(S, 'k', A)), 'idempotency_unavailable');
    db.exec(IDEMPOTENCY_LEDGER_SQL);
    assert.equal((await ledger.begin(S, 'k', A)).kind, 'run');
  });

  test('an unwritable ledger is idempotency_unavailable', async () => {
    const db = openDb();
    db.exec("CREATE TRIGGER refuse BEFORE INSERT ON idempotent_requests BEGIN SELECT RAISE(FAIL, 'disk full'); END");
    assert.equal(await refusalCode(ledgerOn(db).begin(S, 'k', A)), 'idempotency_unavailable');
  });

  test('when recording the outcome fails, waiters still get it and later requests see incomplete', async () => {
    const db = openDb();
    const ledger = ledgerOn(db);
    const first = await ledger.begin(S, 'k', A);
    const waiting = ledger.begin(S, 'k', A);
    db.exec("CREATE TRIGGER refuse BEFORE UPDATE ON idempotent_requests BEGIN SELECT RAISE(FAIL, 'disk full'); END");
    if (first.kind === 'run') first.reservation.complete(200, Buffer.from('{"y":2}'));
    const second = await waiting;
    assert.equal(second.kind === 'replay' && second.body.toString(), '{"y":2}');
    assert.equal(await refusalCode(ledger.begin(S, 'k', A)), 'idempotency_incomplete');
  });

  test('the table refuses a key over 120 bytes', () => {
    const db = openDb();
    assert.throws(() =>
      db
        .prepare("INSERT INTO idempotent_requests VALUES (?, ?, 'f', 'r', 'g', 0, 'reserved', NULL, NULL)")
        .run(S, 'k'.repeat(121)),
    );
  });
});

describe('ledger bounds', () => {
  const bounded = (db: Database.Database, bounds: { recordsPerSession: number; bytesPerSession: number; totalBytes: number }) =>
    new IdempotencyLedger({ db, generation: randomUUID(), newId: randomUUID, log: silentLog, bounds });
  const keys = (db: Database.Database) => (db.prepare('SELECT request_key FROM idempotent_requests ORDER BY rowid').pluck().all() as string[]);

  test('a run still in flight keeps its reservation however old; an abandoned one goes like any record', async () => {
    const db = openDb();
    const ledger = bounded(db, { recordsPerSession: 2, bytesPerSession: 1 << 20, totalBytes: 1 << 20 });
    const inFlight = await ledger.begin(S, 'in-flight', A);
    const abandoned = await ledger.begin(S, 'abandoned', A);
    assert.equal(inFlight.kind, 'run');
    assert.equal(abandoned.kind, 'run');
    if (abandoned.kind === 'run') abandoned.reservation.abandon();
    for (const key of ['k1', 'k2']) {
      const decision = await ledger.begin(S, key, A);
      if (decision.kind === 'run') decision.reservation.complete(200, Buffer.from(`{"k":"${key}"}`));
    }
    // Two records allowed: the in-flight reservation stays, the oldest others go.
    assert.deepEqual(keys(db), ['in-flight', 'k2']);
    assert.equal((await ledger.begin(S, 'abandoned', A)).kind, 'run', 'an evicted key counts as new');
  });

  test('the server-wide byte budget drops the oldest records of any session, and sessions that end give their bytes back', async () => {
    const db = openDb();
    const ledger = bounded(db, { recordsPerSession: 100, bytesPerSession: 1 << 20, totalBytes: 250 });
    const other = '22222222-2222-4222-8222-222222222222';
    for (const [session, key] of [[S, 'a'], [other, 'b'], [S, 'c']] as const) {
      const decision = await ledger.begin(session, key, A);
      if (decision.kind === 'run') decision.reservation.complete(200, Buffer.alloc(100, 0x20));
    }
    assert.deepEqual(keys(db), ['b', 'c']);
    ledger.deleteSession(other);
    const decision = await ledger.begin(S, 'd', A);
    if (decision.kind === 'run') decision.reservation.complete(200, Buffer.alloc(100, 0x20));
    assert.deepEqual(keys(db), ['c', 'd'], 'the ended session\'s 100 bytes were given back: nothing else went');
  });
});
