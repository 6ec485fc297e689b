// Discovery against the real server: the prompt names exactly what each Blueprint allows
// (and stays under the token budget), package search and docs, built-ins list and docs.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { startServer, tempDir, type TestServer } from '../harness';

const NOTHING = 'name: nothing\nvfs: none\n';
const FILES_AND_HTTP = `name: web-files
vfs: {mode: per_session, size_limit: 1MB, cwd: /work}
permissions:
  main:
    - {capability: fs.read, action: allow}
    - {capability: fs.write, action: allow}
    - {capability: http.get, filter: 'host == "api.example.com"', action: allow}
    - {capability: http.post, filter: 'host == "api.example.com"', action: allow}
    - {capability: http.download, filter: 'host == "cdn.example.com"', action: allow}
`;
const EVERYTHING = `name: everything
default: allow
vfs: {mode: ephemeral, size_limit: 10MB}
variables: {who: {default: agent}}
git: {identity: {name: "\${vars.who}", email: a@example.com}}
mcp: {linear: {url: "https://mcp.linear.app/mcp"}}
`;

describe('discovery', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ args: ['--runner-pool-size', '1'] });
    for (const yaml of [NOTHING, FILES_AND_HTTP, EVERYTHING]) {
      const reply = await server.request('POST', '/v1/blueprints', { body: { yaml } });
      assert.equal(reply.status, 200, reply.text);
    }
  });
  after(async () => server.stop());

  const get = (route: string) => server.request('GET', route, { token: server.userToken });

  test('the prompt of a Blueprint that allows nothing lists only the pure modules and no network or files', async () => {
    const reply = await get('/v1/blueprints/nothing/prompt');
    assert.equal(reply.json.name, 'nothing');
    const prompt: string = reply.json.prompt;
    assert.match(prompt, /Modules: `svc:url`, `svc:crypto`, `svc:uuid`\./);
    for (const absent of ['svc:fs', 'svc:http', 'svc:git', 'Network', 'Sandbox:', '@mcp/']) assert.ok(!prompt.includes(absent), absent);
    assert.deepEqual(Object.keys(reply.json.tools).sort(), ['builtins', 'builtins_docs', 'builtins_list', 'docs', 'last_run', 'search']);
  });

  test('files and HTTP: the file area, the hosts per method and the credential guidance', async () => {
    const prompt: string = (await get('/v1/blueprints/web-files/prompt')).json.prompt;
    assert.match(prompt, /`svc:code`, `svc:fs`, `svc:http`/);
    assert.match(prompt, /kept across runs of this session \(limit: 1048576 bytes\); working directory \/work/);
    assert.match(prompt, /GET, POST → api\.example\.com/);
    assert.match(prompt, /download → cdn\.example\.com/);
    assert.match(prompt, /Authorization/);
    assert.ok(!prompt.includes('svc:git') && !prompt.includes('svc:session'));
  });

  test('everything enabled: git, MCP, session guidance, and under 1,500 tokens (characters / 4)', async () => {
    const prompt: string = (await get('/v1/blueprints/everything/prompt')).json.prompt;
    for (const present of ['svc:git', '@mcp/', 'svc:session', 'allowed unless a rule denies', 'fresh for each run']) assert.ok(prompt.includes(present), present);
    assert.ok(prompt.length / 4 < 1500, `about ${Math.round(prompt.length / 4)} tokens`);
  });

  test('search by name, description word and exported symbol; no hit returns the catalogue and a built-ins pointer', async () => {
    const byName = (await get('/v1/blueprints/web-files/packages/search?q=fs')).json.results.map((r: { name: string }) => r.name);
    assert.ok(byName.includes('svc:fs'));
    assert.deepEqual((await get('/v1/blueprints/web-files/packages/search?q=UUIDs')).json.results, [{ name: 'svc:uuid', description: 'Generate and validate UUIDs (v4, v7)', source: 'host' }]);
    assert.ok((await get('/v1/blueprints/web-files/packages/search?q=readText')).json.results.some((r: { name: string }) => r.name === 'svc:fs'));
    const none = (await get('/v1/blueprints/nothing/packages/search?q=zebra')).json;
    assert.deepEqual(none.results, []);
    assert.ok(none.available_packages.length === 3);
    assert.match(none.builtins, /builtins/);
    assert.equal((await get('/v1/blueprints/nothing/packages/search?q=fs')).json.results.length, 0, 'hidden modules are not found');
  });

  test('docs: module declarations compile as a .d.ts; unknown names get a suggestion; built-ins answer as builtin', async () => {
    const fsDocs = (await get('/v1/blueprints/web-files/packages/docs?name=svc:fs')).json;
    assert.equal(fsDocs.source, 'host');
    const dir = tempDir('svc-dts-');
    const modules = ['fs', 'code', 'http', 'url', 'crypto', 'uuid', 'session', 'git'];
    for (const m of modules) {
      const docs = (await get(`/v1/blueprints/everything/packages/docs?name=${m}`)).json;
      fs.writeFileSync(path.join(dir, `${m}.d.ts`), docs.declarations);
    }
    const typo = await get('/v1/blueprints/web-files/packages/docs?name=svc:fss');
    assert.equal(typo.status, 404);
    assert.equal(typo.json.error, 'unknown_package');
    assert.equal(typo.json.did_you_mean, 'svc:fs');
    const nothingLike = await get('/v1/blueprints/web-files/packages/docs?name=qqqqqqqqqqqqq');
    assert.equal(nothingLike.json.did_you_mean, undefined);
    assert.equal((await get('/v1/blueprints/everything/packages/docs?name=@mcp/nope')).json.error, 'unknown_mcp_server');
    const builtin = (await get('/v1/blueprints/nothing/packages/docs?name=Math.max')).json;
    assert.equal(builtin.source, 'builtin');
    assert.equal((await get('/v1/blueprints/nothing/packages/docs')).status, 400);
    // Compiled last: the compile blocks this process for seconds under load, and the
    // server may close an idle keep-alive connection meanwhile; the yield afterwards lets
    // the client see that close before the next test sends a request.
    const program = ts.createProgram(modules.map((m) => path.join(dir, `${m}.d.ts`)), { noEmit: true, strict: true, lib: ['lib.es2022.d.ts'], types: [] });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(problems, []);
  });

  test('built-ins list is what the isolate really has; docs for Math.max, Temporal.Instant, an unknown name and a package name', async () => {
    const list = (await get('/v1/blueprints/nothing/builtins')).json;
    const inScope = await server.request('POST', '/v1/execute', {
      token: server.userToken,
      body: { blueprint: 'nothing', code: `export function main() { const g = globalThis as any; return ${JSON.stringify([...list.namespaces, ...list.types.filter((t: string) => !/^(Awaited|Exclude|Extract|NonNullable|Omit|Parameters|Partial|Pick|Readonly|Record|Required|ReturnType)$/.test(t))])}.filter((n) => typeof g[n] === "undefined" && !(n === "Temporal" && typeof Temporal !== "undefined")); }` },
    });
    assert.equal(inScope.json.result, '[]', inScope.text);
    const docs = (await get('/v1/blueprints/nothing/builtins/docs?name=Math.max&name=Temporal.Instant&name=Zorp&name=svc:fs&name=Maap')).json.results;
    assert.deepEqual(docs.map((d: { name: string }) => d.name), ['Math.max', 'Temporal.Instant', 'Zorp', 'svc:fs', 'Maap']);
    assert.match(docs[0].declarations, /max\(\.\.\.values: number\[\]\): number/);
    assert.match(docs[1].declarations, /epochMilliseconds/);
    assert.equal(docs[2].error, 'unknown_builtin');
    assert.equal(docs[3].error, 'not_a_builtin');
    assert.equal(docs[4].did_you_mean, 'Map');
  });

  test('the web platform globals are listed and documented: fetch, timers, queueMicrotask, crypto.subtle', async () => {
    const list = (await get('/v1/blueprints/nothing/builtins')).json;
    for (const name of ['fetch', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask']) assert.ok(list.functions.includes(name), name);
    const inScope = await server.request('POST', '/v1/execute', {
      token: server.userToken,
      body: { blueprint: 'nothing', code: `export function main() { const g = globalThis as any; return ${JSON.stringify(list.functions)}.filter((n) => typeof g[n] !== "function"); }` },
    });
    assert.equal(inScope.json.result, '[]', inScope.text);
    const docs = (await get('/v1/blueprints/nothing/builtins/docs?name=fetch&name=setTimeout&name=queueMicrotask&name=crypto.subtle&name=crypto.subtle.digest')).json.results;
    assert.match(docs[0].declarations, /function fetch\(/);
    assert.match(docs[1].declarations, /function setTimeout/);
    assert.match(docs[2].declarations, /function queueMicrotask/);
    assert.match(docs[3].declarations, /interface SubtleCrypto/);
    assert.match(docs[4].declarations, /digest\(/);
  });

  test('the ES2024 and later built-ins and the newer web globals are listed and documented; what the runtime lacks is not', async () => {
    const list = (await get('/v1/blueprints/nothing/builtins')).json;
    for (const name of ['Iterator', 'WritableStream', 'TransformStream', 'TextDecoderStream', 'CustomEvent', 'FileReader', 'PerformanceMark', 'CountQueuingStrategy']) assert.ok(list.types.includes(name), name);
    for (const name of ['addEventListener', 'reportError']) assert.ok(list.functions.includes(name), name);
    const names = ['Object.groupBy', 'Promise.withResolvers', 'Promise.try', 'Set.prototype.union', 'Array.fromAsync', 'Iterator.from', 'ReadableStream.from', 'addEventListener', 'ArrayBuffer.prototype.transfer'];
    const docs = (await get(`/v1/blueprints/nothing/builtins/docs?${names.map((n) => `name=${n}`).join('&')}`)).json.results;
    for (const [i, pattern] of [/groupBy</, /withResolvers</, /try</, /union</, /fromAsync</, /from</, /from</, /function addEventListener/].entries()) assert.match(docs[i].declarations ?? '', pattern, names[i]);
    assert.equal(docs[8].declarations, undefined, 'ArrayBuffer.prototype.transfer is not in V8 11.3 nor provided');
  });

  test('lookups are counted in /v1/status', async () => {
    // Counts its own lookups, whatever other tests did before it.
    const lookups = async () => (await server.request('GET', '/v1/status')).json.lookups as Record<string, number>;
    const before = await lookups();
    assert.equal((await get('/v1/blueprints/web-files/packages/search?q=fs')).status, 200);
    assert.equal((await get('/v1/blueprints/nothing/builtins/docs?name=Math.max&name=Map')).status, 200);
    const after = await lookups();
    assert.equal(after.package_search - before.package_search, 1, JSON.stringify({ before, after }));
    assert.equal(after.builtins_docs - before.builtins_docs, 2, JSON.stringify({ before, after }));
  });

  test('every discovery endpoint answers 404 not_found for an unregistered Blueprint', async () => {
    for (const route of ['prompt', 'packages/search', 'packages/docs?name=fs', 'builtins', 'builtins/docs?name=Math']) {
      const reply = await get(`/v1/blueprints/ghost/${route}`);
      assert.equal(reply.status, 404, route);
      assert.deepEqual([reply.json.error, reply.json.name], ['not_found', 'ghost']);
    }
  });
});
