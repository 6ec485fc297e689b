// @svc/sentry installed into a real server and called from programs, against a loopback
// stand-in playing sentry.io: the REST requests Sentry receives (paths, query, Bearer token,
// PUT bodies), the normalised results and Link-header cursors, project-scoped grants (the issue
// must belong to the named project), denials with no request sent, the missing token, and
// Sentry's error answers with their rate-limit headers.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { derivedRequires, startCurated, type Curated, type Rule } from '../../support/curated';
import type { StandInRequest, StandInReply } from '../../support/stand-in';

const TOKEN = 'sntrys_test_token';
const B12_REQUIRES: Rule[] = [
  { capability: 'http.get', filter: 'host == "sentry.io"' },
  { capability: 'http.put', filter: 'host == "sentry.io"' },
  { capability: 'secrets.get', filter: 'name == "SENTRY_AUTH_TOKEN"' },
];
const EVENT_ID = '9fac2ceed9344f2bbfdd1fdacb0ed9b1';

const issue = (id: string, project: string, extra: Record<string, unknown> = {}) => ({
  id,
  shortId: `${project.toUpperCase()}-3K`,
  title: "TypeError: Cannot read properties of undefined (reading 'id')",
  culprit: 'app/checkout.ts in submit',
  level: 'error',
  status: 'unresolved',
  substatus: 'ongoing',
  project: { id: project === 'web' ? '4504' : '4505', slug: project, name: project.toUpperCase() },
  count: '42',
  userCount: 7,
  firstSeen: '2026-11-20T10:00:00Z',
  lastSeen: '2026-11-23T09:00:00Z',
  permalink: `https://acme.sentry.io/issues/${id}/`,
  assignedTo: null,
  metadata: { type: 'TypeError' },
  ...extra,
});
const link = (path: string, next: string | null) =>
  `<https://sentry.io${path}?cursor=0:0:1>; rel="previous"; results="false"; cursor="0:0:1", <https://sentry.io${path}?cursor=${next ?? '0:100:0'}>; rel="next"; results="${next ? 'true' : 'false'}"; cursor="${next ?? '0:100:0'}"`;
const failure = (status: number, detail: string, headers: Record<string, string> = {}): StandInReply => ({ status, headers: { 'x-request-id': 'req-' + status, ...headers }, json: { detail } });

function handler(request: StandInRequest): StandInReply {
  const [path, search = ''] = request.path.split('?');
  const q = new URLSearchParams(search);
  let m: RegExpExecArray | null;
  if (path === '/api/0/organizations/') return { headers: { link: link(path, q.get('cursor') ? null : '1700000000000:0:1') }, json: [{ id: '1', slug: 'acme', name: 'Acme', dateCreated: '2020-01-01T00:00:00Z', status: { id: 'active', name: 'active' } }] };
  if ((m = /^\/api\/0\/organizations\/([^/]+)\/projects\/$/.exec(path))) {
    if (m[1] === 'fail-401') return failure(401, 'Invalid token');
    return { headers: { link: link(path, null) }, json: [{ id: '4504', slug: 'web', name: 'Web', platform: 'javascript', dateCreated: '2021-01-01T00:00:00Z' }] };
  }
  if ((m = /^\/api\/0\/organizations\/([^/]+)\/issues\/$/.exec(path))) return { headers: { link: link(path, 'issues-next') }, json: [issue('4512345678', 'web')] };
  if ((m = /^\/api\/0\/organizations\/([^/]+)\/issues\/([^/]+)\/(events\/(?:([^/]+)\/)?)?$/.exec(path))) {
    const [, , id, events, eventId] = m;
    if (id === 'fail-403') return failure(403, 'You do not have permission to perform this action.');
    if (id === 'fail-404') return failure(404, 'The requested resource does not exist');
    if (id === 'fail-429') return failure(429, 'You are attempting to use this endpoint too frequently. Limit is 40 requests in 1 seconds', { 'retry-after': '3', 'x-sentry-rate-limit-limit': '40', 'x-sentry-rate-limit-remaining': '0', 'x-sentry-rate-limit-reset': '1763892000' });
    const project = id === '777' ? 'api' : 'web';
    if (!events) {
      if (request.method === 'PUT') return { json: { ...issue(id, project), ...request.json } };
      return { json: issue(id, project) };
    }
    if (eventId) {
      return { json: { id: EVENT_ID, eventID: EVENT_ID, groupID: id, title: 'TypeError', message: '', platform: 'javascript', dateCreated: '2026-11-23T09:00:00Z', tags: [{ key: 'browser', value: 'Firefox 132' }, { key: 'environment', value: 'production' }], user: { id: 'u1', email: 'ada@example.com' }, entries: [{ type: 'exception', data: { values: [{ type: 'TypeError', value: "Cannot read properties of undefined (reading 'id')" }] } }] } };
    }
    return { headers: { link: link(path, null) }, json: [{ id: EVENT_ID, eventID: EVENT_ID, groupID: id, title: 'TypeError', message: '', platform: 'javascript', dateCreated: '2026-11-23T09:00:00Z', tags: [{ key: 'level', value: 'error' }], user: null }] };
  }
  return { status: 404, json: { detail: 'no route' } };
}

const catching = (call: string) => `import * as sentry from "@svc/sentry";
export function main() {
  try { return { value: sentry.${call} }; }
  catch (e: any) { return { name: e.name, code: e.code ?? null, status: e.status ?? null, requestId: e.requestId ?? null, retryAfterSeconds: e.retryAfterSeconds ?? null, rateLimitLimit: e.rateLimitLimit ?? null, rateLimitRemaining: e.rateLimitRemaining ?? null, rateLimitReset: e.rateLimitReset ?? null, capability: e.capability ?? null, message: e.message }; }
}`;

describe('@svc/sentry against a Sentry REST stand-in', () => {
  let c: Curated;
  const secrets = { SENTRY_AUTH_TOKEN: TOKEN };
  const sent = (from: number) => c.api.requests.slice(from);

  before(async () => {
    c = await startCurated({
      package: '@svc/sentry',
      hosts: ['sentry.io'],
      secret: 'SENTRY_AUTH_TOKEN',
      main: [
        { capability: 'sentry.io/organizations.list' },
        { capability: 'sentry.io/projects.list', filter: 'organization == "acme" or organization == "fail-401"' },
        { capability: 'sentry.io/issues.list', filter: 'organization == "acme" and not projects contains "4505"' },
        { capability: 'sentry.io/issues.get', filter: 'organization == "acme" and project == "web"' },
        { capability: 'sentry.io/issues.update', filter: 'organization == "acme" and project == "web"' },
        { capability: 'sentry.io/issueEvents.list', filter: 'project == "web"' },
        { capability: 'sentry.io/issueEvents.get', filter: 'project == "web" and issue == "4512345678"' },
      ],
      handler,
    });
  });
  after(async () => {
    await c?.close();
  });

  test('the build derived exactly the requires its readme documents', () => {
    assert.deepEqual(derivedRequires(c.home, '@svc/sentry'), B12_REQUIRES);
  });

  test('listOrganizations and listProjects GET with the Bearer token and page with the Link cursor', async () => {
    const before = c.api.requests.length;
    const orgs = await c.run(catching('listOrganizations()'), { secrets });
    assert.deepEqual(orgs.value.value, { items: [{ id: '1', slug: 'acme', name: 'Acme', dateCreated: '2020-01-01T00:00:00Z', status: 'active' }], nextCursor: '1700000000000:0:1' });
    const next = await c.run(catching('listOrganizations({ cursor: "1700000000000:0:1" })'), { secrets });
    assert.equal(next.value.value.nextCursor, null);
    const projects = await c.run(catching('listProjects("acme")'), { secrets });
    assert.deepEqual(projects.value.value.items, [{ id: '4504', slug: 'web', name: 'Web', platform: 'javascript', dateCreated: '2021-01-01T00:00:00Z' }]);
    const requests = sent(before);
    assert.deepEqual(requests.map((r) => `${r.method} ${r.path}`), ['GET /api/0/organizations/', 'GET /api/0/organizations/?cursor=1700000000000%3A0%3A1', 'GET /api/0/organizations/acme/projects/']);
    for (const r of requests) assert.equal(r.headers.authorization, `Bearer ${TOKEN}`);
  });

  test('listIssues sends projects, query and options and is judged on organization and projects', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('listIssues("acme", { projects: ["4504"], query: "is:unresolved level:error", statsPeriod: "24h", sort: "freq", limit: 10 })'), { secrets });
    assert.equal(sent(before).length, 1);
    assert.equal(sent(before)[0].path, '/api/0/organizations/acme/issues/?project=4504&query=is%3Aunresolved%20level%3Aerror&statsPeriod=24h&sort=freq&limit=10');
    const page = out.value.value;
    assert.equal(page.nextCursor, 'issues-next');
    assert.deepEqual(page.items[0], {
      id: '4512345678', shortId: 'WEB-3K', title: "TypeError: Cannot read properties of undefined (reading 'id')", culprit: 'app/checkout.ts in submit', level: 'error', status: 'unresolved', substatus: 'ongoing',
      project: { id: '4504', slug: 'web', name: 'WEB' }, count: 42, userCount: 7, firstSeen: '2026-11-20T10:00:00Z', lastSeen: '2026-11-23T09:00:00Z', permalink: 'https://acme.sentry.io/issues/4512345678/', assignedTo: null,
    });
    const denied = await c.run(catching('listIssues("acme", { projects: ["4504", "4505"] })'), { secrets });
    assert.equal(denied.value.name, 'PermissionDeniedError');
    assert.equal(denied.value.capability, 'sentry.io/issues.list');
    const otherOrg = await c.run(catching('listIssues("globex")'), { secrets });
    assert.equal(otherOrg.value.capability, 'sentry.io/issues.list');
    assert.equal(c.api.requests.length, before + 1);
  });

  test('getIssue returns the issue of the named project; an issue of another project is not_found', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('getIssue("acme", "web", "4512345678")'), { secrets });
    assert.equal(out.value.value.shortId, 'WEB-3K');
    assert.equal(sent(before)[0].path, '/api/0/organizations/acme/issues/4512345678/');
    const foreign = await c.run(catching('getIssue("acme", "web", "777")'), { secrets });
    assert.deepEqual({ name: foreign.value.name, code: foreign.value.code }, { name: 'SentryError', code: 'not_found' });
    assert.match(foreign.value.message, /not in project web/);
    const denied = await c.run(catching('getIssue("acme", "api", "777")'), { secrets });
    assert.equal(denied.value.capability, 'sentry.io/issues.get');
    assert.equal(c.api.requests.length, before + 2);
  });

  test('updateIssue reads the issue, then PUTs the changes', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('updateIssue("acme", "web", "4512345678", { status: "resolved", assignedTo: "user:12" })'), { secrets });
    assert.deepEqual(sent(before).map((r) => `${r.method} ${r.path}`), ['GET /api/0/organizations/acme/issues/4512345678/', 'PUT /api/0/organizations/acme/issues/4512345678/']);
    assert.deepEqual(sent(before)[1].json, { status: 'resolved', assignedTo: 'user:12' });
    assert.equal(sent(before)[1].headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(out.value.value.status, 'resolved');
    const foreign = await c.run(catching('updateIssue("acme", "web", "777", { status: "ignored" })'), { secrets });
    assert.equal(foreign.value.code, 'not_found');
    assert.deepEqual(sent(before).slice(2).map((r) => r.method), ['GET'], 'no PUT for an issue of another project');
  });

  test("listIssueEvents and getIssueEvent read an issue's events; a refused issue sends nothing", async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('listIssueEvents("acme", "web", "4512345678", { full: true })'), { secrets });
    assert.deepEqual(out.value.value, { items: [{ id: EVENT_ID, groupId: '4512345678', title: 'TypeError', message: '', platform: 'javascript', dateCreated: '2026-11-23T09:00:00Z', tags: { level: 'error' }, user: null, entries: [] }], nextCursor: null });
    assert.equal(sent(before)[1].path, '/api/0/organizations/acme/issues/4512345678/events/?full=true');
    const latest = await c.run(catching('getIssueEvent("acme", "web", "4512345678")'), { secrets });
    assert.equal(sent(before)[3].path, '/api/0/organizations/acme/issues/4512345678/events/latest/');
    assert.deepEqual(latest.value.value.tags, { browser: 'Firefox 132', environment: 'production' });
    assert.deepEqual(latest.value.value.user, { id: 'u1', email: 'ada@example.com' });
    assert.equal(latest.value.value.entries[0].type, 'exception');
    const denied = await c.run(catching('getIssueEvent("acme", "web", "4599999999", "oldest")'), { secrets });
    assert.equal(denied.value.name, 'PermissionDeniedError');
    assert.equal(denied.value.capability, 'sentry.io/issueEvents.get');
    assert.match(denied.value.message, /caller=main capability=sentry\.io\/issueEvents\.get/);
    assert.equal(c.api.requests.length, before + 4);
  });

  test('without SENTRY_AUTH_TOKEN every call throws missing_token and nothing is sent', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('listOrganizations()'));
    assert.deepEqual({ name: out.value.name, code: out.value.code, status: out.value.status }, { name: 'SentryError', code: 'missing_token', status: 0 });
    assert.equal(c.api.requests.length, before);
  });

  test('bad arguments throw invalid_argument before any request', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('listIssues("acme", { projects: ["web"] })'), { secrets });
    assert.equal(out.value.code, 'invalid_argument');
    assert.match(out.value.message, /^options\.projects: expected an array of numeric project ids/);
    assert.equal(c.api.requests.length, before);
  });

  test("Sentry's error answers map to codes, with request id, Retry-After and rate-limit headers", async () => {
    const cases: Array<[string, string, number]> = [
      ['listProjects("fail-401")', 'unauthorized', 401],
      ['getIssue("acme", "web", "fail-403")', 'forbidden', 403],
      ['getIssue("acme", "web", "fail-404")', 'not_found', 404],
      ['getIssue("acme", "web", "fail-429")', 'rate_limited', 429],
    ];
    for (const [call, code, status] of cases) {
      const out = await c.run(catching(call), { secrets });
      assert.deepEqual({ name: out.value.name, code: out.value.code, status: out.value.status, requestId: out.value.requestId }, { name: 'SentryError', code, status, requestId: 'req-' + status }, `${call}: ${JSON.stringify(out.value)}`);
      assert.doesNotMatch(out.value.message, new RegExp(TOKEN));
      if (code === 'rate_limited') {
        assert.deepEqual([out.value.retryAfterSeconds, out.value.rateLimitLimit, out.value.rateLimitRemaining, out.value.rateLimitReset], [3, 40, 0, 1763892000]);
        assert.match(out.value.message, /too frequently/);
      }
    }
  });
});
