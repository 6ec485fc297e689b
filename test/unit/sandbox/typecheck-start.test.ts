// A checker thread that does not begin a check within its start limit (a loaded machine
// loading TypeScript) is ended and the check answers a failure of the checker, not of the
// program: the message names the start, and the failure is not `budget`, which the
// service keeps for the program (its next run would go unchecked without a new try).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CheckerThread } from '../../../sandbox/typecheck/thread';
import { declarationSet } from '../../../sandbox/typecheck/declarations';

/** A worker that takes messages and never begins a check. */
const NEVER_BEGINS = new URL(`data:text/javascript,${encodeURIComponent("import { parentPort } from 'node:worker_threads'; parentPort.on('message', () => {});")}`);

test('a check whose thread never begins it fails as the checker\'s start, not as the program\'s budget', async () => {
  const thread = new CheckerThread(NEVER_BEGINS, { codeCacheDirectory: null, startLimitMs: 50, budgetMs: 600_000 });
  try {
    const reply = await thread.ask({ source: 'export function main() { return 1; }', mode: 'on', set: declarationSet([]) });
    assert.ok(!reply.ok, JSON.stringify(reply));
    assert.equal(reply.failure, 'failed');
    assert.equal(reply.message, 'the type checker did not begin its check within 0.05 s');
  } finally {
    await thread.close();
  }
});
