// The global fetch against loopback HTTPS stand-ins under real-looking host names: it is
// the svc:http verb of its method (same capability, policy, decision records, outbound
// block, https-only rule, auth_proxy and redirect checks) with WHATWG semantics: non-2xx
// resolves, a denial or network failure rejects with a TypeError whose cause says why,
// redirect modes, aborts and timeout signals.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startServer, type TestServer } from '../harness';
import { serverOptions, startStandIn, type StandIn, type StandInReply } from '../support/stand-in';

const API = 'api.weather.test';
const OPEN = 'open.weather.test';
const OTHER = 'other.weather.test';
const INTERNAL = 'internal.weather.test';

let api: StandIn;
let server: TestServer;
const secret = `key-${randomBytes(8).toString('hex')}`;
let release: (() => void) | null = null;

before(async () => {
  api = await startStandIn([API, OPEN, OTHER], async (req): Promise<StandInReply> => {
    const origin = (host: string) => `https://${host}:${api.port}`;
    switch (req.path) {
      case '/weather':
        return { status: 200, json: { city: 'Oslo', temp: -3 } };
      case '/echo':
        return { status: 200, headers: { 'x-served-by': 'stand-in' }, json: { method: req.method, type: req.headers['content-type'] ?? null, body: req.body, trace: req.headers['x-trace'] ?? null, agent: req.headers['user-agent'] ?? null, auth: req.headers.authorization ? 'present' : 'absent' } };
      case '/missing':
        return { status: 404, body: 'not here' };
      case '/hop':
        return { status: 302, headers: { location: '/weather' } };
      case '/to-other':
        return { status: 302, headers: { location: `${origin(OTHER)}/weather` } };
      case '/slow':
        await new Promise<void>((resolve) => (release = resolve));
        return { status: 200, body: 'late' };
      default:
        return { status: 500, body: 'unexpected path' };
    }
  });
  const options = serverOptions(api);
  server = await startServer({ runners: 1, args: [...options.args, '--add-host', `${INTERNAL}=10.255.255.1`], env: { ...options.env, SVC_SECRET_KEY: randomBytes(32).toString('base64') } });
  await server.request('POST', '/v1/secrets', { body: { key: 'weather', value: secret } });
  const created = await server.request('POST', '/v1/blueprints', {
    body: {
      yaml: `name: web
secrets: {API: {store: weather}}
auth_proxy:
  - host: ${API}
    auth: {bearer: API}
permissions:
  main:
    - {capability: http.get, filter: 'host == "${API}" or host == "${OPEN}" or host == "${INTERNAL}"', action: allow}
    - {capability: http.post, filter: 'host == "${API}"', action: allow}
    - {capability: http.delete, filter: 'host == "${API}"', action: allow}
`,
    },
  });
  assert.ok(created.status < 300, created.text);
});
after(async () => {
  release?.();
  await server.stop();
  await api.close();
});

async function run(code: string) {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json as { result: string | null; error: { kind: string; message: string; capability?: string } | null; execution_id: string; session_id: string };
}

async function result(code: string): Promise<any> {
  const out = await run(code);
  assert.equal(out.error, null, JSON.stringify(out.error));
  return JSON.parse(out.result!);
}

const base = (host: string) => `https://${host}:${api.port}`;

describe('fetch', () => {
  test('GET JSON: status, headers, json(), url; the request carries the program headers and the svc user agent', async () => {
    const r = await result(`export async function main() {
      const res = await fetch('${base(API)}/weather');
      const echo = await fetch(new Request('${base(API)}/echo', { headers: { 'X-Trace': 'abc' } }));
      const e = await echo.json();
      let immutable = ''; try { res.headers.set('a', 'b'); } catch (err) { immutable = err.name; }
      return { status: res.status, statusText: res.statusText, ok: res.ok, type: res.headers.get('content-type'), body: await res.json(), url: res.url, redirected: res.redirected, trace: e.trace, agent: e.agent, served: echo.headers.get('X-Served-By'), immutable };
    }`);
    assert.deepEqual({ ...r, agent: /^svc\//.test(r.agent) }, {
      status: 200, statusText: 'OK', ok: true, type: 'application/json', body: { city: 'Oslo', temp: -3 }, url: `${base(API)}/weather`, redirected: false, trace: 'abc', agent: true, served: 'stand-in', immutable: 'TypeError',
    });
  });

  test('bodies: string, JSON text, URLSearchParams, FormData, bytes; methods go through as http.<method>', async () => {
    const r = await result(`export async function main() {
      const send = async (init) => (await fetch('${base(API)}/echo', init)).json();
      const form = new FormData(); form.append('a', '1');
      return {
        text: await send({ method: 'POST', body: 'hello' }),
        json: await send({ method: 'POST', body: JSON.stringify({ x: 1 }), headers: { 'content-type': 'application/json' } }),
        params: await send({ method: 'POST', body: new URLSearchParams({ q: 'x y' }) }),
        form: (await send({ method: 'POST', body: form })).body.includes('name="a"'),
        bytes: await send({ method: 'POST', body: new Uint8Array([104, 105]) }),
        del: (await send({ method: 'DELETE' })).method,
      };
    }`);
    assert.deepEqual(r.text, { method: 'POST', type: 'text/plain;charset=UTF-8', body: 'hello', trace: null, agent: r.text.agent, auth: 'present' });
    assert.deepEqual([r.json.type, r.json.body], ['application/json', '{"x":1}']);
    assert.deepEqual([r.params.type, r.params.body], ['application/x-www-form-urlencoded;charset=UTF-8', 'q=x+y']);
    assert.equal(r.form, true);
    assert.deepEqual([r.bytes.type, r.bytes.body], [null, 'hi']);
    assert.equal(r.del, 'DELETE');
  });

  test('a non-2xx status resolves', async () => {
    const r = await result(`export async function main() { const res = await fetch('${base(API)}/missing'); return [res.status, res.ok, res.statusText, await res.text()]; }`);
    assert.deepEqual(r, [404, false, 'Not Found', 'not here']);
  });

  test('a denied method rejects with a TypeError whose cause is the PermissionDeniedError; nothing is sent; the decision is recorded', async () => {
    const before = api.requests.length;
    const out = await run(`export async function main() {
      try { await fetch('${base(API)}/echo', { method: 'PUT', body: 'x' }); return 'sent'; }
      catch (e) { return { name: e.name, causeName: e.cause?.name, capability: e.cause?.capability, denied: e.cause instanceof PermissionDeniedError, message: e.message }; }
    }`);
    const r = JSON.parse(out.result!);
    assert.deepEqual([r.name, r.causeName, r.capability, r.denied], ['TypeError', 'PermissionDeniedError', 'http.put', true]);
    assert.match(r.message, /^fetch https:\/\/api\.weather\.test:\d+\/echo failed: /);
    assert.equal(api.requests.length, before);
    const decisions = server.audit({ type: 'decision', execution_id: out.execution_id });
    assert.ok(decisions.some((d) => d.capability === 'http.put' && d.decision === 'deny'), JSON.stringify(decisions));
    const uncaught = await run(`export async function main() { await fetch('${base(OTHER)}/weather'); }`);
    assert.equal(uncaught.error?.kind, 'runtime_error');
    assert.match(uncaught.error!.message, /TypeError: fetch https:\/\/other\.weather\.test:\d+\/weather failed: /);
  });

  test('the outbound block applies: a name resolving to a private address rejects with the blocked-destination Error as the cause; an egress_guard decision is recorded', async () => {
    const out = await run(`export async function main() {
      try { await fetch('https://${INTERNAL}/'); return 'sent'; } catch (e) { return { name: e.name, cause: e.cause?.name, message: e.cause?.message }; }
    }`);
    const r = JSON.parse(out.result!);
    assert.deepEqual([r.name, r.cause], ['TypeError', 'Error']);
    assert.match(r.message, /blocked by network policy/);
    assert.ok(server.audit({ type: 'decision', execution_id: out.execution_id, source: 'egress_guard' }).length >= 1);
  });

  test('https only, no credentials in URLs: TypeErrors', async () => {
    const r = await result(`export async function main() {
      const reason = async (url) => { try { await fetch(url); return 'sent'; } catch (e) { return e.name + ': ' + (e.cause?.message ?? e.message); } };
      return [await reason('http://${API}/weather'), await reason('https://user:pw@${API}/weather'), await reason('/relative')];
    }`);
    assert.match(r[0], /^TypeError: .*only https:\/\/ URLs are allowed/);
    assert.match(r[1], /^TypeError: .*credentials never travel in URLs/);
    assert.match(r[2], /^TypeError: .*not an absolute URL/);
  });

  test('auth_proxy injects the credentials for its host; the program never sees them', async () => {
    const out = await run(`export async function main() { const res = await fetch('${base(API)}/echo'); return (await res.json()).auth; }`);
    assert.equal(out.result, 'present');
    const hit = api.requests.filter((r) => r.path === '/echo' && r.host === API).at(-1)!;
    assert.equal(hit.headers.authorization, `Bearer ${secret}`);
    for (const line of server.lines()) assert.ok(!line.includes(secret));
  });

  test('redirects: followed and re-checked per hop; "manual" returns the 3xx; "error" rejects; a hop to a denied host is never sent', async () => {
    const r = await result(`export async function main() {
      const followed = await fetch('${base(OPEN)}/hop');
      const manual = await fetch('${base(OPEN)}/hop', { redirect: 'manual' });
      let error = ''; try { await fetch('${base(OPEN)}/hop', { redirect: 'error' }); } catch (e) { error = e.name + ': ' + e.message; }
      let denied = ''; try { await fetch('${base(OPEN)}/to-other'); } catch (e) { denied = e.cause?.name + ' ' + e.cause?.capability; }
      return { followed: [followed.status, followed.redirected, followed.url, (await followed.json()).city], manual: [manual.status, manual.headers.get('location')], error, denied };
    }`);
    assert.deepEqual(r.followed, [200, true, `${base(OPEN)}/weather`, 'Oslo']);
    assert.deepEqual(r.manual, [302, '/weather']);
    assert.match(r.error, /^TypeError: .*redirect is "error"/);
    assert.equal(r.denied, 'PermissionDeniedError http.get');
    assert.equal(api.requests.filter((q) => q.host === OTHER).length, 0);
  });

  test('aborts: an aborted signal rejects with its reason before anything is sent; a timeout signal bounds the request', async () => {
    const before = api.requests.length;
    const r = await result(`export async function main() {
      const c = new AbortController(); c.abort();
      let aborted = ''; try { await fetch('${base(API)}/weather', { signal: c.signal }); } catch (e) { aborted = e.name; }
      let custom = ''; try { const d = new AbortController(); d.abort('mine'); await fetch('${base(API)}/weather', { signal: d.signal }); } catch (e) { custom = e; }
      let timedOut = ''; try { await fetch('${base(API)}/slow', { signal: AbortSignal.timeout(200) }); } catch (e) { timedOut = e.name; }
      return { aborted, custom, timedOut };
    }`);
    assert.deepEqual(r, { aborted: 'AbortError', custom: 'mine', timedOut: 'TimeoutError' });
    // The aborted signals sent nothing; the timed-out request reached the stand-in or, on a
    // loaded machine, had not yet when its 200 ms passed (at load 30 it had not).
    const sent = api.requests.slice(before).map((q) => q.path);
    assert.deepEqual(sent.filter((path) => path !== '/slow'), []);
    assert.ok(sent.length <= 1, sent.join(', '));
    release?.();
  });
});
