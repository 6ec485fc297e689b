// The pool's first runners are the sandbox probe: they start through the strongest wrapper
// this host has (sandbox/confine), and the first of them reports from inside which walls
// hold. A wrapper that fails them (they end before that report) is named with its reason,
// and they start again through the next one, then with the allow-listed environment alone.
import type { ChildProcess } from 'node:child_process';
import { judgeConfinement, PROBE_TIMEOUT_MS, refusalReason, type ConfinementProbe, type ObservedConfinement, type RunnerConfinement } from '../confine';
import type { FromRunner, ToRunner } from '../runner/protocol';
import { whenReady } from './runner-process';
import type { Runner } from './runs';

/** Starts a runner through `confinement`; `probing`: its standard error comes to the server. */
export type LaunchRunner = (confinement: RunnerConfinement, probing: boolean) => Runner;

/** Starts `count` runners, ready, and says which confinement they got. */
export async function startConfined(probe: ConfinementProbe, count: number, launch: LaunchRunner, discard: (runner: Runner) => void): Promise<{ confinement: RunnerConfinement; runners: Runner[] }> {
  const failures: string[] = [];
  for (const wrapper of probe.wrappers) {
    const tentative = judgeConfinement(wrapper, null, failures);
    const runners = Array.from({ length: count }, () => launch(tentative, true));
    // A wrapper's refusal is read here, not passed on to the server's standard error.
    const held = runners.map((runner) => holdStderr(runner.child));
    let observed: ObservedConfinement;
    try {
      observed = await reported(runners[0]!.child, probe, held[0]!);
    } catch (error) {
      failures.push(`${wrapper.name}: ${(error as Error).message}`);
      for (const runner of runners) discard(runner);
      continue;
    }
    for (const stderr of held) stderr.passOn();
    // The wrapper works: a runner that fails from here fails the start, as without a probe.
    await Promise.all(runners.map((runner) => whenReady(runner)));
    return { confinement: judgeConfinement(wrapper, observed, failures), runners };
  }
  const confinement = judgeConfinement(null, null, failures);
  const runners = Array.from({ length: count }, () => launch(confinement, false));
  await Promise.all(runners.map((runner) => whenReady(runner)));
  return { confinement, runners };
}

interface HeldStderr {
  text(): string;
  /** What was held, and all that follows, goes to the server's standard error. */
  passOn(): void;
}

function holdStderr(child: ChildProcess): HeldStderr {
  let kept: string | null = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    if (kept === null) process.stderr.write(chunk);
    else if (kept.length < 64 * 1024) kept += chunk;
  });
  return {
    text: () => kept ?? '',
    passOn() {
      if (kept) process.stderr.write(kept);
      kept = null;
    },
  };
}

/** What the runner observed inside, once asked; rejects with the reason when it ends first. */
function reported(child: ChildProcess, probe: ConfinementProbe, stderr: HeldStderr): Promise<ObservedConfinement> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no report from inside within ${PROBE_TIMEOUT_MS / 1000} s`)), PROBE_TIMEOUT_MS);
    const onMessage = (message: FromRunner) => {
      if (message?.type !== 'confinement') return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message.observed);
    };
    child.on('message', onMessage);
    // 'close' comes once its standard error is read to the end: the reason is in it.
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(refusalReason(probe, stderr.text(), code, signal)));
    });
    // A runner that ended at once has no channel: its 'close' tells why.
    child.send({ type: 'confinement', hiddenPath: probe.hiddenPath } satisfies ToRunner, () => {});
  });
}
