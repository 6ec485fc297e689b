// Runners are a second wall around the isolates: how a runner process is started so that
// code escaping V8 finds no secret, no network, no file and no privilege worth having.
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { runnerEnvironment } from './environment';
import type { RunnerConfinement } from './levels';
import { SECCOMP_FD, sendSeccomp } from './wrappers';

export { probeConfinement, type ProbeOptions } from './probe';
export { ENVIRONMENT_ONLY, SANDBOX_FEATURES, SANDBOX_LEVELS, levelOf, type RunnerConfinement, type SandboxFeature, type SandboxLevel } from './levels';
export { runnerEnvironment, SELF_TEST_VARIABLE, SELF_TEST_SERVER_PID_VARIABLE } from './environment';
export { seccompFilter } from './seccomp';

/** A runner's start: the command (Node, or a wrapper that ends by starting Node), its environment and descriptors. */
export interface RunnerLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** stdin and stdout closed, stderr shared, fd 3 the IPC channel (fd 4 the seccomp filter, read and closed by bubblewrap). */
  stdio: StdioOptions;
  /** Call once the child exists: hands the wrapper what it reads at start. */
  started(child: ChildProcess): void;
}

export function confineRunnerSpawn(confinement: RunnerConfinement, node: { nodeArgs: readonly string[]; entry: string; args: readonly string[] }): RunnerLaunch {
  const nodeCommand = [process.execPath, ...node.nodeArgs, node.entry, ...node.args];
  const { wrapper } = confinement;
  return {
    command: wrapper ? wrapper.command : nodeCommand[0]!,
    args: wrapper ? [...wrapper.prefix, ...nodeCommand] : nodeCommand.slice(1),
    env: runnerEnvironment(),
    stdio: wrapper?.seccomp ? ['ignore', 'ignore', 'inherit', 'ipc', 'pipe'] : ['ignore', 'ignore', 'inherit', 'ipc'],
    started(child) {
      if (wrapper?.seccomp) sendSeccomp(child.stdio[SECCOMP_FD] as NodeJS.WritableStream | null, wrapper.seccomp);
    },
  };
}
