// Type checking never refuses a working program. Through the real server, under the default
// `typecheck: on`: every program of fixtures/typecheck-corpus/working (JavaScript as agents
// write it, each with type errors TypeScript reports) runs with the result its `// result:`
// line gives; the type errors come back as `warnings` (severity warning) in the execute
// result, the last-run record and the MCP execute answer. `strict` still refuses them; a
// mistake against svc's declarations is still refused before anything runs.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { registerBlueprint } from '../support/sessions';
import { repoRoot, startServer, type TestServer } from '../harness';

const working = path.join(repoRoot, 'fixtures', 'typecheck-corpus', 'working');
const programs = fs
  .readdirSync(working)
  .filter((f) => f.endsWith('.ts'))
  .sort()
  .map((f) => {
    const source = fs.readFileSync(path.join(working, f), 'utf8');
    return { name: f, source, expected: /^\/\/ result: (.*)$/m.exec(source)![1] };
  });

interface Warning {
  severity: string;
  line: number;
  column: number;
  message: string;
}

describe('working JavaScript-style programs under typecheck: on', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
    await registerBlueprint(server, 'name: open\ndefault: allow\n');
    await registerBlueprint(server, 'name: open-strict\ndefault: allow\ntypecheck: strict\n');
  });
  after(async () => {
    await server.stop();
  });

  const run = async (code: string, blueprint = 'open') => {
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint, code } });
    assert.equal(reply.status, 200, reply.text);
    return reply.json;
  };

  test('the corpus holds the idioms the checker used to refuse', () => {
    assert.ok(programs.length >= 15, `only ${programs.length} programs`);
  });

  for (const program of programs) {
    test(`${program.name} runs with the right result`, async () => {
      const json = await run(program.source);
      assert.equal(json.error, null, JSON.stringify(json.error));
      assert.equal(json.result, program.expected.startsWith('"') ? JSON.parse(program.expected) : program.expected);
      if (json.warnings !== undefined) {
        assert.ok(json.warnings.length >= 1 && json.warnings.length <= 20);
        for (const w of json.warnings as Warning[]) {
          assert.equal(w.severity, 'warning');
          assert.ok(w.line >= 1 && w.column >= 1 && w.message.length > 0);
        }
      }
    });
  }

  test('a type error that does not block comes back as a warning at its place, in the result and the last-run record', async () => {
    const code = 'export function main() {\n  const start = new Date();\n  return new Date() - start >= 0;\n}\n';
    const json = await run(code);
    assert.equal(json.error, null, JSON.stringify(json.error));
    assert.equal(json.result, 'true');
    const warnings = json.warnings as Warning[];
    assert.equal(warnings[0].severity, 'warning');
    assert.equal(warnings[0].line, 3);
    assert.equal(warnings[0].column, 10);
    assert.match(warnings[0].message, /left-hand side of an arithmetic operation/);
    const last = await server.request('GET', `/v1/sessions/${json.session_id}/last-run`, { token: server.userToken });
    assert.equal(last.status, 200, last.text);
    assert.deepEqual(last.json.warnings, warnings);
  });

  test('a program without type errors has no warnings field', async () => {
    const json = await run('export function main() { return 1 + 1; }');
    assert.equal(json.result, '2');
    assert.equal('warnings' in json, false);
  });

  test('strict refuses what on runs: the same program is a compile_error there', async () => {
    const program = programs.find((p) => p.name === 'parse-int-number.ts')!;
    const json = await run(program.source, 'open-strict');
    assert.equal(json.error?.kind, 'compile_error', JSON.stringify(json));
    assert.match(json.error.message, /Argument of type 'number' is not assignable to parameter of type 'string'/);
  });

  test('a mistake against svc\'s declarations is still refused before anything runs', async () => {
    const json = await run('export function main() {\n  console.log("ran");\n  return "abc".lenght;\n}\n');
    assert.equal(json.error?.kind, 'compile_error', JSON.stringify(json));
    assert.match(json.error.diagnostics[0].message, /Property 'lenght' does not exist on type '"abc"'/);
    assert.equal(json.error.diagnostics[0].help, 'did you mean `length`?');
    assert.deepEqual(json.console, []);
  });

  test('the MCP execute answer and last_run carry the warnings', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/open`), { requestInit: { headers: { authorization: `Bearer ${server.userToken}` } } });
    const client = new Client({ name: 'svc-test', version: '0.0.1' });
    await client.connect(transport);
    try {
      const answer = await client.callTool({ name: 'svc__typescript__execute', arguments: { code: 'function add(a, b) { return (a || 0) + (b || 0); }\nexport function main() { return add(1); }\n' } });
      const structured = answer.structuredContent as { result: string; error: unknown; warnings?: Warning[] };
      assert.equal(structured.error, null, JSON.stringify(structured));
      assert.equal(structured.result, '1');
      assert.equal(structured.warnings?.length, 1);
      assert.match(structured.warnings![0].message, /Expected 2 arguments, but got 1/);
      assert.equal(structured.warnings![0].severity, 'warning');
      const last = await client.callTool({ name: 'svc__typescript__last_run', arguments: {} });
      assert.deepEqual((last.structuredContent as { warnings?: Warning[] }).warnings, structured.warnings);
    } finally {
      await client.close();
    }
  });
});
