// The run store against a real SQLite database with a clock the test moves: the record's
// life (queued, running, waiting_for_approval, finished), who sees it, cancel, waiting for
// the end without polling, retention by time and by size with a per-token fair share, the
// bounded work per write, and boot recovery with the resume hook.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { silentLog } from '../../../src/audit';
import { prefersAsync, RECORD_OVERHEAD_BYTES, RunStore } from '../../../src/runs';

const alice = { name: 'alice', role: 'user' };
const bob = { name: 'bob', role: 'user' };
const admin = { name: 'root', role: 'admin' };

function storeOn(db = new Database(':memory:'), options: { maxBytes?: number; retentionMs?: number } = {}) {
  const clock = { now: 1_000_000 };
  const store = new RunStore({ db, log: silentLog, now: () => clock.now, sweepIntervalMs: 0, ...options });
  return { db, store, clock };
}

const start = (store: RunStore, id: string, owner = 'alice', sessionId = 's1') => store.begin({ executionId: id, owner, sessionId, blueprint: 'bp', entryPoint: 'rest' });
/** The rows written, as `insert <id> <state>` and what `trigger` (another temp trigger calling note_write) adds. */
function notedWrites(db: Database.Database, trigger: string): string[] {
  const writes: string[] = [];
  db.function('note_write', (what: unknown) => void writes.push(String(what)));
  db.exec("CREATE TEMP TRIGGER admitted AFTER INSERT ON runs BEGIN SELECT note_write('insert ' || NEW.execution_id || ' ' || NEW.state); END;");
  db.exec(trigger);
  return writes;
}
const beginBehind = (store: RunStore, id: string) => store.begin({ executionId: id, owner: 'alice', sessionId: 's1', blueprint: 'bp', entryPoint: 'rest', writeBehind: true });
const turn = () => new Promise((resolve) => setImmediate(resolve));
const result = (id: string, value = 'ok') => ({ execution_id: id, session_id: 's1', result: value, console: [], error: null });

describe('RunStore', () => {
  test('a run goes queued, running, waiting_for_approval, running, finished; the owner and admins see it, others do not', () => {
    const { store, clock } = storeOn();
    const run = start(store, 'r1');
    assert.equal(store.get('r1', alice)?.state, 'queued');
    run.setState('running');
    assert.equal(store.setState('r1', 'waiting_for_approval'), true);
    assert.equal(store.get('r1', alice)?.state, 'waiting_for_approval');
    store.setState('r1', 'running');
    clock.now += 1500;
    run.finish(result('r1', '42'));
    const record = store.get('r1', alice)!;
    assert.equal(record.state, 'finished');
    assert.equal(record.started_at, new Date(1_000_000).toISOString());
    assert.equal(record.finished_at, new Date(1_001_500).toISOString());
    assert.equal((record.result as { result: string }).result, '42');
    assert.equal(store.get('r1', bob), null);
    assert.equal(store.get('r1', admin)?.execution_id, 'r1');
    assert.equal(store.setState('r1', 'running'), false, 'a finished run keeps its state');
    run.finish(result('r1', 'again'));
    assert.equal((store.get('r1', alice)!.result as { result: string }).result, '42', 'finish counts once');
  });

  test('cancel aborts the run\'s signal with a message; a finished run answers finished; another token\'s is unknown', () => {
    const { store } = storeOn();
    const run = start(store, 'r1');
    assert.deepEqual(store.cancel('r1', bob), { kind: 'unknown' });
    assert.equal(run.signal.aborted, false);
    assert.equal(store.cancel('r1', alice).kind, 'cancelled');
    assert.equal(run.signal.aborted, true);
    assert.match(String(run.signal.reason), /POST \/v1\/runs\/r1\/cancel/);
    run.finish(result('r1'));
    assert.deepEqual(store.cancel('r1', alice), { kind: 'finished' });
  });

  test('whenFinished resolves on finish, or with the record as it is when its signal aborts', async () => {
    const { store } = storeOn();
    const run = start(store, 'r1');
    const waiting = store.whenFinished('r1', alice, new AbortController().signal);
    const gaveUp = new AbortController();
    const leaving = store.whenFinished('r1', alice, gaveUp.signal);
    gaveUp.abort();
    assert.equal((await leaving)?.state, 'queued');
    run.finish(result('r1'));
    assert.equal((await waiting)?.state, 'finished');
    assert.equal(await store.whenFinished('r1', bob, new AbortController().signal), null);
  });

  test('onFinished hears every finished run; the list is newest first, filtered, without results', () => {
    const { store } = storeOn();
    const heard: string[] = [];
    store.onFinished((record) => heard.push(record.execution_id));
    start(store, 'a1').finish(result('a1'));
    start(store, 'a2', 'alice', 's2');
    start(store, 'b1', 'bob').finish(result('b1'));
    assert.deepEqual(heard, [], 'listeners hear a run once its record is committed');
    store.commit();
    assert.deepEqual(heard, ['a1', 'b1']);
    assert.deepEqual(store.list({ limit: 50 }, alice).map((r) => r.execution_id), ['a2', 'a1']);
    assert.deepEqual(store.list({ limit: 50 }, admin).map((r) => r.execution_id), ['b1', 'a2', 'a1']);
    assert.deepEqual(store.list({ limit: 50, state: 'finished' }, alice).map((r) => r.execution_id), ['a1']);
    assert.deepEqual(store.list({ limit: 50, sessionId: 's2' }, alice).map((r) => r.execution_id), ['a2']);
    assert.deepEqual(store.list({ limit: 1 }, admin).map((r) => r.execution_id), ['b1']);
    assert.ok(store.list({ limit: 50 }, admin).every((r) => !('result' in r)));
  });

  test('finished records go after run_retention, a batch per write; unfinished ones stay', () => {
    const { store, clock } = storeOn(undefined, { retentionMs: 60_000 });
    const dropped: string[] = [];
    store.onDropped((ids) => dropped.push(...ids));
    for (let i = 0; i < 100; i++) start(store, `old${i}`).finish(result(`old${i}`));
    const live = start(store, 'live');
    clock.now += 60_001;
    assert.equal(store.get('old0', alice), null, 'an expired record is never shown');
    assert.equal(store.list({ limit: 500 }, alice).length, 1);
    start(store, 'new').finish(result('new'));
    store.commit();
    assert.ok(dropped.length > 0 && dropped.length <= 8 * 32, `a write removes a bounded number (${dropped.length})`);
    for (let i = 0; i < 10 && dropped.length < 100; i++) {
      start(store, `more${i}`);
      store.commit();
    }
    assert.equal(dropped.length, 100, 'later writes finish the job');
    assert.equal(store.get('live', alice)?.state, 'queued');
    live.finish(result('live'));
  });

  test('past max_run_store_size the writer over its fair share loses its oldest; a token within its share loses nothing', () => {
    const record = RECORD_OVERHEAD_BYTES + 200;
    const { store } = storeOn(undefined, { maxBytes: record * 20 });
    for (let i = 0; i < 5; i++) start(store, `b${i}`, 'bob').finish(result(`b${i}`));
    for (let i = 0; i < 60; i++) {
      start(store, `a${i}`, 'alice').finish(result(`a${i}`));
      // One commit per run here (a server commits once per event-loop turn).
      store.commit();
    }
    for (let i = 0; i < 5; i++) assert.ok(store.get(`b${i}`, bob), `bob's b${i} stays`);
    assert.equal(store.get('a0', alice), null);
    assert.ok(store.get('a59', alice));
    const kept = store.list({ limit: 500 }, alice).map((r) => r.execution_id);
    assert.deepEqual(kept, Array.from({ length: kept.length }, (_, i) => `a${59 - i}`), 'the newest are kept, contiguous');
    const total = [...store.bytesPerOwner().values()].reduce((a, b) => a + b, 0);
    assert.ok(total <= record * 20 + record, `within the budget (${total})`);
  });

  test('writes of one event-loop turn are committed together, and a read sees them at once', async () => {
    const { store, db } = storeOn();
    let commits = 0;
    db.function('count_commit', () => ++commits);
    db.exec("CREATE TEMP TRIGGER counted AFTER INSERT ON runs BEGIN SELECT count_commit(); END;");
    for (let i = 0; i < 10; i++) start(store, `t${i}`);
    assert.equal(commits, 0, 'nothing is written before the turn ends');
    assert.equal(store.list({ limit: 50 }, alice).length, 10, 'a read commits what waits');
    assert.equal(commits, 10);
    start(store, 'later');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(commits, 11, 'the turn\'s end commits on its own');
  });

  test('a write-behind run\'s admission waits for its finish and is written with it as one finished row; persist() and reads commit it at once', async () => {
    const { store, db } = storeOn();
    const writes = notedWrites(db, "CREATE TEMP TRIGGER finished AFTER UPDATE OF state ON runs WHEN NEW.state = 'finished' BEGIN SELECT note_write('finish ' || NEW.execution_id); END;");
    const behind = (id: string) => beginBehind(store, id);

    const short = behind('short');
    short.setState('running');
    await turn();
    assert.deepEqual(writes, [], 'a write-behind admission does not commit at the turn\'s end');
    short.finish(result('short'));
    await turn();
    assert.deepEqual(writes, ['insert short finished'], 'admission and result in the finish\'s commit, one row written once');
    const shortRecord = store.get('short', alice)!;
    assert.equal(shortRecord.state, 'finished');
    assert.equal((shortRecord.result as { result: string }).result, 'ok');
    assert.equal(shortRecord.started_at, new Date(1_000_000).toISOString());
    const shortBytes = RECORD_OVERHEAD_BYTES + 'short'.length + 's1'.length + 'bp'.length + 'alice'.length + JSON.stringify(result('short')).length;
    assert.equal((db.prepare('SELECT bytes FROM runs WHERE execution_id = ?').get('short') as { bytes: number }).bytes, shortBytes, 'its bytes: the admission\'s and the result\'s');
    assert.equal(store.bytesPerOwner().get('alice'), shortBytes);

    const reaching = behind('reaching');
    reaching.setState('running');
    reaching.persist();
    assert.deepEqual(writes.slice(1), ['insert reaching running'], 'persist() commits at once');
    assert.equal((db.prepare('SELECT state FROM runs WHERE execution_id = ?').get('reaching') as { state: string }).state, 'running');

    behind('listed');
    assert.equal(store.list({ limit: 50 }, alice)[0]?.execution_id, 'listed', 'a read commits a waiting admission');
    assert.deepEqual(writes.slice(2), ['insert listed queued']);
    reaching.finish(result('reaching'));
    await turn();
    assert.deepEqual(writes.slice(3), ['finish reaching'], 'a run whose admission was written finishes by an update');

    start(store, 'plain');
    await turn();
    assert.deepEqual(writes.slice(4), ['insert plain queued'], 'without write-behind the turn\'s end commits');
    store.close();
  });

  test('other runs\' commits leave a write-behind run\'s admission waiting for its own finish, at most the write-behind bound', async () => {
    const { store, db } = storeOn();
    const writes = notedWrites(db, "CREATE TEMP TRIGGER updated AFTER UPDATE ON runs BEGIN SELECT note_write('update ' || NEW.execution_id); END;");
    const behind = (id: string) => beginBehind(store, id);

    // Many one-off runs in flight: each finish commits in its turn while the others still run.
    const first = behind('first');
    const second = behind('second');
    first.setState('running');
    second.setState('running');
    first.finish(result('first'));
    start(store, 'plain');
    await turn();
    assert.deepEqual(writes, ['insert first finished', 'insert plain queued'], 'the turn\'s commit writes the finished run and the plain one, not the run still in flight');
    second.finish(result('second'));
    await turn();
    assert.deepEqual(writes.slice(2), ['insert second finished'], 'the run in flight is one finished row too');

    // A run in flight past the write-behind bound has its record written without its finish.
    behind('long').setState('running');
    await turn();
    assert.deepEqual(writes.slice(3), [], 'not at the turn\'s end');
    for (let waited = 0; waited < 250 && writes.length === 3; waited++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(writes.slice(3), ['insert long running']);
    store.close();
  });


  test('the list orders runs by when they began, though a write-behind run\'s row is written at its finish; seqs stay unique across a reopen', async () => {
    const db = new Database(':memory:');
    const { store } = storeOn(db);
    const older = beginBehind(store, 'older');
    const newer = beginBehind(store, 'newer');
    newer.finish(result('newer'));
    await turn();
    older.finish(result('older'));
    await turn();
    assert.deepEqual(store.list({ limit: 10 }, alice).map((run) => run.execution_id), ['newer', 'older'], 'newest first by admission');
    store.close();

    // A reopened store goes on after the newest seq ever given, a deleted one included.
    db.exec(`DELETE FROM runs WHERE execution_id = 'newer'`);
    const { store: again } = storeOn(db);
    start(again, 'after').finish(result('after'));
    assert.deepEqual(again.list({ limit: 10 }, alice).map((run) => run.execution_id), ['after', 'older']);
    const seqs = db.prepare('SELECT execution_id, seq FROM runs ORDER BY seq').all() as Array<{ execution_id: string; seq: number }>;
    assert.deepEqual(seqs.map((row) => row.execution_id), ['older', 'after']);
    assert.ok(seqs[1].seq > 2, `the deleted run's seq is not given again (got ${seqs[1].seq})`);
    again.close();
  });
  test('finished records reach onFinished listeners with the result object itself, and the stored text reads back equal', () => {
    const { store } = storeOn();
    const heard: unknown[] = [];
    store.onFinished((record) => heard.push(record.result));
    const answer = result('r1', 'value');
    start(store, 'r1').finish(answer);
    store.commit();
    assert.equal(heard[0], answer);
    assert.deepEqual(store.get('r1', alice)?.result, answer);
  });

  test('at boot an unfinished run ends with a restart error unless resume takes it; adopt hands that run back', () => {
    const db = new Database(':memory:');
    const first = storeOn(db).store;
    start(first, 'ended');
    start(first, 'resumed');
    start(first, 'done').finish(result('done'));
    first.close();
    const { store } = storeOn(db);
    const offered: string[] = [];
    assert.equal(store.recoverAtBoot((record) => (offered.push(record.execution_id), record.execution_id === 'resumed')), 1);
    assert.deepEqual(offered.sort(), ['ended', 'resumed']);
    const ended = store.get('ended', alice)!;
    assert.equal(ended.state, 'finished');
    assert.match((ended.result as { error: { message: string } }).error.message, /server restarted/);
    assert.equal(store.get('resumed', alice)?.state, 'queued');
    const handle = store.adopt('resumed')!;
    handle.setState('running');
    handle.finish(result('resumed', 'later'));
    assert.equal((store.get('resumed', alice)!.result as { result: string }).result, 'later');
    assert.equal(store.adopt('done'), null);
  });
});

describe('prefersAsync', () => {
  test('respond-async among other preferences, any case, with parameters', () => {
    assert.equal(prefersAsync(undefined), false);
    assert.equal(prefersAsync('return=minimal'), false);
    assert.equal(prefersAsync('respond-async'), true);
    assert.equal(prefersAsync('wait=10, Respond-Async'), true);
    assert.equal(prefersAsync('respond-async; foo=bar'), true);
    assert.equal(prefersAsync('respond-asynchronously'), false);
  });
});
