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

// Both parts share one server and one published project (their Blueprints list different
// Packages, each part's stand-in counts only its own API's requests).
let server: TestServer;
let keeperApi: StandIn;
let rtApi: StandIn;

before(async () => {
  keeperApi = await startStandIn([HOST], () => ({ status: 201, json: { ok: true } }));
  rtApi = await startStandIn([RT_HOST], () => ({ status: 201, json: { ok: true } }));
  const home = tempDir();
  const project = writeFiles(tempDir(), {
    'svc.toml': manifest([
      { name: '@acme/keeper', path: 'keeper' },
      { name: '@rt/core', path: 'core' },
      { name: '@rt/app', path: 'app', dependencies: ['@rt/core'] },
    ]),
    ...keeperSources(keeperApi.origin(HOST)),
    ...deputySources(rtApi.origin(RT_HOST)),
  });
  const published = await runSvc(['build', 'publish-local'], { cwd: project, env: { SVC_HOME: home } });
  assert.equal(published.code, 0, published.stderr);
  server = await startServer({ home, ...serverOptions(keeperApi, rtApi), timeoutMs: 60_000 });
  const blueprints = [
    {
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
    },
    {
      name: 'deputy',
      default: 'deny',
      packages: ['@rt/app', '@rt/core'],
      secrets: { RT_KEY: { harness: {} } },
      permissions: {
        '@rt/core': [
          { capability: 'http.post', filter: `host == "${RT_HOST}"`, action: 'allow' },
          { capability: 'secrets.get', filter: 'name == "RT_KEY"', action: 'allow' },
        ],
        '@rt/app': [{ capability: 'rt.test/send', action: 'allow' }],
      },
    },
  ];
  for (const blueprint of blueprints) {
    const reply = await server.request('POST', '/v1/blueprints', { body: { yaml: YAML.stringify(blueprint) } });
    assert.ok(reply.status < 300, reply.text);
  }
});
after(async () => {
  await server?.stop();
  await keeperApi?.close();
  await rtApi?.close();
});

/** A Package that matches a regular expression over its secret, validates with an exported one, runs callbacks and formats its own errors. */
const keeperSources = (api: string) => ({
  'keeper/docs/readme.md': '# keeper\n',
  'keeper/src/lib.ts': `import { check } from "svc:security";
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
  const run = (code: string) => server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'keeper', code, secrets: { KEEPER_KEY: SECRET } } });
  const assertNoSecret = (text: string) => {
    for (const piece of [SECRET, SECRET.slice(0, 6), SECRET.slice(7, 19), SECRET.slice(-8)]) assert.ok(!text.includes(piece), `a piece of the secret reached the program: ${text}`);
  };
  const decisions = (executionId: string) => server.audit({ type: 'decision', execution_id: executionId }).map((d) => [d.caller, d.capability, d.decision]);

  test('the legacy RegExp statics do not hand the program the last match a Package made over its secret', async () => {
    const before = keeperApi.requests.length;
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
    assert.equal(keeperApi.requests.slice(before)[0].headers.authorization, `Bearer ${SECRET}`);
  });

  test('a regular expression a Package exports cannot be recompiled to widen what it validates', async () => {
    const before = keeperApi.requests.length;
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
    assert.equal(keeperApi.requests.length, before);
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
    const before = keeperApi.requests.length;
    const own = await run(`import { ping } from "@acme/keeper";
export async function main() { return await ping(); }`);
    assert.equal(own.json.result, '201', own.text);
    assert.deepEqual(decisions(own.json.execution_id), [['@acme/keeper', 'secrets.get', 'allow'], ['@acme/keeper', 'http.get', 'allow']]);
    const slipped = await run(`import { Notebook } from "@acme/keeper";
export async function main() {
  const self = Object.defineProperty({}, "dir", { get: (fetch as any).bind(null, ${JSON.stringify(`${keeperApi.origin(HOST)}/planted`)}) });
  return Notebook.prototype.path.call(self, "x");
}`);
    assert.equal(slipped.status, 200, slipped.text);
    assert.deepEqual(decisions(slipped.json.execution_id), [['main', 'http.get', 'deny']]);
    assert.deepEqual(keeperApi.requests.slice(before).map((r) => r.path), ['/ping']);
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

// A Package acting for the program (confused deputy): @rt/app is granted rt.test/send and
// depends on @rt/core, which checks rt.test/send for its caller, reads its secret and calls
// out. The program is not granted rt.test/send; it imports both and hands core's `send`
// to app's objects so that app's code, not the program's, makes the call.
const RT_HOST = 'rt.example.test';
const RT_SECRET = 'rt-core-key-55aa90';

const deputySources = (api: string) => ({
  'core/docs/readme.md': '# core\n',
  'core/src/lib.ts': `import { check } from "svc:security";
import secrets from "svc:secrets";
import { post } from "svc:http";

const API = ${JSON.stringify(api)};

/**
 * Sends a note.
 * @param text The note.
 * @returns The HTTP status.
 * @capability rt.test/send { text }
 */
export function send(text: string): number {
  check("rt.test/send", { text });
  const r = post(API + "/send", { text: String(text) }, { authorization: "Bearer " + String(secrets.get("RT_KEY")) });
  return r.status;
}

/** A sender holding its note. */
export class Mailer {
  /** The note. */
  text: string;
  /**
   * A sender.
   * @param text The note.
   */
  constructor(text: string) {
    this.text = String(text);
  }
  /**
   * Sends the note.
   * @returns The HTTP status.
   */
  deliver(): number {
    return send(this.text);
  }
  /**
   * A sender of a note.
   * @param text The note.
   * @returns The sender.
   */
  static of(text: string): Mailer {
    return new Mailer(text);
  }
  /**
   * Sends a note at once.
   * @param text The note.
   * @returns The HTTP status.
   */
  static now(text: string): number {
    return send(text);
  }
}
`,
  'app/docs/readme.md': '# app\n',
  'app/src/lib.ts': `import { send } from "@rt/core";

/** A widget app hands out; its methods run app's code on what the caller gives. */
export class Widget {
  /** What renders the widget. */
  render: () => unknown = () => "plain";
  /** Core's sender, as app holds it. */
  sender = send;
  /**
   * Renders.
   * @returns The text.
   */
  show(): string {
    return String(this.render());
  }
  /**
   * A title from the label.
   * @returns The title.
   */
  title(): string {
    return "[" + String((this as unknown as { label: unknown }).label) + "]";
  }
  /**
   * Greets.
   * @param who Whom.
   * @returns The greeting.
   */
  greet(who: unknown): string {
    return "hi " + who;
  }
  /**
   * Adds one.
   * @param n A number.
   * @returns n + 1.
   */
  add(n: unknown): number {
    return (n as number) + 1;
  }
  /**
   * Sorts items.
   * @param items The items.
   * @param compare The order.
   * @returns The sorted items.
   */
  sorted(items: unknown[], compare?: (a: unknown, b: unknown) => number): unknown[] {
    return [...items].sort(compare);
  }
  /**
   * Serialises a value.
   * @param value The value.
   * @returns JSON text.
   */
  dump(value: unknown): string {
    return JSON.stringify(value);
  }
  /**
   * Awaits a value.
   * @param value A value or a thenable.
   * @returns What it settled with.
   */
  async wait(value: unknown): Promise<unknown> {
    return await value;
  }
  /**
   * Collects an async iterable.
   * @param items The iterable.
   * @returns Its items.
   */
  async collect(items: AsyncIterable<unknown>): Promise<unknown[]> {
    const out: unknown[] = [];
    for await (const item of items) out.push(item);
    return out;
  }
  /**
   * Applies a function.
   * @param fn The function.
   * @param args Its arguments.
   * @returns What it returned.
   */
  invoke(fn: (...args: unknown[]) => unknown, args: unknown[]): unknown {
    return Reflect.apply(fn, undefined, args);
  }
  /**
   * Reads a key of a value.
   * @param value The value.
   * @returns Its key.
   */
  keyOf(value: Record<string, unknown>): unknown {
    return value.key;
  }
}

/**
 * A widget.
 * @returns A new widget.
 */
export function widget(): Widget {
  return new Widget();
}

/**
 * Sends a status line under app's own authority.
 * @param text The status.
 * @returns The HTTP status.
 */
export function status(text: string): number {
  return send("status: " + String(text));
}

/**
 * Core's sender, handed out.
 * @returns It.
 */
export function sender(): (text: string) => number {
  return send;
}

/**
 * Fails, with core's sender attached to the error (errors reach the caller as they are).
 * @returns Never.
 */
export function fail(): never {
  const error = new Error("failed") as Error & { retry?: unknown };
  error.retry = send;
  throw error;
}

/**
 * Counts of words.
 * @param words The words.
 * @returns Each word's count.
 */
export function counts(words: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const word of words) out.set(word, (out.get(word) ?? 0) + 1);
  return out;
}

/**
 * The sum of counts.
 * @param counted Counts of words.
 * @returns Their sum.
 */
export function total(counted: Map<string, number>): number {
  let sum = 0;
  for (const n of counted.values()) sum += n;
  return sum;
}

/** Core's sender in an exported object. */
export const tools = { send };

export { send as relay } from "@rt/core";
`,
});

describe('a Package acting for the program (confused deputy)', () => {
  const NOTE = 'from-main-7731';
  const run = (code: string) => server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'deputy', code, secrets: { RT_KEY: RT_SECRET } } });
  const sendDecisions = (executionId: string) =>
    server
      .audit({ type: 'decision', execution_id: executionId })
      .filter((d) => d.capability === 'rt.test/send')
      .map((d) => [d.caller, d.decision]);
  const program = (body: string) => `import { send, Mailer } from "@rt/core";
import { widget, Widget, status, sender, tools, relay, fail } from "@rt/app";
const note = ${JSON.stringify(NOTE)};
export async function main() {
  try { return { got: await (async () => { ${body} })() }; } catch (e) { return { refused: (e as Error).name, message: String((e as Error).message) }; }
}`;

  test('app sends under its own grant; the program calling core itself is denied by name', async () => {
    const before = rtApi.requests.length;
    const own = await run(program('return status("up");'));
    assert.equal(own.status, 200, own.text);
    assert.deepEqual(JSON.parse(own.json.result), { got: 201 });
    assert.deepEqual(sendDecisions(own.json.execution_id), [['@rt/app', 'allow']]);
    const sent = rtApi.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0].json, { text: 'status: up' });
    assert.equal(sent[0].headers.authorization, `Bearer ${RT_SECRET}`);

    const direct = await run(program('return send(note);'));
    assert.equal(JSON.parse(direct.json.result).refused, 'PermissionDeniedError', direct.text);
    assert.deepEqual(sendDecisions(direct.json.execution_id), [['main', 'deny']]);
    assert.equal(rtApi.requests.length, before + 1);
  });

  test('what a Package returns still works as the program uses it: methods, instanceof, iteration, and a Map passed on to a Package', async () => {
    const reply = await run(`import { Mailer } from "@rt/core";
import { widget, Widget, counts, total } from "@rt/app";
export function main() {
  const w = widget();
  const m = counts(["a", "b", "a"]);
  const entries: unknown[] = [];
  for (const [k, v] of m) entries.push([k, v]);
  return {
    greet: w.greet("you"), sorted: w.sorted([3, 1, 2], (a: any, b: any) => a - b), isWidget: w instanceof Widget, same: w.greet === w.greet,
    mailer: new Mailer("x").text, size: m.size, a: m.get("a"), entries, total: total(m), json: JSON.stringify(w.sorted([2, 1])),
  };
}`);
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(JSON.parse(reply.json.result), {
      greet: 'hi you', sorted: [1, 2, 3], isWidget: true, same: true, mailer: 'x', size: 2, a: 2, entries: [['a', 2], ['b', 1]], total: 3, json: '[1,2]',
    });
  });

  // Each route: `deny` when core's check runs and must name the program; `none` when the
  // route no longer reaches core at all (the copy leaves no code to run).
  const routes: Record<string, { body: string; expect: 'deny' | 'none' }> = {
    'bound send as this.render of a returned object': { body: 'const w = widget(); w.render = send.bind(null, note); return w.show();', expect: 'deny' },
    'bound send as this.render of a forged this': { body: 'return Widget.prototype.show.call({ render: send.bind(null, note) });', expect: 'deny' },
    'bound send as a getter on a returned object': { body: 'const w = widget(); Object.defineProperty(w, "label", { get: send.bind(null, note) }); return w.title();', expect: 'deny' },
    'bound send as a getter on a forged this': { body: 'return Widget.prototype.title.call(Object.defineProperty({}, "label", { get: send.bind(null, note) }));', expect: 'deny' },
    'bound send as toString of an argument': { body: 'return widget().greet({ toString: send.bind(null, note) });', expect: 'deny' },
    'bound send as valueOf of an argument': { body: 'return widget().add({ valueOf: send.bind(null, note) });', expect: 'deny' },
    'bound send as Symbol.toPrimitive of an argument': { body: 'return widget().greet({ [Symbol.toPrimitive]: send.bind(null, note) });', expect: 'none' },
    'bound send as a sort comparator': { body: 'return widget().sorted([2, 1, 3], send.bind(null, note) as any);', expect: 'deny' },
    'items whose toString is bound send, sorted by app': { body: 'return widget().sorted([{ toString: send.bind(null, note) }, { toString: send.bind(null, note) }]);', expect: 'deny' },
    'bound send in a promise reaction (no Package frame at all)': { body: 'return await Promise.resolve().then(send.bind(null, note));', expect: 'deny' },
    'bound send as a thenable app awaits': { body: 'return await widget().wait({ then: (send as any).bind(null, note) });', expect: 'deny' },
    'bound send as a Proxy trap in an argument': { body: 'return widget().keyOf(new Proxy({ key: 1 }, { ownKeys: send.bind(null, note) as any }));', expect: 'deny' },
    'bound send as a toJSON app serialises': { body: 'return widget().dump({ toJSON: send.bind(null, note) });', expect: 'deny' },
    'bound send as an async iterator app consumes': { body: 'return await widget().collect({ [Symbol.asyncIterator]: send.bind(null, note) } as any);', expect: 'none' },
    'bound send through Reflect.apply in an app method': { body: 'return widget().invoke(send, [note]);', expect: 'deny' },
    'a core method handed to app as toString': { body: 'const m = new Mailer(note); return widget().greet({ toString: m.deliver });', expect: 'deny' },
    'a core static method as this.render': { body: 'const w = widget(); w.render = Mailer.now.bind(null, note); return w.show();', expect: 'deny' },
    'a core method reached through the prototype, as a getter': { body: 'const deliver = Object.getPrototypeOf(new Mailer("x")).deliver; return widget().title.call(Object.defineProperty({}, "label", { get: deliver.bind(new Mailer(note)) }));', expect: 'deny' },
    'core\'s sender as app re-exports it': { body: 'return widget().greet({ toString: relay.bind(null, note) });', expect: 'deny' },
    'core\'s sender as app returns it': { body: 'return widget().greet({ toString: sender().bind(null, note) });', expect: 'deny' },
    'core\'s sender from an object app exports': { body: 'return widget().greet({ toString: tools.send.bind(null, note) });', expect: 'deny' },
    'core\'s sender app returns, called by the program': { body: 'return sender()(note);', expect: 'deny' },
    'core\'s sender read from a field of an object app returns': { body: 'return widget().greet({ toString: widget().sender.bind(null, note) });', expect: 'deny' },
    'core\'s sender read from a field of an object app returns, called by the program': { body: 'return widget().sender(note);', expect: 'deny' },
    'core\'s sender app attaches to an error it throws, called by the program': { body: 'try { fail(); } catch (e) { return (e as any).retry(note); }', expect: 'deny' },
    'core\'s sender app attaches to an error it throws, handed back to app as toString': { body: 'try { fail(); } catch (e) { return widget().greet({ toString: (e as any).retry.bind(null, note) }); }', expect: 'deny' },
    'a subclass of app\'s class whose render is bound send': { body: 'class Evil extends Widget { render = send.bind(null, note); } return new Evil().show();', expect: 'none' },
    'bound send stored with Object.assign on a returned object': { body: 'const w = widget(); Object.assign(w, { render: send.bind(null, note) }); return w.show();', expect: 'deny' },
    'bound send as an accessor defined on a returned object through its prototype view': { body: 'const w = widget(); Object.defineProperty(w, "render", { get: () => send.bind(null, note) }); return w.show();', expect: 'deny' },
    'an instance made by Reflect.construct with a program prototype whose label getter is bound send': { body: 'function Evil() {} Evil.prototype = Object.defineProperty({}, "label", { get: send.bind(null, note) }); const w = Reflect.construct(Widget, [], Evil) as any; return w.title();', expect: 'none' },
    'a label getter defined on the prototype of app\'s class': { body: 'try { Object.defineProperty(Widget.prototype, "label", { get: send.bind(null, note), configurable: true }); } catch { return "frozen"; } return widget().title();', expect: 'none' },
    'a returned object given a program prototype with a label getter': { body: 'const w = widget(); Object.setPrototypeOf(w, Object.defineProperty(Object.create(Widget.prototype), "label", { get: send.bind(null, note) })); return w.title();', expect: 'none' },
    'send called through Function.prototype.call bound to it, applied by app': { body: 'return widget().invoke(Function.prototype.call.bind(send), [null, note]);', expect: 'deny' },
    'an array argument whose element is a getter of bound send': { body: 'return widget().sorted(Object.defineProperty([1, 2], 0, { get: send.bind(null, note), enumerable: true }));', expect: 'deny' },
    'a promise of a program reaction calling send, awaited by app': { body: 'return await widget().wait(Promise.resolve().then(() => send(note)));', expect: 'deny' },
  };
  for (const [name, route] of Object.entries(routes)) {
    test(`no call under app's grant with the program's data: ${name}`, async () => {
      const before = rtApi.requests.length;
      const reply = await run(program(route.body));
      assert.equal(reply.status, 200, reply.text);
      assert.ok(!reply.text.includes(RT_SECRET), reply.text);
      const seen = sendDecisions(reply.json.execution_id);
      // The far end received nothing: no request under app's grant carrying the program's note.
      assert.deepEqual(rtApi.requests.slice(before).map((r) => r.json), [], `${name}: ${reply.text}`);
      assert.ok(!seen.some(([, decision]) => decision === 'allow'), `${name}: ${JSON.stringify(seen)}`);
      if (route.expect === 'deny') {
        assert.ok(seen.length >= 1, `${name}: no decision recorded (${reply.text})`);
        for (const [caller] of seen) assert.equal(caller, 'main', `${name}: ${JSON.stringify(seen)}`);
      } else assert.deepEqual(seen, [], `${name}: ${reply.text}`);
    });
  }
});
