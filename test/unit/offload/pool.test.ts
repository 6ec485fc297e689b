// The shared worker pool (src/offload): answers, errors by name, a task past its budget or
// cancelled ends its worker without failing the others, a dying worker fails only its task.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { OffloadError, WorkerPool } from '../../../src/offload';

const file = new URL('./fixture-worker.mjs', import.meta.url);
const pools: WorkerPool[] = [];
function pool(size: number): WorkerPool {
  const made = new WorkerPool({ file, size, heapMb: 64 });
  pools.push(made);
  return made;
}
after(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

async function failure(promise: Promise<unknown>): Promise<OffloadError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OffloadError, String(error));
    return error;
  }
  assert.fail('the task answered');
}

test('a task answers with its result; a thrown error keeps its name and message', async () => {
  const workers = pool(2);
  assert.deepEqual(await workers.run('echo', { a: [1, 2], b: 'x' }), { a: [1, 2], b: 'x' });
  const thrown = await failure(workers.run('throw', 7));
  assert.equal(thrown.reason, 'failed');
  assert.equal(thrown.remoteName, 'RangeError');
  assert.equal(thrown.message, 'refused 7');
});

test('a task past its budget ends its worker; a task queued behind it and later tasks still answer', async () => {
  const workers = pool(1);
  const spinning = workers.run('spin', null, { budgetMs: 200 });
  // One worker: this one waits behind the spinning task and runs on a fresh worker.
  const behind = workers.run('echo', 'after');
  assert.equal((await failure(spinning)).reason, 'budget');
  assert.equal(await behind, 'after');
  assert.equal(await workers.run('echo', 'again'), 'again');
});

test('a cancelled task ends its worker at once; one cancelled while waiting never starts', async () => {
  const workers = pool(1);
  const running = new AbortController();
  const waiting = new AbortController();
  const spinning = workers.run('spin', null, { signal: running.signal });
  const queued = workers.run('echo', 'never', { signal: waiting.signal });
  assert.deepEqual(workers.load(), { waiting: 1, busy: 1, workers: 1 });
  waiting.abort();
  assert.equal((await failure(queued)).reason, 'aborted');
  running.abort();
  assert.equal((await failure(spinning)).reason, 'aborted');
  assert.equal(await workers.run('echo', 'next'), 'next');
  assert.equal((await failure(workers.run('echo', 'late', { signal: AbortSignal.abort() }))).reason, 'aborted');
});

test('a worker that dies fails only the task it held; tasks on other workers answer', async () => {
  const workers = pool(2);
  const slow = failure(workers.run('spin', null, { budgetMs: 60_000 }));
  const dying = workers.run('exit', null);
  assert.equal((await failure(dying)).reason, 'crashed');
  assert.equal(await workers.run('echo', 'still here'), 'still here');
  assert.equal(workers.load().busy, 1);
  await workers.close();
  assert.equal((await slow).reason, 'crashed');
});

test('tasks beyond the pool size wait in order and all answer', async () => {
  const workers = pool(2);
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => workers.run('echo', i)));
  assert.deepEqual(answers, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.ok(workers.load().workers <= 2);
});

test('tenants take turns, and one tenant never holds every worker while another\'s task waits', async () => {
  const workers = pool(2);
  // Tenant a fills the pool with tasks that never end by themselves.
  const spinning = Array.from({ length: 3 }, () => failure(workers.run('spin', null, { tenant: 'a', budgetMs: 60_000 })));
  // a holds one worker, not both: b's task is answered while a's are still spinning.
  assert.equal(await workers.run('echo', 'b answered', { tenant: 'b' }), 'b answered');
  assert.deepEqual(workers.load(), { waiting: 2, busy: 1, workers: 2 });
  await workers.close();
  for (const outcome of await Promise.all(spinning)) assert.equal(outcome.reason, 'crashed');
});
