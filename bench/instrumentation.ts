// Instrumentation overhead: the same CPU-bound programs run (1) compiled by our pipeline
// with fuel and stack metering, (2) plain, in a bare isolate. Reports the time ratio.
import ivm from 'isolated-vm';
import { compileProgram } from '../sandbox';

const workloads: Record<string, string> = {
  'arithmetic loop, 10M iterations': `
    export function main() { let sum = 0; for (let i = 0; i < 10_000_000; i++) { sum = (sum + i * 7) % 1000003; } return sum; }`,
  'sort 100k numbers': `
    export function main() { const a: number[] = []; let x = 1; for (let i = 0; i < 100_000; i++) { x = (x * 48271) % 2147483647; a.push(x); } a.sort((p, q) => p - q); return a[500]; }`,
  'JSON round trip, 1 MB': `
    export function main() { const items = []; for (let i = 0; i < 12_000; i++) items.push({ id: i, name: "item-" + i, tags: ["a", "b"], ok: i % 2 === 0 }); const text = JSON.stringify(items); return JSON.parse(text).length + text.length; }`,
  'recursive fib(30)': `
    function fib(n: number): number { return n < 2 ? n : fib(n - 1) + fib(n - 2); } export function main() { return fib(30); }`,
  'Map and objects, 200k entries': `
    export function main() { const m = new Map<number, { k: number; v: string }>(); for (let i = 0; i < 200_000; i++) m.set(i, { k: i, v: "v" + (i % 100) }); let total = 0; for (const [key, o] of m) { if (o.v.length > 2) total += key % 7; } return total; }`,
  'closures, 2M calls': `
    function counter() { let c = 0; return { inc: (d: number) => { c += d; return c; }, get: () => c }; } export function main() { const cs = [counter(), counter(), counter()]; for (let i = 0; i < 2_000_000; i++) cs[i % 3].inc(i & 7); return cs[0].get() + cs[1].get() + cs[2].get(); }`,
};

/** Plain JavaScript of a workload: types stripped, no metering. */
async function plainScript(source: string): Promise<string> {
  const { transform } = await import('esbuild');
  const out = await transform(source, { loader: 'ts', format: 'cjs', target: 'es2022' });
  return `(function(){ const module = { exports: {} }; const exports = module.exports; ${out.code}; return module.exports.main(); })()`;
}

const REPEATS = Number(process.env.BENCH_REPEATS ?? 7);

function timeInIsolate(code: string, repeats: number): number {
  const best: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const isolate = new ivm.Isolate({ memoryLimit: 256 });
    const context = isolate.createContextSync();
    const script = isolate.compileScriptSync(code);
    const started = process.hrtime.bigint();
    script.runSync(context, { timeout: 60_000 });
    best.push(Number(process.hrtime.bigint() - started) / 1e6);
    isolate.dispose();
  }
  return Math.min(...best);
}

function meteredScript(programCode: string): string {
  // A minimal runtime object per the sandbox contract: budget large enough never to trip.
  return `(function(){
    const rt = { fuelBudget: 1e15, maxDepth: 100000, fuelOut() { throw new Error('fuel'); }, stackOut() { throw new Error('stack'); }, checkCaught() {} };
    const linked = (${programCode})(rt);
    const module = { exports: {} };
    linked.units.main(function () { throw new Error('no imports in benchmarks'); }, module, module.exports);
    return module.exports.main();
  })()`;
}

export async function measureInstrumentation(): Promise<Record<string, string>> {
  const rows: Record<string, string> = {};
  const ratios: number[] = [];
  for (const [name, source] of Object.entries(workloads)) {
    const compiled = await compileProgram({ source, availableModules: [] });
    if (!compiled.ok) throw new Error(`${name}: ${compiled.error.message}`);
    // Alternating single runs share whatever load the machine has; the best of each counts.
    const plainCode = await plainScript(source);
    const meteredCode = meteredScript(compiled.script.code);
    let plain = Infinity;
    let metered = Infinity;
    for (let r = 0; r < REPEATS; r++) {
      plain = Math.min(plain, timeInIsolate(plainCode, 1));
      metered = Math.min(metered, timeInIsolate(meteredCode, 1));
    }
    ratios.push(metered / plain);
    rows[`instrumented/plain: ${name}`] = `${(metered / plain).toFixed(2)}x (${metered.toFixed(1)} ms vs ${plain.toFixed(1)} ms)`;
  }
  const geometricMean = Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length);
  rows['instrumented/plain: geometric mean'] = `${geometricMean.toFixed(2)}x (worst ${Math.max(...ratios).toFixed(2)}x)`;
  return rows;
}
