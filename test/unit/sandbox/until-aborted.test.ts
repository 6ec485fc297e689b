// untilAborted (sandbox/until-aborted.ts): the MCP client's calls and a run's type check stop
// waiting when their signal aborts; the work goes on, and its later failure is never unhandled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { untilAborted } from '../../../sandbox/until-aborted';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Rejections nobody handled while `body` ran and for a turn after. */
async function unhandledDuring(body: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => seen.push(reason);
  process.on('unhandledRejection', listener);
  try {
    await body();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('unhandledRejection', listener);
  }
  return seen;
}

test('the work\'s value or failure when the signal never aborts', async () => {
  const signal = new AbortController().signal;
  assert.equal(await untilAborted(Promise.resolve(7), signal), 7);
  await assert.rejects(untilAborted(Promise.reject(new Error('failed')), signal), /failed/);
});

test('an abort while the work waits rejects with the signal\'s reason; the work\'s later failure is handled', async () => {
  const work = deferred<number>();
  const controller = new AbortController();
  const unhandled = await unhandledDuring(async () => {
    const waiting = untilAborted(work.promise, controller.signal);
    controller.abort(new Error('stopped'));
    await assert.rejects(waiting, /stopped/);
    work.reject(new Error('late failure'));
  });
  assert.deepEqual(unhandled, []);
});

test('a signal aborted before rejects at once with the given reason; the work\'s later failure is handled', async () => {
  const work = deferred<number>();
  const controller = new AbortController();
  controller.abort();
  const unhandled = await unhandledDuring(async () => {
    await assert.rejects(untilAborted(work.promise, controller.signal, () => new Error('aborted')), /^Error: aborted$/);
    work.reject(new Error('late failure'));
  });
  assert.deepEqual(unhandled, []);
});
