// CPU slots: the sequence of grants across tenants, one fact per test. A run holds a slot
// while it computes; fairness is decided at each grant, and a tenant below its share
// starts even when another tenant's runaways hold every slot (bounded over-commit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CpuSlots } from '../../../sandbox/pool/cpu-slots';

interface Run {
  tenant: string;
  name: string;
}

function scheduler(slots: number) {
  const granted: string[] = [];
  const cpu = new CpuSlots<Run>(slots, (run) => granted.push(run.name));
  const runs = new Map<string, Run>();
  const run = (name: string): Run => {
    let found = runs.get(name);
    if (!found) runs.set(name, (found = { tenant: name.split('-')[0], name }));
    return found;
  };
  return { cpu, granted, run };
}

test('free slots are granted at once; past them runs wait, and a released slot goes to the oldest waiting run', () => {
  const { cpu, granted, run } = scheduler(2);
  assert.equal(cpu.request(run('a-1')), true);
  assert.equal(cpu.request(run('a-2')), true);
  assert.equal(cpu.request(run('a-3')), false);
  assert.equal(cpu.request(run('a-4')), false);
  assert.deepEqual([cpu.computingRuns, cpu.waitingRuns], [2, 2]);
  cpu.release(run('a-1'));
  assert.deepEqual(granted, ['a-3']);
  assert.equal(cpu.request(run('a-3')), true, 'asking again while holding changes nothing');
  assert.equal(cpu.request(run('a-4')), false, 'asking again while waiting changes nothing');
  assert.deepEqual([cpu.computingRuns, cpu.waitingRuns], [2, 1]);
});

test("a tenant below its share starts at once while another tenant's runaways hold every slot; one above it waits", () => {
  const { cpu, run } = scheduler(2);
  for (const name of ['a-1', 'a-2']) assert.equal(cpu.request(run(name)), true);
  assert.equal(cpu.request(run('a-3')), false, 'a alone: its third run waits for a slot');
  // Two tenants: a share of ceil(2 / 2) = 1 each; b has none computing.
  assert.equal(cpu.request(run('b-1')), true, 'b starts past the slots (over-commit)');
  assert.equal(cpu.request(run('b-2')), false, 'b at its share waits like a');
  assert.deepEqual([cpu.computingRuns, cpu.waitingRuns], [3, 2]);
});

test('a released slot goes to the tenant with the fewest runs computing, then round-robin among equals', () => {
  const { cpu, granted, run } = scheduler(2);
  cpu.request(run('a-1'));
  cpu.request(run('a-2'));
  for (const name of ['a-3', 'a-4', 'a-5']) cpu.request(run(name));
  cpu.request(run('b-1'));
  cpu.request(run('b-2'));
  cpu.request(run('c-1'));
  cpu.request(run('c-2'));
  // Computing: a-1, a-2, b-1 and c-1 (over-commit: 4 = twice the slots). Waiting: a-3..5, b-2, c-2.
  assert.deepEqual([cpu.computingRuns, cpu.waitingRuns], [4, 5]);
  cpu.release(run('a-1'));
  assert.deepEqual(granted, [], 'a-1 leaves 3 computing, past the 2 slots; b and c are at their share (1), a above it');
  cpu.release(run('a-2'));
  // 2 computing (b-1, c-1): a has none, the fewest: a-3 goes, though it is a's third run.
  assert.deepEqual(granted, ['a-3']);
  cpu.release(run('b-1'));
  // b and a now have 0 and 1: b-2 goes first.
  assert.deepEqual(granted, ['a-3', 'b-2']);
  cpu.release(run('c-1'));
  // c has 0: c-2 goes. Computing: a-3, b-2, c-2.
  assert.deepEqual(granted, ['a-3', 'b-2', 'c-2']);
  cpu.release(run('a-3'));
  // a has 0, below its share of 1: a-4 starts past the slots; a-5 would put a above it.
  assert.deepEqual(granted, ['a-3', 'b-2', 'c-2', 'a-4']);
  cpu.release(run('b-2'));
  assert.deepEqual(granted, ['a-3', 'b-2', 'c-2', 'a-4'], 'a-4 and c-2 fill the 2 slots; a is at its share');
  cpu.release(run('c-2'));
  // a alone computes or waits now: the free slot goes to it.
  assert.deepEqual(granted, ['a-3', 'b-2', 'c-2', 'a-4', 'a-5']);
});

test('among tenants with as many runs computing, the one granted longest ago goes first', () => {
  const { cpu, granted, run } = scheduler(1);
  cpu.request(run('a-1'));
  cpu.request(run('a-2'));
  cpu.request(run('b-1'));
  // b-1 over-commits (b below its share of 1). Both hold one; nothing more may start.
  assert.equal(cpu.computingRuns, 2);
  cpu.request(run('b-2'));
  cpu.release(run('a-1'));
  cpu.release(run('b-1'));
  // a and b both have 0 computing: a was granted before b, so a goes first; then b over-commits.
  assert.deepEqual(granted, ['a-2', 'b-2']);
});

test('over-commit stops at twice the slots, however many tenants wait', () => {
  const { cpu, granted, run } = scheduler(2);
  const started = ['a-1', 'b-1', 'c-1', 'd-1', 'e-1', 'f-1'].map((name) => cpu.request(run(name)));
  assert.deepEqual(started, [true, true, true, true, false, false]);
  cpu.release(run('a-1'));
  assert.deepEqual(granted, ['e-1'], 'a slot freed: the next tenant in line, still at four');
  assert.deepEqual([cpu.computingRuns, cpu.waitingRuns], [4, 1]);
});

test('a run waiting for a slot can leave the queue (it ended); releasing a stranger changes nothing', () => {
  const { cpu, granted, run } = scheduler(1);
  cpu.request(run('a-1'));
  cpu.request(run('a-2'));
  cpu.request(run('a-3'));
  cpu.release(run('a-2'));
  cpu.release(run('z-9'));
  assert.deepEqual([cpu.computingRuns, cpu.waitingRuns], [1, 1]);
  cpu.release(run('a-1'));
  assert.deepEqual(granted, ['a-3']);
});

test("a tenant whose runs only wait on the host takes no share: the others' share stays whole", () => {
  const { cpu, run } = scheduler(2);
  cpu.request(run('a-1'));
  cpu.release(run('a-1')); // a parked: no longer computing or waiting
  cpu.request(run('b-1'));
  cpu.request(run('b-2'));
  assert.equal(cpu.request(run('b-3')), false, 'b alone is at the slots; a parked run does not let b over-commit');
  assert.deepEqual([cpu.computingRuns, cpu.waitingRuns], [2, 1]);
});
