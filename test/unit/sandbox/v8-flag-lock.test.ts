// V8's flags are one set per process: a checker thread turns natives syntax on for one parse
// at its start (typecheck/factories.ts), and another thread turning it off meanwhile failed
// that parse, ended the thread and let its program run unchecked (typecheck-lanes: three
// checker threads starting together). Every turn is taken under the process's flag lock.
// Proven by order: while this thread holds the lock, a new checker thread waits for it and
// answers no check; once it is let go, the check answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { CheckerThread } from '../../../sandbox/typecheck/thread';
import { declarationSet } from '../../../sandbox/typecheck/declarations';
import { processFlagLock, V8FlagLock } from '../../../sandbox/v8-flags';
import { repoRoot } from '../../harness';
import { eventually } from '../../support/wait';

test("a checker thread's start turns V8 flags only under the process's flag lock, and checks once it has it", async () => {
  const lock = processFlagLock();
  const thread = new CheckerThread(pathToFileURL(path.join(repoRoot, 'dist', 'typecheck-worker.js')), { codeCacheDirectory: null });
  let answered = false;
  lock.acquire();
  const reply = thread.ask({ source: 'export function main() { return missingName; }', mode: 'on', set: declarationSet([]) });
  try {
    void reply.then(() => (answered = true));
    await eventually('the new checker thread to wait for the flag lock', () => lock.contended);
    assert.equal(answered, false, 'the check answered while another thread held the flags');
  } finally {
    lock.release();
  }
  const answer = await reply;
  await thread.close();
  assert.ok(answer.ok && !answer.result.ok, JSON.stringify(answer));
  assert.match(answer.result.diagnostics[0].message, /Cannot find name 'missingName'/);
});

test('a flag is on only for the work under the lock, and off again when the work throws', () => {
  const lock = new V8FlagLock();
  // A new source each time: V8 would answer a source it compiled before from its cache, unparsed.
  let parses = 0;
  const natives = () => vm.runInThisContext(`(function () { return %IsBeingInterpreted(); }) // ${parses++}`);
  assert.equal(typeof lock.withFlag('allow-natives-syntax', natives), 'function');
  assert.throws(natives, SyntaxError);
  assert.throws(() => lock.withFlag('allow-natives-syntax', () => {
    throw new RangeError('work failed');
  }), RangeError);
  assert.throws(natives, SyntaxError);
  // Let go after the failure: the next turn takes it without waiting.
  assert.equal(lock.withFlag('allow-natives-syntax', () => 1), 1);
});
