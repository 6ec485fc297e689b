// Isolation between a hostile program and the Package it calls (issue "Packages": treat it
// as security). The program and the Package share one isolate; before calling the Package,
// each program below tries one way to run its own code inside the Package call or to change
// a value between the Package's check and its effect. For every attempt: no byte of the
// Package's secret reaches anything the program can observe (result, console, error), the
// server's output never holds it, and the request the Package sent carries the value its
// check saw.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import { startServer, tempDir, type TestServer } from '../harness';
import { runSvc } from '../support/cli';
import { manifest, writeFiles } from '../support/packages';
import { serverOptions, startStandIn, type StandIn } from '../support/stand-in';

const HOST = 'vault.example.test';
const SECRET = 's3cret-vault-key-7f1d';

/**
 * The Package deliberately uses what a program might hijack: JSON.stringify, String and
 * Array methods, encodeURIComponent, an assignment into a header object, and it re-reads
 * its argument after the check (the build warns about that; the boundary copy makes it safe).
 */
const vaultSources = (api: string) => ({
  'svc.toml': manifest([{ name: '@acme/vault' }]),
  'docs/readme.md': '# vault\n',
  'src/lib.ts': `import { check } from "svc:security";
import secrets from "svc:secrets";
import { post } from "svc:http";

const API = ${JSON.stringify(api)};

/** An order. */
export interface Order { amount: number; note: string }

/**
 * Sends an order.
 * @param order The order.
 * @returns The HTTP status.
 * @capability acme.com/orders.send { amount: number, note: string }
 */
export function send(order: Order): number {
  check("acme.com/orders.send", { amount: order.amount, note: order.note });
  const key = secrets.get("VAULT_KEY");
  const headers: Record<string, string> = {};
  headers["authorization"] = "Bearer " + key;
  headers["x-trace"] = [String(key).length, "t"].map((x) => String(x)).join("-");
  const body = JSON.stringify({ amount: order.amount, note: String(order.note).toLowerCase().concat("!"), tag: encodeURIComponent("a b") });
  const r = post(API + "/orders", body, headers);
  return r.status;
}

/**
 * Runs a callback.
 * @param callback The callback.
 * @returns What it returned.
 */
export function withCallback(callback: () => unknown): unknown {
  return callback();
}

/**
 * Serialises a value.
 * @param value The value.
 * @returns JSON text.
 */
export function serialise(value: unknown): string {
  return JSON.stringify(value);
}
`,
});

/** Each attempt runs first (its failure is caught and named), then the program calls send(). */
const ATTEMPTS: Record<string, string> = {
  'replace JSON.stringify': 'JSON.stringify = (v: unknown) => { leaks.push(v); return "{}"; };',
  'redefine JSON.stringify': 'Object.defineProperty(JSON, "stringify", { value: (v: unknown) => { leaks.push(v); return "{}"; } });',
  'replace the JSON global': 'Object.defineProperty(globalThis, "JSON", { value: { stringify: (v: unknown) => { leaks.push(v); return "{}"; } } });',
  'String.prototype methods': 'String.prototype.concat = function (this: string) { leaks.push(String(this)); return "x"; }; String.prototype.toLowerCase = function (this: string) { leaks.push(this); return "x"; };',
  'Array.prototype methods': 'Array.prototype.map = function (this: unknown[]) { leaks.push([...this]); return []; }; (Array.prototype as any).join = function (this: unknown[]) { leaks.push(this); return ""; };',
  'the array iterator': 'const it = Object.getPrototypeOf([][Symbol.iterator]()); it.next = function () { leaks.push("iter"); return { done: true, value: undefined }; };',
  'Function.prototype.call and apply': 'Function.prototype.call = function () { leaks.push([...arguments]); }; Function.prototype.apply = function () { leaks.push([...arguments]); };',
  'Reflect.apply and construct': '(Reflect as any).apply = (...a: unknown[]) => { leaks.push(a); }; (Reflect as any).construct = (...a: unknown[]) => { leaks.push(a); };',
  'a setter named authorization on Object.prototype': 'Object.defineProperty(Object.prototype, "authorization", { set(v: unknown) { leaks.push(v); }, configurable: true });',
  'a toJSON on Object.prototype': '(Object.prototype as any).toJSON = function (this: unknown) { leaks.push(this); return {}; };',
  'globalThis.encodeURIComponent': '(globalThis as any).encodeURIComponent = (v: string) => { leaks.push(v); return v; };',
  'Error.prepareStackTrace and stackTraceLimit (attribution)': '(Error as any).stackTraceLimit = 0; (Error as any).prepareStackTrace = () => "forged"; (Error as any).captureStackTrace = () => {};',
};

function attemptProgram(attempt: string): string {
  return `import { send } from "@acme/vault";
const leaks: unknown[] = [];
export function main() {
  let blocked = "none";
  try { ${attempt} } catch (e) { blocked = (e as Error).name; }
  let status: unknown;
  try { status = send({ amount: 5, note: "Hello" }); } catch (e) { status = String((e as Error).message); }
  console.log(JSON.stringify(leaks));
  return { blocked, status, leaks: leaks.map((l) => String(l)) };
}`;
}

describe('Packages are isolated from a hostile program', () => {
  let server: TestServer;
  let api: StandIn;
  const run = (code: string) => server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'vault', code, secrets: { VAULT_KEY: SECRET } } });
  const assertNoSecret = (text: string) => assert.ok(!text.includes(SECRET) && !text.includes(SECRET.slice(0, 12)), `the secret reached the program: ${text}`);

  before(async () => {
    api = await startStandIn([HOST], () => ({ status: 201, json: { ok: true } }));
    const home = tempDir();
    const project = writeFiles(tempDir(), vaultSources(api.origin(HOST)));
    const published = await runSvc(['build', 'publish-local'], { cwd: project, env: { SVC_HOME: home } });
    assert.equal(published.code, 0, published.stderr);
    server = await startServer({ home, ...serverOptions(api), timeoutMs: 60_000 });
    const blueprint = {
      name: 'vault',
      default: 'deny',
      packages: ['@acme/vault'],
      secrets: { VAULT_KEY: { harness: {} } },
      permissions: {
        '@acme/vault': [
          { capability: 'http.post', filter: `host == "${HOST}"`, action: 'allow' },
          { capability: 'secrets.get', filter: 'name == "VAULT_KEY"', action: 'allow' },
        ],
        main: [{ capability: 'acme.com/orders.send', filter: 'amount <= 10', action: 'allow' }],
      },
    };
    const reply = await server.request('POST', '/v1/blueprints', { body: { yaml: YAML.stringify(blueprint) } });
    assert.ok(reply.status < 300, reply.text);
  });
  after(async () => {
    await server?.stop();
    await api?.close();
  });

  for (const [name, attempt] of Object.entries(ATTEMPTS)) {
    test(`a program that tries ${name} learns nothing and the Package sends what it checked`, async () => {
      const before = api.requests.length;
      const reply = await run(attemptProgram(attempt));
      assert.equal(reply.status, 200, reply.text);
      assertNoSecret(reply.text);
      assert.equal(reply.json.error, null, reply.text);
      const out = JSON.parse(reply.json.result);
      assert.equal(out.status, 201, reply.text);
      const sent = api.requests.slice(before);
      assert.equal(sent.length, 1);
      assert.equal(sent[0].headers.authorization, `Bearer ${SECRET}`);
      assert.equal(sent[0].headers['x-trace'], `${SECRET.length}-t`);
      assert.deepEqual(sent[0].json, { amount: 5, note: 'hello!', tag: 'a%20b' });
      const decisions = server.audit({ type: 'decision', execution_id: reply.json.execution_id });
      assert.deepEqual(
        decisions.map((d) => [d.caller, d.capability, d.decision]),
        [
          ['main', 'acme.com/orders.send', 'allow'],
          ['@acme/vault', 'secrets.get', 'allow'],
          ['@acme/vault', 'http.post', 'allow'],
        ],
      );
    });
  }

  test('a getter that answers differently on the second read cannot change the value between check and effect', async () => {
    const before = api.requests.length;
    const reply = await run(`import { send } from "@acme/vault";
export function main() {
  let reads = 0;
  const order = { get amount() { reads++; return reads === 1 ? 5 : 999999; }, note: "x" };
  return { status: send(order), reads };
}`);
    assertNoSecret(reply.text);
    assert.deepEqual(JSON.parse(reply.json.result), { status: 201, reads: 1 });
    assert.equal(api.requests.slice(before)[0].json.amount, 5);
  });

  test('a Proxy argument is read once, at the boundary', async () => {
    const before = api.requests.length;
    const reply = await run(`import { send } from "@acme/vault";
export function main() {
  let reads = 0;
  const order = new Proxy({ amount: 5, note: "x" }, { get(target, key) { if (key === "amount") { reads++; return reads === 1 ? 5 : 999999; } return (target as any)[key]; } });
  return { status: send(order as any), reads };
}`);
    assert.deepEqual(JSON.parse(reply.json.result), { status: 201, reads: 1 });
    assert.equal(api.requests.slice(before)[0].json.amount, 5);
  });

  test('program code run by a Package (a callback, a toJSON) cannot make the Package\'s checks: invariant refusal', async () => {
    for (const code of [
      'import { withCallback } from "@acme/vault";\nimport { check } from "svc:security";\nexport function main() { return withCallback(() => check("acme.com/orders.send", { amount: 1, note: "x" })); }',
      'import { serialise } from "@acme/vault";\nimport { check } from "svc:security";\nexport function main() { return serialise({ toJSON() { check("acme.com/orders.send", { amount: 1, note: "x" }); return 1; } }); }',
    ]) {
      const reply = await run(code);
      assert.equal(reply.json.error?.kind, 'permission_denied', reply.text);
      assert.equal(reply.json.error.source, 'invariant');
      assert.match(reply.json.error.message, /cannot make that package's checks/);
    }
  });

  test('the Package\'s exports cannot be replaced or extended by the program', async () => {
    const reply = await run(`import * as vault from "@acme/vault";
import { send } from "@acme/vault";
export function main() {
  const tries: string[] = [];
  for (const attempt of [
    () => { (vault as any).send = () => 0; },
    () => { (send as any).extra = 1; },
    () => { Object.setPrototypeOf(send, {}); },
  ]) { try { attempt(); tries.push("changed"); } catch (e) { tries.push((e as Error).name); } }
  return tries;
}`);
    assert.deepEqual(JSON.parse(reply.json.result), ['TypeError', 'TypeError', 'TypeError']);
  });

  test('the server output never holds the secret', () => {
    assertNoSecret(server.lines().join('\n'));
    assertNoSecret(server.stderr());
  });
});
