// A checker thread whose heap after a full collection passes its bound is replaced
// (sandbox/typecheck/thread.ts): the replacement makes the warm checkers of the recent
// declaration sets before it takes checks, so no check waits for a cold checker, and
// another tenant's checks go on answering correctly while one tenant floods new programs.
// The bound is set below what any thread holds, so every thread is replaced as soon as it
// has checked its few batches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { declarationSet } from '../../../sandbox/typecheck/declarations';
import { CheckerThread } from '../../../sandbox/typecheck/thread';
import { hostModules } from '../../../src/stdlib';
import { repoRoot } from '../../harness';

const set = declarationSet([...hostModules().values()].map((m) => m.declarations));

test('threads past their heap bound are replaced by warmed ones while two tenants check, one flooding', async () => {
  let cold = 0;
  const thread = new CheckerThread(pathToFileURL(path.join(repoRoot, 'dist', 'typecheck-worker.js')), {
    codeCacheDirectory: null,
    workers: 2,
    replaceAtBytes: 1,
    replaceAfterBatches: 3,
    onCold: () => cold++,
  });
  try {
    // The flood: new programs, one after another as each answers, so each is its own batch,
    // until two replacements have taken over (and a few more after that).
    let after = 0;
    const flood = (async () => {
      for (let i = 0; after < 8; i++) {
        assert.ok(i < 5000, 'no replacement took over');
        if (thread.retired >= 2) after++;
        const reply = await thread.ask({ source: `export function main(): number { const n${i}: number = ${i}; return n${i}; }`, mode: 'on', set }, 'flood');
        assert.ok(reply.ok && reply.result.ok, JSON.stringify(reply));
      }
    })();
    // The other tenant's programs, every other one with a blocking error its answer must name.
    for (let i = 0; i < 12 || thread.retired < 2; i++) {
      const source = i % 2 ? `import { readText } from "svc:fs";\nexport function main() { return readText(${i}); }` : `import { readText } from "svc:fs";\nexport function main() { return readText("/n${i}.txt"); }`;
      const reply = await thread.ask({ source, mode: 'on', set }, 'other');
      assert.ok(reply.ok, JSON.stringify(reply));
      if (i % 2) assert.ok(!reply.result.ok && /Argument of type 'number'/.test(reply.result.diagnostics[0].message), JSON.stringify(reply.result));
      else assert.equal(reply.result.ok, true, JSON.stringify(reply.result));
    }
    await flood;
    assert.ok(thread.retired >= 2, `only ${thread.retired} threads replaced`);
    // Two threads started by checks, each making the set's checker with its first batch; every replacement was warmed first.
    assert.ok(cold <= 4, `${cold} checks waited for a cold checker with ${thread.retired} replacements`);
  } finally {
    await thread.close();
  }
});
