// The first standard library against the real server: svc:fs on real files (quota,
// read-only volumes, escapes, no host paths), denials, the secrets.get invariant,
// svc:session state and the server budget, the pure modules, and decision records.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../harness';

async function run(server: TestServer, blueprint: string, code: string) {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint, code } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json;
}

async function register(server: TestServer, yaml: string) {
  const reply = await server.request('POST', '/v1/blueprints', { body: { yaml } });
  assert.equal(reply.status, 200, reply.text);
}

// One server for the file (each describe registers its own Blueprints), except where a test
// needs another audit mode; one program at a time, so one runner. Every Blueprint is
// unchecked (typecheck: off strips the types alone): no program here is about types, and the
// server would load a type checker for them (about 1 CPU-s) and check each.
const handbook = tempDir('svc-handbook-');
fs.writeFileSync(path.join(handbook, 'rules.md'), '# Rules\nbe kind\n');
const volumes = {
  handbook: { kind: 'local-path', path: handbook, access: 'read_only', size_limit: 'unlimited' },
  shared: { kind: 'managed-local', size_limit: '1MB' },
};
let sharedServer: Promise<TestServer> | null = null;
/** The file's server: the volumes above, a 1 MB session-state budget, the default audit mode (summary) named. */
function shared(): Promise<TestServer> {
  sharedServer ??= startServer({ runners: 1, args: ['--max-session-state-memory', '1'], config: { volumes, logging: { audit: { allows: 'summary' } } } });
  return sharedServer;
}
after(async () => (await sharedServer)?.stop());

describe('svc:fs', () => {
  let server: TestServer;
  before(async () => {
    server = await shared();
    await register(server, 'name: files\ntypecheck: off\ndefault: allow\nvfs:\n  mode: ephemeral\n  size_limit: 1KB\n  mounts:\n    /handbook: {mode: named, volume: handbook}\n');
    await register(server, 'name: shared-a\ntypecheck: off\ndefault: allow\nvfs: {mode: named, volume: shared}\n');
    await register(server, 'name: shared-b\ntypecheck: off\ndefault: allow\nvfs: {mode: named, volume: shared}\n');
    await register(server, 'name: guarded\ntypecheck: off\npermissions:\n  main:\n    - {capability: fs.read, action: allow}\n    - {capability: fs.stat, action: allow}\n');
  });

  test('write, read, append, list, copy, move, remove and stat against real files', async () => {
    const result = await run(
      server,
      'files',
      `import * as fs from "svc:fs";
export function main() {
  fs.mkdir("/work/deep", true);
  fs.writeText("/work/a.txt", "hello");
  fs.appendText("/work/a.txt", " world");
  fs.copy("/work/a.txt", "/work/b.txt");
  fs.move("/work/b.txt", "/work/deep/c.txt");
  const listed = fs.list("/work", true).map((e) => e.path + ":" + e.kind);
  const stat = fs.stat("/work/a.txt");
  fs.remove("/work/deep", true);
  return { text: fs.readText("/work/a.txt"), lines: fs.lines("/handbook/rules.md"), listed, size: stat.size, kind: stat.kind, gone: fs.exists("/work/deep"), missing: fs.stat("/nope"), cwd: fs.cwd(), info: fs.info() };
}`,
    );
    assert.equal(result.error, null, JSON.stringify(result.error));
    const value = JSON.parse(result.result);
    assert.equal(value.text, 'hello world');
    assert.deepEqual(value.lines, ['# Rules', 'be kind']);
    assert.deepEqual(value.listed, ['/work/a.txt:file', '/work/deep:directory', '/work/deep/c.txt:file']);
    assert.equal(value.size, 11);
    assert.equal(value.gone, false);
    assert.equal(value.missing, null);
    assert.equal(value.info.mode, 'ephemeral');
    assert.deepEqual(value.info.mounts, [{ path: '/handbook', mode: 'named', volume: 'handbook', access: 'read_only', sizeLimit: -1 }]);
  });

  test('a write past the size limit is a catchable QuotaExceededError naming the limit, and nothing is written', async () => {
    const result = await run(
      server,
      'files',
      `import * as fs from "svc:fs";
export function main() {
  try { fs.writeText("/big.txt", "x".repeat(2000)); } catch (e) { return [e.name, e.message, fs.exists("/big.txt")]; }
}`,
    );
    const [name, message, exists] = JSON.parse(result.result);
    assert.equal(name, 'QuotaExceededError');
    assert.match(message, /1024 bytes/);
    assert.equal(exists, false);
    const quota = server.audit({ type: 'decision', source: 'quota', execution_id: result.execution_id });
    assert.equal(quota.length, 1);
    assert.equal(quota[0].capability, 'fs.write');
  });

  test('a write to a read-only volume is permission_denied with source read_only; the file is untouched', async () => {
    const result = await run(server, 'files', 'import * as fs from "svc:fs";\nexport function main() { fs.writeText("/handbook/rules.md", "vandalised"); }');
    assert.equal(result.error.kind, 'permission_denied');
    assert.equal(result.error.source, 'read_only');
    assert.equal(result.error.capability, 'fs.write');
    assert.match(result.error.message, /mounted read-only at \/handbook/);
    assert.equal(fs.readFileSync(path.join(handbook, 'rules.md'), 'utf8'), '# Rules\nbe kind\n');
  });

  test('a named volume shared by two Blueprints sees the same files', async () => {
    assert.equal((await run(server, 'shared-a', 'import * as fs from "svc:fs";\nexport function main() { fs.writeText("/from-a.txt", "shared"); }')).error, null);
    assert.equal((await run(server, 'shared-b', 'import * as fs from "svc:fs";\nexport function main() { return fs.readText("/from-a.txt"); }')).result, 'shared');
    assert.ok(fs.existsSync(path.join(server.home, 'server', 'volumes', 'shared', 'from-a.txt')));
  });

  test('.. and symlink escapes are refused without touching anything outside, and no host path appears', async () => {
    const outside = tempDir('svc-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside');
    fs.symlinkSync(outside, path.join(handbook, 'escape'));
    const climb = await run(server, 'files', 'import * as fs from "svc:fs";\nexport function main() { return fs.readText("/../../etc/passwd"); }');
    assert.equal(climb.error.kind, 'permission_denied');
    assert.equal(climb.error.source, 'invariant');
    const link = await run(server, 'files', 'import * as fs from "svc:fs";\nexport function main() { return fs.readText("/handbook/escape/secret.txt"); }');
    assert.equal(link.error.kind, 'runtime_error');
    assert.match(link.error.message, /^Error: fs\.readText \/handbook\/escape\/secret\.txt: \/handbook\/escape is a symbolic link; file operations never follow links/);
    for (const message of [climb.error.message, link.error.message]) {
      assert.ok(!message.includes(handbook) && !message.includes(outside) && !message.includes(server.home), message);
    }
  });

  test('a policy denial escapes main as permission_denied with caller, capability and source policy', async () => {
    const result = await run(server, 'guarded', 'import * as fs from "svc:fs";\nexport function main() { fs.writeText("/x.txt", "no"); }');
    assert.deepEqual([result.error.kind, result.error.caller, result.error.capability, result.error.source], ['permission_denied', 'main', 'fs.write', 'policy']);
    assert.match(result.error.message, /^PermissionDeniedError: permission denied: caller=main capability=fs\.write/);
    const caught = await run(server, 'guarded', 'import * as fs from "svc:fs";\nexport function main() { try { fs.writeText("/x.txt", "no"); } catch (e) { return e instanceof PermissionDeniedError; } }');
    assert.equal(caught.result, 'true');
  });
});

describe('secrets, session state and pure modules', () => {
  let server: TestServer;
  before(async () => {
    server = await shared();
    await register(server, 'name: open\ntypecheck: off\ndefault: allow\nsecrets: {TOKEN: {harness: {}}}\npermissions:\n  main:\n    - {capability: secrets.get, action: allow}\n');
  });

  test('secrets.get from main is refused as an invariant even under default allow and an allow rule', async () => {
    const result = await run(server, 'open', 'import * as secrets from "svc:secrets";\nexport function main() { return secrets.get("TOKEN"); }');
    assert.deepEqual([result.error.kind, result.error.source, result.error.capability], ['permission_denied', 'invariant', 'secrets.get']);
    const denial = server.audit({ type: 'decision', execution_id: result.execution_id })[0];
    assert.equal(denial.source, 'invariant');
    assert.equal(denial.reason, 'refused by runtime invariant');
  });

  test('session state: set then get within a run, type and size caps, and the server budget refuses a second session without evicting the first', async () => {
    const first = (await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'open' } })).json.session_id;
    const second = (await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'open' } })).json.session_id;
    const exec = async (id: string, code: string) => (await server.request('POST', `/v1/sessions/${id}/execute`, { token: server.userToken, body: { code } })).json;
    const within = await exec(first, 'import * as s from "svc:session";\nexport function main() { s.set("a", { n: 1 }); const v = s.get("a"); v.n = 2; return [s.get("a"), s.has("a"), s.has("b")]; }');
    assert.equal(within.result, '[{"n":1},true,false]');
    const caps = await exec(first, 'import * as s from "svc:session";\nexport function main() { const out = []; for (const bad of [new Map(), 1n, () => 1, NaN]) { try { s.set("x", bad); } catch (e) { out.push(e.name); } } try { s.set("", 1); } catch (e) { out.push(e.name); } return out; }');
    assert.equal(caps.result, '["TypeError","TypeError","TypeError","TypeError","RangeError"]');
    const big = 'x'.repeat(300_000);
    const filled = await exec(first, `import * as s from "svc:session";\nexport function main() { s.set("big", "${big}"); return "kept"; }`);
    assert.equal(filled.result, 'kept');
    const refused = await exec(second, `import * as s from "svc:session";\nexport function main() { try { s.set("big", "${big}"); } catch (e) { return [e.name, /max_session_state_memory/.test(e.message)]; } }`);
    assert.equal(refused.result, '["QuotaExceededError",true]');
    const stillThere = await exec(first, 'import * as s from "svc:session";\nexport function main() { return s.get("big").length; }');
    assert.equal(stillThere.result, '300000');
    assert.ok(server.audit({ type: 'decision', source: 'quota', session_id: second }).length >= 1);
  });

  test('crypto, url and uuid work without any rule', async () => {
    const result = await run(
      server,
      'open',
      `import * as crypto from "svc:crypto";
import * as url from "svc:url";
import * as uuid from "svc:uuid";
export function main() {
  const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  const parsed = url.parse("https://Example.COM:8443/a/b?x=1&y=two+words#frag");
  return {
    sha: hex(crypto.sha256("abc")),
    eq: crypto.timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2])),
    random: crypto.randomBytes(16).length,
    host: parsed.host, port: parsed.port, y: parsed.query.get("y"), fragment: parsed.fragment,
    encoded: url.encodeComponent("a b/c"),
    v4: uuid.validate(uuid.v4()), v7order: uuid.v7() < uuid.v7(),
  };
}`,
    );
    assert.equal(result.error, null, JSON.stringify(result.error));
    assert.deepEqual(JSON.parse(result.result), {
      sha: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      eq: true,
      random: 16,
      host: 'example.com',
      port: 8443,
      y: 'two words',
      fragment: 'frag',
      encoded: 'a%20b%2Fc',
      v4: true,
      v7order: true,
    });
  });
});

describe('decision records per allows mode', () => {
  const PROGRAM = `import * as fs from "svc:fs";
export function main() {
  fs.writeText("/n.txt", "x");
  for (let i = 0; i < 1000; i++) fs.readText("/n.txt");
  try { fs.remove("/n.txt"); } catch (e) { }
  return "done";
}`;
  // Unchecked (typecheck: off strips the types alone): the two servers of their own would
  // each load a type checker (about 1 CPU-s) for this one program, which is not about types.
  const YAML = 'name: audited\ntypecheck: off\npermissions:\n  main:\n    - {capability: fs.read, action: allow}\n    - {capability: fs.write, action: allow}\n';

  for (const [mode, expectedReadRows] of [['all', 1000], ['summary', 1], ['none', 0]] as const) {
    test(`allows: ${mode} → ${expectedReadRows} fs.read rows, exactly one deny row, and the same fuel`, async () => {
      // Summary is the file's server's mode; the others get a server of their own.
      const own = mode !== 'summary';
      const server = own ? await startServer({ runners: 1, config: { logging: { audit: { allows: mode } } } }) : await shared();
      try {
        await register(server, YAML);
        const result = await run(server, 'audited', PROGRAM);
        assert.equal(result.result, 'done');
        const decisions = server.audit({ type: 'decision', execution_id: result.execution_id });
        assert.equal(decisions.filter((d) => d.decision === 'deny').length, 1);
        const reads = decisions.filter((d) => d.capability === 'fs.read');
        assert.equal(reads.length, expectedReadRows);
        if (mode === 'summary') {
          assert.equal(reads[0].count, '1000');
          assert.ok(!('contexts.10.payload_json' in reads[0]));
          assert.equal(reads[0]['contexts.0.path'], '/n.txt');
        }
        const finished = server.audit({ type: 'execution', event: 'finished', execution_id: result.execution_id })[0];
        fuelByMode.set(mode, finished.fuel);
      } finally {
        if (own) await server.stop();
      }
    });
  }
  const fuelByMode = new Map<string, string>();
  test('fuel is identical across the modes', () => {
    assert.equal(new Set(fuelByMode.values()).size, 1, JSON.stringify([...fuelByMode]));
  });
});

describe('svc:fs streams, peek and writer', () => {
  let server: TestServer;
  before(async () => {
    server = await shared();
    await register(server, 'name: streams\ntypecheck: off\ndefault: allow\nvfs: per_session\n');
  });

  test('writer commits on close and leaves no file when never closed; bytes, readBytes and peek read real files', async () => {
    const session = (await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'streams' } })).json.session_id;
    const exec = async (code: string) => (await server.request('POST', `/v1/sessions/${session}/execute`, { token: server.userToken, body: { code } })).json;
    const wrote = await exec('import * as fs from "svc:fs";\nexport function main() { const w = fs.writer("/log.txt"); w.writeLine("one"); w.writeLine("two"); w.close(); fs.writer("/never.txt").writeLine("lost"); try { w.writeLine("late"); } catch (e) { return e.message; } }');
    assert.match(wrote.result, /closed/);
    const read = await exec('import * as fs from "svc:fs";\nexport function main() { fs.writeText("/crlf.txt", "a\\r\\nb"); return { lines: fs.lines("/log.txt"), never: fs.exists("/never.txt"), chunks: fs.bytes("/log.txt", 3).map((c) => c.length), slice: new TextDecoder().decode(fs.readBytes("/log.txt", 4, 3)), peek: fs.peek("/crlf.txt") }; }');
    assert.equal(read.error, null, JSON.stringify(read.error));
    assert.deepEqual(JSON.parse(read.result), { lines: ['one', 'two'], never: false, chunks: [3, 3, 2], slice: 'two', peek: { preview: 'a\r\nb', encoding: 'utf-8', lineEnding: 'crlf', size: 4 } });
    assert.ok(fs.existsSync(path.join(server.home, 'server', 'vfs', 'sessions', session, 'log.txt')));
  });

  test('megabytes of bytes and text cross the host boundary within the default memory limit, byte for byte', async () => {
    const reply = await run(
      server,
      'streams',
      `import * as fs from "svc:fs";
export function main() {
  const size = 4 * 1048576;
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31) & 255;
  fs.write("/big.bin", bytes);
  const back = fs.readBytes("/big.bin", 0, size);
  let same = back.length === size;
  for (let i = 0; same && i < size; i += 4099) same = back[i] === ((i * 31) & 255);
  const text = "é€𝄞".repeat(300000);
  const encoded = new TextEncoder().encode(text);
  const wire = btoa(String.fromCharCode(...new TextEncoder().encode("ünïcode")));
  return { same, size: back.length, utf8: encoded.length, roundTrip: new TextDecoder().decode(encoded) === text, atob: new TextDecoder().decode(Uint8Array.from(atob(wire), (c) => c.charCodeAt(0))) };
}`,
    );
    assert.equal(reply.error, null, JSON.stringify(reply.error));
    assert.deepEqual(JSON.parse(reply.result), { same: true, size: 4 * 1048576, utf8: 2700000, roundTrip: true, atob: 'ünïcode' });
    assert.equal(fs.statSync(path.join(server.home, 'server', 'vfs')).isDirectory(), true);
  });
});

describe('svc:code', () => {
  let server: TestServer;
  before(async () => {
    server = await shared();
    await register(server, 'name: code\ntypecheck: off\ndefault: allow\npermissions:\n  main:\n    - {capability: fs.read, filter: \'path glob "/private/*"\', action: deny}\n');
  });

  test('read windows, search (RE2, hidden and denied files skipped), glob, tree, edit, insertAt, diffs and patches', async () => {
    const result = await run(
      server,
      'code',
      `import * as fs from "svc:fs";
import * as code from "svc:code";
export function main() {
  fs.mkdir("/src/lib", true); fs.mkdir("/private"); fs.mkdir("/.hidden");
  fs.writeText("/src/a.ts", "const a = 1;\\nconst b = 2;\\nexport { a, b };\\n");
  fs.writeText("/src/lib/c.ts", "const c = 3;\\n");
  fs.writeText("/private/p.ts", "const secret = 1;\\n");
  fs.writeText("/.hidden/h.ts", "const h = 1;\\n");
  const window = code.read("/src/a.ts", 2, 1);
  const found = code.search("const [a-z]", { mode: "files" });
  const globbed = code.glob("/src/**/*.ts").entries.map((e) => e.path).sort();
  const tree = code.tree("/src", 1).entries.map((e) => e.path);
  const edited = code.edit("/src/a.ts", "const b = 2;", "const b = 20;");
  const ambiguous = code.edit("/src/a.ts", "const", "let");
  const inserted = code.insertAt("/src/lib/c.ts", 1, "// header");
  const appended = code.insertAt("/src/lib/c.ts", 3, "export { c };");
  const patch = code.diffText("x\\ny\\n", "x\\nz\\n");
  fs.writeText("/p.txt", "x\\ny\\n");
  const applied = code.applyPatch("/p.txt", patch);
  const failed = code.applyPatch("/p.txt", patch);
  return { window, found: found.files, globbed, tree, edited: [edited.success, edited.changed, fs.readText("/src/a.ts")], ambiguous: [ambiguous.success, ambiguous.diagnostics.length], c: fs.readText("/src/lib/c.ts"), inserted: inserted.success && appended.success, patch, applied: [applied.success, fs.readText("/p.txt")], failed: [failed.success, failed.diagnostics[0].hunk], same: code.diffText("a", "a") };
}`,
    );
    assert.equal(result.error, null, JSON.stringify(result.error));
    const value = JSON.parse(result.result);
    assert.deepEqual(value.window, { path: '/src/a.ts', lines: [{ line: 2, text: 'const b = 2;' }], truncated: true });
    assert.deepEqual(value.found.sort(), ['/src/a.ts', '/src/lib/c.ts']);
    assert.deepEqual(value.globbed, ['/src/a.ts', '/src/lib/c.ts']);
    assert.deepEqual(value.tree, ['/src/a.ts', '/src/lib']);
    assert.deepEqual(value.edited, [true, true, 'const a = 1;\nconst b = 20;\nexport { a, b };\n']);
    assert.deepEqual(value.ambiguous, [false, 1]);
    assert.equal(value.c, '// header\nconst c = 3;\nexport { c };\n');
    assert.equal(value.inserted, true);
    assert.equal(value.patch, '--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n');
    assert.deepEqual(value.applied, [true, 'x\nz\n']);
    assert.deepEqual(value.failed, [false, 1]);
    assert.equal(value.same, '');
    const edits = server.audit({ type: 'decision', execution_id: result.execution_id, capability: 'fs.write' });
    assert.ok(edits.length >= 1);
  });
});
