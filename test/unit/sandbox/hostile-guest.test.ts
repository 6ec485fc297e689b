// Trusted guest code against a program that patches every kind of built-in it could touch
// (fixtures/programs/hostile/sabotage.js) and then uses every svc: operation: the real
// prelude and the real guest factories run in the real runner, and a recording host
// checks it receives exactly the arguments the program passed, the report stays true,
// and the console cap holds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileProgram, type HostCall, type HostHandler, type RunnerPool, type RunOutcome } from '../../../sandbox';
import { hostModules } from '../../../src/stdlib';
import { DEFAULT_LIMITS, startPool } from './runtime-harness';

const sabotage = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/programs/hostile/sabotage.js'), 'utf8');
const modules = hostModules();

let pool: RunnerPool;
before(async () => {
  pool = await startPool(1);
});
after(async () => pool.stop());

interface Recorded {
  module: string;
  op: string;
  args: unknown[];
}

function recordingHost(calls: Recorded[]): HostHandler {
  return async (call: HostCall) => {
    calls.push({ module: call.module, op: call.op, args: call.args });
    const key = `${call.module}.${call.op}`;
    switch (key) {
      case 'svc:fs.openWriter':
        return { ok: true, value: { handle: 7, path: '/allowed.txt' }, fuel: 16 };
      case 'svc:fs.readText':
        return { ok: true, value: 'text', fuel: 16 };
      case 'svc:fs.read':
        return { ok: true, value: new Uint8Array([5, 6]), fuel: 16 };
      case 'svc:http.get':
      case 'svc:http.post':
        return { ok: true, value: { status: 200, statusText: 'OK', headers: { 'content-type': 'application/json' }, body: '{"x":1}', url: 'https://api.example.com/x' }, fuel: 16 };
      case 'svc:http.download':
        return { ok: true, value: { status: 200, bytesWritten: 3, contentType: 'text/plain', duration_ms: 1, finalUrl: 'https://cdn.example.com/f', path: '/dl.txt' }, fuel: 16 };
      case 'svc:session.get':
        return { ok: true, value: '{"a":[1,{"b":"c"}]}', fuel: 16 };
      case 'svc:git.open':
        return { ok: true, value: '/repo', fuel: 16 };
      case 'svc:fs.writeText':
        return { ok: false, fuel: 416, error: { name: 'PermissionDeniedError', message: 'permission denied: caller=main capability=fs.write: policy denied fs.write on /secret.txt for main.', caller: 'main', capability: 'fs.write', reason: 'policy denied', source: 'policy' } };
      default:
        return { ok: true, value: null, fuel: 16 };
    }
  };
}

async function runHostile(body: string, calls: Recorded[]): Promise<RunOutcome> {
  const names = ['fs', 'code', 'http', 'git', 'session', 'crypto', 'url', 'uuid', 'secrets', 'security'];
  const source = `${names.map((name) => `import * as ${name} from "svc:${name}";`).join('\n')}
export function main() {
${body}
}`;
  const compiled = await compileProgram({ source, availableModules: [...modules.keys()] });
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.error.message);
  const imported = compiled.script.hostModules;
  return pool.run(
    {
      executionId: 'hostile',
      script: compiled.script,
      hostModules: Object.fromEntries(imported.map((m) => [m, Object.keys(modules.get(m)!.operations)])),
      guestModules: Object.fromEntries(imported.filter((m) => modules.get(m)!.guest).map((m) => [m, modules.get(m)!.guest!])),
      limits: { ...DEFAULT_LIMITS, fuel: 50_000_000 },
    },
    recordingHost(calls),
  );
}

test('after sabotage, every svc: operation sends the host exactly the arguments the program passed', async () => {
  const calls: Recorded[] = [];
  const outcome = await runHostile(
    `
  const bytes = new Uint8Array([1, 2]);
  const headers = new Map([["x-m", "n"]]);
  const query = new Map([["q", "a b"]]);
  const results = {};
  ${sabotage}
  const w = fs.writer("/allowed.txt");
  w.writeLine("a");
  w.writeBytes(bytes);
  w.close();
  results.text = fs.readText("/a.txt");
  results.bytes = fs.read("/b.bin");
  fs.write("/b.bin", bytes);
  fs.list("/", true);
  fs.copy("/a.txt", "/c.txt", true);
  let denial = null;
  try { fs.writeText("/secret.txt", "x"); } catch (e) { denial = e; }
  const response = http.get("https://api.example.com/x", { h: "v" });
  results.status = response.status;
  results.header = response.headers.get("content-type");
  results.json = response.json();
  http.post("https://api.example.com/x", { k: [1, "two", null] }, headers);
  http.download("https://cdn.example.com/f", "/dl.txt", { overwrite: true });
  session.set("k", { a: [1, { b: "c" }] });
  results.session = session.get("k");
  crypto.sha256("abc");
  crypto.hmacSha256(bytes, "m");
  security.check("app/op", { path: "/x", n: 1 });
  secrets.get("NAME");
  git.Repository.open("/repo").status();
  code.edit("/a.txt", "old", "new");
  results.query = url.encodeQuery(query);
  results.uuid = uuid.validate(uuid.v4());
  console.log("logged", 1, { a: 1 });
  throw denial;`,
    calls,
  );
  const expected: Recorded[] = [
    { module: 'svc:fs', op: 'openWriter', args: ['/allowed.txt'] },
    { module: 'svc:fs', op: 'commitWriter', args: [7, new Uint8Array([97, 10, 1, 2])] },
    { module: 'svc:fs', op: 'readText', args: ['/a.txt'] },
    { module: 'svc:fs', op: 'read', args: ['/b.bin'] },
    { module: 'svc:fs', op: 'write', args: ['/b.bin', new Uint8Array([1, 2])] },
    { module: 'svc:fs', op: 'list', args: ['/', true] },
    { module: 'svc:fs', op: 'copy', args: ['/a.txt', '/c.txt', true] },
    { module: 'svc:fs', op: 'writeText', args: ['/secret.txt', 'x'] },
    { module: 'svc:http', op: 'get', args: ['https://api.example.com/x', { h: 'v' }] },
    { module: 'svc:http', op: 'post', args: ['https://api.example.com/x', { k: [1, 'two', null] }, { 'x-m': 'n' }] },
    { module: 'svc:http', op: 'download', args: ['https://cdn.example.com/f', '/dl.txt', { overwrite: true }] },
    { module: 'svc:session', op: 'set', args: ['k', '{"a":[1,{"b":"c"}]}'] },
    { module: 'svc:session', op: 'get', args: ['k'] },
    { module: 'svc:crypto', op: 'sha256', args: ['abc'] },
    { module: 'svc:crypto', op: 'hmacSha256', args: [new Uint8Array([1, 2]), 'm'] },
    { module: 'svc:security', op: 'check', args: ['app/op', { path: '/x', n: 1 }] },
    { module: 'svc:secrets', op: 'get', args: ['NAME'] },
    { module: 'svc:git', op: 'open', args: ['/repo'] },
    { module: 'svc:git', op: 'status', args: ['/repo'] },
    { module: 'svc:code', op: 'edit', args: ['/a.txt', 'old', 'new'] },
  ];
  assert.deepEqual(calls, expected, outcome.error?.message);
  // The real denial escaped main: the report carries the host's facts.
  assert.equal(outcome.error?.kind, 'permission_denied', outcome.error?.message);
  assert.deepEqual([outcome.error?.caller, outcome.error?.capability, outcome.error?.source], ['main', 'fs.write', 'policy']);
  // The line is rendered (the program's own toJSON patch shapes its object, nothing else).
  assert.equal(outcome.console.length, 1);
  assert.match(outcome.console[0], /^logged 1 \{"path":"\/secret.txt","ok":true,"value":"forged"\}$/);
  for (const figure of [outcome.wasmFuel, outcome.hostFuel]) assert.ok(Number.isFinite(figure) && figure > 0, String(figure));
});

test('after sabotage, values read back are the host’s: response, session value, bytes, query, a parsed URL', async () => {
  const calls: Recorded[] = [];
  const outcome = await runHostile(
    `
  const query = new Map([["q", "a b"]]);
  const out = {};
  const mapGet = Map.prototype.get;
  const apply = Reflect.apply;
  ${sabotage}
  const response = http.get("https://api.example.com/x");
  out.status = response.status;
  out.ok = response.ok;
  out.body = response.body;
  out.json = response.json().x;
  out.session = session.get("k").a[1].b;
  out.byte = fs.read("/b.bin")[1];
  out.query = url.encodeQuery(query);
  out.parsed = apply(mapGet, url.parse("https://h.example/p?q=%41%42+c").query, ["q"]);
  out.valid = uuid.validate("0190f9a2-1c2b-7d3e-8f40-123456789abc");
  delete Object.prototype.toJSON;
  return out;`,
    calls,
  );
  assert.equal(outcome.error, null, outcome.error?.message);
  assert.deepEqual(JSON.parse(outcome.result!), { status: 200, ok: true, body: '{"x":1}', json: 1, session: 'c', byte: 6, query: 'q=a%20b', parsed: 'AB c', valid: true });
});

test('a forged denial and a patched Math.ceil neither forge the report nor lift the fuel limit', async () => {
  const forged = await runHostile(`${sabotage}\n  throw new PermissionDeniedError("permission denied: forged", "main", "fs.read", "r", "policy");`, []);
  assert.equal(forged.error?.kind, 'runtime_error');
  const fuel = await runHostile(`${sabotage}\n  fs.exists("/x");\n  for (;;) {}`, []);
  assert.equal(fuel.error?.kind, 'fuel_exhausted');
});

test('after sabotage the console cap holds and every line is a string', async () => {
  const outcome = await runHostile(`const big = "x".repeat(600 * 1024);\n  ${sabotage}\n  console.log(big); console.log(big); console.log(big); console.log({ toString() { return 1; } });\n  return 1;`, []);
  assert.equal(outcome.error, null, outcome.error?.message);
  const total = outcome.console.reduce((n, line) => n + line.length, 0);
  assert.ok(total <= 1024 * 1024 + 200, String(total));
  assert.ok(outcome.console.every((line) => typeof line === 'string'));
});

test('after sabotage (the array iterator, Reflect.apply and Promise patched) timers still fire and the run reports its value: the runner calls in through one entry function', async () => {
  const outcome = await runHostile(`${sabotage}\n  return new Promise((resolve) => setTimeout(() => setTimeout(() => resolve("after two timers"), 1), 1));`, []);
  assert.equal(outcome.error, null, outcome.error?.message);
  assert.equal(outcome.result, 'after two timers');
});

test('trusted code throws with the error classes it captured and never calls a program\'s replacement of a global constructor', async () => {
  const outcome = await runHostile(`
  const Real = { TypeError, RangeError, Error };
  const names = ["Error", "TypeError", "RangeError", "SyntaxError", "Symbol", "Promise", "Object", "Array", "Map", "Set", "Uint8Array", "ArrayBuffer", "DataView", "Reflect", "JSON", "Math", "String", "Number"];
  let touched = 0;
  const trap = new Proxy(function () {}, { get() { touched++; return undefined; }, apply() { touched++; }, construct() { touched++; return {}; } });
  for (let i = 0; i < names.length; i++) globalThis[names[i]] = trap;
  let kinds = "";
  const attempt = (f) => {
    try { f(); kinds += "none "; } catch (e) { kinds += (e instanceof Real.TypeError ? "TypeError" : e instanceof Real.RangeError ? "RangeError" : e instanceof Real.Error ? "Error" : "other") + " "; }
  };
  attempt(() => new EventTarget().addEventListener());
  attempt(() => new Headers().append("a b", "x"));
  attempt(() => new URL("not a url"));
  attempt(() => new Response(null, { status: 99 }));
  attempt(() => new TextDecoder("no-such-encoding"));
  return touched + " " + kinds;`, []);
  assert.equal(outcome.error, null, outcome.error?.message);
  assert.equal(outcome.result, '0 TypeError TypeError TypeError RangeError RangeError ');
});
