// Runners are a second wall around the isolates (issue 41): checked from outside, as an
// operator could (/proc of the runner processes), and from inside a runner through its
// test-only self-test (sandbox/runner/self-test.ts), on a server started the documented way
// with a secret-store key, an admin token and an unrelated credential in its environment.
// On a host with bubblewrap the server must report and deliver every wall; elsewhere every
// wall it reports is verified and the missing ones are named in one start-up warning.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startServer, tempDir, type LogRecord, type TestServer } from '../harness';
import { eventually } from '../support/wait';

const SELF_TEST_VARIABLE = 'SVC_TEST_RUNNER_SELF_TEST';
const SELF_TEST_MARK = 'svc-runner-self-test';
/** What a runner may carry: locale and time zone, glibc's allocator settings svc gives it, Node's IPC channel, the test flag. */
const ALLOWED_NAMES = /^(TZ|LANG|LC_[A-Z]+|MALLOC_ARENA_MAX|MALLOC_MMAP_THRESHOLD_|MALLOC_TRIM_THRESHOLD_|NODE_CHANNEL_FD|NODE_CHANNEL_SERIALIZATION_MODE|PWD|SVC_TEST_RUNNER_SELF_TEST|SVC_TEST_RUNNER_SERVER_PID)$/;
const ALL_FEATURES = ['environment', 'user', 'no_new_privs', 'capabilities', 'network', 'processes', 'filesystem', 'seccomp'];
const BLUEPRINT = 'name: calc\n';

/** bubblewrap and setpriv on PATH, and bubblewrap allowed to make namespaces here: then the server owes the full level. */
function hostOffersFull(): boolean {
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
    execFileSync('bwrap', ['--unshare-net', '--unshare-pid', '--ro-bind', '/', '/', '--', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function processTable(): Map<number, { ppid: number; argv: string[] }> {
  const table = new Map<number, { ppid: number; argv: string[] }>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(/^PPid:\s*(\d+)/m.exec(fs.readFileSync(`/proc/${name}/status`, 'utf8'))![1]);
      table.set(Number(name), { ppid, argv: fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean) });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/** The Node runner processes below the server (past any wrapper processes). */
function runnerPids(serverPid: number): number[] {
  const table = processTable();
  const below = (pid: number): boolean => {
    for (let at = table.get(pid)?.ppid; at !== undefined && at > 1; at = table.get(at)?.ppid) if (at === serverPid) return true;
    return false;
  };
  return [...table]
    .filter(([pid, { argv }]) => below(pid) && path.basename(argv[0] ?? '') !== 'bwrap' && argv.some((arg) => arg.endsWith('runner.js')))
    .map(([pid]) => pid);
}

function statusField(pid: number, name: string): string {
  return new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!.trim();
}

function environment(pid: number): Map<string, string> {
  const pairs = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

function assertEnvironmentClean(pid: number, secrets: string[]): void {
  const env = environment(pid);
  for (const name of env.keys()) assert.match(name, ALLOWED_NAMES, `runner ${pid} inherited ${name}`);
  for (const [name, value] of env) for (const secret of secrets) assert.ok(!value.includes(secret), `runner ${pid}: ${name} carries a secret`);
  assert.ok(env.has('NODE_CHANNEL_FD'), 'the IPC channel is still announced');
}

function selfTestReports(server: TestServer): Array<Record<string, string>> {
  return server
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith(`${SELF_TEST_MARK} `))
    .map((line) => JSON.parse(line.slice(SELF_TEST_MARK.length + 1)) as Record<string, string>);
}

async function answersRuns(server: TestServer): Promise<void> {
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } });
  assert.ok(created.status < 300, created.text);
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'calc', code: 'export function main() { return 6 * 7; }' } });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.result, '42', reply.text);
}

/**
 * The start-up lines reporting the sandbox level. The pool logs under the same target (on a
 * loaded machine: "the server was busy; runners get a fresh grace ..."), which is not one.
 */
function levelReports(server: TestServer): LogRecord[] {
  return server.logs({ target: 'svc_server::sandbox' }).filter((line) => line.msg?.startsWith('runner sandbox'));
}

describe('runner sandbox on this host (server with a secret key, an admin token and a credential)', () => {
  const full = hostOffersFull();
  const secretKey = randomBytes(32).toString('base64');
  const credential = `cred-${randomBytes(12).toString('hex')}`;
  let server: TestServer;
  let farEnd: net.Server;
  let farEndConnections = 0;
  let databasePath: string;
  let claimed: string[];

  before(async () => {
    farEnd = net.createServer((socket) => {
      farEndConnections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => farEnd.listen(0, '127.0.0.1', resolve));
    const home = tempDir();
    databasePath = path.join(home, 'server', 'db', 'svc.db');
    const selfTest = { connect: { host: '127.0.0.1', port: (farEnd.address() as net.AddressInfo).port }, read: [databasePath, '/etc/shadow'] };
    server = await startServer({ runners: 1, home, env: { SVC_SECRET_KEY: secretKey, OPERATOR_API_TOKEN: credential, [SELF_TEST_VARIABLE]: JSON.stringify(selfTest) } });
    const status = await server.request('GET', '/v1/status');
    assert.equal(status.status, 200, status.text);
    claimed = status.json.runner_sandbox.features;
  });
  after(async () => {
    await server?.stop();
    farEnd?.close();
  });

  test('the server reports the strongest level the host offers, in the status, the metrics and one start-up line', async () => {
    const { runner_sandbox: sandbox } = (await server.request('GET', '/v1/status')).json;
    if (full) assert.deepEqual(sandbox, { level: 'full', features: ALL_FEATURES, missing: [] });
    assert.deepEqual([...sandbox.features, ...sandbox.missing].sort(), [...ALL_FEATURES].sort());
    const metrics = (await server.request('GET', '/metrics')).text;
    assert.match(metrics, new RegExp(`^svc_runner_sandbox_level\\{level="${sandbox.level}"\\} 1$`, 'm'));
    for (const feature of ALL_FEATURES) assert.match(metrics, new RegExp(`^svc_runner_sandbox_feature\\{feature="${feature}"\\} ${sandbox.features.includes(feature) ? 1 : 0}$`, 'm'));
    const lines = levelReports(server);
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0]!.level, sandbox.level === 'full' ? 'info' : 'warn');
    for (const feature of sandbox.missing) assert.match(lines[0]!.msg!, new RegExp(feature));
  });

  test('a runner\'s environment holds allow-listed names only: no secret-store key, admin token or credential', async () => {
    const pids = await eventually('a runner process', () => runnerPids(server.child.pid!).length > 0 && runnerPids(server.child.pid!));
    for (const pid of pids) assertEnvironmentClean(pid, [secretKey, server.adminToken, server.userToken, credential]);
  });

  test('a runner holds no descriptor beyond stdio and the IPC channel: one socket, no file but /dev/null, nothing inherited', () => {
    for (const pid of runnerPids(server.child.pid!)) {
      const channel = environment(pid).get('NODE_CHANNEL_FD');
      const links = fs.readdirSync(`/proc/${pid}/fd`).map((fd) => ({ fd, target: fs.readlinkSync(`/proc/${pid}/fd/${fd}`), flags: /^flags:\s*([0-7]+)/m.exec(fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))![1]! }));
      // Beyond stdio (the harness reads stderr through a socket pair), the one socket is the IPC channel.
      assert.deepEqual(links.filter((l) => Number(l.fd) > 2 && l.target.startsWith('socket:')).map((l) => l.fd), [channel], JSON.stringify(links));
      for (const link of links) {
        if (link.target.startsWith('/')) assert.ok(link.target === '/dev/null' || Number(link.fd) === 2, `runner ${pid} holds ${link.target}`);
        // Node opens its own descriptors close-on-exec: one without the flag came from outside.
        if (Number(link.fd) > 2 && link.fd !== channel) assert.notEqual(parseInt(link.flags, 8) & 0o2000000, 0, `runner ${pid} inherited fd ${link.fd} (${link.target})`);
      }
    }
  });

  test('from outside: every wall reported holds (user, capabilities, no_new_privs, seccomp, network and PID namespaces)', () => {
    const pids = runnerPids(server.child.pid!);
    assert.ok(pids.length > 0);
    const serverNs = (kind: string) => fs.readlinkSync(`/proc/${server.child.pid}/ns/${kind}`);
    for (const pid of pids) {
      if (claimed.includes('user')) for (const uid of statusField(pid, 'Uid').split(/\s+/)) assert.notEqual(uid, '0');
      if (claimed.includes('capabilities')) {
        assert.match(statusField(pid, 'CapEff'), /^0+$/);
        assert.match(statusField(pid, 'CapPrm'), /^0+$/);
      }
      if (claimed.includes('no_new_privs')) assert.equal(statusField(pid, 'NoNewPrivs'), '1');
      if (claimed.includes('seccomp')) assert.equal(statusField(pid, 'Seccomp'), '2');
      if (claimed.includes('network')) assert.notEqual(fs.readlinkSync(`/proc/${pid}/ns/net`), serverNs('net'));
      if (claimed.includes('processes')) assert.notEqual(fs.readlinkSync(`/proc/${pid}/ns/pid`), serverNs('pid'));
      if (claimed.includes('filesystem')) assert.notEqual(fs.readlinkSync(`/proc/${pid}/ns/mnt`), serverNs('mnt'));
    }
  });

  test('from inside a runner: a TCP connection, the server\'s database, /etc/shadow and a signal to the server all fail', async () => {
    const [report] = await eventually('the runner self-test line on stderr', () => selfTestReports(server).length > 0 && selfTestReports(server));
    assert.ok(report);
    const refused = (what: string) => assert.match(report[what] ?? 'missing', /^refused: /, `${what}: ${report[what]}`);
    if (full || claimed.includes('network') || claimed.includes('seccomp')) {
      refused('connect');
      assert.equal(farEndConnections, 0);
    }
    if (full || claimed.includes('filesystem') || claimed.includes('user')) {
      refused(`read ${databasePath}`);
      refused('read /etc/shadow');
    }
    if (full || claimed.includes('processes') || claimed.includes('user')) refused('signal');
    assert.ok(fs.existsSync(databasePath), 'the database the runner could not read is there');
  });

  test('runs still answer through the confined runner', async () => {
    await answersRuns(server);
  });
});

describe('runner sandbox on a host without the tools (no bwrap, unshare or setpriv on PATH)', () => {
  const secretKey = randomBytes(32).toString('base64');
  let server: TestServer;

  before(async () => {
    // PATH holds Node (and the dirname the launcher uses) alone: the launcher still finds it, the probe finds no wrapper.
    const bin = tempDir();
    fs.symlinkSync(process.execPath, path.join(bin, 'node'));
    fs.symlinkSync(execFileSync('sh', ['-c', 'command -v dirname'], { encoding: 'utf8' }).trim(), path.join(bin, 'dirname'));
    server = await startServer({ runners: 1, env: { PATH: bin, SVC_SECRET_KEY: secretKey } });
  });
  after(async () => {
    await server?.stop();
  });

  test('the server starts anyway, reports env-only and warns once naming every missing wall', async () => {
    const { runner_sandbox: sandbox } = (await server.request('GET', '/v1/status')).json;
    assert.deepEqual(sandbox, { level: 'env-only', features: ['environment'], missing: ALL_FEATURES.filter((f) => f !== 'environment') });
    const warnings = levelReports(server).filter((line) => line.level === 'warn');
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(warnings[0]!.msg!, /runner sandbox is env-only: runners run without user, no_new_privs, capabilities, network, processes, filesystem, seccomp/);
  });

  test('the environment allow-list still applies, and runs answer', async () => {
    const pids = runnerPids(server.child.pid!);
    assert.ok(pids.length > 0);
    for (const pid of pids) assertEnvironmentClean(pid, [secretKey, server.adminToken, server.userToken]);
    await answersRuns(server);
  });
});
