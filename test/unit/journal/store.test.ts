// The journal store against a real SQLite database: written behind the runs, bounded by bytes
// with a per-token fair share (one token's flood never pushes out another's journals within
// its share), and dropped together with the run records retention removes.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { JournalStore, type JournalledRun } from '../../../src/journal';

const run = (executionId: string, principal: string, padding = 0): JournalledRun =>
  ({
    executionId,
    principal,
    sessionId: 's1',
    blueprint: { name: 'bp', hash: 'h' },
    code: `export function main() { return ${JSON.stringify('x'.repeat(padding))}; }`,
    variables: {},
    packages: [],
    modules: {},
    guestModules: {},
    journal: { entries: [] },
    result: { execution_id: executionId, session_id: 's1', result: 1, console: [], error: null },
    console: [],
  }) as unknown as JournalledRun;

describe('JournalStore', () => {
  test("past the byte budget the largest holder's oldest journals go; the other token keeps every one of its own", () => {
    const db = new Database(':memory:');
    let now = 1_000;
    const store = new JournalStore(db, { retentionMs: 3_600_000, maxBytes: 40_000 }, () => now++);
    for (let i = 0; i < 4; i++) store.keep(run(`b${i}`, 'bob', 1_000));
    store.flush();
    for (let i = 0; i < 60; i++) {
      store.keep(run(`a${i}`, 'alice', 1_000));
      store.flush();
    }
    for (let i = 0; i < 4; i++) assert.ok(store.get(`b${i}`), `bob's journal b${i} is kept`);
    assert.equal(store.get('a0'), null, "alice's oldest journal went");
    assert.ok(store.get('a59'), "alice's newest journal is kept");
    const bytes = (db.prepare('SELECT SUM(bytes) AS bytes FROM run_journals').get() as { bytes: number }).bytes;
    assert.ok(bytes <= 40_000, `the table holds ${bytes} bytes, within the budget`);
  });

  test('drop() forgets journals whose run records went, written or still waiting in memory; the count survives a reopen', () => {
    const db = new Database(':memory:');
    const store = new JournalStore(db, { retentionMs: 3_600_000, maxBytes: 10_000 });
    store.keep(run('r1', 'alice', 3_000));
    store.keep(run('r2', 'alice', 3_000));
    store.flush();
    store.keep(run('r3', 'alice', 3_000));
    store.drop(['r1', 'r3']);
    assert.equal(store.get('r1'), null);
    assert.equal(store.get('r3'), null);
    assert.ok(store.get('r2'));
    // A reopened store counts what is there: two more fit beside r2, a third pushes r2 out.
    const reopened = new JournalStore(db, { retentionMs: 3_600_000, maxBytes: 10_000 });
    reopened.keep(run('r4', 'alice', 3_000));
    reopened.keep(run('r5', 'alice', 3_000));
    reopened.flush();
    assert.ok(reopened.get('r2'));
    reopened.keep(run('r6', 'alice', 3_000));
    reopened.flush();
    assert.equal(reopened.get('r2'), null);
  });

  test('a run journalled again under its id (a resume) replaces its journal, and its bytes count once', () => {
    const db = new Database(':memory:');
    const store = new JournalStore(db, { retentionMs: 3_600_000, maxBytes: 10_000 });
    store.keep(run('r1', 'alice', 3_000));
    store.flush();
    store.keep({ ...run('r1', 'alice', 3_000), code: `export function main() { return ${JSON.stringify('y'.repeat(3_000))}; }` });
    store.flush();
    assert.match(store.get('r1')!.code, /yyy/, 'the newer journal is the one kept');
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM run_journals').get() as { n: number }).n, 1);
    // Counted twice, r1 would be pushed out by two more journals of the same size.
    store.keep(run('r2', 'alice', 3_000));
    store.keep(run('r3', 'alice', 3_000));
    store.flush();
    assert.ok(store.get('r1'), 'three journals fit the budget');
  });
});
