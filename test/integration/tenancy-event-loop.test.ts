// Issue 36: one token's heavy host work (a costly code.search, a git diff of a large file,
// deleting a session of many files) never holds the server's event loop, so another
// token's runs answer, with the right result, while it is still in progress; a 2,000-deep
// mkdir is a clear refusal that leaves nothing on disk; leftovers of a dead server are
// swept at start. Through the real server with two tokens; overlap is shown by order
// (the other token's answers arrive before the heavy one's), never by clocks.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { listTree, newToken, startServer, tempDir, type TestServer } from '../harness';
import { eventually } from '../support/wait';
import { sessionDir } from '../support/sessions';

let server: TestServer;
const other = newToken();
const ephemeralDir = tempDir();
/** A dead server's ephemeral root (pid 2^22 + 1 is above Linux's pid_max), with files in it. */
const deadRoot = path.join(ephemeralDir, 'svc-ephemeral-4194305-leftover');

// typecheck: off (types stripped, not checked): no program here is about types, and each of the
// file's servers would load a type checker for them (about 1 CPU-s).
const BLUEPRINT = `name: heavy
default: allow
typecheck: off
vfs: per_session
git: {identity: {name: Test, email: test@example.com}}
`;

before(async () => {
  fs.mkdirSync(path.join(deadRoot, 'run', 'deep'), { recursive: true });
  fs.writeFileSync(path.join(deadRoot, 'run', 'deep', 'left.txt'), 'left behind');
  const home = tempDir();
  fs.writeFileSync(path.join(home, 'other.token'), `${other}\n`);
  server = await startServer({
    home,
    config: { vfs_ephemeral_dir: ephemeralDir, api_tokens: [{ name: 'other', role: 'user', token_file: path.join(home, 'other.token') }] },
  });
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } });
  assert.ok(created.status < 300, created.text);
  // The other token's runs are unchecked too: checked, its first run waited for a cold type
  // checker (seconds on a loaded machine), and at load 30 the search answered before the
  // three runs had (othersAnswerDuring failed 1 of 5 rounds).
  await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: plain\ntypecheck: off\n' } });
});
after(async () => {
  await server.stop();
});

/** Resolves once `file` exists (told by inotify on its directory, which already exists). */
function markerWritten(file: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = fs.watch(path.dirname(file), () => {
      if (fs.existsSync(file)) done();
    });
    const done = () => {
      watcher.close();
      resolve();
    };
    if (fs.existsSync(file)) done();
  });
}

async function openSession(token: string): Promise<string> {
  const reply = await server.request('POST', '/v1/sessions', { token, body: { blueprint: 'heavy' } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json.session_id;
}

function run(token: string, sessionId: string, code: string) {
  return server.request('POST', `/v1/sessions/${sessionId}/execute`, { token, body: { code } });
}

/**
 * While `attack` (token A's request) is in flight, the other token runs a small program
 * three times and asks /healthz: all answer, correctly, before the attack does. `begun`, when
 * given, resolves once the heavy operation is about to start: the other token starts only then,
 * so its runs cannot all finish before the heavy work has begun.
 */
async function othersAnswerDuring(attack: Promise<{ status: number; json: any; text: string }>, begun?: Promise<void>) {
  let attackAnswered = false;
  const watched = attack.then((reply) => {
    attackAnswered = true;
    return reply;
  });
  await begun;
  const answeredFirst: boolean[] = [];
  for (let i = 0; i < 3; i++) {
    const reply = await server.request('POST', '/v1/execute', { token: other, body: { blueprint: 'plain', code: `export function main() { return ${i} * 7; }` } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.result, String(i * 7), reply.text);
    const health = await server.request('GET', '/healthz', { token: null });
    assert.equal(health.status, 200);
    answeredFirst.push(!attackAnswered);
  }
  const reply = await watched;
  assert.deepEqual(answeredFirst, [true, true, true], 'the other token\'s runs answered while the heavy operation was in progress');
  return reply;
}

test('a costly code.search runs off the event loop: the other token\'s runs answer meanwhile; the search answers right', async () => {
  const session = await openSession(server.userToken);
  // One line of 5,000 characters that `\w{1,500}\d` scans for about a second (re2js: linear,
  // but a large automaton; the suite's servers run without V8's optimising compiler, where
  // 10,000 took 1.5-3.4 CPU-s), then one match: the other token's three small runs answer in
  // a fraction of that. Twelve lines of 10,000 passed the 20 s budget at load 10.
  const wrote = await run(server.userToken, session, 'import * as fs from "svc:fs";\nexport function main() { fs.writeText("/big.txt", "a".repeat(5000) + "\\na1\\n"); return 1; }');
  assert.equal(wrote.json.error, null, wrote.text);
  const reply = await othersAnswerDuring(run(server.userToken, session, 'import * as code from "svc:code";\nexport function main() { return code.search("\\\\w{1,500}\\\\d", { path: "/", mode: "counts" }).counts; }'));
  // Seconds of scanning on an idle machine; on a very busy one it may pass the 20 s
  // budget, which must then end it with the error saying so.
  if (reply.json.error) assert.match(reply.json.error.message, /code\.search: the search took longer than 20 s; narrow the path/, reply.text);
  else assert.deepEqual(JSON.parse(reply.json.result), [{ path: '/big.txt', count: 1 }]);
});

test('git diff of a large changed file runs off the event loop; the repository and its diff are intact', async () => {
  const session = await openSession(server.userToken);
  const prepared = await run(
    server.userToken,
    session,
    'import * as fs from "svc:fs";\nimport { Repository } from "svc:git";\nexport function main() { const r = Repository.init("/repo"); fs.writeText("/repo/big.txt", Array.from({ length: 20000 }, (_, i) => "line " + i).join("\\n")); r.add(["big.txt"]); r.commit("base"); fs.writeText("/repo/big.txt", Array.from({ length: 20000 }, (_, i) => (i % 20 === 0 ? "changed " : "line ") + i).join("\\n")); return r.status().entries.length; }',
  );
  assert.equal(prepared.json.error, null, prepared.text);
  assert.equal(prepared.json.result, '1');
  // The program writes a marker just before the diff: the other token starts when it is on
  // disk, so the diff is running (or a host call away) while its three runs are asked.
  const marker = path.join(sessionDir(server, session), 'diff-begins');
  const reply = await othersAnswerDuring(
    run(server.userToken, session, 'import * as fs from "svc:fs";\nimport { Repository } from "svc:git";\nexport function main() { const r = new Repository("/repo"); fs.writeText("/diff-begins", "1"); const p = r.diff().patch; return [p.split("\\n").filter((l) => l.startsWith("+changed ")).length, p.startsWith("--- a/big.txt")]; }'),
    markerWritten(marker),
  );
  assert.equal(reply.json.error, null, reply.text);
  assert.deepEqual(JSON.parse(reply.json.result), [1000, true]);
  // Staged and committed through the worker: the data is there afterwards.
  const committed = await run(server.userToken, session, 'import { Repository } from "svc:git";\nexport function main() { const r = new Repository("/repo"); r.add(["big.txt"]); r.commit("changed"); return [r.status().clean, r.log().commits.map((c) => c.message.trim())]; }');
  assert.equal(committed.json.error, null, committed.text);
  assert.deepEqual(JSON.parse(committed.json.result), [true, ['changed', 'base']]);
});

test('deleting a session of 5,000 files answers at once; its files go in the background; the other token\'s session keeps its data', async () => {
  const kept = await openSession(other);
  assert.equal((await run(other, kept, 'import * as fs from "svc:fs";\nexport function main() { fs.writeText("/keep.txt", "mine"); return 1; }')).json.error, null);
  const doomed = await openSession(server.userToken);
  assert.equal((await run(server.userToken, doomed, 'import * as fs from "svc:fs";\nexport function main() { fs.writeText("/a.txt", "a"); return 1; }')).json.error, null);
  const sessions = path.join(server.home, 'server', 'vfs', 'sessions');
  // Written asynchronously: a test process blocked for seconds would reuse connections the server closed meanwhile.
  // 5,000 files (was 20,000: 10 s of the file's 21 s alone): the answer comes while the
  // background removal has thousands of unlinks left; a removal before the answer leaves
  // nothing to find at any size.
  for (let d = 0; d < 10; d++) {
    await fs.promises.mkdir(path.join(sessions, doomed, `d${d}`));
    await Promise.all(Array.from({ length: 500 }, (_, f) => fs.promises.writeFile(path.join(sessions, doomed, `d${d}`, `f${f}`), 'x')));
  }
  const deleted = await server.request('DELETE', `/v1/sessions/${doomed}`, { token: server.userToken });
  assert.equal(deleted.status, 204, deleted.text);
  assert.equal(fs.existsSync(path.join(sessions, doomed)), false, 'the directory left its place at once');
  // Answered before its 5,000 files were gone: the removal did not hold the answer (nor the event loop).
  const removing = path.join(server.home, 'server', 'vfs', '.removing-sessions');
  assert.ok(fs.readdirSync(removing).length > 0, 'the files are removed after the answer');
  const read = await run(other, kept, 'import * as fs from "svc:fs";\nexport function main() { return fs.readText("/keep.txt"); }');
  assert.equal(read.json.result, 'mine', read.text);
  await eventually('the deleted session\'s files to be removed', () => !fs.existsSync(removing) || fs.readdirSync(removing).length === 0);
});

test('fs.mkdir of a 2,000-deep path is a clear refusal, not a 500, and leaves nothing on disk; a file 64 levels down is fine', async () => {
  const session = await openSession(server.userToken);
  const deep = await run(server.userToken, session, 'import * as fs from "svc:fs";\nexport function main() { fs.mkdir("/" + Array(2000).fill("d").join("/"), true); }');
  assert.equal(deep.status, 200, deep.text);
  assert.equal(deep.json.error.kind, 'runtime_error');
  assert.match(deep.json.error.message, /the path is 2000 levels deep; a file area allows at most 64 levels below its root/);
  const dir = path.join(server.home, 'server', 'vfs', 'sessions', session);
  assert.deepEqual(fs.existsSync(dir) ? listTree(dir) : [], []);
  const fine = await run(server.userToken, session, 'import * as fs from "svc:fs";\nexport function main() { const p = "/" + Array(63).fill("d").join("/"); fs.mkdir(p, true); fs.writeText(p + "/x.txt", "ok"); let moved = "refused"; try { fs.mkdir("/m/n", true); fs.move("/d", "/m/n/d"); moved = "moved"; } catch (e) { moved = String(e.message).includes("levels") ? "refused" : String(e); } return [fs.readText(p + "/x.txt"), moved]; }');
  assert.equal(fine.json.error, null, fine.text);
  assert.deepEqual(JSON.parse(fine.json.result), ['ok', 'refused']);
  // The session's end takes every level with it.
  assert.equal((await server.request('DELETE', `/v1/sessions/${session}`, { token: server.userToken })).status, 204);
  assert.equal(fs.existsSync(dir), false);
});

test('a dead server\'s leftover ephemeral root is swept at start', async () => {
  await eventually('the leftover ephemeral root to be removed', () => !fs.existsSync(deadRoot));
});

describe('disk quotas', () => {
  // One server with a 1 MB session size limit and a 2 MB token disk budget: the first test
  // fills its tokens' areas, the second restarts it on the same home and counts them again.
  const home = tempDir();
  const second = newToken();
  let small: TestServer;
  const options = () => ({
    home,
    args: ['--max-session-vfs-size', '1', '--max-token-disk', '2'],
    config: { api_tokens: [{ name: 'second', role: 'user', token_file: path.join(home, 'second.token') }] },
  });
  before(async () => {
    fs.writeFileSync(path.join(home, 'second.token'), `${second}\n`);
    small = await startServer(options());
    assert.ok((await small.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } })).status < 300);
  });
  after(async () => {
    await small?.stop();
  });
  const open = async (token: string) => {
    const opened = await small.request('POST', '/v1/sessions', { token, body: { blueprint: 'heavy' } });
    assert.equal(opened.status, 200, opened.text);
    return opened.json.session_id as string;
  };
  const write = async (token: string, session: string, name: string, kilobytes: number) => {
    const reply = await small.request('POST', `/v1/sessions/${session}/execute`, {
      token,
      body: { code: `import * as fs from "svc:fs";\nexport function main() { try { fs.writeText("/${name}", "x".repeat(${kilobytes * 1024})); return "ok"; } catch (e) { return e.name + ": " + e.message + " | exists: " + fs.exists("/${name}"); } }` },
    });
    assert.equal(reply.json.error, null, reply.text);
    return reply.json.result as string;
  };
  // Sessions the second test finds again after the restart.
  let first: string;
  let third: string;
  let others: string;

  test('a session\'s default size limit and a token\'s disk budget refuse with the setting and the use; the other token is unaffected', async () => {
    first = await open(small.userToken);
    assert.equal(await write(small.userToken, first, 'a.txt', 900), 'ok');
    assert.equal(
      await write(small.userToken, first, 'b.txt', 200),
      "QuotaExceededError: fs.writeText /b.txt: the filesystem's size limit of 1048576 bytes (set by max_session_vfs_size) would be exceeded: 921600 bytes are in use and this needs 204800 more | exists: false",
    );
    const secondSession = await open(small.userToken);
    assert.equal(await write(small.userToken, secondSession, 'a.txt', 900), 'ok');
    third = await open(small.userToken);
    assert.equal(
      await write(small.userToken, third, 'a.txt', 300),
      "QuotaExceededError: fs.writeText /a.txt: the token's disk budget of 2097152 bytes (set by max_token_disk) would be exceeded: its sessions' file areas hold 1843200 bytes and this needs 307200 more | exists: false",
    );
    // Another token's budget is its own.
    others = await open(second);
    assert.equal(await write(second, others, 'a.txt', 900), 'ok');
    // Freed room counts again.
    const removed = await small.request('POST', `/v1/sessions/${secondSession}/execute`, { token: small.userToken, body: { code: 'import * as fs from "svc:fs";\nexport function main() { fs.remove("/a.txt"); }' } });
    assert.equal(removed.json.error, null, removed.text);
    assert.equal(await write(small.userToken, third, 'a.txt', 300), 'ok');
  });

  test('a restart does not reset a token\'s disk budget: the areas already on disk count from the first write; the other token is unaffected', async () => {
    // On disk now: this token 900 kB (first) + 300 kB (third); the other token 900 kB (others).
    await small.stop();
    small = await startServer({ ...options(), adminToken: small.adminToken, userToken: small.userToken });
    // A session opened after the restart: its own area is empty, the token's older ones are not.
    const fresh = await open(small.userToken);
    assert.equal(
      await write(small.userToken, fresh, 'b.txt', 900),
      "QuotaExceededError: fs.writeText /b.txt: the token's disk budget of 2097152 bytes (set by max_token_disk) would be exceeded: its sessions' file areas hold 1228800 bytes and this needs 921600 more | exists: false",
    );
    // What fits still fits, in the new session and in the ones from before the restart.
    assert.equal(await write(small.userToken, fresh, 'c.txt', 300), 'ok');
    assert.equal(await write(small.userToken, first, 'd.txt', 100), 'ok');
    // The other token's budget holds only its own: 900 kB before the restart, then 100 and 900 kB fit.
    assert.equal(await write(second, others, 'b.txt', 100), 'ok');
    assert.equal(await write(second, await open(second), 'a.txt', 900), 'ok');
    assert.equal(
      await write(second, await open(second), 'a.txt', 200),
      "QuotaExceededError: fs.writeText /a.txt: the token's disk budget of 2097152 bytes (set by max_token_disk) would be exceeded: its sessions' file areas hold 1945600 bytes and this needs 204800 more | exists: false",
    );
  });
});
