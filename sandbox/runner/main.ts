// A runner child process: hosts many runs at once, each on its own warm isolate with a
// fresh context, forwards their standard-library calls to the server, and reports how
// each ended. Its main thread only dispatches messages by run id (programs run on
// isolated-vm's threads), so it keeps sending heartbeats while runs compute or wait. The
// server kills and replaces a runner that crashes or stops sending heartbeats.
import type { Engine } from './engines';
import { endRun, suspendIfIdle, type Slot } from './context';
import { Run, type RunHost } from './run';
import { Shelf } from './shelf';
import { CpuTurns } from './cpu';
import { CpuLedger } from './cpu-limit';
import type { FromRunner, ToRunner } from './protocol';
import { runSelfTestIfAsked } from './self-test';
import { closeInheritedDescriptors } from './descriptors';
import { receiveChunk } from './reply-bytes';
import { breakRunnerIfAsked } from './break-hook';
import { sendHostCall } from './args-pieces';

closeInheritedDescriptors();

const HEARTBEAT_MS = 250;

function send(message: FromRunner): void {
  if (message.type === 'host-call') sendHostCall(message, sendWhole);
  else process.send?.(message);
}

function sendWhole(message: FromRunner): void {
  process.send?.(message);
}

/** isolated-vm gave up on an isolate: report whose run it served, then exit (the server replaces this process). */
function catastrophic(engine: Engine, message: string): void {
  send({ type: 'catastrophic', message, ...(engine.owner !== null ? { runId: engine.owner } : {}) });
  process.exit(70);
}

/** The slot of each run in flight, by run id: host replies and cancellations go there. */
const slots = new Map<number, Slot>();
/** Runs whose context is still being made (no slot yet), and those of them cancelled meanwhile. */
const starting = new Set<number>();
const cancelledWhileStarting = new Set<number>();
// Arguments: the default memory limit (MB), the most runs the pool sends at once, and
// (optional) the isolates the shelf keeps prepared once this runner has run.
const runsAtOnce = Math.max(1, Number(process.argv[3]) || 1);
const shelf = new Shelf({ send }, catastrophic, () => slots.size, runsAtOnce, shelfFloorArgument(process.argv[4]));
const cpu = new CpuTurns(send);
const cpuLedger = new CpuLedger();
const host: RunHost = {
  send,
  shelf,
  cpu,
  cpuLedger,
  runsInFlight: () => slots.size,
  soleRun: runsAtOnce === 1,
  attach(runId, slot) {
    starting.delete(runId);
    const cancelled = cancelledWhileStarting.delete(runId);
    if (slot) {
      slots.set(runId, slot);
      if (cancelled) endRun(slot, 'cancelled');
    } else {
      slots.delete(runId);
      cpu.end(runId);
    }
  },
};

process.on('message', (message: ToRunner) => {
  switch (message.type) {
    case 'run':
      if (breakRunnerIfAsked(message.runId, message.code, (report, sent) => process.send?.(report, undefined, undefined, sent))) break;
      starting.add(message.runId);
      cpu.begin(message.runId, message.waitForCpu !== true);
      void new Run(message, host).execute();
      break;
    case 'cpu-grant':
      cpu.granted(message.runId);
      break;
    case 'host-reply': {
      const slot = slots.get(message.runId);
      if (!slot) return;
      if (message.grant === true) cpu.granted(message.runId);
      const resolve = slot.pendingCalls.get(message.callId);
      slot.pendingCalls.delete(message.callId);
      resolve?.(message);
      break;
    }
    case 'host-reply-bytes': {
      const slot = slots.get(message.runId);
      if (slot) receiveChunk(slot, message, () => endRun(slot, 'memory_exhausted'));
      break;
    }
    case 'clock': {
      const deadline = slots.get(message.runId)?.deadline;
      if (message.paused) deadline?.pause();
      else deadline?.resume();
      break;
    }
    case 'suspend': {
      const slot = slots.get(message.runId);
      if (slot) suspendIfIdle(slot, message.waiting);
      break;
    }
    case 'cancel': {
      const slot = slots.get(message.runId);
      if (slot) endRun(slot, 'cancelled');
      // Its context is still being made (a new isolate): it ends as soon as it has one.
      else if (starting.has(message.runId)) cancelledWhileStarting.add(message.runId);
      break;
    }
  }
});

/** The shelf's floor from the pool (a whole number the settings bounded), or its own default when absent. */
function shelfFloorArgument(raw: string | undefined): number | undefined {
  const floor = Number(raw);
  return raw !== undefined && Number.isInteger(floor) && floor >= 0 ? floor : undefined;
}

process.on('disconnect', () => process.exit(0));
// Each carries the resident size (one read of /proc/self/stat): the pool drains a runner past its memory bound.
setInterval(() => send({ type: 'heartbeat', rss: process.memoryUsage.rss() }), HEARTBEAT_MS).unref();
shelf.warm(Number(process.argv[2] ?? '50'));
void runSelfTestIfAsked();
send({ type: 'ready', rss: process.memoryUsage.rss() });
