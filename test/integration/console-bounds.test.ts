// console output stops at its bound however large the value logged: formatting writes the
// line piece by piece and ends where the runner's 1 MiB of console per run would, so huge
// arrays, objects, strings, Maps, Sets, typed arrays and deep nesting all end with a
// truncated line (about 105 s for a 10-million-element array when the whole JSON was built
// first; `BENCH_ONLY=latencies` times it). Ordinary values keep their usual rendering.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../harness';
import { webServer } from '../support/web-server';

const LIMIT = 1024 * 1024;
const NOTE = /… \[truncated: a rendered value or console line keeps at most \d+ characters\]$/;

/**
 * The console of a program that logs `expression` once, under the server's default limits
 * (it then throws: a one-off run's answer carries its console when the run failed).
 */
async function logged(server: ReturnType<typeof webServer>, expression: string): Promise<string[]> {
  const reply = await server.execute(`export function main() { console.log(${expression}); throw new Error("logged"); }`);
  assert.equal(reply.error?.kind, 'runtime_error', JSON.stringify(reply.error));
  assert.match(reply.error.message, /logged/);
  return reply.console;
}

describe('console output bounds', () => {
  const server = webServer();

  test('a 10-million-element array logs its first megabyte and a note, not nothing', async () => {
    // The array alone is 80 MB: the server lets a run hold it; the console keeps its default bounds.
    const big = await startServer({ runners: 1, args: ['--max-execution-memory', '256'] });
    try {
      const created = await big.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\n' } });
      assert.ok(created.status < 300, created.text);
      const reply = await big.request('POST', '/v1/execute', { token: big.userToken, body: { blueprint: 'web', code: 'export function main() { console.log(new Array(10_000_000).fill(7)); throw new Error("logged"); }' } });
      assert.equal(reply.json.error?.kind, 'runtime_error', reply.text.slice(0, 300));
      const [line, ...rest] = reply.json.console as string[];
      assert.deepEqual(rest, []);
      assert.ok(line.startsWith('[7,7,7,7,'), line.slice(0, 40));
      assert.match(line, NOTE);
      assert.ok(line.length <= LIMIT, String(line.length));
      assert.ok(line.length > LIMIT - 1024, String(line.length));
    } finally {
      await big.stop();
    }
  });

  test('huge objects, Maps, Sets, typed arrays and long strings inside values are cut the same way', async () => {
    const cases: Array<[string, string]> = [
      ['Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => ["key" + i, i]))', '{"key0":0,"key1":1,'],
      ['new Map(Array.from({ length: 150_000 }, (_, i) => [i, "v"]))', '{"0":"v","1":"v",'],
      ['new Set(Array.from({ length: 300_000 }, (_, i) => i))', '[0,1,2,3,'],
      ['new Uint8Array(10_000_000)', '{"0":0,"1":0,'], // ten million elements within the default 50 MB
      ['{ text: "x".repeat(3_000_000) }', '{"text":"xxxx'],
      ['"a", { n: 1 }, "b".repeat(2_000_000)', 'a {"n":1} bbbb'],
    ];
    for (const [expression, start] of cases) {
      const [line, ...rest] = await logged(server, expression).catch((error: Error) => assert.fail(`${expression}: ${error.message}`));
      assert.deepEqual(rest, [], expression);
      assert.ok(line.startsWith(start), `${expression}: ${line.slice(0, 40)}`);
      assert.match(line, NOTE, expression);
      assert.ok(line.length <= LIMIT, `${expression}: ${line.length}`);
    }
  });

  test('nesting deeper than the renderer goes shows the rest by kind instead of failing the whole value', async () => {
    const [line] = await logged(server, '(() => { let v: any = 1; for (let i = 0; i < 5_000; i++) v = [v]; return v; })()');
    assert.ok(line.startsWith('[[[['), line.slice(0, 20));
    assert.ok(line.includes('"[Array]"'), line.slice(990, 1030));
    assert.doesNotMatch(line, NOTE);
  });

  test('ordinary values render as before: JSON with Maps, Sets, BigInts, cycles and functions named', async () => {
    const reply = await server.execute(
      'export function main() { const o: any = { a: 1, b: [1, "x", null, undefined], m: new Map([["k", 1n]]), s: new Set([true]), f: function named() {} }; o.self = o; console.log("n=%d", 3, o, new Uint8Array([1, 2])); console.table([{ a: 1 }]); throw new Error("logged"); }',
    );
    assert.deepEqual(reply.console, [
      'n=3 {"a":1,"b":[1,"x",null,null],"m":{"k":"1"},"s":[true],"f":"[Function named]","self":"[Circular]"} {"0":1,"1":2}',
      '┌─────────┬───┐\n│ (index) │ a │\n├─────────┼───┤\n│    0    │ 1 │\n└─────────┴───┘',
    ]);
  });
});
