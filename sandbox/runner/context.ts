// Context preparation: a fresh context on a warm isolate with the prelude evaluated and
// the native callbacks installed (host calls, console, limits), ready for exactly one run.
import { randomBytes } from 'node:crypto';
import ivm from 'isolated-vm';
import { collectGarbage, collectGarbageAsync, holdsGarbage, memoryInUse, NATIVE_NAMES, type Engine } from './engines';
import { ARGS_IN_PIECES_CHARS, hostCallTooLarge, MAX_HOST_CALL_ARGS_CHARS, type FromRunner, type HostReplyMessage, type RunnerOutcome } from './protocol';
import { guestReply, type IncomingBytes } from './reply-bytes';
import { JournalKeeper } from '../journal/keeper';
import { replyMessage, withRecordedFuel } from './journal-replies';
import type { StreamedEntry, StreamedHostCall } from '../journal/entries';
import { ENTRY_POINT } from '../contract';

export const MAX_CONSOLE_LINES = 10_000;
const MAX_CONSOLE_BYTES = 1024 * 1024;
/** Garbage tolerated before a run (bounds how much memory_peak may under-count). */
export const GC_SLACK_BYTES = 1024 * 1024;

/** Run-specific state the context's native callbacks reach through. */
export interface Slot {
  runId: number;
  isolate: ivm.Isolate;
  /** False once the run has ended: callbacks of an old context do nothing. */
  live: boolean;
  /** The limit that ended the run; `cpu`: it was the run's CPU time (./cpu-limit.ts). */
  limit: { kind: RunnerOutcome['kind']; fuelLeft?: number; stack?: string; cpu?: boolean } | null;
  console: string[];
  consoleBytes: number;
  consoleDropped: number;
  hostFuel: number;
  lastFuelLeft: number | null;
  /** Highest heap plus array-buffer use seen, in bytes of the isolate. */
  memoryPeak: number;
  /** The program registered a finalizer: its callback could run during a later run. */
  leftState: boolean;
  /** Host calls awaiting their reply: synchronous ones resolve the blocked isolate; asynchronous ones queue a delivery. */
  pendingCalls: Map<number, (reply: HostReplyMessage) => void>;
  /** Asynchronous calls in flight (the run loop waits while any is). */
  asyncCalls: number;
  /** The run's ceiling on asynchronous calls in flight (max_host_calls_in_flight). */
  maxAsyncCalls: number;
  /** Replies to deliver into the isolate, in arrival order (text, or text and bytes as a copy); `entry` is journalled when it is delivered. */
  deliveries: Array<{ callId: number; reply: string | ivm.Copy<unknown>; entry?: { entry: StreamedEntry; bytes: number } }>;
  /** The run's journal: records what enters the program, or answers it from a recorded one (set per attempt). */
  journal: JournalKeeper;
  /** In a replay: each asynchronous call's id by its start index (the journal names calls by start index). */
  replayCalls: Map<number, number>;
  /** Calls a replay started that the journal does not answer: sent to the host when the run goes live. */
  unsent: Map<number, Extract<FromRunner, { type: 'host-call' }>>;
  /** Bytes of large reply blobs received ahead of their reply, by call id. */
  incoming: Map<number, IncomingBytes>;
  /** The run's memory limit: a reply's bytes must fit beside what the isolate holds. */
  memoryLimitBytes: number;
  nextCallId: number;
  /** Wakes the run loop's wait when the run ends (limit, timeout, cancel). */
  wake: (() => void) | null;
  /** The program runs synchronously on this thread: a host call cannot block here. */
  syncSlice: boolean;
  /** The synchronous attempt wanted the host or ran past its slice: run it again. */
  restart: boolean;
  /** The run ended at the pool's `suspend`: it reports `suspended`, not an outcome. */
  suspended: boolean;
  /** The pool asked to suspend while the run was not yet idle (this many calls wait for people): asked again when its loop next waits. */
  suspendWanted: number | null;
  /** The guest's timers (set once the prelude has run). */
  timers: GuestTimers | null;
  /**
   * CPU time (ns) the context's native callbacks spent on this thread for the run (URL
   * parsing, console lines, random bytes): the isolate's own CPU time leaves it out, and a
   * built-in can call them in a loop that charges no fuel (./cpu-limit.ts counts both).
   */
  callbackNs: bigint;
  /** The run's time limit, which stops while a host call waits for a person (null: no limit, or not started). */
  deadline: { pause(): void; resume(): void; computing(busy: boolean): void } | null;
}

/** One of the prelude's entry points, called through the context's one entry reference (ENTRY_POINT). */
export interface EntryPoint<A extends unknown[], R> {
  applySync(receiver: undefined, args: A, options?: ivm.ReferenceApplyOptions): R;
  apply(receiver: undefined, args: A, options?: ivm.ReferenceApplyOptions): Promise<R>;
}

/** The guest's timer entry points (sandbox/prelude/web/timers.ts). */
export interface GuestTimers {
  /** The next due time, -1 (none) or -2 (main has settled); with `report`, a settled main's small report instead of -2. */
  nextTimer: EntryPoint<[report?: boolean], number | string>;
  fireTimers: EntryPoint<[now: number], void>;
}

/** Asynchronous host calls one run may have in flight at once, unless its limits say otherwise. */
export const MAX_HOST_CALLS_IN_FLIGHT = 64;

/** A context with the prelude evaluated, ready for exactly one run. */
export interface Prepared {
  engine: Engine;
  context: ivm.Context;
  run: EntryPoint<unknown[], void>;
  collect: EntryPoint<[], string>;
  timers: GuestTimers;
  /** Settles an asynchronous host call in the guest with its reply. */
  deliver: EntryPoint<[callId: number, reply: string | ivm.Copy<unknown>], void>;
  /** Host-side handles into the context: released with it, or they keep it alive. */
  handles: Array<{ release(): void }>;
  slot: Slot;
  /** Isolate heap before this context was made (earlier runs' leftovers). */
  base: number;
}

/** What a context's callbacks need from the runner process. */
export interface RunnerLink {
  send(message: FromRunner): void;
}

function newSlot(isolate: ivm.Isolate): Slot {
  return {
    runId: -1,
    isolate,
    live: false,
    limit: null,
    console: [],
    consoleBytes: 0,
    consoleDropped: 0,
    hostFuel: 0,
    lastFuelLeft: null,
    memoryPeak: 0,
    leftState: false,
    pendingCalls: new Map(),
    asyncCalls: 0,
    maxAsyncCalls: MAX_HOST_CALLS_IN_FLIGHT,
    deliveries: [],
    journal: new JournalKeeper(0, null, () => {}),
    replayCalls: new Map(),
    unsent: new Map(),
    incoming: new Map(),
    memoryLimitBytes: Infinity,
    nextCallId: 1,
    wake: null,
    syncSlice: false,
    restart: false,
    suspended: false,
    suspendWanted: null,
    timers: null,
    callbackNs: 0n,
    deadline: null,
  };
}

/** `callback` with its time on this thread added to the run's `callbackNs`. */
function timed<A extends unknown[], R>(slot: Slot, callback: (...args: A) => R): (...args: A) => R {
  return (...args: A) => {
    const started = process.hrtime.bigint();
    try {
      return callback(...args);
    } finally {
      slot.callbackNs += process.hrtime.bigint() - started;
    }
  };
}

/**
 * A host call's journal entry as it is streamed (the pool fills in the answer it sent under
 * `callId`), marked withheld when the answer holds a secret, and the bytes it counts: its
 * reply and the reply's bytes as base64.
 */
function answerEntry(call: Omit<StreamedHostCall, 'callId' | 'fuel'>, callId: number, reply: HostReplyMessage, blobBytes: number): { entry: StreamedEntry; bytes: number } {
  const entry: StreamedHostCall = { ...call, fuel: reply.fuel, callId, ...(reply.withheld ? { withheld: true as const } : {}) };
  const bytes = call.capability.length + call.request_digest.length + (reply.withheld ? 0 : reply.reply.length + Math.ceil(blobBytes / 3) * 4);
  return { entry, bytes };
}

/** A host call for the server, with the journal recorded since the run's previous message (the server holds it up to this call). */
export function withJournal(slot: Slot, message: Extract<FromRunner, { type: 'host-call' }>): FromRunner {
  const journal = slot.journal.drain();
  return journal ? { ...message, journal } : message;
}

/** Ends the run by a limit or a cancellation: the isolate goes, so nothing of the run continues. */
export function endRun(slot: Slot, kind: RunnerOutcome['kind'], fuelLeft?: number, stack?: string): void {
  if (!slot.live) return;
  if (slot.limit === null) slot.limit = { kind, fuelLeft, stack: typeof stack === 'string' ? stack : undefined };
  if (!slot.isolate.isDisposed) slot.isolate.dispose();
  slot.wake?.();
}

/**
 * Ends the run to be resumed elsewhere, when all it waits for is `waiting` calls (the ones a
 * person must answer): no reply to deliver, no replay under way, no timer. False otherwise.
 */
export function suspendIfIdle(slot: Slot, waiting: number): boolean {
  slot.suspendWanted = null;
  if (!slot.live || slot.limit !== null || slot.unsent.size > 0 || slot.asyncCalls !== waiting || waiting === 0 || slot.journal.replaying) return false;
  // Still computing, or a reply to hand over: asked again when the run's loop next waits with nothing to do.
  if (slot.wake === null || slot.deliveries.length > 0) {
    slot.suspendWanted = waiting;
    return false;
  }
  try {
    if (!slot.timers || slot.timers.nextTimer.applySync(undefined, [], { result: { copy: true } }) !== -1) return false;
  } catch {
    return false;
  }
  slot.suspended = true;
  endRun(slot, 'cancelled');
  return true;
}

/** The URL setters the guest's URL may apply here (the guest names one; nothing else is assigned). */
const URL_SETTERS = new Set(['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash']);

/**
 * The guest's URL parser: parses `input` against `base` and, when `setter` is given, applies
 * that setter with `value` (the standard's setter steps, as Node's URL implements them).
 */
function parseUrlParts(input: string, base: string | null, setter?: string, value?: string): string {
  try {
    const url = base === null ? new URL(String(input)) : new URL(String(input), String(base));
    if (setter !== undefined) {
      if (typeof setter !== 'string' || !URL_SETTERS.has(setter)) throw new TypeError('not a URL setter');
      (url as unknown as Record<string, string>)[setter] = String(value);
    }
    const { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash } = url;
    return JSON.stringify({ ok: true, parts: { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash } });
  } catch {
    return JSON.stringify({ ok: false, message: `Invalid URL: ${String(input).slice(0, 200)}` });
  }
}

export function notePeak(prepared: Prepared): void {
  const { engine, slot } = prepared;
  if (engine.isolate.isDisposed) return;
  try {
    slot.memoryPeak = Math.max(slot.memoryPeak, memoryInUse(engine.isolate));
  } catch {
    // The isolate was disposed meanwhile (a limit); the peak stays as measured.
  }
}

/** A context on this isolate, ready for exactly one run. */
export function prepareContext(engine: Engine, link: RunnerLink): Prepared {
  let base = memoryInUse(engine.isolate);
  if (holdsGarbage(engine, base, GC_SLACK_BYTES)) {
    collectGarbage(engine);
    base = memoryInUse(engine.isolate);
  }
  const parts = contextParts(engine, link, base);
  return parts.finish(engine.prelude.runSync(parts.context, { reference: true }));
}

/**
 * The same, with the collection of earlier runs' garbage and the prelude's evaluation on
 * isolated-vm's thread (this thread stays free for other runs). The context itself is
 * still made here, synchronously: the maintenance context turns V8's process-wide
 * `--expose-gc` on while it is made, and a context made on another thread in that moment
 * would get `gc` too.
 */
export async function prepareContextAsync(engine: Engine, link: RunnerLink): Promise<Prepared> {
  let base = memoryInUse(engine.isolate);
  if (holdsGarbage(engine, base, GC_SLACK_BYTES)) {
    await collectGarbageAsync(engine);
    base = memoryInUse(engine.isolate);
  }
  const parts = contextParts(engine, link, base);
  return parts.finish(await engine.prelude.run(parts.context, { reference: true }));
}

/** `point` of the context's entry function: its number goes first in every call. */
function entryPoint<A extends unknown[], R>(entry: ivm.Reference, point: number): EntryPoint<A, R> {
  return {
    applySync: (receiver, args, options) => entry.applySync(receiver, [point, ...args], options) as R,
    apply: (receiver, args, options) => entry.apply(receiver, [point, ...args], options) as Promise<R>,
  };
}

/**
 * A fresh context with the native callbacks installed; `finish` with the prelude's value (its
 * entry points) once it has run in it. `base`: the isolate's memory just before, after the
 * callers collected earlier runs' garbage when there was more than GC_SLACK_BYTES of it (done
 * off the request path: that garbage, collected during the run instead, would make its
 * memory_peak look smaller than it is). One reading serves the check and the base: nothing
 * runs in the isolate between them.
 */
function contextParts(engine: Engine, link: RunnerLink, base: number): { context: ivm.Context; finish: (entry: ivm.Reference) => Prepared } {
  const { isolate } = engine;
  const slot = newSlot(isolate);
  const context = isolate.createContextSync();
  let prepared: Prepared | null = null;

  // What every host call, blocking or not, notes as it starts: the fuel left, its id, the peak, and its place in the journal.
  const openCall = (module: string, op: string, args: string, fuelLeft: number) => {
    slot.lastFuelLeft = fuelLeft;
    const callId = slot.nextCallId++;
    if (prepared) notePeak(prepared);
    const { journal } = slot;
    const call = journal.nextCall();
    const capability = `${module}.${op}`;
    const replaying = journal.replaying;
    const digest = replaying || journal.recording ? journal.digestOf(capability, args) : '';
    return { callId, journal, call, capability, replaying, digest };
  };
  // A host call's cost in fuel: the host's own, plus a unit per 8 bytes of request, reply and the value the guest gets.
  const chargeHostFuel = (reply: { fuel: number; reply: string }, args: string, valueBytes: number) => {
    slot.hostFuel += reply.fuel + Math.ceil((args.length * 2) / 8) + Math.ceil((reply.reply.length * 2) / 8) + Math.ceil(valueBytes / 8);
  };
  // Arguments sent in pieces (./args-pieces.ts) are named by their digest: a resumed run's call is matched by it.
  const argsNamed = (args: string, digest: string) => (args.length > ARGS_IN_PIECES_CHARS && digest !== '' ? { argsDigest: digest } : {});
  const attributionOf = (caller: unknown, consumer: unknown) => (caller === undefined ? {} : { attribution: { caller: typeof caller === 'string' ? caller : null, consumer: typeof consumer === 'string' ? consumer : null } });
  const hostCall = (module: string, op: string, args: string, fuelLeft: number, caller?: unknown, consumer?: unknown) => {
    if (!slot.live) return Promise.reject(new Error('the run has ended'));
    if (args.length > MAX_HOST_CALL_ARGS_CHARS) return Promise.reject(new RangeError(hostCallTooLarge(module, op, args.length)));
    const { callId, journal, call, capability, replaying, digest } = openCall(module, op, args, fuelLeft);
    const recorded = replaying ? journal.syncAnswer(call, capability, digest) : null;
    if (replaying && !recorded) {
      endRun(slot, 'error');
      return Promise.reject(new Error('the replay diverged'));
    }
    return new Promise<string | ivm.Copy<unknown>>((resolve, reject) => {
      slot.pendingCalls.set(callId, (message) => {
        slot.deadline?.computing(true);
        const reply = recorded?.withheld ? withRecordedFuel(message, recorded.fuel) : message;
        if (reply.withheld) journal.noteWithheld(reply.reply);
        const value = guestReply(slot, reply, () => endRun(slot, 'memory_exhausted'));
        if (!value) return reject(new Error('the run has ended'));
        chargeHostFuel(reply, args, value.bytes);
        if (!replaying && journal.recording) {
          const { entry, bytes } = answerEntry({ kind: 'host_call', call, capability, request_digest: digest, sync: true }, callId, reply, value.bytes);
          journal.record(entry, bytes);
        }
        resolve(value.value);
      });
      if (recorded && !recorded.withheld) {
        const answer = slot.pendingCalls.get(callId)!;
        slot.pendingCalls.delete(callId);
        answer(replyMessage(slot.runId, callId, recorded));
        return;
      }
      // The isolate waits for the reply (perhaps a person's answer): it computes nothing meanwhile.
      slot.deadline?.computing(false);
      link.send(withJournal(slot, { type: 'host-call', runId: slot.runId, callId, call, module, op, args, fuelLeft, ...attributionOf(caller, consumer), ...argsNamed(args, digest), blocking: true }));
    });
  };
  // Starts a call and returns at once (the guest's thread is not held): the reply waits in
  // `deliveries` until the run loop hands it to the guest.
  const hostStart = (module: string, op: string, args: string, fuelLeft: number, caller?: unknown, consumer?: unknown): number | string => {
    if (!slot.live) return 'the run has ended';
    if (args.length > MAX_HOST_CALL_ARGS_CHARS) return hostCallTooLarge(module, op, args.length);
    if (slot.asyncCalls >= slot.maxAsyncCalls) return `${slot.maxAsyncCalls} host calls are already in flight in this run (max_host_calls_in_flight); await some before starting more`;
    const { callId, journal, call, capability, replaying, digest } = openCall(module, op, args, fuelLeft);
    const found = replaying ? journal.startInReplay(call, capability, digest) : null;
    if (found === 'diverged') {
      endRun(slot, 'error');
      return 'the replay diverged';
    }
    slot.asyncCalls++;
    slot.pendingCalls.set(callId, (reply) => {
      slot.asyncCalls--;
      // An answer from the journal is journalled as the event loop takes it; a live one when it is delivered.
      const live = found !== 'answered';
      if (reply.withheld) journal.noteWithheld(reply.reply);
      const value = guestReply(slot, reply, () => endRun(slot, 'memory_exhausted'));
      if (!value) return;
      chargeHostFuel(reply, args, value.bytes);
      const entry = live && journal.recording ? answerEntry({ kind: 'host_call', call, capability, request_digest: digest }, callId, reply, value.bytes) : undefined;
      slot.deliveries.push({ callId, reply: value.value, ...(entry ? { entry } : {}) });
      slot.wake?.();
    });
    const message: Extract<FromRunner, { type: 'host-call' }> = { type: 'host-call', runId: slot.runId, callId, call, module, op, args, fuelLeft, ...attributionOf(caller, consumer), ...argsNamed(args, digest) };
    if (found === 'answered') slot.replayCalls.set(call, callId);
    else if (found === 'unsent') slot.unsent.set(callId, message);
    // 'unanswered': the recorded run never had its answer; it stays in flight.
    else if (found === null) link.send(withJournal(slot, message));
    return callId;
  };
  const hostCancel = (callId: unknown) => {
    if (typeof callId !== 'number' || !slot.pendingCalls.delete(callId)) return;
    slot.incoming.delete(callId);
    slot.asyncCalls--;
    // Never sent (a replay's call the journal does not answer): nothing to cancel at the host.
    if (slot.unsent.delete(callId)) return;
    link.send({ type: 'host-cancel', runId: slot.runId, callId });
  };
  const consoleLine = (line: unknown) => {
    // The isolate's value is data: only a string is a console line.
    if (!slot.live || typeof line !== 'string') return;
    if (slot.console.length >= MAX_CONSOLE_LINES || slot.consoleBytes + line.length > MAX_CONSOLE_BYTES) {
      slot.consoleDropped++;
      return;
    }
    slot.console.push(line);
    slot.consoleBytes += line.length;
  };
  const limit = (kind: RunnerOutcome['kind'], fuelLeft?: number, stack?: string) => endRun(slot, kind, fuelLeft, stack);
  const mayBlock = () => {
    if (!slot.syncSlice) return true;
    slot.restart = true;
    return false;
  };
  const random = (count: number) => {
    const bytes = slot.journal.random(Math.max(0, Math.min(65536, Number(count) || 0)), (n) => randomBytes(n).toString('base64'));
    if (bytes === null) endRun(slot, 'error');
    return bytes ?? '';
  };
  // The program's clock (Date, performance, timers): journalled like any value from outside.
  const clock = () => {
    const value = slot.journal.clock(Date.now);
    if (value === null) endRun(slot, 'error');
    return value ?? 0;
  };

  // A blocking host call's wait is the server's work (host fuel), not this thread's: untimed.
  const callbacks: Record<(typeof NATIVE_NAMES)[number], (...args: never[]) => unknown> = { hostCall, hostStart: timed(slot, hostStart), hostCancel, console: timed(slot, consoleLine), limit, mayBlock, random: timed(slot, random), clock, url: timed(slot, parseUrlParts) };
  const mark = new ivm.Reference(() => (slot.leftState = true));
  const setup = engine.setup.runSync(context, { reference: true }) as ivm.Reference<(...args: unknown[]) => void>;
  try {
    setup.applySync(undefined, [mark, ...NATIVE_NAMES.map((name) => new ivm.Reference(callbacks[name]))]);
  } finally {
    setup.release();
  }
  const finish = (entry: ivm.Reference): Prepared => {
    const timers: GuestTimers = { nextTimer: entryPoint(entry, ENTRY_POINT.nextTimer), fireTimers: entryPoint(entry, ENTRY_POINT.fireTimers) };
    slot.timers = timers;
    prepared = { engine, context, run: entryPoint(entry, ENTRY_POINT.run), collect: entryPoint(entry, ENTRY_POINT.collect), timers, deliver: entryPoint(entry, ENTRY_POINT.deliver), handles: [entry], slot, base };
    return prepared;
  };
  return { context, finish };
}

/** Lets V8 collect a context: every host handle into it goes, then the context itself. */
export function releaseContext(prepared: Prepared): void {
  for (const handle of prepared.handles) {
    try {
      handle.release();
    } catch {
      // Already released, or the isolate is gone.
    }
  }
  prepared.handles.length = 0;
  try {
    prepared.context.release();
  } catch {
    // The isolate is gone.
  }
}
