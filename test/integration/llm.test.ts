// svc:llm end to end: the real server calls loopback stand-ins for Anthropic, OpenAI, Google
// and an OpenAI-compatible gateway under their real host names (network.hosts + a test CA),
// which check each API's request shape and answer in its documented response shape.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { startServer, tempDir, type TestServer } from '../harness';
import { metricValue, otherToken } from '../support/tenants';
import { serverOptions } from '../support/stand-in';
import { HOSTS, promptOf, rawVector, startProvider, type Kind, type ProviderStandIn } from '../support/model-providers';

const KEYS: Record<Kind, string> = {
  anthropic: `sk-ant-${randomBytes(12).toString('hex')}`,
  openai: `sk-proj-${randomBytes(12).toString('hex')}`,
  google: `AIza${randomBytes(12).toString('hex')}`,
  compatible: `gw-${randomBytes(12).toString('hex')}`,
};
const MODEL: Record<Kind, string> = { anthropic: 'claude-haiku-4-5', openai: 'gpt-5-mini', google: 'gemini-2.5-flash', compatible: 'llama-3.3-70b' };
const RESERVE = 1000;
const DOWN_HOST = 'down.llm-provider.example';

// typecheck: off (types stripped, not checked): no program here is about types, and each of
// the four servers' first checked program would load a type checker (about 1 CPU-s each).
export function blueprintYaml(p: Record<Kind, ProviderStandIn>, options: { name?: string; downPort?: number; rules?: string } = {}): string {
  return `name: ${options.name ?? 'models'}
typecheck: off
secrets:
  ANTHROPIC_KEY: {store: anthropic_key}
  OPENAI_KEY: {store: openai_key}
  GOOGLE_KEY: {store: google_key}
  GATEWAY_KEY: {store: gateway_key}
llm:
  providers:
    claude: {type: anthropic, base_url: "${p.anthropic.origin()}", api_key: "\${secrets.ANTHROPIC_KEY}"}
    oa: {type: openai, base_url: "${p.openai.origin()}/v1", api_key: "\${secrets.OPENAI_KEY}"}
    gem: {type: google, base_url: "${p.google.origin()}/v1beta", api_key: "\${secrets.GOOGLE_KEY}"}
    gw: {type: openai-compatible, base_url: "${p.compatible.origin()}/v1", api_key: "\${secrets.GATEWAY_KEY}", supports_structured_outputs: false}
    down: {type: openai, base_url: "https://${DOWN_HOST}:${options.downPort ?? 9}/v1", api_key: "\${secrets.OPENAI_KEY}"}
  models:
    ${MODEL.anthropic}: {provider: claude, output_reserve: ${RESERVE}, description: Fast and cheap, context_window: 200000}
    ${MODEL.openai}: {provider: oa, output_reserve: ${RESERVE}}
    ${MODEL.google}: {provider: gem, output_reserve: ${RESERVE}}
    ${MODEL.compatible}: {provider: gw, output_reserve: ${RESERVE}}
    offline: {provider: down, output_reserve: ${RESERVE}}
    gpt-5-nano: {provider: oa}
    claude-sonnet-4-5: {provider: claude}
  embedding_models:
    text-embedding-3-small: {provider: oa, dimensions: 4, description: OpenAI small}
    gemini-embedding-001: {provider: gem, dimensions: 5}
    gw-embed: {provider: gw, dimensions: 3, max_input_bytes: 64, max_input_tokens: 20}
${options.rules ?? 'default: allow'}
`;
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startModelServer(p: Record<Kind, ProviderStandIn>, extra: { args?: string[]; yaml?: string; home?: string; config?: Record<string, unknown> } = {}): Promise<TestServer> {
  const options = serverOptions(...Object.values(p));
  const server = await startServer({
    ...(extra.home ? { home: extra.home } : {}),
    ...(extra.config ? { config: extra.config } : {}),
    args: [...options.args, '--add-host', `${DOWN_HOST}=127.0.0.1`, ...(extra.args ?? [])],
    env: { ...options.env, SVC_SECRET_KEY: randomBytes(32).toString('base64') },
    // Three servers start at once on a busy machine.
    timeoutMs: 90_000,
  });
  for (const [key, value] of [['anthropic_key', KEYS.anthropic], ['openai_key', KEYS.openai], ['google_key', KEYS.google], ['gateway_key', KEYS.compatible]]) {
    const put = await server.request('POST', '/v1/secrets', { body: { key, value } });
    assert.ok(put.status < 300, put.text);
  }
  const registered = await server.request('POST', '/v1/blueprints', { body: { yaml: extra.yaml ?? blueprintYaml(p, { downPort: await closedPort() }) } });
  assert.ok(registered.status < 300, registered.text);
  return server;
}

export async function startProviders(): Promise<Record<Kind, ProviderStandIn>> {
  const [anthropic, openai, google, compatible] = await Promise.all((['anthropic', 'openai', 'google', 'compatible'] as const).map(startProvider));
  return { anthropic, openai, google, compatible };
}

export async function execute(server: TestServer, code: string, blueprint = 'models', token = server.userToken): Promise<{ value: any; executionId: string; error: any; json: any }> {
  const reply = await server.request('POST', '/v1/execute', { token, body: { blueprint, code } });
  assert.equal(reply.status, 200, reply.text);
  const json = reply.json;
  return { value: json.result === null || json.result === undefined ? null : JSON.parse(json.result), executionId: json.execution_id, error: json.error, json };
}

/** Runs `body` (statements ending in `return …`) inside main with svc:llm imported as llm. */
const program = (body: string) => `import * as llm from "svc:llm";\nexport function main() {\n${body}\n}`;
const attempt = (expr: string) => `(() => { try { return { value: ${expr} }; } catch (e) { return { name: e.name, message: e.message, code: e.code }; } })()`;

function assertNoKeys(server: TestServer, extra: string[] = []): void {
  const all = server.lines().join('\n') + server.stderr();
  for (const key of [...Object.values(KEYS), ...extra]) assert.ok(!all.includes(key), 'a provider key reached the log or audit');
}

// Three servers share the stand-ins: `server` with default limits (and a second token, `other`,
// for the typed-call checks two tokens share), `runLimited` with small per-run budgets and
// concurrency, `serverLimited` with small server-wide budgets.
let p: Record<Kind, ProviderStandIn>;
let server: TestServer;
let other: string;
let runLimited: TestServer;
let serverLimited: TestServer;
// `server` and `runLimited` never run two programs at once: one runner each.
const RUN_LIMITS = ['--runner-pool-size', '1', '--max-execution-llm-tokens', '7000', '--max-llm-concurrency', '2', '--max-execution-embedding-tokens', '1000', '--max-execution-embedding-requests', '5', '--max-embedding-concurrency', '2'];
const SERVER_LIMITS = ['--max-llm-tokens', '3000', '--max-embedding-tokens', '100', '--runner-pool-size', '3'];

before(async () => {
  p = await startProviders();
  const home = tempDir();
  const second = otherToken(home);
  other = second.other;
  [server, runLimited, serverLimited] = await Promise.all([startModelServer(p, { home, config: second.config, args: ['--runner-pool-size', '1'] }), startModelServer(p, { args: RUN_LIMITS }), startModelServer(p, { args: SERVER_LIMITS })]);
});
after(async () => {
  await Promise.all([server, runLimited, serverLimited].map((s) => s?.stop()));
  await Promise.all(Object.values(p ?? {}).map((s) => s.close()));
});

describe('svc:llm', () => {

  test('anthropic: Messages API request shape and the Completion envelope', async () => {
    const { value, executionId } = await execute(server, program(`return llm.call("${MODEL.anthropic}", "Say hi");`));
    const request = p.anthropic.requests.at(-1)!;
    assert.equal(request.host, HOSTS.anthropic);
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/v1/messages');
    assert.equal(request.headers['x-api-key'], KEYS.anthropic);
    assert.equal(request.headers['anthropic-version'], '2023-06-01');
    assert.match(String(request.headers['content-type']), /application\/json/);
    assert.deepEqual(request.json, { model: MODEL.anthropic, max_tokens: RESERVE, messages: [{ role: 'user', content: 'Say hi' }] });
    assert.deepEqual(value, { ok: true, text: 'echo:Say hi', reason: null, message: null, retryable: false, status: 200, finishReason: 'end_turn', inputTokens: 12, outputTokens: 7 });
    const finished = server.audit({ type: 'execution', event: 'finished', execution_id: executionId })[0];
    assert.equal(finished.model_tokens, '19');
    assert.equal(finished.embedding_tokens, '0');
    assertNoKeys(server);
  });

  test('openai: Chat Completions request shape, Bearer key, max_completion_tokens', async () => {
    const { value } = await execute(server, program(`return llm.call("${MODEL.openai}", "Say hi");`));
    const request = p.openai.requests.at(-1)!;
    assert.equal(request.path, '/v1/chat/completions');
    assert.equal(request.headers.authorization, `Bearer ${KEYS.openai}`);
    assert.deepEqual(request.json, { model: MODEL.openai, messages: [{ role: 'user', content: 'Say hi' }], max_completion_tokens: RESERVE });
    assert.deepEqual([value.ok, value.text, value.finishReason, value.inputTokens, value.outputTokens], [true, 'echo:Say hi', 'stop', 12, 7]);
  });

  test('google: generateContent request shape and x-goog-api-key', async () => {
    const { value } = await execute(server, program(`return llm.call("${MODEL.google}", "Say hi");`));
    const request = p.google.requests.at(-1)!;
    assert.equal(request.host, HOSTS.google);
    assert.equal(request.path, `/v1beta/models/${MODEL.google}:generateContent`);
    assert.equal(request.headers['x-goog-api-key'], KEYS.google);
    assert.deepEqual(request.json, { contents: [{ role: 'user', parts: [{ text: 'Say hi' }] }], generationConfig: { maxOutputTokens: RESERVE } });
    assert.deepEqual([value.ok, value.text, value.finishReason, value.inputTokens, value.outputTokens], [true, 'echo:Say hi', 'STOP', 12, 7]);
  });

  test('openai-compatible: the base_url, Bearer key and max_tokens', async () => {
    const { value } = await execute(server, program(`return llm.call("${MODEL.compatible}", "Say hi");`));
    const request = p.compatible.requests.at(-1)!;
    assert.equal(request.host, HOSTS.compatible);
    assert.equal(request.path, '/v1/chat/completions');
    assert.equal(request.headers.authorization, `Bearer ${KEYS.compatible}`);
    assert.deepEqual(request.json, { model: MODEL.compatible, messages: [{ role: 'user', content: 'Say hi' }], max_tokens: RESERVE });
    assert.equal(value.text, 'echo:Say hi');
  });

  const person = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } }, required: ['name', 'age'], additionalProperties: false };

  test('typed calls: native structured output per provider, the fallback for supports_structured_outputs: false, parsed values', async () => {
    const answer = '{"name":"Ada","age":36}';
    const { value } = await execute(
      server,
      program(`const s = ${JSON.stringify(person)};
        return [llm.call("${MODEL.anthropic}", ${JSON.stringify(`Who? #json ${answer}`)}, s),
                llm.call("${MODEL.openai}", ${JSON.stringify(`Who? #json ${answer}`)}, JSON.stringify(s)),
                llm.call("${MODEL.google}", ${JSON.stringify(`Who? #json ${answer}`)}, s),
                llm.call("${MODEL.compatible}", ${JSON.stringify(`Who? #json ${answer}`)}, s)];`),
    );
    assert.deepEqual(value, Array(4).fill({ name: 'Ada', age: 36 }));
    assert.deepEqual(p.anthropic.requests.at(-1)!.json.output_config, { format: { type: 'json_schema', schema: person } });
    assert.deepEqual(p.openai.requests.at(-1)!.json.response_format, { type: 'json_schema', json_schema: { name: 'output', schema: person, strict: false } });
    assert.deepEqual(p.google.requests.at(-1)!.json.generationConfig, { maxOutputTokens: RESERVE, responseMimeType: 'application/json', responseJsonSchema: person });
    const fallback = p.compatible.requests.at(-1)!;
    assert.equal(fallback.json.response_format, undefined);
    assert.ok(promptOf('compatible', fallback).includes(JSON.stringify(person)), 'the fallback puts the schema in the instructions');
  });

  test('typed calls: a non-object root is wrapped as {value} where the provider needs an object root, and unwrapped', async () => {
    const list = { type: 'array', items: { type: 'string' }, minItems: 1 };
    const { value } = await execute(
      server,
      program(`return [llm.call("${MODEL.openai}", ${JSON.stringify('List #json {"value":["a","b"]}')}, ${JSON.stringify(list)}),
                       llm.call("${MODEL.google}", ${JSON.stringify('List #json ["c"]')}, ${JSON.stringify(list)})];`),
    );
    assert.deepEqual(value, [['a', 'b'], ['c']]);
    assert.deepEqual(p.openai.requests.at(-1)!.json.response_format.json_schema.schema, { type: 'object', properties: { value: list }, required: ['value'], additionalProperties: false });
    assert.deepEqual(p.google.requests.at(-1)!.json.generationConfig.responseJsonSchema, list);
  });

  test('typed calls: non-conforming or non-JSON output is a TypeError naming the JSON path; a bad schema text is a TypeError', async () => {
    const nested = { type: 'object', properties: { people: { type: 'array', items: person } }, required: ['people'] };
    const { value } = await execute(
      server,
      program(`return [
        ${attempt(`llm.call("${MODEL.openai}", ${JSON.stringify('x #json {"people":[{"name":"A","age":1},{"name":"B","age":"old"}]}')}, ${JSON.stringify(nested)})`)},
        ${attempt(`llm.call("${MODEL.anthropic}", ${JSON.stringify('x #json {"name":"A"}')}, ${JSON.stringify(person)})`)},
        ${attempt(`llm.call("${MODEL.anthropic}", ${JSON.stringify('x #json {"name":"A","age":2,"extra":true}')}, ${JSON.stringify(person)})`)},
        ${attempt(`llm.call("${MODEL.google}", ${JSON.stringify('x #json not json at all')}, ${JSON.stringify(person)})`)},
        ${attempt(`llm.call("${MODEL.openai}", "x", "{not json")`)},
      ];`),
    );
    assert.equal(value[0].name, 'TypeError');
    assert.match(value[0].message, /at \$\.people\[1\]\.age: expected integer, got string/);
    assert.match(value[1].message, /at \$\.age: required property is missing/);
    assert.match(value[2].message, /at \$\.extra: property is not allowed/);
    assert.equal(value[3].name, 'TypeError');
    assert.match(value[3].message, /is not JSON/);
    assert.equal(value[4].name, 'TypeError');
    assert.match(value[4].message, /schema text is not JSON/);
  });

  test('typed calls: a schema the validator cannot use is a TypeError before anything is sent; pattern runs on RE2', async () => {
    const before = p.openai.requests.length;
    const slow = { type: 'object', properties: { word: { type: 'string', pattern: '^(a+)+$' } }, required: ['word'] };
    const output = JSON.stringify({ word: `${'a'.repeat(50_000)}!` });
    const { value } = await execute(
      server,
      program(`return [
        ${attempt(`llm.call("${MODEL.openai}", "x", ${JSON.stringify({ $ref: 'https://schemas.example/remote.json' })})`)},
        ${attempt(`llm.call("${MODEL.openai}", ${JSON.stringify(`x #json ${output}`)}, ${JSON.stringify(slow)})`)},
      ];`),
    );
    assert.equal(value[0].name, 'TypeError');
    assert.match(value[0].message, /^llm\.call: the schema is not usable: /);
    assert.equal(p.openai.requests.length, before + 1, 'the unusable schema sent nothing; the second call was sent');
    assert.equal(value[1].name, 'TypeError');
    assert.match(value[1].message, /at \$\.word: must match pattern "\^\(a\+\)\+\$"/);
  });

  test('batch keeps prompt order, typed and untyped', async () => {
    const { value, error } = await execute(
      server,
      program(`const prompts = ["a", "b", "c", "d", "e"];
        return [llm.batch("${MODEL.google}", prompts).map((c) => c.text),
                llm.batch("${MODEL.anthropic}", ${JSON.stringify([1, 2, 3].map((n) => `#json {"value":${n}}`))}, { type: "integer" })];`),
    );
    assert.deepEqual(value, [['echo:a', 'echo:b', 'echo:c', 'echo:d', 'echo:e'], [1, 2, 3]], JSON.stringify(error));
  });

  test('failure reasons: 429, 5xx, 400, truncated, content-filtered and a dropped connection come back as Completions; a failed element never fails an untyped batch', async () => {
    const { value } = await execute(server, program(`return llm.batch("${MODEL.openai}", ["#429", "#500", "#503", "#400", "#truncate", "#filter", "#drop", "fine"]);`));
    const pick = (c: any) => [c.ok, c.reason, c.retryable, c.status];
    assert.deepEqual(value.map(pick), [
      [false, 'rate-limited', true, 429],
      [false, 'provider-unavailable', true, 500],
      [false, 'provider-unavailable', true, 503],
      [false, 'request-rejected', false, 400],
      [false, 'truncated', false, 200],
      [false, 'content-filtered', false, 200],
      [false, 'transport', true, null],
      [true, null, false, 200],
    ]);
    assert.equal(value[4].text, 'echo:#truncate');
    assert.equal(value[5].text, null);
    for (const c of value.slice(0, 7)) assert.equal(typeof c.message, 'string');
    const google = await execute(server, program(`return [llm.call("${MODEL.google}", "#truncate"), llm.call("${MODEL.google}", "#filter"), llm.call("${MODEL.anthropic}", "#filter"), llm.call("${MODEL.anthropic}", "#529 #503")];`));
    assert.deepEqual(google.value.map((c: any) => [c.reason, c.finishReason]), [['truncated', 'MAX_TOKENS'], ['content-filtered', 'SAFETY'], ['content-filtered', 'refusal'], ['provider-unavailable', null]]);
  });

  test('a typed call whose provider call failed throws an Error naming the reason', async () => {
    const { value } = await execute(server, program(`return ${attempt(`llm.call("${MODEL.anthropic}", "#429", { type: "string" })`)};`));
    assert.equal(value.name, 'Error');
    assert.equal(value.code, 'rate-limited');
    assert.match(value.message, /rate-limited/);
  });

  test('401 is a configuration error telling the operator which secret to check; nothing is billed', async () => {
    const { value, executionId } = await execute(server, program(`return ${attempt(`llm.call("${MODEL.anthropic}", "#401")`)};`));
    assert.equal(value.name, 'Error');
    assert.match(value.message, /provider 'claude' rejected the credential \(HTTP 401\); the operator should check the secret 'ANTHROPIC_KEY'/);
    assert.equal(server.audit({ type: 'execution', event: 'finished', execution_id: executionId })[0].model_tokens, '0');
    assertNoKeys(server);
  });

  test('Gemini\'s 400 API_KEY_INVALID is a credential error too', async () => {
    const { value } = await execute(server, program(`return ${attempt(`llm.call("${MODEL.google}", "#badkey")`)};`));
    assert.match(value.message, /provider 'gem' rejected the credential \(HTTP 400\); the operator should check the secret 'GOOGLE_KEY'/);
  });

  test('without a declared output_reserve: Anthropic gets max_tokens 64000, OpenAI no output limit', async () => {
    await execute(server, program(`return [llm.call("claude-sonnet-4-5", "hi").ok, llm.call("gpt-5-nano", "hi").ok];`));
    assert.equal(p.anthropic.requests.at(-1)!.json.max_tokens, 64000);
    assert.deepEqual(p.openai.requests.at(-1)!.json, { model: 'gpt-5-nano', messages: [{ role: 'user', content: 'hi' }] });
  });

  test('a refused connection throws an Error saying nothing was sent and no tokens were billed', async () => {
    const { value, executionId } = await execute(server, program(`return ${attempt(`llm.call("offline", "hello")`)};`));
    assert.equal(value.name, 'Error');
    assert.match(value.message, /provider 'down' could not be reached \(the connection was refused\); the request was not sent and no tokens were billed/);
    assert.equal(server.audit({ type: 'execution', event: 'finished', execution_id: executionId })[0].model_tokens, '0');
  });

  test('bounds are checked before anything is sent: 129 prompts or a prompt over 262,144 bytes is a RangeError', async () => {
    const before = p.openai.requests.length;
    const { value } = await execute(
      server,
      program(`return [${attempt(`llm.batch("${MODEL.openai}", Array.from({ length: 129 }, () => "x"))`)}, ${attempt(`llm.call("${MODEL.openai}", "é".repeat(131073))`)}];`),
    );
    assert.deepEqual(value.map((v: any) => v.name), ['RangeError', 'RangeError']);
    assert.match(value[0].message, /129 prompts; at most 128/);
    assert.match(value[1].message, /262146 UTF-8 bytes; the limit is 262144/);
    assert.equal(p.openai.requests.length, before);
  });

  test('models() lists declared models with description and context window; an unknown model lists the usable ones', async () => {
    const { value } = await execute(server, program(`return [llm.models(), ${attempt('llm.call("gpt-0", "x")')}];`));
    assert.deepEqual(value[0][0], { name: MODEL.anthropic, description: 'Fast and cheap', contextWindow: 200000 });
    assert.deepEqual(value[0].map((m: any) => m.name), [MODEL.anthropic, MODEL.openai, MODEL.google, MODEL.compatible, 'offline', 'gpt-5-nano', 'claude-sonnet-4-5']);
    assert.deepEqual(value[0][1], { name: MODEL.openai, description: null, contextWindow: null });
    assert.match(value[1].message, /unknown model 'gpt-0'; models this program may use: claude-haiku-4-5, gpt-5-mini/);
  });

  test('unknown usage bills the full reservation; /v1/status reports tokens against the server budgets', async () => {
    const { value, executionId } = await execute(server, program(`return llm.call("${MODEL.openai}", "abcdef #nousage");`));
    assert.deepEqual([value.ok, value.inputTokens, value.outputTokens], [true, null, null]);
    // "abcdef #nousage" is 15 bytes: 5 estimated input tokens plus the 1000 reserved for output.
    assert.equal(server.audit({ type: 'execution', event: 'finished', execution_id: executionId })[0].model_tokens, String(5 + RESERVE));
    const status = await server.request('GET', '/v1/status');
    assert.equal(status.json.token_budgets.model_tokens.budget, 20_000_000);
    assert.ok(status.json.token_budgets.model_tokens.spent >= 5 + RESERVE);
    assert.equal(status.json.token_budgets.model_tokens.reserved, 0);
    assert.equal(status.json.token_budgets.embedding_tokens.budget, 50_000_000);
  });
});

describe('discovery of svc:llm and svc:embedding', () => {
  const get = (route: string) => server.request('GET', route, { token: server.userToken });
  test('the prompt names both modules and their models; docs answer their declarations; search finds them', async () => {
    const prompt: string = (await get('/v1/blueprints/models/prompt')).json.prompt;
    for (const present of ['`svc:llm`', '`svc:embedding`', `\`${MODEL.anthropic}\``, '`gw-embed`', 'retryable']) assert.ok(prompt.includes(present), present);
    for (const [m, names] of [['llm', ['function call', 'function batch', 'function models', 'interface Completion', 'retryable']], ['embedding', ['function embed', 'function models', 'bytes(index: number): Uint8Array', 'identity']]] as const) {
      const docs = (await get(`/v1/blueprints/models/packages/docs?name=svc:${m}`)).json;
      assert.equal(docs.source, 'host');
      assert.ok(docs.declarations.startsWith(`declare module "svc:${m}"`));
      for (const name of names) assert.ok(docs.declarations.includes(name), name);
    }
    const search = (await get('/v1/blueprints/models/packages/search?q=embeddings')).json.results.map((r: { name: string }) => r.name);
    assert.ok(search.includes('svc:embedding'));
  });
});

describe('svc:llm policy, budgets and concurrency', () => {
  test('llm.call is checked with {op, model, prompt_count}; models() omits denied models; a denial sends nothing', async () => {
    const rules = `default: deny
permissions:
  main:
    - capability: llm.call
      filter: model == "${MODEL.anthropic}" and prompt_count <= 2
      action: allow
    - capability: embedding.embed
      filter: model == "gw-embed"
      action: allow`;
    const registered = await server.request('POST', '/v1/blueprints', { body: { yaml: blueprintYaml(p, { name: 'guarded', rules }) } });
    assert.ok(registered.status < 300, registered.text);
    const before = p.openai.requests.length + p.anthropic.requests.length;
    const { value, executionId } = await execute(
      server,
      `import * as embedding from "svc:embedding";\n` +
        program(`return [llm.models().map((m) => m.name), ${attempt(`llm.call("${MODEL.openai}", "x")`)}, ${attempt(`llm.batch("${MODEL.anthropic}", ["a", "b", "c"])`)}, llm.batch("${MODEL.anthropic}", ["a", "b"]).length, embedding.models().map((m) => m.name), ${attempt('embedding.embed("text-embedding-3-small", ["x"], "query")')}];`),
      'guarded',
    );
    assert.deepEqual(value[0], [MODEL.anthropic]);
    assert.equal(value[1].name, 'PermissionDeniedError');
    assert.equal(value[2].name, 'PermissionDeniedError');
    assert.equal(value[3], 2);
    assert.deepEqual(value[4], ['gw-embed']);
    assert.equal(value[5].name, 'PermissionDeniedError');
    assert.equal(p.openai.requests.length + p.anthropic.requests.length, before + 2);
    const denials = server.audit({ type: 'decision', execution_id: executionId, decision: 'deny' });
    assert.deepEqual(denials.map((d) => [d.capability, d['context.op'], d['context.model'], d['context.prompt_count'], d.source]), [
      ['llm.call', 'call', MODEL.openai, '1', 'policy'],
      ['llm.call', 'batch', MODEL.anthropic, '3', 'policy'],
      ['embedding.embed', undefined, 'text-embedding-3-small', undefined, 'policy'],
    ]);
    assert.ok(!server.lines().some((l) => l.includes('context.prompt=')), 'prompt text never reaches a decision record');
  });

  test('per-run budget: a reservation that does not fit throws QuotaExceededError with a quota record, and nothing is sent', async () => {
    const before = p.anthropic.requests.length;
    const { value, executionId } = await execute(
      runLimited,
      program(`const first = llm.call("${MODEL.anthropic}", "one #usage=2500");
        const second = ${attempt(`llm.call("${MODEL.anthropic}", "two")`)};
        const third = ${attempt(`llm.batch("${MODEL.anthropic}", ["a", "b", "c"])`)};
        return [first.ok, second, third];`),
    );
    // 5000 spent by the first call; the second reserves 1001 and fits; the batch needs 3003.
    assert.equal(value[0], true);
    assert.deepEqual(value[1].value?.ok, true);
    assert.equal(value[2].name, 'QuotaExceededError');
    assert.match(value[2].message, /max_execution_llm_tokens \(this run\) has 1981 of 7000 tokens left; this call reserves 3003/);
    assert.equal(p.anthropic.requests.length, before + 2);
    const quota = runLimited.audit({ type: 'decision', execution_id: executionId, source: 'quota' });
    assert.equal(quota.length, 1);
    assert.deepEqual([quota[0].capability, quota[0].decision, quota[0]['context.op'], quota[0]['context.prompt_count']], ['llm.call', 'deny', 'batch', '3']);
    assert.equal(runLimited.audit({ type: 'execution', event: 'finished', execution_id: executionId })[0].model_tokens, '5019');
    // A new run has its own budget.
    assert.equal((await execute(runLimited, program(`return llm.call("${MODEL.anthropic}", "again").ok;`))).value, true);
  });

  test('a batch keeps at most max_llm_concurrency prompts in flight', async () => {
    p.compatible.holdPolicy(2, 6);
    p.compatible.maxInFlight = 0;
    try {
      const { value } = await execute(runLimited, program(`return llm.batch("${MODEL.compatible}", ["#hold 1", "#hold 2", "#hold 3", "#hold 4", "#hold 5", "#hold 6"]).map((c) => c.text);`));
      assert.deepEqual(value, [1, 2, 3, 4, 5, 6].map((n) => `echo:#hold ${n}`));
      assert.equal(p.compatible.maxInFlight, 2);
    } finally {
      p.compatible.holdPolicy(Infinity, Infinity);
    }
  });

  test('server budget reservations are atomic across concurrent runs', async () => {
    // Each run reserves 1002 tokens and its request is held: with 3000 only two reservations fit.
    p.openai.holdPolicy(Infinity, Infinity);
    const before = p.openai.requests.length;
    try {
      const runs = [0, 1, 2].map(() => execute(serverLimited, program(`return ${attempt(`llm.call("${MODEL.openai}", "#hold")`)};`)));
      // Two requests are held until released, so the first run to finish is the refused one.
      const first = await Promise.race(runs);
      assert.equal(first.value.name, 'QuotaExceededError');
      assert.match(first.value.message, /max_llm_tokens \(the server\) has 996 of 3000 tokens left; this call reserves 1002/);
      // The refused run may finish before the second held request has arrived.
      await p.openai.received(before + 2);
      p.openai.release();
      const results = await Promise.all(runs);
      assert.deepEqual(results.map((r) => r.value.name ?? 'ok').sort(), ['QuotaExceededError', 'ok', 'ok']);
    } finally {
      p.openai.release();
    }
  });

  test('server budget: spending adds up across runs and a call past max_llm_tokens is refused', async () => {
    // Earlier runs on this server (the previous test's) spent some: count from what is spent now.
    const spent = (await serverLimited.request('GET', '/v1/status')).json.token_budgets.model_tokens.spent as number;
    const first = await execute(serverLimited, program(`return llm.call("${MODEL.google}", "big #usage=1000").ok;`));
    assert.equal(first.value, true);
    assert.equal(serverLimited.audit({ type: 'execution', event: 'finished', execution_id: first.executionId })[0].model_tokens, '2000');
    const second = await execute(serverLimited, program(`return ${attempt(`llm.call("${MODEL.google}", "more")`)};`));
    assert.equal(second.value.name, 'QuotaExceededError');
    assert.match(second.value.message, new RegExp(`max_llm_tokens \\(the server\\) has ${3000 - spent - 2000} of 3000 tokens left`));
    assert.equal(serverLimited.audit({ type: 'decision', execution_id: second.executionId, source: 'quota' }).length, 1);
    const status = await serverLimited.request('GET', '/v1/status');
    assert.deepEqual(status.json.token_budgets.model_tokens, { spent: spent + 2000, reserved: 0, budget: 3000 });
  });
});

describe('model budgets per token', () => {
  // A fourth server: `max_llm_tokens_per_token` of 3000 and a second token.
  let tokenLimited: TestServer;
  let other: string;
  before(async () => {
    const home = tempDir();
    const second = otherToken(home);
    other = second.other;
    tokenLimited = await startModelServer(p, { home, config: second.config, args: ['--max-llm-tokens-per-token', '3000', '--runner-pool-size', '1'] });
  });
  after(async () => tokenLimited?.stop());

  test("one token spending its budget refuses only its own calls, naming the quota, its setting and what is left; another token's calls still answer", async () => {
    const spend = await execute(tokenLimited, program(`return llm.call("${MODEL.anthropic}", "spend #usage=1000").ok;`));
    assert.equal(spend.value, true);
    const before = p.anthropic.requests.length;
    const refused = await execute(tokenLimited, program(`return ${attempt(`llm.call("${MODEL.anthropic}", "more")`)};`));
    assert.equal(refused.value.name, 'QuotaExceededError');
    assert.match(refused.value.message, /max_llm_tokens_per_token \(this token\) has 1000 of 3000 tokens left; this call reserves 1002/);
    assert.equal(p.anthropic.requests.length, before, 'nothing was sent');
    assert.equal(await metricValue(tokenLimited, 'svc_token_quota_use{token="harness",quota="max_llm_tokens_per_token"}'), 2000);

    const theirs = await execute(tokenLimited, program(`return [llm.call("${MODEL.anthropic}", "hello").text];`), 'models', other);
    assert.deepEqual(theirs.value, ['echo:hello']);
    assert.equal(await metricValue(tokenLimited, 'svc_token_quota_use{token="harness",quota="max_llm_tokens_per_token"}'), 2000, "the other token's call is not the first token's");
  });

  test('a call that gets no answer (dropped connection) is billed only what the provider reported: nothing', async () => {
    const status = async () => (await tokenLimited.request('GET', '/v1/status')).json.token_budgets.model_tokens;
    const before = await status();
    const { value, executionId } = await execute(tokenLimited, program(`return llm.call("${MODEL.openai}", "#drop");`), 'models', other);
    assert.deepEqual([value.ok, value.reason], [false, 'transport']);
    assert.equal(tokenLimited.audit({ type: 'execution', event: 'finished', execution_id: executionId })[0].model_tokens, '0');
    assert.deepEqual(await status(), { ...before, reserved: 0 });
  });
});

describe('typed-call checks shared by two tokens', () => {
  // `server` with its second token: both tokens' schemas compile and their outputs are
  // checked in the same host workers, with the same compiled-schema cache.
  const person = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } }, required: ['name', 'age'], additionalProperties: false };

  test("one token's unusable and backtracking schemas, checked at the same moment, leave another token's typed call its checked value", async () => {
    // Both held requests are answered once both have arrived: the two checks run together.
    p.openai.holdPolicy(Infinity, 2);
    try {
      const slow = { type: 'object', properties: { word: { type: 'string', pattern: '^(a+)+$' } }, required: ['word'] };
      const attackOutput = JSON.stringify({ word: `${'a'.repeat(50_000)}!` });
      const attack = execute(
        server,
        program(`return [
          ${attempt(`llm.call("${MODEL.openai}", "x", ${JSON.stringify({ $ref: '#/nowhere' })})`)},
          ${attempt(`llm.call("${MODEL.openai}", ${JSON.stringify(`#hold #json ${attackOutput}`)}, ${JSON.stringify(slow)})`)},
        ];`),
      );
      const victim = execute(server, program(`return llm.call("${MODEL.openai}", ${JSON.stringify('#hold #json {"name":"B","age":7}')}, ${JSON.stringify(person)});`), 'models', other);
      const [attacked, theirs] = await Promise.all([attack, victim]);
      assert.deepEqual(theirs.value, { name: 'B', age: 7 }, JSON.stringify(theirs.error));
      assert.match(attacked.value[0].message, /the schema is not usable/);
      assert.match(attacked.value[1].message, /at \$\.word: must match pattern/);
    } finally {
      p.openai.holdPolicy(Infinity, Infinity);
      p.openai.release();
    }
  });

  test("one token's flood of distinct schemas under one $id leaves another token's schema with that $id its own checks", async () => {
    const id = 'https://schemas.example/person';
    // Distinct texts, so each compiles on whichever host worker takes it: both workers see the $id.
    const flood = Array.from({ length: 40 }, (_, i) => ({ $id: id, type: 'object', description: `flood ${i}`, properties: { name: { type: 'integer' } } }));
    const attack = await execute(server, program(`return ${JSON.stringify(flood)}.map((schema) => ${attempt(`llm.call("${MODEL.openai}", ${JSON.stringify('x #json {"name":1}')}, schema)`)}.value?.name);`));
    assert.deepEqual(attack.value, flood.map(() => 1), JSON.stringify(attack.error));
    const theirs = { ...person, $id: id };
    const victim = await execute(
      server,
      program(`return [
        llm.call("${MODEL.openai}", ${JSON.stringify('#json {"name":"B","age":7}')}, ${JSON.stringify(theirs)}),
        ${attempt(`llm.call("${MODEL.openai}", ${JSON.stringify('#json {"name":2,"age":7}')}, ${JSON.stringify(theirs)})`)}.message,
      ];`),
      'models',
      other,
    );
    assert.deepEqual(victim.value?.[0], { name: 'B', age: 7 }, JSON.stringify(victim.error));
    assert.match(victim.value[1], /at \$\.name: expected string, got number/);
  });
});

const embedProgram = (body: string) => `import * as embedding from "svc:embedding";\nexport function main() {\n${body}\n}`;

describe('svc:embedding', () => {
  test('openai: Embeddings request shape; unit vectors in input order; bytes(i) as little-endian float32; tokens in the audit', async () => {
    const texts = ['alpha', 'beta', 'gamma'];
    const { value, executionId } = await execute(
      server,
      embedProgram(`const e = embedding.embed("text-embedding-3-small", ${JSON.stringify(texts)}, "document");
        const bytes = e.bytes(1);
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        const decoded = Array.from({ length: e.dimensions }, (_, i) => view.getFloat32(i * 4, true));
        return { model: e.model, identity: e.identity, count: e.count, dimensions: e.dimensions, inputTokens: e.inputTokens,
          vectors: [0, 1, 2].map((i) => e.vector(i)), byteLength: bytes.length, decoded, vector1: e.vector(1).map(Math.fround),
          badIndex: ${attempt('e.vector(3)')}, badBytes: ${attempt('e.bytes(-1)')} };`),
    );
    const request = p.openai.requests.at(-1)!;
    assert.equal(request.path, '/v1/embeddings');
    assert.equal(request.headers.authorization, `Bearer ${KEYS.openai}`);
    assert.deepEqual(request.json, { model: 'text-embedding-3-small', input: texts, encoding_format: 'float', dimensions: 4 });
    assert.deepEqual([value.model, value.identity, value.count, value.dimensions, value.inputTokens], ['text-embedding-3-small', 'openai/text-embedding-3-small/4', 3, 4, 12]);
    texts.forEach((text, i) => {
      const raw = rawVector(text, 4);
      const norm = Math.hypot(...raw);
      value.vectors[i].forEach((x: number, j: number) => assert.ok(Math.abs(x - raw[j] / norm) < 1e-12, `vector ${i} is texts[${i}] scaled to unit length`));
      assert.ok(Math.abs(Math.hypot(...value.vectors[i]) - 1) < 1e-12);
    });
    assert.equal(value.byteLength, 16);
    assert.deepEqual(value.decoded, value.vector1);
    assert.equal(value.badIndex.name, 'RangeError');
    assert.equal(value.badBytes.name, 'RangeError');
    assert.equal(server.audit({ type: 'execution', event: 'finished', execution_id: executionId })[0].embedding_tokens, '12');
    assertNoKeys(server);
  });

  test('google: batchEmbedContents with taskType per purpose and outputDimensionality; unknown usage bills the estimate', async () => {
    const { value, executionId } = await execute(
      server,
      embedProgram(`const q = embedding.embed("gemini-embedding-001", ["find me"], "query");
        const d = embedding.embed("gemini-embedding-001", ["doc one", "doc two"], "document");
        return [q.identity, q.count, q.dimensions, q.inputTokens === undefined, d.count, d.vector(1).length];`),
    );
    assert.deepEqual(value, ['google/gemini-embedding-001/5', 1, 5, true, 2, 5]);
    const [query, documents] = p.google.requests.slice(-2);
    assert.equal(query.path, '/v1beta/models/gemini-embedding-001:batchEmbedContents');
    assert.equal(query.headers['x-goog-api-key'], KEYS.google);
    assert.deepEqual(query.json, { requests: [{ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'find me' }] }, taskType: 'RETRIEVAL_QUERY', outputDimensionality: 5 }] });
    assert.deepEqual(documents.json.requests.map((r: any) => r.taskType), ['RETRIEVAL_DOCUMENT', 'RETRIEVAL_DOCUMENT']);
    // No usage reported: the estimates (7 bytes → 3, 7 → 3, 7 → 3) are billed.
    assert.equal(server.audit({ type: 'execution', event: 'finished', execution_id: executionId })[0].embedding_tokens, '9');
  });

  test('openai-compatible: no dimensions field; max_input_bytes and the other bounds are RangeErrors naming the index, before anything is sent', async () => {
    const { value } = await execute(server, embedProgram(`return embedding.embed("gw-embed", ["one"], "query").dimensions;`));
    assert.equal(value, 3);
    assert.deepEqual(p.compatible.requests.at(-1)!.json, { model: 'gw-embed', input: ['one'], encoding_format: 'float' });
    const before = p.compatible.requests.length + p.openai.requests.length;
    const bounds = await execute(
      server,
      embedProgram(`return [
        ${attempt('embedding.embed("gw-embed", ["ok", "x".repeat(65)], "query")')},
        ${attempt('embedding.embed("gw-embed", [], "query")')},
        ${attempt('embedding.embed("gw-embed", Array.from({ length: 129 }, () => "x"), "query")')},
        ${attempt('embedding.embed("text-embedding-3-small", Array.from({ length: 70 }, () => "y".repeat(32768)), "query")')},
        ${attempt('embedding.embed("gw-embed", ["x"], "sideways" as any)')},
        ${attempt('embedding.embed("nope", ["x"], "query")')},
      ];`),
    );
    const v = bounds.value;
    assert.deepEqual(v.slice(0, 4).map((e: any) => e.name), ['RangeError', 'RangeError', 'RangeError', 'RangeError']);
    assert.match(v[0].message, /texts\[1\] is 65 UTF-8 bytes; this model takes at most 64/);
    assert.match(v[1].message, /texts is empty/);
    assert.match(v[2].message, /129 texts; at most 128/);
    assert.match(v[3].message, /2097152 UTF-8 bytes in total at texts\[64\]/);
    assert.equal(v[4].name, 'TypeError');
    assert.match(v[5].message, /unknown embedding model 'nope'; models this program may use: text-embedding-3-small, gemini-embedding-001, gw-embed/);
    assert.equal(p.compatible.requests.length + p.openai.requests.length, before);
  });

  test('models() lists dimensions, input bounds and identity', async () => {
    const { value } = await execute(server, embedProgram(`return embedding.models().map((m) => [m.name, m.description ?? "none", m.dimensions, m.maxInputTokens ?? "none", m.maxInputBytes, m.identity]);`));
    assert.deepEqual(value, [
      ['text-embedding-3-small', 'OpenAI small', 4, 'none', 32768, 'openai/text-embedding-3-small/4'],
      ['gemini-embedding-001', 'none', 5, 'none', 32768, 'google/gemini-embedding-001/5'],
      ['gw-embed', 'none', 3, 20, 64, 'openai-compatible/gw-embed/3'],
    ]);
  });

  test('provider failures throw with a fixed reason; 401 names the secret; a bad answer is a TypeError; all or nothing', async () => {
    const { value } = await execute(
      server,
      embedProgram(`return [
        ${attempt('embedding.embed("text-embedding-3-small", ["a", "#429"], "query")')},
        ${attempt('embedding.embed("gemini-embedding-001", ["#503"], "query")')},
        ${attempt('embedding.embed("gw-embed", ["#drop"], "query")')},
        ${attempt('embedding.embed("text-embedding-3-small", ["#401"], "query")')},
        ${attempt('embedding.embed("text-embedding-3-small", ["#wrongdims"], "query")')},
      ];`),
    );
    assert.deepEqual(value.map((e: any) => [e.name, e.code]), [
      ['Error', 'rate-limited'],
      ['Error', 'provider-unavailable'],
      ['Error', 'transport'],
      ['Error', undefined],
      ['TypeError', undefined],
    ]);
    assert.match(value[3].message, /provider 'oa' rejected the credential \(HTTP 401\); the operator should check the secret 'OPENAI_KEY'/);
    assert.match(value[4].message, /unusable embeddings/);
    assertNoKeys(server);
  });

  test('texts go out in chunks of 32 with at most max_embedding_concurrency requests in flight; the request ceiling is a quota refusal', async () => {
    p.openai.holdPolicy(2, 4);
    p.openai.maxInFlight = 0;
    const before = p.openai.requests.length;
    try {
      const { value, executionId } = await execute(
        runLimited,
        embedProgram(`const e = embedding.embed("text-embedding-3-small", Array.from({ length: 128 }, (_, i) => "#hold " + i), "document");
          return [e.count, e.vector(127).length, ${attempt('embedding.embed("text-embedding-3-small", Array.from({ length: 64 }, (_, i) => "t" + i), "query")')}];`),
      );
      assert.equal(value[0], 128);
      assert.equal(value[1], 4);
      assert.equal(p.openai.requests.length, before + 4);
      assert.deepEqual(p.openai.requests.slice(before).map((r) => r.json.input.length), [32, 32, 32, 32]);
      assert.equal(p.openai.maxInFlight, 2);
      assert.equal(value[2].name, 'QuotaExceededError');
      assert.match(value[2].message, /needs 2 provider request\(s\) and the run has 1 of max_execution_embedding_requests \(5\) left/);
      const quota = runLimited.audit({ type: 'decision', execution_id: executionId, source: 'quota' });
      assert.deepEqual(quota.map((q) => [q.capability, q['context.model']]), [['embedding.embed', 'text-embedding-3-small']]);
    } finally {
      p.openai.holdPolicy(Infinity, Infinity);
    }
  });

  test('embedding budgets: per run and server-wide, each a QuotaExceededError with a quota record', async () => {
    const big = await execute(runLimited, embedProgram(`return ${attempt('embedding.embed("text-embedding-3-small", ["w".repeat(3003)], "query")')};`));
    assert.equal(big.value.name, 'QuotaExceededError');
    assert.match(big.value.message, /max_execution_embedding_tokens \(this run\) has 1000 of 1000 tokens left; this call reserves 1001/);
    assert.equal(runLimited.audit({ type: 'decision', execution_id: big.executionId, source: 'quota' }).length, 1);

    const spend = await execute(serverLimited, embedProgram(`return embedding.embed("text-embedding-3-small", ["#usage=90"], "query").inputTokens;`));
    assert.equal(spend.value, 90);
    const refused = await execute(serverLimited, embedProgram(`return ${attempt('embedding.embed("text-embedding-3-small", ["x".repeat(60)], "query")')};`));
    assert.equal(refused.value.name, 'QuotaExceededError');
    assert.match(refused.value.message, /max_embedding_tokens \(the server\) has 10 of 100 tokens left; this call reserves 20/);
    assert.equal(serverLimited.audit({ type: 'decision', execution_id: refused.executionId, source: 'quota', capability: 'embedding.embed' }).length, 1);
    const status = await serverLimited.request('GET', '/v1/status');
    assert.deepEqual(status.json.token_budgets.embedding_tokens, { spent: 90, reserved: 0, budget: 100 });
  });
});
