// The namespaces programs and Packages import (`svc:fs`, `svc:http/async`, ...): each
// module's operations as host calls, built by its trusted guest factory where it has one,
// and its asynchronous form replaying the synchronous one. Each principal gets its own.
import { primordialTable } from 'svc-build:primordial-table';
import { ArrayPrototypePush, FunctionPrototypeCall, ObjectCreate, ObjectDefineProperty, ObjectFreeze, ObjectKeys, ObjectPrototypeHasOwnProperty, onFirstUse, own, PromiseCtor, PromisePrototypeThen, ReflectApply, SafeMap, StringPrototypeSlice } from './primordials';
import { utf8Decode, utf8Encode } from './encoding';
import { materialize } from './lazy-group';
import { urlGroup } from './web/url-group';
import { renderValue } from './render';
import { encodeValue } from './wire';
import { randomBytes, randomUUID } from './random';
import { harden } from './packages';
import { attributesCalls, hostCall, hostCallAsync } from './host-calls';
import type { StartedCall } from './web';
import type { Meter } from './meter';

/** The suffix of a module's asynchronous form (`svc:http/async`): same operations, promises instead of values. */
const ASYNC_SUFFIX = '/async';
/** Thrown inside a replay when the namespace function needs a host reply not yet received. */
const NEEDS_REPLY = ObjectFreeze({ needsReply: true });

interface Replay {
  replies: Array<{ ok: boolean; value: unknown }>;
  index: number;
  needed: { op: string; args: unknown[] } | null;
}

function isAsyncForm(module: string): boolean {
  return module.length > ASYNC_SUFFIX.length && StringPrototypeSlice(module, module.length - ASYNC_SUFFIX.length) === ASYNC_SUFFIX;
}

/**
 * The namespace of a module's asynchronous form. Its functions are the synchronous form's
 * (the same guest factory, so the same argument handling and result objects), replayed:
 * each call of a function runs it with the replies received so far; when it needs one
 * more, that host call starts asynchronously (the same operation of the same module, so
 * the same gate, record, fuel and audit) and the function runs again once the reply is in.
 * Guest factories are trusted, unmetered and deterministic, so a replay repeats exactly.
 */
function asyncNamespaceOf(meter: Meter, module: string, functions: readonly string[], factory: GuestFactory | undefined, owner: string | null): Record<string, unknown> {
  const base = StringPrototypeSlice(module, 0, module.length - ASYNC_SUFFIX.length);
  let replay: Replay | null = null;
  const callWith = (op: string, args: unknown[]): unknown => {
    const current = replay;
    if (current === null) throw new Error(`${module}: its functions return promises; call them, then await the result`);
    if (current.index < current.replies.length) {
      const reply = current.replies[current.index++];
      if (reply.ok) return reply.value;
      throw reply.value;
    }
    current.needed = { op, args };
    throw NEEDS_REPLY;
  };
  const call = (op: string, ...args: unknown[]): unknown => callWith(op, args);
  const raw = ObjectCreate(null) as Record<string, unknown>;
  for (let i = 0; i < functions.length; i++) {
    const op = functions[i];
    if (typeof op === 'string') ObjectDefineProperty(raw, op, { value: (...args: unknown[]) => callWith(op, args), enumerable: true });
  }
  const sync = (factory === undefined ? raw : FunctionPrototypeCall(factory, undefined, call, guestPrimordials(), ObjectFreeze(raw))) as Record<string, unknown>;
  const run = (fn: (...args: unknown[]) => unknown, args: unknown[]): Promise<unknown> =>
    new PromiseCtor<unknown>((resolve, reject) => {
      const replies: Replay['replies'] = [];
      const step = (): void => {
        const state: Replay = { replies, index: 0, needed: null };
        replay = state;
        let value: unknown;
        let failed = false;
        try {
          value = ReflectApply(fn, undefined, args);
        } catch (error) {
          failed = true;
          value = error;
        }
        replay = null;
        const needed = state.needed as Replay['needed'];
        if (needed === null) {
          if (failed) reject(value);
          else resolve(value);
          return;
        }
        let started: StartedCall;
        try {
          started = hostCallAsync(meter, base, needed.op, needed.args, owner);
        } catch (error) {
          reject(error);
          return;
        }
        PromisePrototypeThen(
          started.promise,
          (reply) => {
            ArrayPrototypePush(replies, { ok: true, value: reply });
            step();
          },
          (error) => {
            ArrayPrototypePush(replies, { ok: false, value: error });
            step();
          },
        );
      };
      step();
    });
  const namespace = ObjectCreate(null) as Record<string, unknown>;
  const names = ObjectKeys(sync);
  for (let i = 0; i < names.length; i++) {
    const member = sync[names[i]];
    const value = typeof member === 'function' ? (...args: unknown[]) => run(member as (...args: unknown[]) => unknown, args) : member;
    ObjectDefineProperty(namespace, names[i], { value, enumerable: true });
  }
  return ObjectFreeze(namespace);
}

/** The module's operations as plain functions (frozen, no prototype). */
function namespaceOf(meter: Meter, module: string, functions: readonly string[], owner: string | null): Record<string, unknown> {
  const namespace = ObjectCreate(null) as Record<string, unknown>;
  for (let i = 0; i < functions.length; i++) {
    const op = functions[i];
    if (typeof op !== 'string') continue;
    ObjectDefineProperty(namespace, op, { value: (...args: unknown[]) => hostCall(meter, module, op, args, owner), enumerable: true });
  }
  return ObjectFreeze(namespace);
}

/**
 * What guest factories receive as their second argument: every primordial plus the
 * trusted helpers they need (UTF-8, randomness). Frozen, no prototype.
 */
let guestPrimordialsTable: Readonly<Record<string, unknown>> | undefined;
/** Built on first use: most runs load no module with guest-side code. */
function guestPrimordials(): Readonly<Record<string, unknown>> {
  if (guestPrimordialsTable !== undefined) return guestPrimordialsTable;
  const table = ObjectCreate(null) as Record<string, unknown>;
  const sources = [primordialTable(), { utf8Encode, utf8Decode, randomBytes, randomUUID, renderValue, encodeJson: encodeValue }] as Record<string, unknown>[];
  for (let s = 0; s < sources.length; s++) {
    const names = ObjectKeys(sources[s]);
    for (let i = 0; i < names.length; i++) ObjectDefineProperty(table, names[i], { value: sources[s][names[i]], enumerable: true });
  }
  // The URL class is made when a factory first uses it, from the prelude's own module
  // (./web/lazy.ts), never from the global a program may have replaced by then.
  ObjectDefineProperty(table, 'URL', { get: () => materialize(urlGroup).URL, enumerable: true });
  guestPrimordialsTable = ObjectFreeze(table);
  return guestPrimordialsTable;
}

/**
 * A guest factory builds a module's namespace: `factory(call, primordials, raw)`, where
 * `call(op, ...args)` is one host call and `raw` the module's operations as functions.
 */
export type GuestFactory = (call: (op: string, ...args: unknown[]) => unknown, primordialsTable: Readonly<Record<string, unknown>>, raw: Record<string, unknown>) => unknown;

/**
 * The namespaces each principal imports, built on first import and kept for the run. Each
 * principal gets its own, whose calls are its own wherever they run: the program's
 * `fs.write`, bound and slipped into a Package as a getter, a method or a callback, is
 * still the program's call (a stack capture alone would name the Package).
 */
export function namespaceTables(meter: Meter, hostModules: Record<string, readonly string[]>, factories: Record<string, GuestFactory>): (owner: string) => Record<string, unknown> {
  const moduleNames = ObjectKeys(hostModules);
  const factoryNames = ObjectKeys(factories);
  // Made at the first import: a run that imports nothing builds no collection (the first
  // SafeMap of a context copies Map's methods, about 8 KiB of garbage per run).
  const tables = onFirstUse(() => new SafeMap<string, Record<string, unknown>>());
  return (owner) => {
    const known = tables().get(owner);
    if (known !== undefined) return known;
    const table = ObjectCreate(null) as Record<string, unknown>;
    for (let i = 0; i < moduleNames.length; i++) {
      const module = moduleNames[i];
      if (isAsyncForm(module)) table[module] = asyncNamespaceOf(meter, module, own(hostModules, module) ?? [], own(factories, module), owner);
      else table[module] = namespaceOf(meter, module, own(hostModules, module) ?? [], owner);
    }
    for (let i = 0; i < factoryNames.length; i++) {
      const module = factoryNames[i];
      if (isAsyncForm(module)) continue;
      const call = (op: string, ...args: unknown[]) => hostCall(meter, module, op, args, owner);
      const raw = ObjectPrototypeHasOwnProperty(table, module) ? (table[module] as Record<string, unknown>) : namespaceOf(meter, module, [], owner);
      table[module] = ObjectFreeze(FunctionPrototypeCall(factories[module], undefined, call, guestPrimordials(), raw));
    }
    // Shared with other principals' code (handed over as values): frozen through.
    if (attributesCalls()) harden(table);
    tables().set(owner, table);
    return table;
  };
}
