// The adversarial corpus (fixtures/programs/adversarial): each program ends with the
// kind named in its `// expect:` header, and the pool runs an ordinary job right after.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunnerPool } from '../../../sandbox';
import { assertHealthy, runProgram, startPool } from './runtime-harness';

const corpus = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/programs/adversarial');
const programs = fs.readdirSync(corpus).filter((name) => name.endsWith('.ts')).sort();

let pool: RunnerPool;
before(async () => {
  // One program at a time: one runner.
  pool = await startPool(1);
});
after(async () => {
  await pool.stop();
});

test('the corpus holds at least 25 programs, each with an expectation', () => {
  assert.ok(programs.length >= 25, `${programs.length} programs`);
  for (const name of programs) assert.match(fs.readFileSync(path.join(corpus, name), 'utf8'), /^\/\/ expect: /, name);
});

for (const name of programs) {
  const source = fs.readFileSync(path.join(corpus, name), 'utf8');
  const expected = /^\/\/ expect: (\S+)/.exec(source)?.[1].split('|') ?? [];
  test(`${name} ends as ${expected.join(' or ')} and the pool stays healthy`, async () => {
    // Programs meant to hit the time limit get a short one (each burns a core until it ends);
    // the others a long one, so a busy machine cannot turn a memory or stack end into a
    // timeout, and a small memory limit (Array(2e8).fill spent ~3 CPU-s reaching 50 MB).
    const limits = expected.includes('timeout') ? { timeMs: 200 } : { timeMs: 30_000, memoryMb: 16 };
    const outcome = await runProgram(pool, source, { limits });
    const kind = outcome.error?.kind ?? 'ok';
    assert.ok(expected.includes(kind), `${name}: got ${kind}: ${outcome.error?.message ?? outcome.result}`);
    if (kind !== 'ok') assert.equal(outcome.result, null);
    await assertHealthy(pool);
  });
}
