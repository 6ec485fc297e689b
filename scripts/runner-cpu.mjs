// The CPU of the runners a test file's servers start, which its `# cpu` (scripts/test-cpu.mjs)
// does not hold: the pool ends a runner by SIGKILL to its bwrap, whose processes inside are
// then reaped by init, never by the server, so their time reaches no test process (one full
// run under a child subreaper found that share: bench/PROFILE.md, round 37). Sampled from
// /proc while they live (Linux only; elsewhere nothing is counted), so a lower bound: a runner's
// last interval before its end is missed.
import { readFileSync, readdirSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ
const INTERVAL_MS = 500;

/** Fields after the command name of /proc/<pid>/stat (state is [0], ppid [1], utime [11], stime [12], starttime [19]), or null once it is gone. */
function statOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return { command: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')), fields: text.slice(text.lastIndexOf(')') + 2).split(' ') };
  } catch {
    return null;
  }
}

/**
 * Samples every `node` process running `runnerEntry` and charges its CPU to the test process
 * among its ancestors (`owners`: pid -> test file). `cpuOf(file)` is the CPU-s seen for it.
 */
export function startRunnerSampler(runnerEntry, owners) {
  /** `${pid}:${starttime}` -> { file, ticks }; null for a process that is no runner of ours. */
  const seen = new Map();
  const perFile = new Map();
  const ownerOf = (pid) => {
    for (let current = pid, hops = 0; current > 1 && hops < 8; hops++) {
      if (owners.has(current)) return owners.get(current);
      current = Number(statOf(current)?.fields[1] ?? 0);
    }
    return undefined;
  };
  const sample = () => {
    let pids;
    try {
      pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
    } catch {
      return;
    }
    for (const name of pids) {
      const stat = statOf(name);
      if (!stat || stat.command !== 'node') continue;
      const key = `${name}:${stat.fields[19]}`;
      let entry = seen.get(key);
      if (entry === undefined) {
        let cmdline = '';
        try {
          cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
        } catch {}
        const file = cmdline.split('\0').includes(runnerEntry) ? ownerOf(Number(name)) : undefined;
        entry = file === undefined ? null : { file, ticks: 0 };
        seen.set(key, entry);
      }
      if (!entry) continue;
      const ticks = Number(stat.fields[11]) + Number(stat.fields[12]);
      perFile.set(entry.file, (perFile.get(entry.file) ?? 0) + ticks - entry.ticks);
      entry.ticks = ticks;
    }
  };
  const timer = setInterval(sample, INTERVAL_MS);
  timer.unref();
  return {
    cpuOf: (file) => (perFile.get(file) ?? 0) / TICKS_PER_SECOND,
    stop: () => clearInterval(timer),
  };
}
