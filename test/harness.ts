// The shared integration-test harness: starts the real bin/svc-server on a free loopback
// port with a temporary SVC_HOME, generated tokens and an optional config file, and
// talks HTTP to it. Audit and log lines are collected from the process's stdout.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify as toYaml } from 'yaml';
import { parseLogfmt } from '../src/audit';
import { sendRequest } from './support/http-client';
import { tempDir } from './support/temp-dirs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const serverBin = path.join(repoRoot, 'bin', 'svc-server');

/**
 * SVC_TEST_HOSTILE=1 runs a suite against a hostile program: every program sent to an
 * execute route gets fixtures/programs/hostile/trap.js appended, which makes the
 * built-ins throw when the prelude or a guest factory (trusted code) calls them.
 */
const hostileTrap = process.env.SVC_TEST_HOSTILE === '1' ? fs.readFileSync(path.join(repoRoot, 'fixtures', 'programs', 'hostile', 'trap.js'), 'utf8') : null;

function withHostileTrap(route: string, body: unknown): unknown {
  if (hostileTrap === null || !/\/execute$/.test(route) || body === null || typeof body !== 'object') return body;
  const code = (body as { code?: unknown }).code;
  return typeof code === 'string' ? { ...body, code: `${code}\n${hostileTrap}` } : body;
}

export { tempDir };

export function newToken(): string {
  return randomBytes(24).toString('hex');
}

export interface StartOptions {
  /** Extra environment (merged over a minimal base environment). */
  env?: Record<string, string | undefined>;
  /** Config file content (written as YAML to <home>/config.yaml and passed with --config). */
  config?: Record<string, unknown>;
  args?: string[];
  /**
   * Runner processes (`--runner-pool-size`). Default 1 (a runner hosts many runs at once, so
   * one carries any test's concurrency; each more costs a process start): 2 or more only for
   * tests about several runners. `args`, `config` or `env` that set the pool size win.
   * 'server-default': no flag, the server's own default (benchmarks measure what operators get).
   */
  runners?: number | 'server-default';
  /** Reuse a home directory (e.g. for restart tests). */
  home?: string;
  /** Set up SVC_SERVER_TOKEN plus a `harness` user token (default true). */
  tokens?: boolean;
  /** Reuse tokens across restarts. */
  adminToken?: string;
  userToken?: string;
  /** How long to wait for the listening line. */
  timeoutMs?: number;
  /**
   * Start the server in a session of its own (setsid), as a service manager does. The kernel's
   * autogroup scheduler shares the CPU between sessions first, so a bench that serves far ends
   * and drives attacks from its own process does not take the server's share. The server is
   * killed when this process exits.
   */
  ownSession?: boolean;
}

export interface Reply {
  status: number;
  headers: { get(name: string): string | null };
  text: string;
  json: any;
}

export type LogRecord = Record<string, string>;

export interface TestServer {
  url: string;
  port: number;
  home: string;
  adminToken: string;
  userToken: string;
  child: ChildProcess;
  /** Every stdout line so far. */
  lines(): string[];
  stderr(): string;
  audit(filter?: Partial<LogRecord>): LogRecord[];
  logs(filter?: Partial<LogRecord>): LogRecord[];
  request(method: string, route: string, options?: RequestOptions): Promise<Reply>;
  /** Send a signal and wait for exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited(): Promise<number | null>;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string | Buffer;
  /** Bearer token: defaults to the admin token; null sends none. */
  token?: string | null;
  headers?: Record<string, string>;
}

/**
 * One code cache for every test server (the type checker's compiler, code_cache_dir): each
 * server's home is new, and without it each would compile TypeScript from scratch again.
 */
const sharedCodeCache = path.join(repoRoot, '.tmp', 'test-code-cache');

/**
 * Settings the test runner gives the suite's servers (scripts/run-tests.mjs) and benches
 * leave at their defaults: V8's optimising compiler off (a server living seconds spent
 * 400-450 of its first checked run's 670-720 CPU-ms compiling the checker's code on 4
 * threads: bench/PROFILE.md, round 29), and runners at the server's own priority. A test of a
 * default passes the variable as undefined.
 */
const SUITE_SETTINGS = ['SVC_OPTIMIZING_COMPILER', 'SVC_RUNNER_NICE', 'SVC_RUNNER_SHELF_FLOOR'] as const;

function baseEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    SVC_HOME: home,
    HOME: home,
    SVC_PORT: '0',
    SVC_CODE_CACHE_DIR: sharedCodeCache,
    // Test servers mostly live seconds: they load the type checker, and warm each registered
    // Blueprint's, with their first typed program, not at once as a lasting server does
    // (typecheck_warm_after, here its largest value). At 10 s, servers a loaded machine kept
    // alive longer warmed checkers no program used (blueprints.test: 2.9 -> 1.9 CPU-s).
    SVC_TYPECHECK_WARM_AFTER: '3600',
    // A check's time budget at its largest (300 s, not 10): on a loaded machine a checker
    // thread compiling TypeScript without a code cache passed 10 s, and the program ran
    // unchecked where a test waited for its compile error (startup.test, at load 30). Tests
    // of the budget set it with --typecheck-budget, which wins over this.
    SVC_TYPECHECK_BUDGET: '300',
  };
  for (const name of SUITE_SETTINGS) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  return env;
}

/** The pool size unless the test sets one itself: one runner by default (see StartOptions.runners). */
function runnerArgs(options: StartOptions): string[] {
  const setElsewhere = options.args?.includes('--runner-pool-size') || options.config?.runner_pool_size !== undefined || options.env?.SVC_RUNNER_POOL_SIZE !== undefined;
  if ((options.runners === undefined && setElsewhere) || options.runners === 'server-default') return [];
  return ['--runner-pool-size', String(options.runners ?? 1)];
}

/**
 * The server's records of one stream, each line parsed once: tests poll `audit()` and
 * `logs()` (`eventually`, every 10-50 ms) over logs of thousands of lines, and parsing the
 * whole log again on each call was most of some test processes' CPU. Lines only ever come
 * after the last one, so the parsed records grow with them.
 */
function recordReader(lines: string[]): (stream: 'audit' | 'log', filter?: Partial<LogRecord>) => LogRecord[] {
  const parsed: Array<LogRecord | null> = [];
  return (stream, filter = {}) => {
    for (let i = parsed.length; i < lines.length; i++) parsed.push(lines[i].includes('stream=') ? Object.fromEntries(parseLogfmt(lines[i])) : null);
    const out: LogRecord[] = [];
    for (const record of parsed) {
      if (record === null || record.stream !== stream) continue;
      // A copy each time: a test may change what it was given.
      if (Object.entries(filter).every(([k, v]) => record[k] === v)) out.push({ ...record });
    }
    return out;
  };
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const home = options.home ?? tempDir();
  const adminToken = options.adminToken ?? newToken();
  const userToken = options.userToken ?? newToken();
  const env: Record<string, string> = { ...baseEnv(home) };
  const args = [...(options.args ?? []), ...runnerArgs(options)];
  let config = options.config ? { ...options.config } : undefined;
  if (options.tokens !== false) {
    env.SVC_SERVER_TOKEN = adminToken;
    const tokenFile = path.join(home, 'harness.token');
    fs.writeFileSync(tokenFile, `${userToken}\n`);
    config = { ...(config ?? {}), api_tokens: [...((config?.api_tokens as unknown[]) ?? []), { name: 'harness', role: 'user', token_file: tokenFile }] };
  }
  if (config) {
    const configPath = path.join(home, 'config.yaml');
    fs.writeFileSync(configPath, toYaml(config));
    args.push('--config', configPath);
  }
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }

  // The server's stdout goes to a file that is read on demand: the server writes a record
  // before it answers, and a file (unlike a pipe this process has not read yet) already
  // holds it when the answer arrives, so `audit()` right after any call sees its records.
  const stdoutPath = path.join(tempDir(), 'stdout.log');
  const stdoutFd = fs.openSync(stdoutPath, 'w');
  let child: ChildProcess;
  try {
    child = spawn(serverBin, args, { env, stdio: ['ignore', stdoutFd, 'pipe'], detached: options.ownSession === true });
  } finally {
    fs.closeSync(stdoutFd);
  }
  if (options.ownSession) {
    const started = child;
    process.once('exit', () => started.kill('SIGKILL'));
  }
  const stdoutLines: string[] = [];
  const records = recordReader(stdoutLines);
  const decoder = new StringDecoder('utf8');
  let stdoutOffset = 0;
  let partial = '';
  /** Appends the lines written since the last read; returns how many lines there were before. */
  const readStdout = (): number => {
    const before = stdoutLines.length;
    const fd = fs.openSync(stdoutPath, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      if (size <= stdoutOffset) return before;
      const chunk = Buffer.alloc(size - stdoutOffset);
      const read = fs.readSync(fd, chunk, 0, chunk.length, stdoutOffset);
      stdoutOffset += read;
      partial += decoder.write(chunk.subarray(0, read));
    } finally {
      fs.closeSync(fd);
    }
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    stdoutLines.push(...parts);
    return before;
  };
  let stderr = '';
  const exitPromise = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (stderr += chunk));

  const listening = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time; stderr: ${stderr}`)), options.timeoutMs ?? 60_000);
    // The stdout file is read when the server writes to it (inotify), with a slow poll in
    // case a file system reports no changes: no 20 ms ticks until the line comes.
    const check = () => {
      const from = readStdout();
      const line = stdoutLines.slice(from).find((l) => l.includes('msg="svc-server listening"'));
      if (line) {
        stopWatching();
        clearTimeout(timer);
        resolve(Object.fromEntries(parseLogfmt(line)).addr);
      }
    };
    const changes = fs.watch(stdoutPath, check);
    const poll = setInterval(check, 250);
    const stopWatching = () => {
      changes.close();
      clearInterval(poll);
    };
    check();
    void exitPromise.then(stopWatching);
    // With a log file the listening line lands there, not on stdout.
    const logFile = env.SVC_LOG_FILE;
    if (logFile) {
      const poll = setInterval(() => {
        const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
        const line = text.split('\n').find((l) => l.includes('msg="svc-server listening"'));
        if (line) {
          clearInterval(poll);
          clearTimeout(timer);
          stdoutLines.push(line);
          resolve(Object.fromEntries(parseLogfmt(line)).addr);
        }
      }, 50);
      void exitPromise.then(() => clearInterval(poll));
    }
    void exitPromise.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening; stderr: ${stderr}`));
    });
  });
  let addr: string;
  try {
    addr = await listening;
  } catch (error) {
    // Never leave a half-started server behind.
    child.kill('SIGKILL');
    throw error;
  }
  const port = Number(addr.slice(addr.lastIndexOf(':') + 1));
  const protocol = stdoutLines.some((l) => l.includes('protocol=https')) ? 'https' : 'http';
  const url = `${protocol}://127.0.0.1:${port}`;

  const server: TestServer = {
    url,
    port,
    home,
    adminToken,
    userToken,
    child,
    lines: () => (readStdout(), [...stdoutLines]),
    stderr: () => stderr,
    audit: (filter) => (readStdout(), records('audit', filter)),
    logs: (filter) => (readStdout(), records('log', filter)),
    async request(method, route, requestOptions = {}) {
      const headers: Record<string, string> = { ...(requestOptions.headers ?? {}) };
      const token = requestOptions.token === undefined ? adminToken : requestOptions.token;
      if (token !== null) headers.authorization = `Bearer ${token}`;
      let body: string | Buffer | undefined;
      if (requestOptions.rawBody !== undefined) body = requestOptions.rawBody;
      else if (requestOptions.body !== undefined) {
        body = JSON.stringify(withHostileTrap(route, requestOptions.body));
        headers['content-type'] ??= 'application/json';
      }
      // Test servers use self-signed certificates generated at test time (not verified). A
      // kept-alive connection the server closed while idle is replaced there (sendRequest).
      const response = await sendRequest(`${url}${route}`, method, headers, body);
      const { text } = response;
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: response.status, headers: response.headers, text, json };
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exitPromise;
    },
    exited: () => exitPromise,
  };
  return server;
}

export interface FailedStart {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the server binary to completion (for startup refusals, --help, --health-check). */
export function runServerBinary(args: string[], env: Record<string, string | undefined>, home: string, timeoutMs = 60_000): Promise<FailedStart> {
  const fullEnv: Record<string, string> = { ...baseEnv(home) };
  delete fullEnv.SVC_PORT;
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete fullEnv[k];
    else fullEnv[k] = v;
  }
  return new Promise((resolve) => {
    const child = spawn(serverBin, args, { env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => (stdout += c));
    child.stderr!.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    // 'close', not 'exit': at 'exit' the last of its output may still wait in the pipes.
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Lists every file and directory below `dir` (relative paths), for "nothing was written" checks. */
export function listTree(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (current: string) => {
    for (const name of fs.readdirSync(current).sort()) {
      const full = path.join(current, name);
      out.push(path.relative(dir, full));
      if (fs.statSync(full).isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out;
}
