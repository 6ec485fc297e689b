// Runs the real bin/svc as a process for CLI integration tests: a minimal environment
// (no SVC_* leaking in from the developer's shell), optional standard input, and the
// exit status with both output streams. svcInProcess runs the same command line through
// runCli in the test's own process, for tests of parsing and output that need no process
// of their own (a spawn costs a Node start; tests of the process itself keep runSvc).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { runCli } from '../../src/cli/program';
import packageJson from '../../package.json';
import { repoRoot, tempDir, type TestServer } from '../harness';

export const svcBin = path.join(repoRoot, 'bin', 'svc');

/** CLI test files share a loaded machine with the rest of the suite: give their servers time to boot. */
export const START_TIMEOUT_MS = 60_000;

export interface SvcResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SvcOptions {
  /** Extra variables; undefined removes one. */
  env?: Record<string, string | undefined>;
  /** Text written to standard input (then closed); default: empty input. */
  stdin?: string;
  cwd?: string;
}

/**
 * V8's code cache for the large CommonJS files a bin/svc process requires (TypeScript, for
 * `svc build`), shared by every command a test starts (support/code-cache.cjs): measured on
 * `svc build test`, 3.2-3.3 -> 2.9 CPU-s.
 */
const codeCache = {
  NODE_OPTIONS: `--require ${JSON.stringify(path.join(repoRoot, 'test', 'support', 'code-cache.cjs'))}`,
  SVC_TEST_CODE_CACHE_DIR: path.join(repoRoot, '.tmp', 'test-node-cache'),
  // The type checker thread's own code cache of TypeScript (sandbox/typecheck/compiler.ts),
  // else kept in each command's fresh $SVC_HOME/cli/cache and compiled again by the next:
  // a checked `svc run` 1.7 -> 1.4 CPU-s.
  SVC_CLI_CODE_CACHE_DIR: path.join(repoRoot, '.tmp', 'test-cli-code-cache'),
};

/** The environment a command sees: PATH, a fresh HOME, the shared code cache, and the test's variables. */
function commandEnv(options: SvcOptions, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tempDir('svc-cli-home-'), ...codeCache, ...extra };
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export function runSvc(args: string[], options: SvcOptions = {}): Promise<SvcResult> {
  const env = commandEnv(options);
  return new Promise((resolve, reject) => {
    const child = spawn(svcBin, args, { env, cwd: options.cwd ?? repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    // 'close', not 'exit': at 'exit' the last of its output may still wait in the pipes.
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

/**
 * Runs bin/svc on a pseudo-terminal (through test/support/pty-run.py), typing `typed`
 * once `prompt` shows; stdout holds everything the terminal displayed.
 */
export function runSvcInTerminal(args: string[], prompt: string, typed: string, options: SvcOptions = {}): Promise<SvcResult> {
  const env = commandEnv(options, { TERM: 'dumb' });
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [path.join(repoRoot, 'test', 'support', 'pty-run.py'), prompt, typed, svcBin, ...args], { env, cwd: options.cwd ?? repoRoot });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The command line through runCli in this process, with the environment, working
 * directory and standard input runSvc would give the process: the exit status runCli
 * returns and what the command wrote to each stream. Local runs work too (a runner pool
 * of their own; the checker is one per process, so a test of the CLI's code cache keeps a
 * process), but not what only a process shows (TLS trust from NODE_EXTRA_CA_CERTS, a terminal).
 */
export async function svcInProcess(args: string[], options: SvcOptions = {}): Promise<SvcResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    io: {
      env: commandEnv(options),
      cwd: options.cwd ?? repoRoot,
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      stdin: Readable.from([Buffer.from(options.stdin ?? '')]),
    },
    version: packageJson.version,
  });
  return { code, stdout, stderr };
}

/** The variables that point bin/svc at a test server with its admin token. */
export function serverEnv(server: TestServer, token: string = server.adminToken): Record<string, string> {
  return { SVC_SERVER_URL: server.url, SVC_SERVER_TOKEN: token };
}

/**
 * A temporary directory with the programs and Blueprint files the `svc run` tests share:
 * hello.ts (console + result), nothing.ts, throws.ts, broken.ts, spin.ts, files.ts (svc:fs),
 * files.yaml (needs --var team), invalid.yaml and volume.yaml.
 */
export function writeRunPrograms(): string {
  const dir = tempDir('svc-cli-run-');
  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);

  write('hello.ts', 'export function main() {\n  console.log("working on it");\n  return { sum: [1, 2, 3].reduce((a, b) => a + b) };\n}\n');
  write('nothing.ts', 'export function main() {}\n');
  write('throws.ts', 'export function main() {\n  console.log("before the throw");\n  throw new Error("the widget is missing");\n}\n');
  write('broken.ts', 'export function main() {\n  return 1 +;\n}\n');
  write('spin.ts', 'export function main() { let i = 0; for (;;) { i++; } }\n');
  write('files.ts', 'import * as fs from "svc:fs";\nexport function main() { fs.writeText("notes.txt", "kept for this run"); return fs.readText("notes.txt"); }\n');
  write('files.yaml', '# a workspace for local runs\nname: files\nvfs: {mode: ephemeral, cwd: "/work/${vars.team}"}\nvariables:\n  team: {required: true}\npermissions:\n  main:\n    - {capability: fs.write, action: allow}\n    - {capability: fs.read, action: allow}\n');
  write('invalid.yaml', 'name: invalid\npermissions:\n  main:\n    - capability: fs.read\n      action: perhaps\n');
  write('volume.yaml', 'name: vol\nvfs: {mode: named, volume: shared}\n');
  return dir;
}
