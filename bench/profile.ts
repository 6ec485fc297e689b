// `node --import tsx bench/profile.ts <dir> [top]`: summarises the V8 CPU profiles that
// `BENCH_PROFILE=<dir> npm run bench` leaves (one per process: the server and each runner).
// Per profile: total sampled time, then the functions with the most self time and the
// most inclusive time (a function's own time plus its callees', counted once per sample).
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url ? url.replace(/^file:\/\//, '').split('/node_modules/').pop()!.split('/').slice(-2).join('/') : '';
  return `${functionName || '(anonymous)'}${file ? ` ${file}:${lineNumber + 1}` : ''}`;
}

/** One process's profile chunks (`<pid>-<n>.cpuprofile`) summed. */
function summarise(pid: string, files: string[], top: number): void {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const file of files) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const node = byId.get(profile.samples[i])!;
    const name = label(node);
    if (node.callFrame.functionName === '(idle)') {
      idle += ms;
      continue;
    }
    total += ms;
    self.set(name, (self.get(name) ?? 0) + ms);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const l = label(byId.get(id)!);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + ms);
    }
  }
  }
  const list = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => `  ${ms.toFixed(0).padStart(7)} ms  ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${name}`)
      .join('\n');
  console.log(`\n== process ${pid}: ${total.toFixed(0)} ms busy, ${idle.toFixed(0)} ms idle`);
  console.log(`-- self\n${list(self)}`);
  console.log(`-- inclusive\n${list(inclusive)}`);
}

const dir = process.argv[2];
if (!dir) throw new Error('usage: bench/profile.ts <dir with .cpuprofile files> [top]');
const top = Number(process.argv[3] ?? 25);
const byPid = new Map<string, string[]>();
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  // `<pid>_<thread>-<n>.cpuprofile`: each thread of a process (the server's workers too) is its own profile.
  const pid = file.split(/[-.]/)[0];
  byPid.set(pid, [...(byPid.get(pid) ?? []), path.join(dir, file)]);
}
for (const [pid, files] of byPid) summarise(pid, files, top);
