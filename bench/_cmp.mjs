import ivm from 'isolated-vm';
import fs from 'node:fs';
import v8 from 'node:v8';
const prelude = fs.readFileSync('dist/prelude.js', 'utf8');
const isolate = new ivm.Isolate({ memoryLimit: 50 });
v8.setFlagsFromString('--expose-gc'); const maint = isolate.createContextSync(); v8.setFlagsFromString('--no-expose-gc');
const script = isolate.compileScriptSync(prelude, { filename: 'p.js' });
const variants = Object.fromEntries(process.argv.slice(2).map((f) => [f, isolate.compileScriptSync(fs.readFileSync(f, 'utf8'), { filename: f })]));
const N = 60; const t = {};
for (let i = 0; i < N; i++) {
  for (const [name, s] of Object.entries(variants)) {
  const ctx = isolate.createContextSync();
  const jail = ctx.global;
  jail.setSync('__svc_native', new ivm.ExternalCopy({}).copyInto());
  const native = jail.getSync('__svc_native', { reference: true });
  for (const k of ['hostCall', 'console', 'limit', 'random', 'url']) native.setSync(k, new ivm.Reference(() => 1));
  script.runSync(ctx);
  s.runSync(ctx);
  maint.evalSync('gc()');
  const a = isolate.cpuTime;
  ctx.evalSync('(globalThis.__lockdown ?? globalThis.__lockdown2)([]); 1');
  (t[name] ??= []).push(Number(isolate.cpuTime - a) / 1e6);
  ctx.release();
  }
}
for (const k in t) { const v = t[k].sort((x, y) => x - y); console.log(k, 'median', v[v.length >> 1].toFixed(3), 'min', v[0].toFixed(3)); }
