// The one-time probe at server start: starts Node through each wrapper this host has,
// strongest first, and keeps the first that works, with what the kernel reports from
// inside it (user, capabilities, no_new_privs, seccomp, namespaces, the file-system view).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runnerEnvironment } from './environment';
import { candidateWrappers, SECCOMP_FD, sendSeccomp, type Host, type Wrapper } from './wrappers';
import { levelOf, type RunnerConfinement, type SandboxFeature } from './levels';

export interface ProbeOptions {
  /** The runner entry the wrappers must let the runner read. */
  entry: string;
  /** A path the runner must not see (the server's home): its absence proves the file-system view. */
  hiddenPath: string;
  /** The unprivileged user runners switch to when the server runs as root (default nobody, 65534). */
  runnerUser?: { uid: number; gid: number };
  /** Overrides the tools found on PATH (tests of the degraded levels). */
  tools?: Host['tools'];
}

const PROBE_TIMEOUT_MS = 15_000;
const NOBODY = { uid: 65534, gid: 65534 };

/** Run inside the wrapper: what the kernel says about this process, as one JSON line. */
const PROBE_SCRIPT = `
const fs = require('node:fs');
const status = fs.readFileSync('/proc/self/status', 'utf8');
const field = (name) => (status.match(new RegExp('^' + name + ':\\\\s*(\\\\S+)', 'm')) || [])[1];
const readable = (p) => { try { fs.accessSync(p, fs.constants.R_OK); return true; } catch { return false; } };
const absent = (p) => { try { fs.statSync(p); return false; } catch (e) { return e.code === 'ENOENT'; } };
const [entry, hidden] = process.argv.slice(1);
process.stdout.write(JSON.stringify({
  uid: Number(field('Uid')), capEff: field('CapEff'), capPrm: field('CapPrm'), noNewPrivs: field('NoNewPrivs'), seccomp: field('Seccomp'),
  net: fs.readlinkSync('/proc/self/ns/net'), pid: fs.readlinkSync('/proc/self/ns/pid'),
  viewLimited: absent(hidden) && absent('/etc/passwd'), entryReadable: readable(entry),
}));
`;

interface Observed {
  uid: number;
  capEff: string;
  capPrm: string;
  noNewPrivs: string;
  seccomp: string;
  net: string;
  pid: string;
  /** Neither the hidden path nor /etc/passwd exists (a folder it may not read still counts as seen). */
  viewLimited: boolean;
  entryReadable: boolean;
}

/** The strongest confinement this host allows, with the reasons the stronger ones failed. */
export async function probeConfinement(options: ProbeOptions): Promise<RunnerConfinement> {
  const host: Host = { tools: options.tools ?? findTools(), root: process.getuid?.() === 0, runnerUser: options.runnerUser ?? NOBODY };
  const failures: string[] = [];
  for (const wrapper of candidateWrappers(host, options.entry)) {
    const observed = await tryWrapper(wrapper, options).catch((error: Error) => {
      failures.push(`${wrapper.name}: ${error.message}`);
      return null;
    });
    if (observed) return confinement(wrapper, features(observed), failures);
  }
  return confinement(null, ['environment'], failures);
}

function confinement(wrapper: Wrapper | null, present: SandboxFeature[], failures: string[]): RunnerConfinement {
  const { level, missing } = levelOf(present);
  return { level, features: present, missing, wrapper, failures };
}

function features(observed: Observed): SandboxFeature[] {
  const own = { net: fs.readlinkSync('/proc/self/ns/net'), pid: fs.readlinkSync('/proc/self/ns/pid') };
  const present: SandboxFeature[] = ['environment'];
  if (observed.uid !== 0) present.push('user');
  if (observed.noNewPrivs === '1') present.push('no_new_privs');
  if (/^0+$/.test(observed.capEff) && /^0+$/.test(observed.capPrm)) present.push('capabilities');
  if (observed.net !== own.net) present.push('network');
  if (observed.pid !== own.pid) present.push('processes');
  if (observed.viewLimited) present.push('filesystem');
  if (observed.seccomp === '2') present.push('seccomp');
  return present;
}

function tryWrapper(wrapper: Wrapper, options: ProbeOptions): Promise<Observed> {
  return new Promise((resolve, reject) => {
    const child = spawn(wrapper.command, [...wrapper.prefix, process.execPath, '-e', PROBE_SCRIPT, options.entry, options.hiddenPath], {
      env: runnerEnvironment({}),
      stdio: ['ignore', 'pipe', 'pipe', 'ignore', 'pipe'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    sendSeccomp(child.stdio[SECCOMP_FD] as NodeJS.WritableStream | null, wrapper.seccomp);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(firstLine(stderr) || `exited with ${signal ?? code}`));
      let observed: Observed;
      try {
        observed = JSON.parse(stdout) as Observed;
      } catch {
        return reject(new Error(`unreadable probe answer: ${firstLine(stdout)}`));
      }
      if (!observed.entryReadable) return reject(new Error(`the runner cannot read ${options.entry} (make it and its folders readable by uid ${options.runnerUser?.uid ?? NOBODY.uid})`));
      resolve(observed);
    });
  });
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.slice(0, 300) ?? '';
}

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** bwrap, unshare and setpriv on the server's PATH (an operator can leave a tool out by leaving it off PATH). */
function findTools(): Host['tools'] {
  const folders = (process.env.PATH ?? DEFAULT_PATH).split(':').filter((folder) => path.isAbsolute(folder));
  const tools: Host['tools'] = {};
  for (const name of ['bwrap', 'unshare', 'setpriv'] as const) {
    const found = folders.map((folder) => path.join(folder, name)).find((candidate) => isExecutable(candidate));
    if (found) tools[name] = found;
  }
  return tools;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
