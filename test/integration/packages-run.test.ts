// Running Packages in the real server: Packages published with the real
// `svc build publish-local` into the server's fallback store, a Blueprint listing them,
// and programs importing them. The billing sample Package calls a loopback HTTPS stand-in
// with its secret; decision records carry the right caller (the Package for its own calls,
// the consumer for its checks); dependencies load first and are not importable by the
// program; Package errors are catchable; stacks map to the Package's sources; fuel covers
// Package code; and a closure that cannot load ends the run as package_resolution.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { startServer, tempDir, type TestServer } from '../harness';
import { svcInProcess } from '../support/cli';
import { billingSources, manifest, writeFiles, type FileMap } from '../support/packages';
import { serverOptions, startStandIn, type StandIn } from '../support/stand-in';

const BILLING_HOST = 'billing.internal.example.com';

/** The real `svc build publish-local`, through runCli in this process (the test is about the server's runs, not the command's process). */
async function publish(home: string, files: FileMap, packageName?: string): Promise<void> {
  const project = writeFiles(tempDir(), files);
  const result = await svcInProcess(['build', 'publish-local', ...(packageName ? ['-p', packageName] : [])], { cwd: project, env: { SVC_HOME: home } });
  assert.equal(result.code, 0, result.stdout + result.stderr);
}

/** The files of a project's Packages under their directories. */
const within = (directory: string, files: FileMap): FileMap => Object.fromEntries(Object.entries(files).map(([file, text]) => [`${directory}/${file}`, text]));

/** Two Packages of one project: @broke/app uses @broke/core (whose version a later publish changes under it). */
const brokeProject = (coreVersion: string) => [
  { name: '@broke/core', version: coreVersion, path: 'broke-core' },
  { name: '@broke/app', path: 'broke-app', dependencies: ['@broke/core'] },
];
const brokeSources = (coreVersion: string): FileMap => ({
  'broke-core/docs/readme.md': '# core\n',
  'broke-core/src/lib.ts': `/** One (version ${coreVersion}). */\nexport const one = 1;\n`,
  'broke-app/docs/readme.md': '# app\n',
  'broke-app/src/lib.ts': 'import { one } from "@broke/core";\n/** Two. */\nexport const two = one + 1;\n',
});

/** Two Packages of one project: @acme/app uses @acme/core; core has its own capability and file call. */
const layered = (): FileMap => ({
  'core/docs/readme.md': '# core\n',
  'core/src/lib.ts': `import { check } from "svc:security";
import * as fs from "svc:fs";

/**
 * Stores a note.
 * @param text The note.
 * @returns Its length.
 * @capability acme.com/notes.write { text }
 */
export function note(text: string): number {
  check("acme.com/notes.write", { text });
  fs.write("/core-note.txt", text);
  return text.length;
}

/**
 * The day after a date (Temporal, which the program itself never mentions).
 * @param date An ISO date.
 * @returns The next day.
 */
export function nextDay(date: string): string {
  return Temporal.PlainDate.from(date).add({ days: 1 }).toString();
}

/**
 * Spins forever (fuel test).
 * @returns never.
 */
export function spin(): number {
  let n = 0;
  for (;;) n++;
}
`,
  'app/docs/readme.md': '# app\n',
  'app/src/lib.ts': `import { check } from "svc:security";
import { note } from "@acme/core";

/**
 * Saves a line through core.
 * @param line The line.
 * @returns Its length.
 * @capability acme.com/app.save { line }
 */
export function save(line: string): number {
  check("acme.com/app.save", { line });
  return note(line);
}
`,
});

describe('running Packages', () => {
  let server: TestServer;
  let api: StandIn;
  let home: string;
  const execute = (blueprint: string, code: string, secrets?: Record<string, string>) =>
    server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint, code, ...(secrets ? { secrets } : {}) } });
  // Unchecked (typecheck: off strips the types alone): the runs are about loading Packages and
  // judging their calls; the import refusals asserted come from the compile step, not the checker.
  const register = async (doc: Record<string, unknown>) => {
    const reply = await server.request('POST', '/v1/blueprints', { body: { yaml: YAML.stringify({ typecheck: 'off', ...doc }) } });
    assert.ok(reply.status < 300, reply.text);
  };

  before(async () => {
    api = await startStandIn([BILLING_HOST], (req) => (req.path === '/credits' ? { status: 200, json: { balance: 1000 + (req.json?.amount ?? 0) } } : { status: 404, json: {} }));
    home = tempDir();
    await publish(home, {
      'svc.toml': manifest([
        { name: '@acme/billing', path: 'billing' },
        { name: '@acme/core', path: 'core' },
        { name: '@acme/app', path: 'app', dependencies: ['@acme/core'] },
        ...brokeProject('0.1.0'),
      ]),
      ...within('billing', billingSources(api.origin(BILLING_HOST))),
      ...layered(),
      ...brokeSources('0.1.0'),
    });
    // A closure that cannot load: @broke/core's version changes after @broke/app was built against it.
    await publish(home, { 'svc.toml': manifest(brokeProject('0.2.0')), ...brokeSources('0.2.0') }, '@broke/core');
    const options = serverOptions(api);
    server = await startServer({ home, ...options, args: [...options.args, '--max-execution-fuel', '50000000'], timeoutMs: 60_000 });
    await register({
      name: 'billing',
      default: 'deny',
      packages: ['@acme/billing'],
      secrets: { BILLING_API_KEY: { harness: {} } },
      permissions: {
        '@acme/billing': [
          { capability: 'http.post', filter: `host == "${BILLING_HOST}"`, action: 'allow' },
          { capability: 'secrets.get', filter: 'name == "BILLING_API_KEY"', action: 'allow' },
        ],
        main: [{ capability: 'acme.com/credits.apply', filter: 'customerClass == "gold" and amount <= 5000', action: 'allow' }],
      },
    });
    await register({
      name: 'layered',
      default: 'deny',
      packages: ['@acme/app'],
      permissions: {
        '@acme/core': [{ capability: 'fs.write', action: 'allow' }],
        '@acme/app': [{ capability: 'acme.com/notes.write', filter: 'text != "forbidden"', action: 'allow' }],
        main: [{ capability: 'acme.com/app.save', action: 'allow' }],
      },
    });
  });
  after(async () => {
    await server?.stop();
    await api?.close();
  });

  test('a Package calls its API with its secret; the program sees the result, never the secret; decisions name the right callers', async () => {
    const before = api.requests.length;
    const reply = await execute('billing', 'import { applyCredit } from "@acme/billing";\nexport function main() { return applyCredit("vip-7", 250); }', { BILLING_API_KEY: 'sk-live-123' });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.error, null, reply.text);
    assert.equal(reply.json.result, '1250');
    const sent = api.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].method, 'POST');
    assert.equal(sent[0].headers.authorization, 'Bearer sk-live-123');
    assert.deepEqual(sent[0].json, { customerId: 'vip-7', amount: 250 });
    const executionId = reply.json.execution_id;
    const decisions = server.audit({ type: 'decision', execution_id: executionId });
    const byCapability = (capability: string) => decisions.filter((d) => d.capability === capability);
    assert.equal(byCapability('acme.com/credits.apply')[0]?.caller, 'main');
    assert.equal(byCapability('secrets.get')[0]?.caller, '@acme/billing');
    assert.equal(byCapability('http.post')[0]?.caller, '@acme/billing');
    assert.ok(!server.lines().join('\n').includes('sk-live-123'), 'the secret reached the server output');
  });

  test('the check is judged under the program: a payload its rule refuses sends nothing and names main', async () => {
    const before = api.requests.length;
    const reply = await execute('billing', 'import * as billing from "@acme/billing";\nexport function main() { return billing.applyCredit("regular-1", 250); }', { BILLING_API_KEY: 'k' });
    assert.equal(reply.json.error?.kind, 'permission_denied', reply.text);
    assert.equal(reply.json.error.caller, 'main');
    assert.equal(reply.json.error.capability, 'acme.com/credits.apply');
    assert.match(reply.json.error.message, /at applyCredit \(@acme\/billing\/src\/lib\.ts:\d+:\d+\)/);
    assert.equal(api.requests.length, before);
  });

  test('a Package error reaches the program catchable, with its class and code; a missing secret is the Package\'s own error', async () => {
    const reply = await execute(
      'billing',
      'import { applyCredit, BillingError } from "@acme/billing";\nexport function main() { try { applyCredit("vip-1", 1); return "no error"; } catch (e) { return { isBilling: e instanceof BillingError, name: e.name, code: e.code, message: e.message }; } }',
    );
    assert.deepEqual(JSON.parse(reply.json.result), { isBilling: true, name: 'BillingError', code: 'missing_token', message: 'Bind BILLING_API_KEY in the Blueprint' });
  });

  test('secrets.get from the program is an invariant refusal, whatever the rules', async () => {
    const reply = await execute('billing', 'import secrets from "svc:secrets";\nexport function main() { return secrets.get("BILLING_API_KEY"); }', { BILLING_API_KEY: 'k' });
    assert.equal(reply.json.error?.kind, 'permission_denied');
    assert.equal(reply.json.error.source, 'invariant');
    assert.equal(reply.json.error.caller, 'main');
  });

  test('an unlisted Package cannot be imported: a compile error that says the Blueprint does not list it', async () => {
    const reply = await execute('billing', 'import { save } from "@acme/app";\nexport function main() { return save("x"); }');
    assert.equal(reply.json.error?.kind, 'compile_error');
    assert.match(reply.json.error.message, /cannot import `@acme\/app`; the Blueprint does not list this Package/);
  });

  test('dependencies load first; a dependency\'s check is judged under the Package that called it, its own calls under itself', async () => {
    const reply = await execute('layered', 'import { save } from "@acme/app";\nexport function main() { return save("hello"); }');
    assert.equal(reply.json.error, null, reply.text);
    assert.equal(reply.json.result, '5');
    const decisions = server.audit({ type: 'decision', execution_id: reply.json.execution_id });
    assert.deepEqual(
      decisions.map((d) => [d.caller, d.capability, d.decision]),
      [
        ['main', 'acme.com/app.save', 'allow'],
        ['@acme/app', 'acme.com/notes.write', 'allow'],
        ['@acme/core', 'fs.write', 'allow'],
      ],
    );
    const denied = await execute('layered', 'import { save } from "@acme/app";\nexport function main() { return save("forbidden"); }');
    assert.equal(denied.json.error?.kind, 'permission_denied');
    assert.equal(denied.json.error.caller, '@acme/app');
    assert.equal(denied.json.error.capability, 'acme.com/notes.write');
  });

  test('a dependency alone cannot be imported by the program', async () => {
    const reply = await execute('layered', 'import { note } from "@acme/core";\nexport function main() { return note("x"); }');
    assert.equal(reply.json.error?.kind, 'compile_error');
  });

  test('fuel covers Package code: a Package that loops forever ends the run as fuel_exhausted', async () => {
    await register({ name: 'spin', default: 'allow', packages: ['@acme/core'], permissions: { '@acme/core': [{ capability: 'fs.write', action: 'allow' }] } });
    const reply = await execute('spin', 'import { spin } from "@acme/core";\nexport function main() { return spin(); }');
    assert.equal(reply.json.error?.kind, 'fuel_exhausted', reply.text);
  });

  test('a Package that uses Temporal gets it (with frozen built-ins) even when the program does not mention it', async () => {
    const reply = await execute('spin', 'import { nextDay } from "@acme/core";\nexport function main() { return nextDay("2028-02-28"); }');
    assert.equal(reply.json.error, null, reply.text);
    assert.equal(reply.json.result, '2028-02-29');
  });

  test('a run with Packages has the real ES2024+ built-ins, frozen: core-js evaluated whole before lockdown, the Iterator constructor before its helpers', async () => {
    const program = `import { note } from "@acme/core";
export function main() {
  const helper = Object.getOwnPropertyDescriptor(Iterator.prototype, "map");
  return [
    typeof note === "function",
    Object.keys(Object.groupBy([1, 2, 3], (n) => (n % 2 ? "odd" : "even"))).join(","),
    [...new Set([1, 2]).union(new Set([3]))].join(","),
    Iterator.from([1, 2, 3]).map((n) => n * 2).filter((n) => n > 2).toArray().join(","),
    typeof Iterator === "function" && Object.isFrozen(Iterator.prototype),
    helper !== undefined && helper.writable === false && helper.value.name === "map",
  ];
}`;
    const reply = await execute('spin', program);
    assert.equal(reply.json.error, null, reply.text);
    assert.deepEqual(JSON.parse(reply.json.result), [true, 'odd,even', '1,2,3', '4,6', true, true]);
  });

  test('a closure that cannot load ends the run as package_resolution before anything runs', async () => {
    await register({ name: 'broken', default: 'allow', packages: ['@broke/app'] });
    const mismatch = await execute('broken', 'import * as fs from "svc:fs";\nexport function main() { fs.write("/ran.txt", "x"); return 1; }');
    assert.equal(mismatch.json.error?.kind, 'package_resolution', mismatch.text);
    assert.match(mismatch.json.error.message, /'@broke\/app' needs '@broke\/core' version 0\.1\.0, but version 0\.2\.0 is installed/);
    const finished = server.audit({ type: 'execution', event: 'finished', execution_id: mismatch.json.execution_id })[0];
    assert.equal(finished.error_class, 'package_resolution');
    assert.equal(finished.fuel, '0');
    // An artifact that lost a file: unloadable, named.
    fs.rmSync(path.join(home, 'packages', '@broke', 'app', 'lib.js'));
    const missing = await execute('broken', 'export function main() { return 1; }');
    assert.equal(missing.json.error?.kind, 'package_resolution');
    assert.match(missing.json.error.message, /@broke\/app/);
  });
});
