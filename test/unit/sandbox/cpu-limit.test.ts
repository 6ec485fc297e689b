// A run's CPU limit (sandbox/runner/cpu-limit.ts): what its fuel buys, never under the
// floor, unless the server's ceiling (max_execution_cpu) is lower; and how each end reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CpuLedger, cpuLimitMessage, cpuLimitOf, MIN_FUEL_CPU_MS, NS_PER_FUEL } from '../../../sandbox/runner/cpu-limit';

test('fuel buys NS_PER_FUEL ns a unit, never less than the floor; a lower max_execution_cpu wins, 0 or absent is off', () => {
  assert.deepEqual(cpuLimitOf({ fuel: 1e12 }), { ms: (1e12 * NS_PER_FUEL) / 1e6, kind: 'fuel_exhausted' });
  assert.deepEqual(cpuLimitOf({ fuel: 1000 }), { ms: MIN_FUEL_CPU_MS, kind: 'fuel_exhausted' });
  assert.deepEqual(cpuLimitOf({ fuel: 1e12, cpuMs: 600_000 }), { ms: 600_000, kind: 'timeout' });
  assert.deepEqual(cpuLimitOf({ fuel: 1e12, cpuMs: 0 }).kind, 'fuel_exhausted');
  // A ceiling above what the fuel buys changes nothing.
  assert.deepEqual(cpuLimitOf({ fuel: 1000, cpuMs: 5000 }), { ms: MIN_FUEL_CPU_MS, kind: 'fuel_exhausted' });
});

test('each end names its limit and setting after the stable marker of its kind', () => {
  assert.match(cpuLimitMessage({ fuel: 1000 }), /^fuel exhausted: the run used 0.25 s of CPU time, all that its budget of 1000 fuel buys \(max_execution_fuel;/);
  assert.match(cpuLimitMessage({ fuel: 1e12, cpuMs: 2000 }), /^timeout exceeded: the run used 2 s of CPU time, the server's ceiling for one run \(max_execution_cpu\)/);
});

/** A ledger on clocks the test moves: the process's CPU time (ns) and the wall clock (ms). */
function ledgerOn() {
  const clock = { processNs: 0n, ms: 0 };
  const ledger = new CpuLedger(() => clock.processNs, () => clock.ms);
  /** `ms` of wall time pass, in which the process uses `processMs` of CPU time. */
  const pass = (ms: number, processMs: number) => {
    clock.ms += ms;
    clock.processNs += BigInt(processMs) * 1_000_000n;
  };
  return { ledger, pass };
}
const MS = 1_000_000n;

test("the meter counts the isolate's CPU time since the run began plus its callbacks' time, and nothing once the isolate is gone", () => {
  const { ledger, pass } = ledgerOn();
  const isolate = { cpuTime: 5_000n * MS, isDisposed: false };
  const callbacks = { callbackNs: 0n };
  const meter = ledger.open(isolate, callbacks, { ms: 1000, kind: 'fuel_exhausted' });
  isolate.cpuTime += 600n * MS;
  pass(600, 700);
  assert.equal(meter.spent(), false);
  callbacks.callbackNs = 400n * MS;
  pass(100, 0);
  assert.equal(meter.spent(), true);
  isolate.isDisposed = true;
  pass(100, 0);
  assert.equal(meter.spent(), false);
});

test("runs whose readings outgrow the process's CPU time (wall time a loaded machine made them wait) are charged their share of it", () => {
  const { ledger, pass } = ledgerOn();
  const limit = { ms: 250, kind: 'fuel_exhausted' } as const;
  const spinner = { cpuTime: 0n, isDisposed: false };
  const starved = { cpuTime: 0n, isDisposed: false };
  const spinnerMeter = ledger.open(spinner, { callbackNs: 0n }, limit);
  const starvedMeter = ledger.open(starved, { callbackNs: 0n }, limit);
  // Both in a stretch isolated-vm reads as wall time: 300 ms each, in which the whole process used 160.
  for (let tick = 0; tick < 3; tick++) {
    spinner.cpuTime += 100n * MS;
    starved.cpuTime += 100n * MS;
    pass(100, 53);
    // Each is charged half of the process's time: neither has used 0.25 s.
    assert.equal(spinnerMeter.spent(), false);
    assert.equal(starvedMeter.spent(), false);
  }
  // The starved run's stretch ends: its reading falls to the 12 ms it used, and it leaves.
  starved.cpuTime -= 288n * MS;
  pass(50, 50);
  assert.equal(starvedMeter.spent(), false);
  starvedMeter.close();
  // Alone, the spinner is charged what it reads while the process keeps up: it ends at its limit.
  let ticks = 0;
  while (!spinnerMeter.spent()) {
    spinner.cpuTime += 50n * MS;
    pass(50, 50);
    ticks += 1;
    assert.ok(ticks < 10, 'the spinner never reached its limit');
  }
  assert.ok(ticks >= 3, `the spinner was charged more than the process used (${ticks} ticks)`);
});

test('a run is never charged more than its isolate reads, and a disposed isolate leaves the ledger', () => {
  const { ledger, pass } = ledgerOn();
  const isolate = { cpuTime: 0n, isDisposed: false };
  const meter = ledger.open(isolate, { callbackNs: 0n }, { ms: 250, kind: 'fuel_exhausted' });
  // A stretch read as 240 ms of wall time, the process fully busy: charged 240.
  isolate.cpuTime += 240n * MS;
  pass(240, 240);
  assert.equal(meter.spent(), false);
  // The stretch ends having used 100 ms of CPU time: the reading falls, and the charge with it.
  isolate.cpuTime -= 140n * MS;
  pass(50, 50);
  assert.equal(meter.spent(), false);
  isolate.cpuTime += 140n * MS;
  pass(140, 140);
  assert.equal(meter.spent(), false);
  // The ledger reads its runs at most once in 50 ms: within that, a run's charge stands.
  isolate.cpuTime += 10n * MS;
  pass(10, 10);
  assert.equal(meter.spent(), false);
  pass(50, 50);
  assert.equal(meter.spent(), true);
  isolate.isDisposed = true;
  pass(50, 0);
  assert.equal(meter.spent(), false);
});
