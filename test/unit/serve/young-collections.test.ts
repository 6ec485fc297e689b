// The server scavenges without V8's helper threads (src/serve/young-collections.ts), so its main
// thread never waits for a helper that has no core. V8's own trace (`--trace-gc-nvp`) reports,
// per scavenge, the time helper threads spent in it: this file runs itself as a child process
// that allocates enough young objects for many scavenges, with the setting and without it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { scavengeWithoutHelpers } from '../../../src/serve/young-collections';

const CHILD = 'SVC_TEST_SCAVENGE_CHILD';

/** Survivors across scavenges (three rounds of 200,000 objects kept), so that there is work to share: 12 rounds make 18 scavenges. */
function allocate(): void {
  const kept: object[][] = [];
  for (let round = 0; round < 12; round++) {
    kept.push(Array.from({ length: 200_000 }, (_, i) => ({ i, text: `x${i}` })));
    if (kept.length > 3) kept.shift();
  }
}

/** The helpers' milliseconds in each scavenge of a child run with (or without) the setting. */
function helperTimePerScavenge(setting: 'with' | 'without'): number[] {
  const child = spawnSync(process.execPath, ['--trace-gc-nvp', process.argv[1]!], { env: { ...process.env, [CHILD]: setting }, encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return [...child.stdout.matchAll(/background\.scavenge\.parallel=([\d.]+)/g)].map((match) => Number(match[1]));
}

if (process.env[CHILD]) {
  if (process.env[CHILD] === 'with') scavengeWithoutHelpers();
  allocate();
} else {
  test('with the setting no helper thread takes part in a scavenge; without it, helpers do', () => {
    const without = helperTimePerScavenge('without');
    assert.ok(without.some((ms) => ms > 0), `V8's helpers took part in some of ${without.length} scavenges by default`);
    const withIt = helperTimePerScavenge('with');
    assert.ok(withIt.length >= 10, `${withIt.length} scavenges`);
    assert.deepEqual(withIt.filter((ms) => ms > 0), [], 'no helper time in any scavenge');
  });
}
