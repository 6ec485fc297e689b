import { test } from 'node:test';
import fs from 'node:fs';
import { compileProgram } from '../../../sandbox';
import { startPool, DEFAULT_LIMITS, testHost } from './runtime-harness';
function childCpuMs(): number {
  const kids = fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  let t = 0;
  for (const k of kids) { try { const f = fs.readFileSync(`/proc/${k}/stat`, 'utf8').split(') ')[1].split(' '); t += (Number(f[11]) + Number(f[12])) * 10; } catch {} }
  return t;
}
test('dbg', async () => {
  const pool = await startPool(2);
  for (const fresh of [false, true]) {
  const times: number[] = [];
  const N = 300;
  const c0 = childCpuMs(); const s0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const t = process.hrtime.bigint();
    const c = await compileProgram({ source: fresh ? `export function main() { const n = ${i}; return "hello"; }` : 'export function main() { return "hello"; }', availableModules: [] });
    if (!c.ok) throw new Error();
    const o = await pool.run({ executionId: 'x' + i, script: c.script, hostModules: {}, limits: DEFAULT_LIMITS }, testHost);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (o.outcome !== 'ok') throw new Error(o.outcome + ' ' + i + ' ' + o.error?.message);
  }
  const s = process.cpuUsage(s0);
  const runnerCpu = (childCpuMs() - c0) / N; const selfCpu = (s.user + s.system) / 1000 / N;
  times.sort((a, b) => a - b);
  console.log(fresh ? 'fresh' : 'same ', 'p50', times[N/2].toFixed(2), 'p10', times[N/10].toFixed(2), 'runner cpu/run', runnerCpu.toFixed(2), 'self cpu/run (incl compile+esbuild client)', selfCpu.toFixed(2));
  }
  await pool.stop();
});
