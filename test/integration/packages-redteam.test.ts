// Red-team attempts on the boundary between a hostile program and a Package, beyond
// packages-isolation.test.ts: routes by which the program (a) reads bytes of the Package's
// secret, (b) changes what the Package validated, or (c) gets its own standard-library call
// judged under the Package's grants. Each test names the route; every one asserts that no
// secret byte reaches the program and that the audit log carries the honest caller.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import { startServer, tempDir, type TestServer } from '../harness';
import { runSvc } from '../support/cli';
import { manifest, writeFiles } from '../support/packages';
import { serverOptions, startStandIn, type StandIn } from '../support/stand-in';

const HOST = 'keeper.example.test';
const SECRET = 'k33per-signing-key-90ab';

/** A Package that matches a regular expression over its secret, validates with an exported one, runs callbacks and formats its own errors. */
const keeperSources = (api: string) => ({
  'svc.toml': manifest([{ name: '@acme/keeper' }]),
  'docs/readme.md': '# keeper\n',
  'src/lib.ts': `import { check } from "svc:security";
import secrets from "svc:secrets";
import { post } from "svc:http";

const API = ${JSON.stringify(api)};

/** Account ids the Package accepts. */
export const ACCOUNT = /^acct-[0-9]+$/;

/**
 * Sends a note for an account.
 * @param account The account id.
 * @param text The note.
 * @returns The HTTP status.
 * @capability acme.com/notes.send { account: string, text: string }
 */
export function send(account: string, text: string): number {
  if (!ACCOUNT.test(account)) throw new Error("not an account id: " + account);
  check("acme.com/notes.send", { account, text });
  const key = String(secrets.get("KEEPER_KEY"));
  const parts = /^([a-z0-9]+)-(.*)$/.exec(key);
  const r = post(API + "/notes", { account, text }, { authorization: "Bearer " + key, "x-prefix": parts ? String(parts[1].length) : "0" });
  return r.status;
}

/**
 * Calls a function once per item.
 * @param items The items.
 * @param fn The function.
 * @returns What it returned for each.
 */
export function each(items: unknown[], fn: (item: unknown) => unknown): unknown[] {
  const out: unknown[] = [];
  for (const item of items) out.push(fn(item));
  return out;
}

/**
 * Pings the API with fetch.
 * @returns The HTTP status.
 */
export async function ping(): Promise<number> {
  const r = await fetch(API + "/ping", { headers: { authorization: "Bearer " + String(secrets.get("KEEPER_KEY")) } });
  return r.status;
}

/**
 * Awaits a callback.
 * @param fn The callback.
 * @returns What it settled with, plus one.
 */
export async function later(fn: () => Promise<number>): Promise<number> {
  return (await fn()) + 1;
}

/** A notebook. */
export class Notebook {
  /** The folder. */
  dir = "/notes";
  /**
   * The path of a page.
   * @param name Page name.
   * @returns The path.
   */
  path(name: string): string {
    return this.dir + "/" + name;
  }
}

/** Writes a file of the file area (re-exported: the Package's own authority). */
export { write as writeFile } from "svc:fs";

/**
 * Fails upstream and reports only a summary (its error names the key; its stack is read).
 * @returns A summary.
 */
export function failQuietly(): string {
  try {
    throw new Error("upstream refused key " + String(secrets.get("KEEPER_KEY")));
  } catch (e) {
    return String((e as Error).stack).includes("refused") ? "failed" : "unknown";
  }
}
`,
});

describe('red-team routes around the Package boundary', () => {
  let server: TestServer;
  let api: StandIn;
  const run = (code: string) => server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'keeper', code, secrets: { KEEPER_KEY: SECRET } } });
  const assertNoSecret = (text: string) => {
    for (const piece of [SECRET, SECRET.slice(0, 6), SECRET.slice(7, 19), SECRET.slice(-8)]) assert.ok(!text.includes(piece), `a piece of the secret reached the program: ${text}`);
  };
  const decisions = (executionId: string) => server.audit({ type: 'decision', execution_id: executionId }).map((d) => [d.caller, d.capability, d.decision]);

  before(async () => {
    api = await startStandIn([HOST], () => ({ status: 201, json: { ok: true } }));
    const home = tempDir();
    const project = writeFiles(tempDir(), keeperSources(api.origin(HOST)));
    const published = await runSvc(['build', 'publish-local'], { cwd: project, env: { SVC_HOME: home } });
    assert.equal(published.code, 0, published.stderr);
    server = await startServer({ home, ...serverOptions(api), timeoutMs: 60_000 });
    const blueprint = {
      name: 'keeper',
      default: 'deny',
      packages: ['@acme/keeper'],
      secrets: { KEEPER_KEY: { harness: {} } },
      permissions: {
        // The Package may write files and post to its API; the program may do neither.
        '@acme/keeper': [
          { capability: 'http.post', filter: `host == "${HOST}"`, action: 'allow' },
          { capability: 'http.get', filter: `host == "${HOST}"`, action: 'allow' },
          { capability: 'secrets.get', filter: 'name == "KEEPER_KEY"', action: 'allow' },
          { capability: 'fs.write', action: 'allow' },
        ],
        main: [{ capability: 'acme.com/notes.send', action: 'allow' }],
      },
    };
    const reply = await server.request('POST', '/v1/blueprints', { body: { yaml: YAML.stringify(blueprint) } });
    assert.ok(reply.status < 300, reply.text);
  });
  after(async () => {
    await server?.stop();
    await api?.close();
  });

  test('the legacy RegExp statics do not hand the program the last match a Package made over its secret', async () => {
    const before = api.requests.length;
    const reply = await run(`import { send } from "@acme/keeper";
export function main() {
  const status = send("acct-1", "hi");
  const statics: Record<string, unknown> = {};
  for (const k of ["$1", "$2", "$_", "$&", "$+", "$\`", "$'", "input", "lastMatch", "lastParen", "leftContext", "rightContext"]) statics[k] = String((RegExp as any)[k]);
  return { status, statics, compile: typeof (RegExp.prototype as any).compile };
}`);
    assert.equal(reply.status, 200, reply.text);
    assertNoSecret(reply.text);
    const out = JSON.parse(reply.json.result);
    assert.equal(out.status, 201);
    assert.ok(Object.values(out.statics).every((v) => v === 'undefined'), reply.json.result);
    assert.equal(out.compile, 'undefined');
    assert.equal(api.requests.slice(before)[0].headers.authorization, `Bearer ${SECRET}`);
  });

  test('a regular expression a Package exports cannot be recompiled to widen what it validates', async () => {
    const before = api.requests.length;
    const reply = await run(`import { ACCOUNT, send } from "@acme/keeper";
export function main() {
  let changed: string;
  try { RegExp.prototype.compile.call(ACCOUNT, ".*"); changed = "changed"; } catch (e) { changed = (e as Error).name; }
  let sent: unknown;
  try { sent = send("../../admin", "x"); } catch (e) { sent = (e as Error).message; }
  return { changed, sent, source: ACCOUNT.source };
}`);
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(JSON.parse(reply.json.result), { changed: 'TypeError', sent: 'not an account id: ../../admin', source: '^acct-[0-9]+$' });
    assert.equal(api.requests.length, before);
  });

  test('a standard-library function handed to a Package as a callback runs as the program, never under the Package\'s grants', async () => {
    const attempts: Record<string, { code: string; expect: Array<[string, string, string]> }> = {
      'bound secrets.get': {
        code: 'each([1], (secrets.get as any).bind(null, "KEEPER_KEY"))',
        expect: [['main', 'secrets.get', 'deny']],
      },
      'secrets.get itself': {
        code: 'each(["KEEPER_KEY"], secrets.get as any)',
        expect: [['main', 'secrets.get', 'deny']],
      },
      'bound fs.write': {
        code: 'each([1], (fs.write as any).bind(null, "/planted.txt", "owned"))',
        expect: [['main', 'fs.write', 'deny']],
      },
      'bound check': {
        code: 'each([1], (check as any).bind(null, "acme.com/notes.send", { account: "acct-1", text: "x" }))',
        expect: [['main', 'acme.com/notes.send', 'deny']],
      },
      'a Proxy in a callback\'s result whose trap is bound fs.write': {
        code: 'each([1], () => new Proxy({}, { ownKeys: (fs.write as any).bind(null, "/planted.txt", "owned") }))',
        expect: [['main', 'fs.write', 'deny']],
      },
    };
    for (const [name, attempt] of Object.entries(attempts)) {
      const reply = await run(`import { each } from "@acme/keeper";
import secrets from "svc:secrets";
import * as fs from "svc:fs";
import { check } from "svc:security";
export function main() {
  try { return { got: ${attempt.code} }; } catch (e) { return { refused: (e as Error).name, message: (e as Error).message }; }
}`);
      assert.equal(reply.status, 200, reply.text);
      assertNoSecret(reply.text);
      const out = JSON.parse(reply.json.result);
      assert.equal(out.refused, 'PermissionDeniedError', `${name}: ${reply.json.result}`);
      assert.match(out.message, /caller=main /, name);
      assert.deepEqual(decisions(reply.json.execution_id), attempt.expect, name);
    }
  });

  test('a standard-library function reached by a Package through a getter on `this` is the program\'s call', async () => {
    for (const [bound, expect] of [
      ['(secrets.get as any).bind(null, "KEEPER_KEY")', [['main', 'secrets.get', 'deny']]],
      ['(fs.write as any).bind(null, "/planted.txt", "owned")', [['main', 'fs.write', 'deny']]],
    ] as const) {
      const reply = await run(`import { Notebook } from "@acme/keeper";
import secrets from "svc:secrets";
import * as fs from "svc:fs";
export function main() {
  const self = Object.defineProperty({}, "dir", { get: ${bound} });
  try { return { got: Notebook.prototype.path.call(self, "x") }; } catch (e) { return { refused: (e as Error).name, message: (e as Error).message }; }
}`);
      assert.equal(reply.status, 200, reply.text);
      assertNoSecret(reply.text);
      const out = JSON.parse(reply.json.result);
      assert.equal(out.refused, 'PermissionDeniedError', reply.json.result);
      assert.match(out.message, /caller=main /);
      assert.deepEqual(decisions(reply.json.execution_id), expect);
    }
  });

  test('fetch in a Package is the Package\'s; the program\'s fetch slipped into a Package (a getter on `this`) stays the program\'s', async () => {
    const before = api.requests.length;
    const own = await run(`import { ping } from "@acme/keeper";
export async function main() { return await ping(); }`);
    assert.equal(own.json.result, '201', own.text);
    assert.deepEqual(decisions(own.json.execution_id), [['@acme/keeper', 'secrets.get', 'allow'], ['@acme/keeper', 'http.get', 'allow']]);
    const slipped = await run(`import { Notebook } from "@acme/keeper";
export async function main() {
  const self = Object.defineProperty({}, "dir", { get: (fetch as any).bind(null, ${JSON.stringify(`${api.origin(HOST)}/planted`)}) });
  return Notebook.prototype.path.call(self, "x");
}`);
    assert.equal(slipped.status, 200, slipped.text);
    assert.deepEqual(decisions(slipped.json.execution_id), [['main', 'http.get', 'deny']]);
    assert.deepEqual(api.requests.slice(before).map((r) => r.path), ['/ping']);
  });

  test('an async callback reaches the Package as a promise of a copy (not as an empty object)', async () => {
    const reply = await run(`import { later } from "@acme/keeper";
export async function main() { return await later(async () => 41); }`);
    assert.equal(reply.json.result, '42', reply.text);
  });

  test('a standard-library function a Package re-exports runs as the Package when the program calls it', async () => {
    const reply = await run(`import { writeFile } from "@acme/keeper";
export function main() { writeFile("/through-keeper.txt", "x"); return "written"; }`);
    assert.equal(reply.json.result, 'written', reply.text);
    assert.deepEqual(decisions(reply.json.execution_id), [['@acme/keeper', 'fs.write', 'allow']]);
  });

  test('the program\'s stack formatter does not run inside a Package call (it would see the Package\'s errors); it still formats the program\'s own', async () => {
    const reply = await run(`import { failQuietly } from "@acme/keeper";
export function main() {
  const seen: string[] = [];
  (Error as any).prepareStackTrace = (error: Error) => { seen.push(String(error.message)); return "formatted by main"; };
  const summary = failQuietly();
  const own = new Error("mine").stack;
  return { summary, seen, own };
}`);
    assert.equal(reply.status, 200, reply.text);
    assertNoSecret(reply.text);
    assert.deepEqual(JSON.parse(reply.json.result), { summary: 'failed', seen: ['mine'], own: 'formatted by main' });
    assert.deepEqual(decisions(reply.json.execution_id), [['@acme/keeper', 'secrets.get', 'allow']]);
  });

  test('the standard-library functions the program and the Package share are frozen', async () => {
    const reply = await run(`import { each } from "@acme/keeper";
import { post } from "svc:http";
import secrets from "svc:secrets";
export function main() {
  const tries: string[] = [];
  for (const attempt of [
    () => Object.defineProperty(post, "call", { value: () => 0 }),
    () => Object.defineProperty(secrets.get, "apply", { value: () => 0 }),
  ]) { try { attempt(); tries.push("changed"); } catch (e) { tries.push((e as Error).name); } }
  return { tries, frozen: Object.isFrozen(post) && Object.isFrozen(secrets.get), each: typeof each };
}`);
    assert.deepEqual(JSON.parse(reply.json.result), { tries: ['TypeError', 'TypeError'], frozen: true, each: 'function' });
  });

  test('the server output never holds the secret', () => {
    assertNoSecret(server.lines().join('\n'));
    assertNoSecret(server.stderr());
  });
});
