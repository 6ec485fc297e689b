// The server keeps compiled programs to skip compiling a program sent again; every new
// program adds one, so they are bounded by bytes (`compile_cache_size`). A token sending
// hundreds of new programs keeps the cache under its bound, and another token's runs go on
// answering right meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../harness';

const MiB = 1024 * 1024;

function gauge(metrics: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics);
  assert.ok(match, `${name} is reported`);
  return Number(match[1]);
}

/**
 * A distinct program of about 19 KB (its compiled code, source map and source: about 30 KB of
 * UTF-8 in the cache, so 60 of them kept whole hold 1.8 MB).
 */
function newProgram(n: number): string {
  const lines = Array.from({ length: 240 }, (_, i) => `  const value${i} = ${n} + ${i}; // a line that makes the program and its map larger\n`).join('');
  return `export function main() {\n${lines}  return value0 - ${n};\n}\n`;
}

async function run(server: TestServer, token: string, code: string): Promise<unknown> {
  const reply = await server.request('POST', '/v1/execute', { token, body: { blueprint: 'open', code } });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.error, null, JSON.stringify(reply.json.error));
  return reply.json.result;
}

test('a flood of new programs keeps the compile cache under compile_cache_size, and another token\'s runs still answer', async () => {
  const server = await startServer({ args: ['--compile-cache-size', '1'] });
  try {
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: open\ndefault: deny\ntypecheck: off\n' } });
    assert.ok(created.status < 300, created.text);
    // Three times what the bound holds: kept whole, they would pass it.
    const programs = 60;
    for (let n = 0; n < programs; n++) {
      assert.equal(await run(server, server.userToken, newProgram(n)), '0');
      if (n % 10 === 0) assert.equal(await run(server, server.adminToken, `export function main() { return ${n} * 2; }`), String(n * 2));
    }
    const metrics = (await server.request('GET', '/metrics')).text;
    const bytes = gauge(metrics, 'svc_compile_cache_bytes');
    const entries = gauge(metrics, 'svc_compile_cache_entries');
    assert.ok(bytes <= 1 * MiB, `${bytes} bytes kept`);
    assert.ok(bytes > MiB / 2, `${bytes} bytes kept: the cache is used up to its bound`);
    assert.ok(entries > 1 && entries < programs, `${entries} programs kept`);
  } finally {
    await server.stop();
  }
});

test('compile_cache_size 0 keeps no compiled program, and a program sent twice still runs', async () => {
  const server = await startServer({ args: ['--compile-cache-size', '0'] });
  try {
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: open\ndefault: deny\ntypecheck: off\n' } });
    assert.ok(created.status < 300, created.text);
    assert.equal(await run(server, server.userToken, newProgram(1)), '0');
    assert.equal(await run(server, server.userToken, newProgram(1)), '0');
    const metrics = (await server.request('GET', '/metrics')).text;
    assert.equal(gauge(metrics, 'svc_compile_cache_entries'), 0);
  } finally {
    await server.stop();
  }
});
