// A checker thread is sent a declaration set's texts once (sandbox/typecheck/set-memory.ts):
// later messages name the set by its hash, and the pool and the thread keep the same sets, so
// a set the thread has let go is sent whole again and every program is checked against its own.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { declarationSet } from '../../../sandbox/typecheck/declarations';
import { DeclarationSetMemory } from '../../../sandbox/typecheck/set-memory';
import { CheckerThread } from '../../../sandbox/typecheck/thread';
import { repoRoot } from '../../harness';

/** A set declaring one module with a function of its own name: a program importing another set's function fails. */
const setNumbered = (n: number) => declarationSet([`declare module "svc:numbered" { export function only${n}(): number; }`]);

test('a set goes whole once, then by its hash alone; one let go goes whole again, and the receiving end resolves each', () => {
  const pool = new DeclarationSetMemory();
  const thread = new DeclarationSetMemory();
  const first = setNumbered(0);
  const sent = pool.send(first);
  assert.ok('modules' in sent);
  assert.deepEqual(thread.receive(sent), first);
  const again = pool.send(first);
  assert.deepEqual(again, { hash: first.hash });
  assert.deepEqual(thread.receive(again), first);
  // Twenty other sets push the first out of both ends alike.
  for (let n = 1; n <= 20; n++) thread.receive(pool.send(setNumbered(n)));
  const resent = pool.send(first);
  assert.ok('modules' in resent, 'a set both ends let go is sent whole');
  assert.deepEqual(thread.receive(resent), first);
});

test('programs against more declaration sets than a thread holds, in turn, are each checked against their own set', async () => {
  const pool = new CheckerThread(pathToFileURL(path.join(repoRoot, 'dist', 'typecheck-worker.js')), { codeCacheDirectory: null, workers: 1 });
  after(() => pool.close());
  const sets = Array.from({ length: 20 }, (_, n) => setNumbered(n));
  for (let round = 0; round < 2; round++) {
    for (const [n, set] of sets.entries()) {
      const own = await pool.ask({ source: `import { only${n} } from "svc:numbered";\nexport function main() { return only${n}(); }`, mode: 'on', set });
      assert.ok(own.ok && own.result.ok, `round ${round}, set ${n}: ${JSON.stringify(own)}`);
      const other = (n + 1) % sets.length;
      const foreign = await pool.ask({ source: `import { only${other} } from "svc:numbered";\nexport function main() { return only${other}(); }`, mode: 'on', set });
      assert.ok(foreign.ok && !foreign.result.ok, `round ${round}, set ${n} importing only${other}: ${JSON.stringify(foreign)}`);
    }
  }
});
