// The checker threads' memory while one token floods new programs: each thread's V8 heap
// is reported (svc_typecheck_heap_bytes) and bounded by typecheck_thread_memory, and the
// other token's checked runs answer as they would alone: a type error is refused, a good
// program runs. (Replacing a thread past its bound, warmed first, is proven in
// test/unit/sandbox/typecheck-replace.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { registerBlueprint } from '../support/sessions';
import { newToken, startServer, tempDir } from '../harness';

const THREAD_MEMORY_MB = 256;

test('one token flooding new programs leaves another token\'s checked runs their answers, within the checker threads\' bound', async () => {
  const home = tempDir();
  const other = newToken();
  fs.writeFileSync(path.join(home, 'other.token'), `${other}\n`);
  const server = await startServer({ home, runners: 1, args: ['--typecheck-thread-memory', String(THREAD_MEMORY_MB)], config: { api_tokens: [{ name: 'other', role: 'user', token_file: path.join(home, 'other.token') }] } });
  try {
    await registerBlueprint(server, 'name: checked\ndefault: deny\n');
    let next = 0;
    const flood = Promise.all(
      Array.from({ length: 6 }, async () => {
        while (next < 60) {
          const n = next++;
          const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'checked', code: `interface G${n} { count: number }\nconst g${n}: G${n} = { count: ${n} };\nexport function main(): number { return g${n}.count; }` } });
          assert.equal(reply.json?.result, String(n), reply.text);
        }
      }),
    );
    // Awaited below; a failure here must not hide the other token's assertion as an unhandled rejection.
    flood.catch(() => {});
    for (let i = 0; i < 8; i++) {
      if (i % 2) {
        const refused = await server.request('POST', '/v1/execute', { token: other, body: { blueprint: 'checked', code: `export function main(): number { return missing${i}; }` } });
        assert.equal(refused.json?.error?.kind, 'compile_error', refused.text);
        assert.match(refused.json.error.message, new RegExp(`Cannot find name 'missing${i}'`));
      } else {
        const ran = await server.request('POST', '/v1/execute', { token: other, body: { blueprint: 'checked', code: `export function main(): string { const s: string = "ok${i}"; return s; }` } });
        assert.equal(ran.json?.result, `ok${i}`, ran.text);
      }
    }
    await flood;
    const metrics = (await server.request('GET', '/metrics')).text;
    const heap = (state: string) => Number(new RegExp(`^svc_typecheck_heap_bytes\\{state="${state}"\\} (\\d+)`, 'm').exec(metrics)?.[1] ?? NaN);
    const threads = 3;
    assert.ok(heap('used') > 0, metrics);
    assert.ok(heap('total') <= threads * THREAD_MEMORY_MB * 1024 * 1024 * 1.25, `checker threads hold ${heap('total')} bytes`);
  } finally {
    await server.stop();
  }
});
