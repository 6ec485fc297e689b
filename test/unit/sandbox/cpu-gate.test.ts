// The pool's side of CPU slots: what each runner hears. A reply to a run that computes goes
// at once; a reply to a parked run waits for a slot and carries it (`grant: true`); a run
// that asks for a slot hears `cpu-grant`; an ended run's slot goes to the next in line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CpuGate } from '../../../sandbox/pool/cpu-gate';
import type { HostReplyMessage, ToRunner } from '../../../sandbox/runner/protocol';

function gate(slots: number) {
  const sent: string[] = [];
  const cpu = new CpuGate<{ tenant: string; runId: number }>(slots, (run, message: ToRunner) => {
    sent.push(message.type === 'host-reply' ? `${run.runId}:reply ${message.callId}${message.grant ? ' +grant' : ''}` : `${run.runId}:${message.type}`);
  });
  const reply = (runId: number, callId: number): HostReplyMessage => ({ type: 'host-reply', runId, callId, reply: '{}', fuel: 0 });
  return { cpu, sent, reply };
}

test('a reply to a computing run goes at once; to a parked run it waits for the slot and carries it', () => {
  const { cpu, sent, reply } = gate(1);
  const a = { tenant: 'a', runId: 1 };
  const b = { tenant: 'a', runId: 2 };
  assert.equal(cpu.start(a), true);
  assert.equal(cpu.start(b), false, 'one slot: b waits to start');
  cpu.reply(a, reply(1, 1));
  assert.deepEqual(sent, ['1:reply 1']);
  cpu.park(a); // a blocks on a synchronous call: b may start
  assert.deepEqual(sent, ['1:reply 1', '2:cpu-grant']);
  cpu.reply(a, reply(1, 2));
  cpu.reply(a, reply(1, 3));
  assert.deepEqual(sent.length, 2, "a's replies wait for b's slot");
  assert.equal(cpu.waitingRuns, 1);
  cpu.park(b);
  assert.deepEqual(sent.slice(2), ['1:reply 2 +grant', '1:reply 3']);
});

test('a parked run that asks again hears cpu-grant once a slot frees; an ended run frees its slot or its place', () => {
  const { cpu, sent } = gate(1);
  const a = { tenant: 'a', runId: 1 };
  const b = { tenant: 'a', runId: 2 };
  const c = { tenant: 'a', runId: 3 };
  cpu.start(a);
  cpu.park(a);
  cpu.start(b);
  cpu.want(a);
  cpu.want(a);
  assert.deepEqual(sent, [], 'b holds the slot; asking twice is asking once');
  cpu.start(c);
  cpu.end(c);
  cpu.end(b);
  assert.deepEqual(sent, ['1:cpu-grant']);
  assert.deepEqual([cpu.computingRuns, cpu.waitingRuns], [1, 0]);
  cpu.end(a);
  assert.deepEqual([cpu.computingRuns, cpu.waitingRuns], [0, 0]);
});

test("a want from a run that computes (its grant crossed its request) changes nothing", () => {
  const { cpu, sent } = gate(1);
  const a = { tenant: 'a', runId: 1 };
  cpu.start(a);
  cpu.want(a);
  assert.deepEqual(sent, []);
  assert.deepEqual([cpu.computingRuns, cpu.waitingRuns], [1, 0]);
});

test('while a run is blocked on a synchronous call, replies to its asynchronous calls wait without a slot; the blocking reply brings them', () => {
  const { cpu, sent, reply } = gate(1);
  const a = { tenant: 'a', runId: 1 };
  cpu.start(a);
  cpu.park(a, true);
  cpu.reply(a, reply(1, 7));
  assert.deepEqual([sent, cpu.computingRuns, cpu.waitingRuns], [[], 0, 0], 'no slot taken for a reply the isolate cannot take');
  cpu.reply(a, reply(1, 5), true);
  assert.deepEqual(sent, ['1:reply 5 +grant', '1:reply 7']);
  assert.equal(cpu.computingRuns, 1);
});
