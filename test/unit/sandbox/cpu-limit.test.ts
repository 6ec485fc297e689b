// A run's CPU limit (sandbox/runner/cpu-limit.ts): what its fuel buys, never under the
// floor, unless the server's ceiling (max_execution_cpu) is lower; and how each end reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CpuMeter, cpuLimitMessage, cpuLimitOf, MIN_FUEL_CPU_MS, NS_PER_FUEL } from '../../../sandbox/runner/cpu-limit';

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

test("the meter counts the isolate's CPU time since the run began plus its callbacks' time, and nothing once the isolate is gone", () => {
  const isolate = { cpuTime: 5_000_000_000n, isDisposed: false };
  const callbacks = { callbackNs: 0n };
  const meter = new CpuMeter(isolate, callbacks, { ms: 1000, kind: 'fuel_exhausted' });
  isolate.cpuTime += 600_000_000n;
  assert.equal(meter.spent(), false);
  callbacks.callbackNs = 400_000_000n;
  assert.equal(meter.spent(), true);
  isolate.isDisposed = true;
  assert.equal(meter.spent(), false);
});
