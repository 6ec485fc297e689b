// @svc/linear installed into a real server and called from programs, against a loopback
// stand-in playing api.linear.app: the GraphQL requests Linear receives (POST /graphql, the
// operation and variables, `Authorization: <key>` without Bearer, none without the key), the
// normalised results and pages, team-scoped grants (createComment and updateIssue read the
// issue first for its team), denials with no mutation sent, and Linear's error answers.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { derivedRequires, startCurated, type Curated, type Rule } from '../../support/curated';
import type { StandInRequest, StandInReply } from '../../support/stand-in';

const KEY = 'lin_api_testkey';
const B12_REQUIRES: Rule[] = [
  { capability: 'http.post', filter: 'host == "api.linear.app" and path == "/graphql"' },
  { capability: 'secrets.get', filter: 'name == "LINEAR_API_KEY"' },
];

const issue = (id: string, team: string, extra: Record<string, unknown> = {}) => ({
  id,
  identifier: id.toUpperCase(),
  title: 'Flaky login test',
  description: 'Fails sometimes',
  priority: 2,
  url: `https://linear.app/acme/issue/${id.toUpperCase()}`,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-21T10:00:00.000Z',
  state: { id: 'state-1', name: 'In Progress', type: 'started' },
  team: { id: team, key: team === 'team-1' ? 'ENG' : 'OPS' },
  assignee: { id: 'user-1', name: 'Ada' },
  project: null,
  labels: { nodes: [{ name: 'bug' }] },
  ...extra,
});
const session = (id: string, extra: Record<string, unknown> = {}) => ({ id, status: 'active', url: `https://linear.app/acme/agent/${id}`, createdAt: '2026-11-22T10:00:00.000Z', updatedAt: '2026-11-22T10:00:00.000Z', issue: { id: 'eng-1' }, comment: null, ...extra });
const graphqlError = (status: number, message: string, code: string, headers: Record<string, string> = {}): StandInReply => ({ status, headers, json: { errors: [{ message, extensions: { code, type: code.toLowerCase(), userPresentableMessage: message } }] } });

function handler(request: StandInRequest): StandInReply {
  if (request.method !== 'POST' || request.path !== '/graphql') return { status: 404, body: 'not found' };
  const query = String(request.json?.query ?? '');
  const vars = request.json?.variables ?? {};
  const op = /^(query|mutation) (\w+)/.exec(query)?.[2];
  if (!request.headers.authorization) return graphqlError(400, 'Authentication required, not authenticated', 'AUTHENTICATION_ERROR');
  const id = String(vars.id ?? vars.input?.issueId ?? '');
  if (id === 'fail-401') return graphqlError(401, 'Invalid API key', 'AUTHENTICATION_ERROR');
  if (id === 'fail-403') return graphqlError(403, 'You do not have access to this resource', 'FORBIDDEN');
  if (id === 'fail-404') return graphqlError(200, 'Entity not found: Issue', 'INVALID_INPUT');
  if (id === 'fail-429') return graphqlError(400, 'Rate limit exceeded', 'RATELIMITED', { 'x-ratelimit-requests-limit': '1500', 'x-ratelimit-requests-remaining': '0', 'x-ratelimit-requests-reset': String(Date.now() + 30_000), 'retry-after': '30' });
  switch (op) {
    case 'Viewer':
      return { json: { data: { viewer: { id: 'user-1', name: 'Ada Lovelace', displayName: 'ada', email: 'ada@example.com', active: true } } } };
    case 'Teams':
      return { json: { data: { teams: { nodes: [{ id: 'team-1', key: 'ENG', name: 'Engineering', description: null }], pageInfo: { hasNextPage: vars.after == null, endCursor: 'cursor-1' } } } } };
    case 'Team':
      return { json: { data: { team: { id: vars.id, key: 'ENG', name: 'Engineering', description: 'Builds things' } } } };
    case 'Projects':
      return { json: { data: { projects: { nodes: [{ id: 'proj-1', name: 'Login', description: 'Auth work', state: 'started', url: 'https://linear.app/acme/project/login' }], pageInfo: { hasNextPage: false, endCursor: null } } } } };
    case 'Users':
      return { json: { data: { users: { nodes: [{ id: 'user-1', name: 'Ada Lovelace', displayName: 'ada', email: 'ada@example.com', active: true }], pageInfo: { hasNextPage: false, endCursor: null } } } } };
    case 'Issues':
      return { json: { data: { issues: { nodes: [issue('eng-1', 'team-1')], pageInfo: { hasNextPage: true, endCursor: 'issues-2' } } } } };
    case 'Issue':
      return { json: { data: { issue: issue(String(vars.id), 'team-1') } } };
    case 'IssueTeam':
      return { json: { data: { issue: { id: vars.id, team: { id: String(vars.id).startsWith('ops') ? 'team-2' : 'team-1' } } } } };
    case 'CreateIssue':
      return { json: { data: { issueCreate: { success: true, issue: issue('eng-9', vars.input.teamId, { title: vars.input.title }) } } } };
    case 'UpdateIssue':
      return { json: { data: { issueUpdate: { success: true, issue: issue(String(vars.id), 'team-1', { title: vars.input.title ?? 'Flaky login test', project: vars.input.projectId ? { id: vars.input.projectId } : null }) } } } };
    case 'Comments':
      return { json: { data: { issue: { comments: { nodes: [{ id: 'comment-1', body: 'Seen it too', url: null, createdAt: '2026-11-21T11:00:00.000Z', user: { id: 'user-2', name: 'Grace' } }], pageInfo: { hasNextPage: false, endCursor: 'c' } } } } } };
    case 'CreateComment':
      return { json: { data: { commentCreate: { success: true, comment: { id: 'comment-2', body: vars.input.body, url: 'https://linear.app/acme/issue/ENG-1#comment-2', createdAt: '2026-11-23T11:00:00.000Z', user: { id: 'user-1', name: 'Ada' } } } } } };
    case 'SessionOnIssue':
      return { json: { data: { agentSessionCreateOnIssue: { success: true, agentSession: session('session-1') } } } };
    case 'SessionOnComment':
      return { json: { data: { agentSessionCreateOnComment: { success: true, agentSession: session('session-2', { issue: null, comment: { id: vars.input.commentId } }) } } } };
    case 'Session':
      return { json: { data: { agentSession: session(String(vars.id), { status: 'complete' }) } } };
    case 'UpdateSession':
      return { json: { data: { agentSessionUpdate: { success: true, agentSession: session(String(vars.id)) } } } };
    case 'Activity':
      return { json: { data: { agentActivityCreate: { success: true, agentActivity: { id: 'activity-1', createdAt: '2026-11-22T10:01:00.000Z', content: { __typename: 'x', ...vars.input.content } } } } } };
    case 'Activities':
      return { json: { data: { agentSession: { activities: { nodes: [{ id: 'activity-1', createdAt: 'c', content: { __typename: 'AgentActivityThoughtContent', type: 'thought', body: 'Reading' } }, { id: 'activity-2', createdAt: 'c', content: { __typename: 'AgentActivityActionContent', type: 'action', action: 'Ran', parameter: 'npm test', result: 'ok' } }], pageInfo: { hasNextPage: false, endCursor: null } } } } } };
    default:
      return graphqlError(400, `Unknown operation ${op}`, 'GRAPHQL_VALIDATION_FAILED');
  }
}

const catching = (call: string) => `import * as linear from "@svc/linear";
export function main() {
  try { return { value: linear.${call} }; }
  catch (e: any) { return { name: e.name, code: e.code ?? null, status: e.status ?? null, retryAfterSeconds: e.retryAfterSeconds ?? null, rateLimitRemaining: e.rateLimitRemaining ?? null, errors: e.errors ?? null, capability: e.capability ?? null, message: e.message }; }
}`;

const ALL = ['createAgentActivity', 'createAgentSessionOnComment', 'createAgentSessionOnIssue', 'getAgentSession', 'getIssue', 'getViewer', 'listAgentActivities', 'listComments', 'listProjects', 'listTeams', 'listUsers', 'updateAgentSession'];

describe('@svc/linear against a Linear GraphQL stand-in', () => {
  let c: Curated;
  const secrets = { LINEAR_API_KEY: KEY };
  const sent = (from: number) => c.api.requests.slice(from);
  const operation = (r: StandInRequest) => /^(?:query|mutation) (\w+)/.exec(String(r.json?.query))?.[1];

  before(async () => {
    c = await startCurated({
      package: '@svc/linear',
      hosts: ['api.linear.app'],
      secret: 'LINEAR_API_KEY',
      main: [
        ...ALL.map((name) => ({ capability: `linear.app/${name}` })),
        { capability: 'linear.app/listIssues', filter: 'teamId == "team-1"' },
        { capability: 'linear.app/createIssue', filter: 'teamId == "team-1"' },
        { capability: 'linear.app/updateIssue', filter: 'teamId == "team-1" and (projectId == null or projectId == "proj-1")' },
        { capability: 'linear.app/createComment', filter: 'teamId == "team-1"' },
        { capability: 'linear.app/getTeam', filter: 'teamId == "team-1"' },
      ],
      handler,
    });
  });
  after(async () => {
    await c?.close();
  });

  test('the build derived exactly the requires its readme documents', () => {
    assert.deepEqual(derivedRequires(c.home, '@svc/linear'), B12_REQUIRES);
  });

  test('getViewer POSTs a GraphQL query with Authorization: <key> (no Bearer)', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('getViewer()'), { secrets });
    const [request] = sent(before);
    assert.equal(sent(before).length, 1);
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/graphql');
    assert.equal(request.headers.authorization, KEY);
    assert.match(String(request.headers['content-type']), /application\/json/);
    assert.match(request.json.query, /^query Viewer \{ viewer \{ id name displayName email active \} \}$/);
    assert.deepEqual(out.value.value, { id: 'user-1', name: 'Ada Lovelace', displayName: 'ada', email: 'ada@example.com', active: true });
  });

  test('without LINEAR_API_KEY the request goes out without Authorization', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('getViewer()'));
    assert.equal(sent(before).length, 1);
    assert.equal(sent(before)[0].headers.authorization, undefined);
    assert.deepEqual({ name: out.value.name, code: out.value.code, status: out.value.status }, { name: 'LinearError', code: 'unauthorized', status: 400 });
    assert.equal(out.value.errors[0].code, 'AUTHENTICATION_ERROR');
  });

  test('listIssues filters by team, assignee and state type, pages with a cursor, and is judged on teamId', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('listIssues({ teamId: "team-1", stateType: "started", first: 10, after: "issues-1" })'), { secrets });
    const [request] = sent(before);
    assert.deepEqual(request.json.variables, { first: 10, after: 'issues-1', filter: { team: { id: { eq: 'team-1' } }, state: { type: { eq: 'started' } } } });
    const page = out.value.value;
    assert.equal(page.nextCursor, 'issues-2');
    assert.deepEqual(page.items[0], {
      id: 'eng-1', identifier: 'ENG-1', title: 'Flaky login test', description: 'Fails sometimes', priority: 2, url: 'https://linear.app/acme/issue/ENG-1',
      state: { id: 'state-1', name: 'In Progress', type: 'started' }, teamId: 'team-1', teamKey: 'ENG', assignee: { id: 'user-1', name: 'Ada' }, projectId: null, labels: ['bug'],
      createdAt: '2026-11-20T10:00:00.000Z', updatedAt: '2026-11-21T10:00:00.000Z',
    });
    for (const call of ['listIssues({ teamId: "team-2" })', 'listIssues()']) {
      const denied = await c.run(catching(call), { secrets });
      assert.equal(denied.value.name, 'PermissionDeniedError', call);
      assert.equal(denied.value.capability, 'linear.app/listIssues');
    }
    assert.equal(c.api.requests.length, before + 1);
  });

  test('createIssue sends the input and is judged on teamId; another team is refused with nothing sent', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('createIssue({ teamId: "team-1", title: "New bug", priority: 1, labelIds: ["label-1"] })'), { secrets });
    assert.equal(sent(before).length, 1);
    assert.equal(operation(sent(before)[0]), 'CreateIssue');
    assert.deepEqual(sent(before)[0].json.variables, { input: { teamId: 'team-1', title: 'New bug', priority: 1, labelIds: ['label-1'] } });
    assert.equal(out.value.value.title, 'New bug');
    const denied = await c.run(catching('createIssue({ teamId: "team-2", title: "Elsewhere" })'), { secrets });
    assert.equal(denied.value.capability, 'linear.app/createIssue');
    assert.equal(c.api.requests.length, before + 1);
  });

  test('updateIssue reads the issue for its team, then is judged on teamId and the target projectId', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('updateIssue("eng-1", { title: "Renamed", projectId: "proj-1" })'), { secrets });
    assert.deepEqual(sent(before).map(operation), ['IssueTeam', 'UpdateIssue']);
    assert.deepEqual(sent(before)[1].json.variables, { id: 'eng-1', input: { title: 'Renamed', projectId: 'proj-1' } });
    assert.equal(out.value.value.projectId, 'proj-1');
    assert.equal(out.value.value.title, 'Renamed');

    const otherProject = await c.run(catching('updateIssue("eng-1", { projectId: "proj-2" })'), { secrets });
    assert.equal(otherProject.value.capability, 'linear.app/updateIssue');
    const otherTeam = await c.run(catching('updateIssue("ops-1", { title: "x" })'), { secrets });
    assert.equal(otherTeam.value.capability, 'linear.app/updateIssue');
    assert.deepEqual(sent(before).slice(2).map(operation), ['IssueTeam', 'IssueTeam'], 'only the reads went out');
  });

  test('createComment reads the issue for its team; an issue of another team gets no comment', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('createComment("eng-1", "Reproduced on main.")'), { secrets });
    assert.deepEqual(sent(before).map(operation), ['IssueTeam', 'CreateComment']);
    assert.deepEqual(sent(before)[1].json.variables, { input: { issueId: 'eng-1', body: 'Reproduced on main.' } });
    assert.deepEqual(out.value.value, { id: 'comment-2', body: 'Reproduced on main.', url: 'https://linear.app/acme/issue/ENG-1#comment-2', user: { id: 'user-1', name: 'Ada' }, createdAt: '2026-11-23T11:00:00.000Z' });
    const denied = await c.run(catching('createComment("ops-7", "hi")'), { secrets });
    assert.equal(denied.value.name, 'PermissionDeniedError');
    assert.equal(denied.value.capability, 'linear.app/createComment');
    assert.deepEqual(sent(before).slice(2).map(operation), ['IssueTeam']);
  });

  test('reads: getIssue, listComments, listTeams (with nextCursor), getTeam, listProjects, listUsers', async () => {
    const before = c.api.requests.length;
    const got = await c.run(catching('getIssue("ENG-1")'), { secrets });
    assert.equal(got.value.value.identifier, 'ENG-1');
    const comments = await c.run(catching('listComments("eng-1", { first: 5 })'), { secrets });
    assert.deepEqual(comments.value.value, { items: [{ id: 'comment-1', body: 'Seen it too', url: null, user: { id: 'user-2', name: 'Grace' }, createdAt: '2026-11-21T11:00:00.000Z' }], nextCursor: null });
    const teams = await c.run(catching('listTeams()'), { secrets });
    assert.deepEqual(teams.value.value, { items: [{ id: 'team-1', key: 'ENG', name: 'Engineering', description: null }], nextCursor: 'cursor-1' });
    const team = await c.run(catching('getTeam("team-1")'), { secrets });
    assert.equal(team.value.value.description, 'Builds things');
    const projects = await c.run(catching('listProjects()'), { secrets });
    assert.equal(projects.value.value.items[0].state, 'started');
    const users = await c.run(catching('listUsers({ first: 2 })'), { secrets });
    assert.equal(users.value.value.items[0].email, 'ada@example.com');
    const requests = sent(before);
    assert.deepEqual(requests.map(operation), ['Issue', 'Comments', 'Teams', 'Team', 'Projects', 'Users']);
    assert.deepEqual(requests[1].json.variables, { id: 'eng-1', first: 5, after: null });
    assert.deepEqual(requests[2].json.variables, { first: 50, after: null });
    const otherTeam = await c.run(catching('getTeam("team-2")'), { secrets });
    assert.equal(otherTeam.value.capability, 'linear.app/getTeam');
    assert.equal(c.api.requests.length, before + 6);
  });

  test('agent sessions: create on issue and comment, activities, update, read', async () => {
    const before = c.api.requests.length;
    const onIssue = await c.run(catching('createAgentSessionOnIssue("eng-1", { externalLink: "https://agent.example/s/1" })'), { secrets });
    assert.deepEqual(onIssue.value.value, { id: 'session-1', status: 'active', issueId: 'eng-1', commentId: null, url: 'https://linear.app/acme/agent/session-1', createdAt: '2026-11-22T10:00:00.000Z', updatedAt: '2026-11-22T10:00:00.000Z' });
    const onComment = await c.run(catching('createAgentSessionOnComment("comment-1")'), { secrets });
    assert.equal(onComment.value.value.commentId, 'comment-1');
    const thought = await c.run(catching('createAgentActivity("session-1", { type: "thought", body: "Reading the test" }, true)'), { secrets });
    assert.deepEqual(thought.value.value, { id: 'activity-1', createdAt: '2026-11-22T10:01:00.000Z', content: { type: 'thought', body: 'Reading the test' } });
    const action = await c.run(catching('createAgentActivity("session-1", { type: "action", action: "Ran", parameter: "npm test", result: "1 failure" })'), { secrets });
    assert.deepEqual(action.value.value.content, { type: 'action', action: 'Ran', parameter: 'npm test', result: '1 failure' });
    await c.run(catching('updateAgentSession("session-1", { plan: { steps: ["fix"] } })'), { secrets });
    const got = await c.run(catching('getAgentSession("session-1")'), { secrets });
    assert.equal(got.value.value.status, 'complete');
    const activities = await c.run(catching('listAgentActivities("session-1")'), { secrets });
    assert.deepEqual(activities.value.value.items.map((a: any) => a.content.type), ['thought', 'action']);
    const requests = sent(before);
    assert.deepEqual(requests.map(operation), ['SessionOnIssue', 'SessionOnComment', 'Activity', 'Activity', 'UpdateSession', 'Session', 'Activities']);
    assert.deepEqual(requests[0].json.variables, { input: { issueId: 'eng-1', externalLink: 'https://agent.example/s/1' } });
    assert.deepEqual(requests[2].json.variables, { input: { agentSessionId: 'session-1', content: { type: 'thought', body: 'Reading the test' }, ephemeral: true } });
    assert.deepEqual(requests[4].json.variables, { id: 'session-1', input: { plan: { steps: ['fix'] } } });
  });

  test('a program without the grant is refused before any request', async () => {
    const reply = await c.server.request('POST', '/v1/blueprints', {
      body: { yaml: `name: linear-bare\ndefault: deny\npackages: ["@svc/linear"]\nsecrets:\n  LINEAR_API_KEY: { harness: {} }\npermissions:\n  "@svc/linear":\n${B12_REQUIRES.map((r) => `    - { capability: ${JSON.stringify(r.capability)}, filter: ${JSON.stringify(r.filter)}, action: allow }`).join('\n')}\n` },
    });
    assert.ok(reply.status < 300, reply.text);
    const before = c.api.requests.length;
    const out = await c.server.request('POST', '/v1/execute', { token: c.server.userToken, body: { blueprint: 'linear-bare', code: catching('getViewer()'), secrets } });
    const value = JSON.parse(out.json.result);
    assert.equal(value.name, 'PermissionDeniedError', out.text);
    assert.equal(value.capability, 'linear.app/getViewer');
    assert.match(value.message, /caller=main capability=linear\.app\/getViewer/);
    assert.equal(c.api.requests.length, before);
  });

  test('bad arguments throw invalid_argument before any request', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('getIssue("ENG 1; drop")'), { secrets });
    assert.equal(out.value.code, 'invalid_argument');
    assert.match(out.value.message, /^issueId: expected an id/);
    assert.equal(c.api.requests.length, before);
  });

  test("Linear's error answers map to codes, with rate-limit metadata", async () => {
    const cases: Array<[string, string, number]> = [
      ['getIssue("fail-401")', 'unauthorized', 401],
      ['getIssue("fail-403")', 'forbidden', 403],
      ['getIssue("fail-404")', 'not_found', 200],
      ['getIssue("fail-429")', 'rate_limited', 400],
    ];
    for (const [call, code, status] of cases) {
      const out = await c.run(catching(call), { secrets });
      assert.deepEqual({ name: out.value.name, code: out.value.code, status: out.value.status }, { name: 'LinearError', code, status }, `${call}: ${JSON.stringify(out.value)}`);
      if (code === 'rate_limited') {
        assert.equal(out.value.retryAfterSeconds, 30);
        assert.equal(out.value.rateLimitRemaining, 0);
        assert.equal(out.value.errors[0].code, 'RATELIMITED');
      }
      assert.doesNotMatch(out.value.message, new RegExp(KEY));
    }
  });
});
