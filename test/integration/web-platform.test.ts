// A program written for the web platform (as for Deno or a browser) runs unchanged: a fetch
// of JSON, a SHA-256 digest and a timeout race. Discovery lists and documents the globals,
// and the execute-tool prompt says how fetch and svc:http relate.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startServer, type TestServer } from '../harness';
import { serverOptions, startStandIn, type StandIn } from '../support/stand-in';

const HOST = 'api.github-like.test';
let api: StandIn;
let server: TestServer;

before(async () => {
  api = await startStandIn([HOST], (req) => (req.path === '/repos/svc/svc' ? { status: 200, json: { full_name: 'svc/svc', stargazers_count: 42 } } : { status: 404, json: { message: 'Not Found' } }));
  server = await startServer({ ...serverOptions(api), runners: 1 });
  const yaml = `name: web\npermissions:\n  main:\n    - {capability: http.get, filter: 'host == "${HOST}"', action: allow}\n`;
  assert.ok((await server.request('POST', '/v1/blueprints', { body: { yaml } })).status < 300);
});
after(async () => {
  await server.stop();
  await api.close();
});

// Written as one would for Deno: no svc: import anywhere.
const program = (origin: string) => `
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: number | undefined;
  const timeout = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), ms); });
  try { return await Promise.race([work, timeout]); } finally { clearTimeout(timer); }
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

export default async function main() {
  const started = performance.now();
  const response = await fetch('${origin}/repos/svc/svc', { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error('HTTP ' + response.status);
  const repo = await response.json() as { full_name: string; stargazers_count: number };
  const missing = await fetch('${origin}/repos/svc/none');
  const slow = await withTimeout(sleep(5_000).then(() => 'slow'), 20);
  const fast = await withTimeout(sleep(1).then(() => 'fast'), 1_000);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 5);
  const aborted = await new Promise((resolve) => controller.signal.addEventListener('abort', () => resolve(controller.signal.reason.name)));
  return { repo: repo.full_name, stars: repo.stargazers_count, missing: missing.status, hash: await sha256Hex(repo.full_name), slow, fast, aborted, elapsed: performance.now() >= started, agent: navigator.userAgent.startsWith('svc') };
}
export { main };
`;

test('a web-platform program (fetch of JSON, a digest, a timeout race) runs unchanged', async () => {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code: program(api.origin()) } });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.error, null, JSON.stringify(reply.json.error));
  assert.deepEqual(JSON.parse(reply.json.result), {
    repo: 'svc/svc', stars: 42, missing: 404, hash: createHash('sha256').update('svc/svc').digest('hex'), slow: 'timeout', fast: 'fast', aborted: 'AbortError', elapsed: true, agent: true,
  });
});

test('discovery lists and documents the web globals; the prompt says fetch and svc:http follow the same rules', async () => {
  const get = (route: string) => server.request('GET', route, { token: server.userToken });
  const list = (await get('/v1/blueprints/web/builtins')).json;
  for (const name of ['AbortController', 'AbortSignal', 'Blob', 'CryptoKey', 'File', 'FormData', 'Headers', 'ReadableStream', 'Request', 'Response']) assert.ok(list.types.includes(name), name);
  for (const name of ['navigator', 'performance', 'crypto']) assert.ok(list.namespaces.includes(name), name);
  const docs = (await get('/v1/blueprints/web/builtins/docs?name=fetch&name=setTimeout&name=Response.json&name=crypto&name=AbortSignal.timeout')).json.results;
  // The standard declarations (TypeScript's lib.webworker, limited to what svc provides).
  assert.match(docs[0].declarations, /declare function fetch\(input: RequestInfo \| URL, init\?: RequestInit\): Promise<Response>/);
  assert.match(docs[1].declarations, /declare function setTimeout\(handler: TimerHandler, timeout\?: number/);
  assert.match(docs[2].declarations, /declare var Response: \{\n {2}json\(data: any, init\?: ResponseInit\): Response;\n\};/);
  assert.match(docs[3].declarations, /readonly subtle: SubtleCrypto/);
  assert.match(docs[4].declarations, /timeout\(milliseconds: number\): AbortSignal/);
  const prompt: string = (await get('/v1/blueprints/web/prompt')).json.prompt;
  assert.match(prompt, /`fetch` and timers work as on the web/);
  assert.match(prompt, /Both `fetch` and `svc:http` work and follow the same rules/);
  assert.match(prompt, /Network \(`svc:http` and `fetch`\)/);
  assert.ok(!/no `require`, `process`, `fetch`/.test(prompt));
});

test("every constructor global carries its own name (not the bundler's _Name), in .name and in String()", async () => {
  const code = `export function main() {
  const wrong = [];
  for (const key of Object.getOwnPropertyNames(globalThis)) {
    const value = (globalThis as any)[key];
    if (typeof value !== 'function' || !/^[A-Z]/.test(key) || typeof value.prototype !== 'object') continue;
    const text = Function.prototype.toString.call(value);
    if (value.name !== key || text.includes('_' + key)) wrong.push(key + ': ' + value.name + ' / ' + text.slice(0, 40));
  }
  return { wrong, checked: Object.getOwnPropertyNames(globalThis).filter((k) => /^[A-Z]/.test(k) && typeof (globalThis as any)[k] === 'function').length };
}`;
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code } });
  assert.equal(reply.json.error, null, JSON.stringify(reply.json.error));
  const { wrong, checked } = JSON.parse(reply.json.result);
  assert.deepEqual(wrong, []);
  assert.ok(checked > 60, `only ${checked} constructor globals`);
});

// (Not configurable, unlike WebIDL's: the prelude freezes the prototypes programs reach.)
test('each web interface has its class string as WebIDL defines it: a data property of its prototype, read-only and not enumerable', async () => {
  const code = `export function main() {
  const names = ['AbortController', 'AbortSignal', 'Blob', 'File', 'FormData', 'Event', 'CustomEvent', 'ErrorEvent', 'EventTarget', 'ProgressEvent', 'FileReader',
    'ReadableStream', 'ReadableStreamDefaultReader', 'ReadableStreamBYOBReader', 'ReadableStreamDefaultController', 'ReadableByteStreamController', 'ReadableStreamBYOBRequest',
    'WritableStream', 'WritableStreamDefaultWriter', 'WritableStreamDefaultController', 'TransformStream', 'TransformStreamDefaultController',
    'ByteLengthQueuingStrategy', 'CountQueuingStrategy', 'CryptoKey', 'URL', 'URLSearchParams', 'DOMException'];
  const wrong = [];
  for (const name of names) {
    const prototype = (globalThis as any)[name]?.prototype;
    const tag = prototype === undefined ? undefined : Object.getOwnPropertyDescriptor(prototype, Symbol.toStringTag);
    const ok = tag !== undefined && tag.value === name && tag.writable === false && tag.enumerable === false && Object.prototype.toString.call(prototype) === '[object ' + name + ']';
    if (!ok) wrong.push(name + ': ' + JSON.stringify(tag === undefined ? 'none' : { value: tag.value, get: typeof tag.get, writable: tag.writable, enumerable: tag.enumerable }));
  }
  const strategy = new CountQueuingStrategy({ highWaterMark: 3 });
  return { wrong, checked: names.length, strategy: [String(strategy), strategy.highWaterMark, strategy.size("chunk"), new ByteLengthQueuingStrategy({ highWaterMark: 1 }).size(new Uint8Array(5))] };
}`;
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code } });
  assert.equal(reply.json.error, null, JSON.stringify(reply.json.error));
  const { wrong, checked, strategy } = JSON.parse(reply.json.result);
  assert.deepEqual(wrong, []);
  assert.equal(checked, 28);
  assert.deepEqual(strategy, ['[object CountQueuingStrategy]', 3, 1, 5]);
});
