// Which walls runners get on this host. No Node starts for this alone: the pool's first
// runners are started through each wrapper this host has, strongest first, and the first of
// them reports from inside what the kernel says (inside.ts); the level is judged from that
// here, and a wrapper that fails them is named with its reason (sandbox/pool/confined-start.ts).
import fs from 'node:fs';
import path from 'node:path';
import { candidateWrappers, type Host, type Wrapper } from './wrappers';
import { levelOf, type RunnerConfinement, type SandboxFeature } from './levels';
import type { ObservedConfinement } from './inside';

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

/** What the pool's first start tries: these wrappers in order, then none (the allow-listed environment alone). */
export interface ConfinementProbe {
  wrappers: Wrapper[];
  hiddenPath: string;
  entry: string;
  runnerUid: number;
}

/** How long a runner started through a wrapper has to report from inside before the next wrapper is tried. */
export const PROBE_TIMEOUT_MS = 15_000;
const NOBODY = { uid: 65534, gid: 65534 };

export function confinementProbe(options: ProbeOptions): ConfinementProbe {
  const runnerUser = options.runnerUser ?? NOBODY;
  const host: Host = { tools: options.tools ?? findTools(), root: process.getuid?.() === 0, runnerUser };
  return { wrappers: candidateWrappers(host, options.entry), hiddenPath: options.hiddenPath, entry: options.entry, runnerUid: runnerUser.uid };
}

/** The confinement of runners started through `wrapper`, judged from what one observed inside (none: the environment alone). */
export function judgeConfinement(wrapper: Wrapper | null, observed: ObservedConfinement | null, failures: readonly string[]): RunnerConfinement {
  const present = wrapper && observed ? features(observed) : ['environment' as const];
  const { level, missing } = levelOf(present);
  return { level, features: present, missing, wrapper, failures: [...failures] };
}

function features(observed: ObservedConfinement): SandboxFeature[] {
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

/** Why a runner started through a wrapper ended before its report, from its standard error (a wrapper's refusal, or Node's error). */
export function refusalReason(probe: ConfinementProbe, stderr: string, code: number | null, signal: NodeJS.Signals | null): string {
  const lines = stderr.trim().split('\n');
  // Node's own failure is the line naming the error, below its source excerpt.
  const line = (lines.find((l) => /^\w*Error\b/.test(l)) ?? lines[0] ?? '').slice(0, 300);
  if (/Cannot find module|EACCES/.test(line)) return `the runner cannot read ${probe.entry} (make it and its folders readable by uid ${probe.runnerUid})`;
  return line || `exited with ${signal ?? code}`;
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
