// The runtime through a real RunnerPool: result rules, async main, console, errors mapped
// to program.ts, the host bridge (values, denials, quota and plain errors), the globals
// programs get and do not get, code generation refused, and no state shared between runs.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { HOST_ERRORS, type HostErrorName, type HostHandler, type RunnerPool } from '../../../sandbox';
import { assertHealthy, runProgram, startPool } from './runtime-harness';

let pool: RunnerPool;
before(async () => {
  pool = await startPool();
});
after(async () => {
  await pool.stop();
});

async function resultOf(source: string): Promise<string | null> {
  const outcome = await runProgram(pool, source);
  assert.equal(outcome.error, null, outcome.error?.message);
  assert.equal(outcome.outcome, 'ok');
  return outcome.result;
}

async function errorOf(source: string) {
  const outcome = await runProgram(pool, source);
  assert.equal(outcome.result, null);
  assert.ok(outcome.error, 'expected an error');
  return outcome.error;
}

describe('results', () => {
  test('a string is returned as is, undefined as null, other values as JSON in insertion order', async () => {
    assert.equal(await resultOf('export function main() { return "plain text"; }'), 'plain text');
    assert.equal(await resultOf('export function main() {}'), null);
    assert.equal(await resultOf('export function main() { return 42; }'), '42');
    assert.equal(await resultOf('export function main() { return { b: 1, a: [true, null, "x"] }; }'), '{"b":1,"a":[true,null,"x"]}');
    assert.equal(await resultOf('export function main() { return NaN; }'), 'NaN');
    assert.equal(await resultOf('function main() { return null; }'), 'null');
  });

  test('an async main is awaited, including between awaits', async () => {
    assert.equal(await resultOf('export async function main() { await null; const x = await Promise.resolve(20); return { x: x + 1 }; }'), '{"x":21}');
  });

  test('a Map, a nested BigInt, a cycle or a function is a runtime_error naming the type and path', async () => {
    const map = await errorOf('export function main() { return new Map([[1, 2]]); }');
    assert.equal(map.kind, 'runtime_error');
    assert.match(map.message, /Map/);
    const big = await errorOf('export function main() { return { items: [1, { n: 10n }] }; }');
    assert.match(big.message, /BigInt/);
    assert.match(big.message, /\$\.items\[1\]\.n/);
    assert.match((await errorOf('export function main() { const a: any = {}; a.self = a; return a; }')).message, /cycle/);
    assert.match((await errorOf('export function main() { return () => 1; }')).message, /function/);
  });

  test('a getter that throws while the result is serialised is a runtime_error with its message', async () => {
    const error = await errorOf('export function main() { return { get v() { throw new Error("getter refuses"); } }; }');
    assert.equal(error.kind, 'runtime_error');
    assert.match(error.message, /getter refuses/);
  });
});

describe('console', () => {
  test('every call is one line: arguments space-joined, objects as JSON, all lines returned', async () => {
    const outcome = await runProgram(pool, 'export function main() { console.log("a", 1, { k: [1] }); console.error(new Error("e")); console.info(new Map([["m", 1]])); return "done"; }');
    assert.deepEqual(outcome.console, ['a 1 {"k":[1]}', 'Error: e', '{"m":1}']);
  });

  test('lines logged before a throw are kept', async () => {
    const outcome = await runProgram(pool, 'export function main() { console.log("before"); throw new Error("boom"); }');
    assert.deepEqual(outcome.console, ['before']);
  });
});

describe('runtime errors', () => {
  test('a thrown Error renders Name: message with a frame in program.ts', async () => {
    const error = await errorOf('export function main() {\n  const o: any = undefined;\n  return o.name;\n}');
    assert.equal(error.kind, 'runtime_error');
    assert.match(error.message, /^TypeError: Cannot read properties of undefined/);
    assert.match(error.message, /program\.ts:3:/);
  });

  test('throwing a non-Error value is a runtime_error that shows the value', async () => {
    const error = await errorOf('export function main() { throw "just a string"; }');
    assert.equal(error.kind, 'runtime_error');
    assert.match(error.message, /^Uncaught "just a string"/);
    assert.match((await errorOf('export function main() { throw 42; }')).message, /^Uncaught 42/);
    assert.match((await errorOf('export function main() { throw null; }')).message, /^Uncaught null/);
    assert.match((await errorOf('export function main() { throw { code: 7 }; }')).message, /^Uncaught \{"code":7\}/);
  });

  test('main that is not a function is a runtime_error', async () => {
    const error = await errorOf('export const main = 5;');
    assert.equal(error.kind, 'runtime_error');
    assert.match(error.message, /main is not a function/);
  });

  test('an unhandled rejection of a promise nobody awaits does not change the outcome', async () => {
    assert.equal(await resultOf('export function main() { Promise.reject(new Error("ignored")); return "fine"; }'), 'fine');
  });

  test('a rejection left unhandled by a synchronous attempt that ran out of its slice does not fail the run that replaces it', async () => {
    // The attempt is stopped past its slice before isolated-vm reports the rejection; the
    // isolate keeps it, and the next call into that isolate (the restart's context) would throw it.
    const source = 'export function main() { Promise.reject(new Error("nobody listens")); const t = Date.now(); while (Date.now() - t < 30) {} return "fine"; }';
    // A program whose attempt was discarded goes straight to an asynchronous run next time: each source once.
    for (let spin = 30; spin < 36; spin++) assert.equal(await resultOf(source.replace('30', String(spin))), 'fine');
  });
});

describe('host bridge', () => {
  test('a host function returns the host value synchronously and its fuel is counted', async () => {
    const outcome = await runProgram(pool, 'import { echo, bytes } from "svc:test";\nexport function main() { const b = bytes(); return { v: echo({ a: [1, "x"] }), b: Array.from(b), isBytes: b instanceof Uint8Array }; }');
    assert.equal(outcome.error, null, outcome.error?.message);
    assert.equal(outcome.result, '{"v":{"a":[1,"x"]},"b":[1,2,3],"isBytes":true}');
    assert.ok(outcome.hostFuel >= 32, `host fuel ${outcome.hostFuel}`);
  });

  test('a runtime denial escaping main is permission_denied with caller, capability and source', async () => {
    const outcome = await runProgram(pool, 'import * as t from "svc:test";\nexport function main() { t.deny(); }');
    assert.equal(outcome.error?.kind, 'permission_denied');
    assert.equal(outcome.error?.caller, 'main');
    assert.equal(outcome.error?.capability, 'fs.read');
    assert.equal(outcome.error?.source, 'policy');
    assert.match(outcome.error!.message, /^PermissionDeniedError: permission denied: caller=main capability=fs\.read/);
  });

  test('a denial is catchable and carries its fields; one the program constructs is a runtime_error', async () => {
    const caught = await resultOf('import { deny } from "svc:test";\nexport function main() { try { deny(); } catch (e: any) { return [e instanceof PermissionDeniedError, e.name, e.caller, e.capability, e.reason, e.source].join("|"); } }');
    assert.equal(caught, 'true|PermissionDeniedError|main|fs.read|policy denied fs.read on /x for main|policy');
    const own = await errorOf('export function main() { throw new PermissionDeniedError("mine", "main", "fs.read", "made up"); }');
    assert.equal(own.kind, 'runtime_error');
    const fields = await resultOf('export function main() { const e = new PermissionDeniedError("m", "main", "fs.read", "why"); return [e.name, e.caller, e.capability, e.reason, e.source, e instanceof Error].join("|"); }');
    assert.equal(fields, 'PermissionDeniedError|main|fs.read|why||true');
  });

  test('quota and plain host errors arrive as QuotaExceededError and Error with name, message and code', async () => {
    const text = await resultOf('import { quota, fail } from "svc:test";\nexport function main() { const out = []; try { quota(); } catch (e: any) { out.push(e instanceof QuotaExceededError, e.message); } try { fail(); } catch (e: any) { out.push(e.name, e.message, e.code); } return out.join("|"); }');
    assert.equal(text, 'true|the file area is full|Error|upstream broke|E_UPSTREAM');
  });

  test('every row of HOST_ERRORS arrives as its own class, even after the program replaced the global constructor', async () => {
    // The host answers `fail(name)` with an error of that name; the program swaps the global
    // constructors first, so only classes captured before it ran pass the instanceof check.
    const host: HostHandler = async (call) => ({ ok: false, fuel: 16, error: { name: String(call.args[0]), message: 'm', caller: 'main', capability: 'x.y', reason: 'r', source: 'policy' } });
    const names = Object.keys(HOST_ERRORS);
    const program = `import { fail } from "svc:test";
export function main() {
  const real: Record<string, Function> = {};
  for (const name of ${JSON.stringify(names)}) { real[name] = (globalThis as any)[name]; (globalThis as any)[name] = class Impostor extends Error {}; }
  return ${JSON.stringify(names)}.map((name) => { try { fail(name); return name + ":returned"; } catch (e: any) { return e.name + ":" + (e instanceof real[name]); } }).join("|");
}`;
    const outcome = await runProgram(pool, program, { host });
    assert.equal(outcome.error, null, outcome.error?.message);
    assert.equal(outcome.result, names.map((name) => `${name}:true`).join('|'));
    // Uncaught, the runtime's own refusal ends the run with its row's kind; the others are runtime errors.
    for (const name of names) {
      const ended = await runProgram(pool, `import { fail } from "svc:test";\nexport function main() { fail(${JSON.stringify(name)}); }`, { host });
      assert.equal(ended.error?.kind, HOST_ERRORS[name as HostErrorName].escapesAs, name);
    }
  });
});

describe('globals', () => {
  test('the web globals and assert work', async () => {
    const text = await resultOf(`export function main() {
      const u = new URL("https://Example.com:8443/a/../b?x=1&y=two#h");
      u.searchParams.append("z", "a b");
      const bytes = new TextEncoder().encode("héllo");
      const uuid = crypto.randomUUID();
      const clone = structuredClone({ d: new Date(0), m: new Map([[1, 2]]) });
      let asserted = "";
      try { assert(false, "custom"); } catch (e: any) { asserted = e.message; }
      return [u.hostname, u.port, u.pathname, u.search, new TextDecoder().decode(bytes), bytes.length, btoa("hi"), atob("aGk="),
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(uuid), clone.m.get(1), clone.d.getTime(), asserted].join("|");
    }`);
    assert.equal(text, 'example.com|8443|/b|?x=1&y=two&z=a+b|héllo|6|aGk=|hi|true|2|0|custom');
  });

  test('Temporal is available to programs that mention it', async () => {
    assert.equal(await resultOf('export function main() { return Temporal.PlainDate.from("2024-02-28").add({ days: 1 }).toString(); }'), '2024-02-29');
  });

  test('require, process, Buffer, Deno, WebAssembly, SharedArrayBuffer are absent; the web timers and fetch are present', async () => {
    const text = await resultOf('export function main() { return ["require", "process", "Buffer", "Deno", "setTimeout", "setInterval", "queueMicrotask", "fetch", "WebAssembly", "SharedArrayBuffer", "Atomics"].map((n) => n + ":" + typeof (globalThis as any)[n]).join(","); }');
    assert.equal(text, 'require:undefined,process:undefined,Buffer:undefined,Deno:undefined,setTimeout:function,setInterval:function,queueMicrotask:function,fetch:function,WebAssembly:undefined,SharedArrayBuffer:undefined,Atomics:undefined');
  });

  for (const [what, expression] of [
    ['eval', 'eval("1 + 1")'],
    ['indirect eval', '(0, globalThis.eval)("1")'],
    ['new Function', 'new Function("return 1")()'],
    ['Function()', 'Function("return 1")()'],
    ['the constructor of a function', '(function () {}).constructor("return 1")()'],
    ['the async function constructor', 'Object.getPrototypeOf(async function () {}).constructor("return 1")'],
    ['the generator function constructor', 'Object.getPrototypeOf(function* () {}).constructor("yield 1")'],
    ['the async generator function constructor', 'Object.getPrototypeOf(async function* () {}).constructor("yield 1")'],
  ]) {
    test(`code generation through ${what} throws EvalError`, async () => {
      const text = await resultOf(`export function main() { try { ${expression}; return "generated"; } catch (e: any) { return e.name; } }`);
      assert.equal(text, 'EvalError');
    });
  }

  test('Function stays usable for instanceof and its prototype methods', async () => {
    assert.equal(await resultOf('export function main() { const f = function (this: any, a: number) { return this.k + a; }; return [f instanceof Function, f.call({ k: 1 }, 2), typeof Function.prototype.bind].join(","); }'), 'true,3,function');
  });
});

describe('isolation between runs', () => {
  test('prototype pollution and globals from one run are gone in the next', async () => {
    await resultOf('export function main() { (Array.prototype as any).polluted = "yes"; (globalThis as any).leak = 1; (Object.prototype as any).evil = true; JSON.stringify = () => "hijacked"; return "polluted"; }');
    for (let i = 0; i < 3; i++) {
      const text = await resultOf('export function main() { return [typeof (Array.prototype as any).polluted, typeof (globalThis as any).leak, typeof ({} as any).evil, JSON.stringify({ a: 1 })].join(","); }');
      assert.equal(text, 'undefined,undefined,undefined,{"a":1}');
    }
  });

  test('runs on the pool in parallel all complete with their own results', async () => {
    const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => runProgram(pool, `export function main() { let s = 0; for (let k = 0; k < 1000; k++) s += ${i}; return s; }`)));
    assert.deepEqual(outcomes.map((o) => o.result), ['0', '1000', '2000', '3000', '4000', '5000']);
    await assertHealthy(pool);
  });
});
