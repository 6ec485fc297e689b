// Runners compute below the server (runner_nice): every thread of every runner process has
// the setting's nice value, and so has a runner's autogroup when it is a session of its own
// (bubblewrap's `--new-session`), never the server's own autogroup. Read from /proc as an
// operator would, while one token's runs loop and another token's run still answers right.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { newToken, runServerBinary, startServer, tempDir, type TestServer } from '../harness';
import { eventually } from '../support/wait';
import { autogroupOf, processTree } from '../../sandbox/pool/priority';

const NICE = 11;
const BLUEPRINT = 'name: nice\ndefault: allow\ntypecheck: off\n';
const RUNAWAY = 'export function main() { for (;;) {} }';

/** A task's nice value: field 19 of /proc/<pid>/task/<tid>/stat (fields counted after the command's closing parenthesis). */
function niceOf(statPath: string): number {
  const stat = fs.readFileSync(statPath, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19 - 3]);
}

/** Whether reading /proc failed because the process or thread has ended. */
function ended(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ESRCH';
}

/** The task's nice value as a one-element list, or none when the task has ended. */
function niceIfAlive(statPath: string): number[] {
  try {
    return [niceOf(statPath)];
  } catch (error) {
    if (ended(error)) return [];
    throw error;
  }
}

function autogroupNice(pid: number | 'self'): number | null {
  try {
    return Number(/nice (-?\d+)/.exec(fs.readFileSync(`/proc/${pid}/autogroup`, 'utf8'))![1]);
  } catch {
    return null;
  }
}

/** The Node runner processes below the server, past any wrapper. */
function runners(server: TestServer): number[] {
  return processTree(server.child.pid!).filter((pid) => {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return path.basename(argv[0] ?? '') !== 'bwrap' && argv.some((arg) => arg.endsWith('runner.js'));
    } catch {
      return false;
    }
  });
}

/**
 * Every thread of each runner at `nice`, and each runner's autogroup too unless it is the
 * server's (the server's stays as it was). A process or thread that ended between listing and
 * reading (a runner's threads come and go) is "not yet": the next probe lists again.
 */
function lowered(server: TestServer, serverGroupNice: number | null, nice = NICE): boolean {
  const pids = runners(server);
  if (pids.length < 2) return false;
  const serverGroup = autogroupOf(server.child.pid!);
  try {
    for (const pid of pids) {
      for (const task of fs.readdirSync(`/proc/${pid}/task`)) if (niceOf(`/proc/${pid}/task/${task}/stat`) !== nice) return false;
      const group = autogroupOf(pid);
      if (group !== null && group !== serverGroup && autogroupNice(pid) !== nice) return false;
    }
  } catch (error) {
    if (ended(error)) return false;
    throw error;
  }
  return autogroupNice(server.child.pid!) === serverGroupNice;
}

/** A PATH holding Node (and the dirname the launcher uses) alone: the probe finds no wrapper, runners share the server's session. */
function pathWithoutWrappers(): string {
  const bin = tempDir();
  fs.symlinkSync(process.execPath, path.join(bin, 'node'));
  fs.symlinkSync(execFileSync('sh', ['-c', 'command -v dirname'], { encoding: 'utf8' }).trim(), path.join(bin, 'dirname'));
  return bin;
}

for (const host of ['this host', 'a host without bubblewrap (runners in the server\'s session)'] as const) describe(`runner_nice on ${host}`, () => {
  let server: TestServer;
  let other: string;

  before(async () => {
    other = newToken();
    const home = tempDir();
    fs.writeFileSync(path.join(home, 'other.token'), `${other}\n`);
    server = await startServer({
      home,
      runners: 2,
      ...(host === 'this host' ? {} : { env: { PATH: pathWithoutWrappers() } }),
      args: ['--runner-nice', String(NICE), '--max-execution-time', '60'],
      config: { api_tokens: [{ name: 'other', role: 'user', token_file: path.join(home, 'other.token') }] },
    });
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } });
    assert.ok(created.status < 300, created.text);
  });

  after(async () => {
    await server?.stop();
  });

  test('every runner thread, and a runner session of its own, has the setting\'s nice value; the server keeps its own; another token\'s run answers right while one token\'s runs loop', async () => {
    const serverGroupNice = autogroupNice(server.child.pid!);
    const loops = Array.from({ length: 4 }, () => {
      const controller = new AbortController();
      const reply = fetch(`${server.url}/v1/execute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.userToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ blueprint: 'nice', code: RUNAWAY }),
        signal: controller.signal,
      }).catch(() => null);
      return { controller, reply };
    });
    try {
      await eventually('runners below the server', () => lowered(server, serverGroupNice));
      const serverPid = server.child.pid!;
      // A worker thread of the server's that ended since the listing has no nice to read.
      const niceThreads = fs.readdirSync(`/proc/${serverPid}/task`).flatMap((task) => niceIfAlive(`/proc/${serverPid}/task/${task}/stat`));
      assert.ok(niceThreads.every((nice) => nice !== NICE), `the server's own threads keep their priority: ${niceThreads.join(',')}`);
      const answer = await server.request('POST', '/v1/execute', { token: other, body: { blueprint: 'nice', code: 'export function main() { let s = 0; for (let i = 1; i <= 1000; i++) s += i; return s; }' } });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.error, null, answer.text);
      assert.equal(answer.json.result, '500500');
    } finally {
      for (const loop of loops) loop.controller.abort();
      await Promise.all(loops.map((loop) => loop.reply));
    }
  });
});

test('by default the runners are at nice 19, the lowest priority, and the server keeps its own', async () => {
  // The test runner sets SVC_RUNNER_NICE=0 for the suite's servers (scripts/run-tests.mjs); unset, the default applies.
  const server = await startServer({ runners: 2, env: { SVC_RUNNER_NICE: undefined } });
  try {
    const serverGroupNice = autogroupNice(server.child.pid!);
    await eventually('runners at nice 19', () => lowered(server, serverGroupNice, 19));
  } finally {
    await server.stop();
  }
});

test('runner_nice outside 0-19 is refused at start, naming the setting and the range', async () => {
  for (const [args, env, shown] of [
    [['--runner-nice', '20'], {}, '20'],
    [['--runner-nice', '-1'], {}, '-1'],
    [[], { SVC_RUNNER_NICE: 'low' }, 'low'],
  ] as const) {
    const home = tempDir();
    const failed = await runServerBinary([...args], { ...env, SVC_SERVER_TOKEN: 'x'.repeat(32) }, home);
    assert.notEqual(failed.code, 0, `${args.join(' ')} ${JSON.stringify(env)} started`);
    const said = failed.stdout + failed.stderr;
    assert.match(said, /runner[-_ ]nice/i, said);
    assert.match(said, /0-19|0 to 19/, said);
    assert.ok(said.includes(shown), said);
    assert.equal(fs.existsSync(path.join(home, 'server', 'db')), false, 'a refused start writes no database');
  }
});
