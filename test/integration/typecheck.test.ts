// Programs are type-checked before they run: against exactly the declarations
// the Blueprint puts in scope — svc: modules, its Packages (installed from a loopback code
// host) and its @mcp servers (declarations from a loopback MCP upstream's schemas). Each
// class of mistake is a compile_error with a useful diagnostic and the far end shows that
// nothing ran; `typecheck: off` runs the same program as before; llm.call<T> sends the
// schema derived from T to a stand-in provider; an upgraded Package changes what passes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../harness';
import { startCodeHost, type CodeHost } from '../support/code-host';
import { startMcpUpstream, type McpUpstream } from '../support/mcp-upstream';
import { manifest, type FileMap } from '../support/packages';
import { serverOptions, startStandIn, testCa, type StandIn } from '../support/stand-in';
import { startProvider, type ProviderStandIn } from '../support/model-providers';

const SINK_HOST = 'sink.typecheck-example.com';
const MODEL = 'gpt-5-mini';

const greeter = (version: string, signature: string, body: string): FileMap => ({
  'svc.toml': manifest([{ name: '@acme/greeter', version }]),
  'docs/readme.md': '# greeter\n\n```ts\nimport { greet } from "@acme/greeter";\nexport function main() { return greet("Ada", "!"); }\n```\n',
  'src/lib.ts': `/**\n * Greets someone.\n * @param name Who.\n * @returns The greeting.\n */\nexport function greet(${signature}): string {\n  ${body}\n}\n`,
});

const blueprintYaml = (name: string, calc: McpUpstream, provider: ProviderStandIn, extra = '') => `name: ${name}
secrets:
  OPENAI_KEY: {store: openai_key}
packages: ["@acme/greeter"]
mcp:
  calc:
    url: ${calc.url}
llm:
  providers:
    oa: {type: openai, base_url: "${provider.origin()}/v1", api_key: "\${secrets.OPENAI_KEY}"}
  models:
    ${MODEL}: {provider: oa}
default: allow
${extra}`;

describe('type-checked programs', () => {
  let server: TestServer;
  let sink: StandIn;
  let calc: McpUpstream;
  let provider: ProviderStandIn;
  let host: CodeHost;

  const run = async (code: string, blueprint = 'tc') => {
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint, code } });
    assert.equal(reply.status, 200, reply.text);
    return reply.json;
  };
  /** Posts to the sink first: a run that got that far leaves a request there. */
  const sideEffect = () => `http.post("${sink.origin()}/effect", { body: "ran" });`;
  const sinkHits = () => sink.requests.filter((r) => r.path === '/effect').length;
  const assertCompileError = (json: any, pattern: RegExp) => {
    assert.equal(json.error?.kind, 'compile_error', JSON.stringify(json));
    assert.ok(json.error.diagnostics.length >= 1 && json.error.diagnostics.length <= 20);
    assert.ok(json.error.diagnostics.some((d: { message: string }) => pattern.test(d.message)), JSON.stringify(json.error.diagnostics));
    assert.equal(json.result, null);
  };

  before(async () => {
    sink = await startStandIn([SINK_HOST], () => ({ status: 200, json: { ok: true } }));
    calc = await startMcpUpstream({
      host: 'mcp.calc-example.com',
      tools: [
        {
          name: 'add',
          description: 'Adds two numbers.',
          inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
          outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
          call: (args) => ({ content: [], structuredContent: { sum: Number(args.a) + Number(args.b) } }),
        },
        { name: 'lookup', description: 'No output schema.', inputSchema: { type: 'object', properties: { query: { type: 'string' } } }, call: (args) => ({ content: [{ type: 'text', text: JSON.stringify({ items: [{ name: args.query }] }) }] }) },
      ],
    });
    provider = await startProvider('openai');
    const dir = tempDir();
    host = await startCodeHost(dir);
    host.addCommit('acme/greeter', ['v1'], greeter('0.1.0', 'name: string, punctuation: string', 'return `Hello, ${name}${punctuation}`;'));
    // One CA file trusts both the stand-ins' test CA and the code host's own certificate.
    const cas = path.join(dir, 'cas.pem');
    fs.writeFileSync(cas, fs.readFileSync(testCa().certFile, 'utf8') + '\n' + fs.readFileSync(host.certFile, 'utf8'));
    const options = serverOptions(sink, provider, { hosts: calc.hosts });
    server = await startServer({ runners: 1, args: options.args, env: { ...options.env, NODE_EXTRA_CA_CERTS: cas, SVC_GITHUB_API_URL: host.url, SVC_SECRET_KEY: randomBytes(32).toString('base64') }, timeoutMs: 90_000 });
    assert.equal((await server.request('POST', '/v1/secrets', { body: { key: 'openai_key', value: `sk-proj-${randomBytes(8).toString('hex')}` } })).status, 200);
    const installed = await server.request('POST', '/v1/packages/install', { body: { url: 'https://github.com/acme/greeter.git@v1' } });
    assert.equal(installed.status, 200, installed.text);
    for (const [name, extra] of [['tc', ''], ['tc-off', 'typecheck: off\n'], ['tc-strict', 'typecheck: strict\n']]) {
      const registered = await server.request('POST', '/v1/blueprints', { body: { yaml: blueprintYaml(name, calc, provider, extra) } });
      assert.equal(registered.status, 200, registered.text);
    }
  });
  after(async () => {
    await server?.stop();
    await sink?.close();
    await calc?.close();
    await provider?.close();
    host?.close();
  });

  test('a misspelt svc: function is a compile_error with the spelling suggestion as help; nothing ran', async () => {
    const json = await run(`import * as fs from "svc:fs";\nimport * as http from "svc:http";\nexport function main() {\n  ${sideEffect()}\n  return fs.readTxt("/a.txt");\n}\n`);
    assertCompileError(json, /Property 'readTxt' does not exist/);
    const d = json.error.diagnostics[0];
    assert.equal(d.line, 5);
    assert.equal(d.column, 13);
    assert.equal(d.help, 'did you mean `readText`?');
    assert.match(json.error.message, /program\.ts:5:13: error: Property 'readTxt' does not exist[^\n]*\n5 \|   return fs\.readTxt\("\/a\.txt"\);\n {16}\^\n  help: did you mean `readText`\?/);
    assert.equal(sinkHits(), 0);
  });

  test('typecheck: off runs the same wrong program as before: the side effect happens, then a runtime error', async () => {
    const before = sinkHits();
    const json = await run(`import * as fs from "svc:fs";\nimport * as http from "svc:http";\nexport function main() {\n  ${sideEffect()}\n  return fs.readTxt("/a.txt");\n}\n`, 'tc-off');
    assert.equal(json.error?.kind, 'runtime_error', JSON.stringify(json));
    assert.match(json.error.message, /readTxt is not a function/);
    assert.equal(sinkHits(), before + 1);
  });

  test('an @mcp tool the server does not have is a compile_error naming it; no tool was called', async () => {
    const json = await run(`import { nope } from "@mcp/calc";\nexport function main() { return nope({}); }\n`);
    assertCompileError(json, /has no exported member 'nope'/);
    assert.equal(calc.calls.length, 0);
  });

  test('an import of an @mcp server the Blueprint does not declare is refused with the servers it does declare', async () => {
    const json = await run(`import { add } from "@mcp/calculator";\nexport function main() { return add({ a: 1, b: 2 }); }\n`);
    assert.equal(json.error?.kind, 'compile_error', JSON.stringify(json));
    assert.match(json.error.message, /cannot import `@mcp\/calculator`.*declares no MCP server 'calculator'; its MCP servers: @mcp\/calc/);
  });

  test('a misspelt field in an @mcp tool\'s argument object is a compile_error with help; no tool was called', async () => {
    const json = await run(`import { add, lookup } from "@mcp/calc";\nexport function main() { const first = add({ a: 1, b: 2 }); return lookup({ qeury: String(first.sum) }); }\n`);
    assertCompileError(json, /'qeury' does not exist in type '\{ query\?: string; \}'/);
    assert.equal(json.error.diagnostics[0].help, 'did you mean `query`?');
    assert.equal(calc.calls.length, 0);
  });

  test('a missing required argument of a Package function is a compile_error with a note naming the parameter', async () => {
    const before = sinkHits();
    const json = await run(`import { greet } from "@acme/greeter";\nimport * as http from "svc:http";\nexport function main() { ${sideEffect()} return greet("Ada"); }\n`);
    assertCompileError(json, /Expected 2 arguments, but got 1/);
    assert.ok(json.error.diagnostics[0].notes?.some((n: { message: string }) => /punctuation/.test(n.message)), JSON.stringify(json.error.diagnostics));
    assert.equal(sinkHits(), before);
  });

  test('llm.call(model) without a prompt is a compile_error; the provider saw nothing', async () => {
    const before = provider.requests.length;
    const json = await run(`import * as llm from "svc:llm";\nexport function main() { return llm.call("${MODEL}"); }\n`);
    assertCompileError(json, /Expected 2-3 arguments, but got 1/);
    assert.equal(provider.requests.length, before);
  });

  test('a correct program using a Package, @mcp tools and untyped JSON passes the checker and runs', async () => {
    const json = await run(`import { greet } from "@acme/greeter";
import calc, { add, lookup } from "@mcp/calc";
import * as http from "svc:http";
import * as session from "svc:session";
export async function main() {
  const sum = add({ a: 2, b: 3 }).sum;
  const found = lookup({ query: "ada" });
  const body = http.get("${sink.origin()}/data").json();
  session.set("k", { count: 1 });
  const count = session.get("k").count;
  const parsed = JSON.parse('{"x": {"y": 4}}');
  const again = calc.add({ a: 1, b: 1 });
  return { greeting: greet("Ada", "!"), sum, found: found.items?.length ?? String(found).length, ok: body.ok, count, y: parsed.x.y, again: again.sum };
}
`);
    assert.equal(json.error, null, JSON.stringify(json.error));
    assert.deepEqual(JSON.parse(json.result), { greeting: 'Hello, Ada!', sum: 5, found: JSON.parse(json.result).found, ok: true, count: 1, y: 4, again: 2 });
    assert.ok(calc.calls.some((c) => c.name === 'add'));
  });

  test('llm.call<T> without a schema sends the schema derived from T and returns the typed value; an explicit schema wins', async () => {
    const code = `import * as llm from "svc:llm";
enum Mood { Happy = "happy", Sad = "sad" }
interface Person { name: string; age?: number; tags: string[]; mood: Mood; born: Date; pair: [number, string]; extra: Record<string, boolean>; kind: "a" | "b" | null }
export function main() {
  const p = llm.call<Person>("${MODEL}", '#json {"name":"Ada","tags":[],"mood":"happy","born":"1815-12-10T00:00:00Z","pair":[1,"x"],"extra":{},"kind":null}');
  return p.name;
}
`;
    const before = provider.requests.length;
    const json = await run(code);
    assert.equal(json.error, null, JSON.stringify(json.error));
    assert.equal(json.result, 'Ada');
    const sent = provider.requests.slice(before).find((r) => r.path.endsWith('/chat/completions'));
    assert.ok(sent, 'the provider received the call');
    const schema = sent.json.response_format.json_schema.schema;
    assert.deepEqual(schema, {
      type: 'object',
      properties: {
        name: { type: 'string' },
        age: { type: 'number' },
        tags: { type: 'array', items: { type: 'string' } },
        mood: { type: 'string', enum: ['happy', 'sad'] },
        born: { type: 'string', format: 'date-time' },
        pair: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }], minItems: 2, maxItems: 2 },
        extra: { type: 'object', properties: {}, required: [], additionalProperties: { type: 'boolean' } },
        kind: { type: ['string', 'null'], enum: ['a', 'b', null] },
      },
      required: ['name', 'tags', 'mood', 'born', 'pair', 'extra', 'kind'],
      additionalProperties: false,
    });

    const explicit = await run(`import * as llm from "svc:llm";\nexport function main() { return llm.call<{ n: number }>("${MODEL}", '#json {"n": 1}', { type: "object", properties: { n: { type: "integer" } } }).n; }\n`);
    assert.equal(explicit.error, null, JSON.stringify(explicit.error));
    const last = provider.requests[provider.requests.length - 1];
    assert.deepEqual(last.json.response_format.json_schema.schema, { type: 'object', properties: { n: { type: 'integer' } } });

    const batch = await run(`import * as llm from "svc:llm";\nexport function main() { return llm.batch<{ n: number }>("${MODEL}", ['#json {"n": 1}', '#json {"n": 2}']).map((x) => x.n); }\n`);
    assert.equal(batch.error, null, JSON.stringify(batch.error));
    assert.deepEqual(JSON.parse(batch.result), [1, 2]);
    assert.deepEqual(provider.requests[provider.requests.length - 1].json.response_format.json_schema.schema, { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false });
  });

  test('a type with no JSON shape is a compile_error at the type argument, never an empty schema', async () => {
    const before = provider.requests.length;
    const json = await run(`import * as llm from "svc:llm";\nexport function main() { return llm.call<{ f: () => void }>("${MODEL}", "hi"); }\n`);
    assertCompileError(json, /cannot derive a JSON Schema from `\(\) => void`: a function is not JSON/);
    assert.equal(json.error.diagnostics[0].column, 42);
    assert.equal(provider.requests.length, before);
  });

  test('typecheck: off keeps the old llm.call<T>: T is ignored and the Completion comes back', async () => {
    const json = await run(`import * as llm from "svc:llm";\nexport function main() { const c: any = llm.call<{ n: number }>("${MODEL}", "hello"); return c.text; }\n`, 'tc-off');
    assert.equal(json.error, null, JSON.stringify(json.error));
    assert.equal(json.result, 'echo:hello');
  });

  test('strict also refuses possibly-null values that on lets through', async () => {
    const code = `export function main() { const m = "a1".match(/\\d/); return m[0]; }\n`;
    assert.equal((await run(code)).error, null);
    assertCompileError(await run(code, 'tc-strict'), /possibly 'null'/);
  });

  test('when an MCP server\'s tools change, the declarations (and so the check) follow its new catalogue', async () => {
    const code = `import { mul } from "@mcp/calc";\nexport function main() { return mul({ a: 6, b: 7 }).product; }\n`;
    assertCompileError(await run(code), /has no exported member 'mul'/);
    calc.setTools([
      {
        name: 'mul',
        description: 'Multiplies two numbers.',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        outputSchema: { type: 'object', properties: { product: { type: 'number' } }, required: ['product'] },
        call: (args) => ({ content: [], structuredContent: { product: Number(args.a) * Number(args.b) } }),
      },
    ]);
    // A new version of the Blueprint discovers the server again (the catalogue is cached per version).
    const replaced = await server.request('PUT', '/v1/blueprints/tc', { body: { yaml: blueprintYaml('tc', calc, provider, 'idle_timeout: 23h\n') } });
    assert.equal(replaced.status, 200, replaced.text);
    const json = await run(code);
    assert.equal(json.error, null, JSON.stringify(json.error));
    assert.equal(json.result, '42');
    assertCompileError(await run(`import { add } from "@mcp/calc";\nexport function main() { return add({ a: 1, b: 2 }); }\n`), /has no exported member 'add'/);
  });

  test('an upgraded Package changes what the checker accepts', async () => {
    const code = `import { greet } from "@acme/greeter";\nexport function main() { return greet("Ada", "!", 2); }\n`;
    assertCompileError(await run(code), /Expected 2 arguments, but got 3/);
    host.addCommit('acme/greeter', ['v2'], greeter('0.2.0', 'name: string, punctuation: string, times = 1', 'return `Hello, ${name}${punctuation.repeat(times)}`;'));
    const upgraded = await server.request('POST', '/v1/packages/install', { body: { url: 'https://github.com/acme/greeter.git@v2', upgrade: true } });
    assert.equal(upgraded.status, 200, upgraded.text);
    const json = await run(code);
    assert.equal(json.error, null, JSON.stringify(json.error));
    assert.equal(json.result, 'Hello, Ada!!');
  });
});
