// @svc/github installed into a real server and called from programs, against a loopback
// stand-in playing api.github.com (test/support/curated/github.ts): the requests GitHub
// receives (method, path and query, body, token and version headers), the normalised results,
// null for missing resources, opaque page tokens, commitFiles through the git data API with
// `branch_moved`, repository-leaving search syntax refused, denials by filtered rules (no
// request sent), the missing token, and GitHub's error answers mapped to codes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { blueprintYaml, derivedRequires, startCurated, type Curated, type CuratedOptions, type Rule } from '../../support/curated';
import type { StandInRequest } from '../../support/stand-in';
import { BINARY, INITIAL_HEAD, LARGE, README, gitHubStandIn, type GitHubState } from '../../support/curated/github';

const TOKEN = 'ghp_testtoken0123456789';
const secrets = { GITHUB_TOKEN: TOKEN };

/** Every capability @svc/github provides. */
const CAPABILITIES = [
  'branches.create', 'branches.delete', 'branches.get', 'branches.list', 'code.search', 'commits.create', 'commits.get', 'commits.list',
  'contents.listDirectory', 'contents.readFile', 'contents.readTextFile', 'issueComments.create', 'issueComments.list', 'issues.create', 'issues.get',
  'issues.list', 'issues.search', 'issues.searchAcrossRepositories', 'issues.update', 'labels.list', 'pullComments.create', 'pullComments.list',
  'pullFiles.list', 'pullReviews.create', 'pullReviews.list', 'pulls.create', 'pulls.diff', 'pulls.get', 'pulls.getReactions', 'pulls.list',
  'pulls.merge', 'pulls.search', 'pulls.searchAcrossRepositories', 'pulls.searchSummaries', 'pulls.update', 'rateLimit.get', 'releases.getLatest',
  'releases.list', 'repositories.get', 'repositories.search', 'teamMembers.list', 'teams.list', 'trees.get', 'users.search', 'viewer.get',
].map((c) => `github.com/${c}`);

/** Repository fields an operation does not name are sent as null (so `x == null` matches). */
const UNNAMED = (...fields: string[]) => fields.map((f) => `${f} == null`).join(' and ');

/**
 * Narrowed grants (first match wins, default deny). Their filters spell out the exact check
 * payload, so a call that succeeds proves what the Package sent; the rest are granted
 * unfiltered, except branches.delete, which is not granted at all.
 */
const NARROWED: Rule[] = [
  { capability: 'github.com/repositories.get', filter: `owner == "acme" and repo != null and ${UNNAMED('branch', 'path', 'ref', 'treeSha', 'head', 'base')}` },
  { capability: 'github.com/branches.get', filter: `owner == "acme" and repo == "widgets" and branch != null and ${UNNAMED('path', 'ref', 'treeSha', 'head', 'base')}` },
  { capability: 'github.com/commits.list', filter: `ref == "main" and path == "src/sprocket.ts" and ${UNNAMED('branch', 'treeSha', 'head', 'base')}` },
  { capability: 'github.com/trees.get', filter: `treeSha == "main" and ${UNNAMED('branch', 'path', 'ref', 'head', 'base')}` },
  { capability: 'github.com/issues.update', filter: 'owner == "acme" and repo == "widgets" and number == 1 and base == null' },
  { capability: 'github.com/pulls.update', filter: 'number == 7 and base == null' },
  { capability: 'github.com/pulls.create', filter: `head == "gears" and base == "main" and ${UNNAMED('branch', 'path', 'ref', 'treeSha')}` },
  { capability: 'github.com/pulls.getReactions', filter: 'owner == "acme" and repo == "widgets" and number == 7' },
  { capability: 'github.com/teamMembers.list', filter: 'org == "acme" and teamSlug == "core"' },
  { capability: 'github.com/issues.searchAcrossRepositories', filter: 'author == "octocat" and query == "leak org:acme" and createdSince == "2024-01-01" and createdUntil == "2024-06-30"' },
  { capability: 'github.com/pulls.searchAcrossRepositories', filter: 'author == null and query == "bump" and createdSince == "2024-01-01" and createdUntil == null' },
];
const MAIN: Rule[] = [...NARROWED, ...CAPABILITIES.filter((c) => c !== 'github.com/branches.delete' && !NARROWED.some((n) => n.capability === c)).map((capability) => ({ capability }))];

/** A program that runs `body` (statements ending in `return …`) and reports a thrown error's fields. */
const program = (body: string) => `import github from "@svc/github";
const repo = { owner: "acme", name: "widgets" };
export function main() {
  try { ${body} }
  catch (e: any) {
    return { error: { name: e.name, code: e.code ?? null, status: e.status ?? null, message: e.message, requestId: e.requestId ?? null,
      documentationUrl: e.documentationUrl ?? null, retryAfterSeconds: e.retryAfterSeconds ?? null, rateLimitRemaining: e.rateLimitRemaining ?? null,
      rateLimitReset: e.rateLimitReset ?? null, errors: e.errors ?? null, capability: e.capability ?? null } };
  }
}`;

describe('@svc/github against an api.github.com stand-in', () => {
  let c: Curated;
  let state: GitHubState;

  before(async () => {
    const standIn = gitHubStandIn();
    state = standIn.state;
    const options: CuratedOptions = { package: '@svc/github', hosts: ['api.github.com'], secret: 'GITHUB_TOKEN', main: MAIN, handler: standIn.handler };
    c = await startCurated(options);
    // A second Blueprint granting main nothing: an error other than a denial there was thrown before any check.
    const yaml = blueprintYaml({ ...options, blueprint: 'github-nothing', main: [] }, derivedRequires(c.home, options.package));
    const registered = await c.server.request('POST', '/v1/blueprints', { body: { yaml } });
    assert.ok(registered.status < 300, registered.text);
  });
  after(async () => {
    await c?.close();
  });

  /** Runs `body` with the token; returns the program's value and the requests it caused. */
  async function run(body: string, withSecret = true): Promise<{ value: any; sent: StandInRequest[] }> {
    const before = c.api.requests.length;
    const out = await c.run(program(body), withSecret ? { secrets } : {});
    assert.equal(out.error, undefined, JSON.stringify(out.error));
    return { value: out.value, sent: c.api.requests.slice(before) };
  }

  /** Runs `body` under the Blueprint that grants main no GitHub capability. */
  async function runUngranted(body: string): Promise<{ value: any; sent: StandInRequest[] }> {
    const before = c.api.requests.length;
    const reply = await c.server.request('POST', '/v1/execute', { token: c.server.userToken, body: { blueprint: 'github-nothing', code: program(body), secrets } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.error ?? null, null, reply.text);
    return { value: JSON.parse(reply.json.result), sent: c.api.requests.slice(before) };
  }

  test('the build derived exactly the requires its readme documents', () => {
    assert.deepEqual(derivedRequires(c.home, '@svc/github'), [
      { capability: 'http.delete', filter: 'host == "api.github.com"' },
      { capability: 'http.get', filter: 'host == "api.github.com"' },
      { capability: 'http.patch', filter: 'host == "api.github.com"' },
      { capability: 'http.post', filter: 'host == "api.github.com"' },
      { capability: 'http.post', filter: 'host == "api.github.com" and path == "/graphql"' },
      { capability: 'http.put', filter: 'host == "api.github.com"' },
      { capability: 'secrets.get', filter: 'name == "GITHUB_TOKEN"' },
    ]);
  });

  test('every request carries the bearer token, the JSON media type and the API version; the token never reaches the program', async () => {
    const { value, sent } = await run('return github.getViewer();');
    assert.equal(sent.length, 1);
    assert.equal(sent[0].method, 'GET');
    assert.equal(sent[0].path, '/user');
    assert.equal(sent[0].headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(sent[0].headers.accept, 'application/vnd.github+json');
    assert.equal(sent[0].headers['x-github-api-version'], '2022-11-28');
    assert.deepEqual(value, { login: 'octocat', id: 1, type: 'User', htmlUrl: 'https://github.com/octocat', name: 'The Octocat', email: 'octocat@example.com', company: '@github', bio: null, publicRepos: 8, createdAt: '2011-01-25T18:44:36Z' });
    assert.ok(!JSON.stringify(value).includes(TOKEN));
  });

  test('repository, branch and missing resources: normalised objects, null for a 404 read, lower-cased owner and name', async () => {
    const { value, sent } = await run(`return {
      repository: github.getRepository({ owner: "ACME", name: "Widgets" }),
      missing: github.getRepository({ owner: "acme", name: "nothing" }),
      branch: github.getBranch(repo, "main"),
      slashed: github.getBranch(repo, "feature/x"),
      noBranch: github.getBranch(repo, "gone"),
      issue: github.getIssue(repo, 999),
      pull: github.getPullRequest(repo, 999),
      commit: github.getCommit(repo, "${'f'.repeat(40)}"),
    };`);
    assert.deepEqual(sent.map((r) => `${r.method} ${r.path}`), [
      'GET /repos/acme/widgets',
      'GET /repos/acme/nothing',
      'GET /repos/acme/widgets/branches/main',
      'GET /repos/acme/widgets/branches/feature/x',
      'GET /repos/acme/widgets/branches/gone',
      'GET /repos/acme/widgets/issues/999',
      'GET /repos/acme/widgets/pulls/999',
      `GET /repos/acme/widgets/commits/${'f'.repeat(40)}`,
    ]);
    assert.equal(value.repository.fullName, 'acme/widgets');
    assert.equal(value.repository.defaultBranch, 'main');
    assert.equal(value.repository.stars, 42);
    assert.deepEqual(value.repository.topics, ['widgets', 'parts']);
    assert.equal(value.missing, null);
    assert.deepEqual(value.branch, { name: 'main', sha: INITIAL_HEAD, protected: true });
    assert.equal(value.slashed.name, 'feature/x');
    assert.equal(value.noBranch, null);
    assert.equal(value.issue, null);
    assert.equal(value.pull, null);
    assert.equal(value.commit, null);
  });

  test('lists page with an opaque nextPageToken that carries no URL', async () => {
    const { value, sent } = await run(`const first = github.listBranches(repo, { perPage: 1 });
      const second = github.listBranches(repo, { perPage: 1, pageToken: first.nextPageToken });
      return { first, second };`);
    assert.equal(sent[0].path, '/repos/acme/widgets/branches?per_page=1&page=1');
    assert.equal(sent[1].path, '/repos/acme/widgets/branches?per_page=1&page=2');
    assert.equal(typeof value.first.nextPageToken, 'string');
    assert.doesNotMatch(value.first.nextPageToken, /https?:|github|\//);
    assert.deepEqual(value.first.items, [{ name: 'main', sha: INITIAL_HEAD, protected: true }]);
    assert.equal(value.second.items[0].name, 'sprockets');
    assert.equal(value.second.nextPageToken, null);
    const forged = await run('return github.listBranches(repo, { pageToken: "https://evil.example/x" });');
    assert.equal(forged.value.error.code, 'invalid_argument');
    assert.match(forged.value.error.message, /options\.pageToken/);
    assert.equal(forged.sent.length, 0);
  });

  test('contents: text, bytes (inline and through the blob API above 1 MB), directories, the 10 MiB cap and non-UTF-8 text', async () => {
    const { value, sent } = await run(`const large = github.readFile(repo, "assets/large.bin", { ref: "main" });
      return {
        text: github.readTextFile(repo, "/README.md"),
        bytes: github.readFile(repo, "assets/binary.bin"),
        largeSize: large && large.size, largeHead: large && large.contentBase64.slice(0, 8), largeLength: large && large.contentBase64.length,
        missing: github.readTextFile(repo, "nope.txt"),
        root: github.listDirectory(repo),
        dir: github.listDirectory(repo, "src"),
        tree: github.getTree(repo, "main", { recursive: true }),
      };`);
    assert.equal(value.text, README);
    assert.deepEqual({ ...value.bytes, contentBase64: Buffer.from(value.bytes.contentBase64, 'base64').toString('hex') }, { path: 'assets/binary.bin', sha: value.bytes.sha, size: BINARY.length, contentBase64: BINARY.toString('hex') });
    assert.equal(value.largeSize, LARGE.length);
    assert.equal(value.largeHead, LARGE.subarray(0, 6).toString('base64'));
    assert.equal(value.largeLength, LARGE.toString('base64').length);
    assert.equal(value.missing, null);
    assert.deepEqual(value.root.map((e: any) => `${e.type} ${e.path}`), ['file README.md', 'dir src']);
    assert.deepEqual(value.dir.map((e: any) => e.path), ['src/sprocket.ts', 'src/lib']);
    assert.deepEqual(value.tree.entries.map((e: any) => e.path), ['README.md', 'src', 'src/sprocket.ts']);
    assert.deepEqual(sent.map((r) => r.path), [
      '/repos/acme/widgets/contents/assets/large.bin?ref=main',
      `/repos/acme/widgets/git/blobs/${sent[1].path.split('/').pop()}`,
      '/repos/acme/widgets/contents/README.md',
      '/repos/acme/widgets/contents/assets/binary.bin',
      '/repos/acme/widgets/contents/nope.txt',
      '/repos/acme/widgets/contents',
      '/repos/acme/widgets/contents/src',
      '/repos/acme/widgets/git/trees/main?recursive=1',
    ]);
    // File reads ask for the object media type (the default one refuses files over 1 MB).
    assert.deepEqual(sent.filter((r) => r.path.includes('/contents/assets')).map((r) => r.headers.accept), ['application/vnd.github.object+json', 'application/vnd.github.object+json']);
    const directory = await run('return github.readTextFile(repo, "src");');
    assert.equal(directory.value.error.code, 'not_a_file');
    const huge = await run('return github.readFile(repo, "assets/huge.bin");');
    assert.equal(huge.value.error.code, 'too_large');
    assert.equal(huge.sent.length, 1, 'the size is known from the metadata: no content is fetched');
    const binaryText = await run('return github.readTextFile(repo, "assets/binary.bin");');
    assert.equal(binaryText.value.error.code, 'not_text');
    const climbing = await run('return github.readTextFile(repo, "src/../../secret");');
    assert.equal(climbing.value.error.code, 'invalid_argument');
    assert.equal(climbing.sent.length, 0);
  });

  test('commitFiles: blobs, tree on the head tree, commit with the head as parent, then a non-forced ref update', async () => {
    state.head = INITIAL_HEAD;
    const { value, sent } = await run(`return github.commitFiles(repo, "main", {
      message: "Update docs", expectedHeadSha: "${INITIAL_HEAD}",
      files: [{ path: "README.md", content: "# Widgets v2\\n" }, { path: "bin/run", contentBase64: "IyEvYmluL3No", mode: "100755" }, { path: "old.txt", delete: true }],
    });`);
    assert.deepEqual(sent.map((r) => `${r.method} ${r.path.replace(/[0-9a-f]{40}/, '<sha>')}`), [
      'GET /repos/acme/widgets/git/ref/heads/main',
      'GET /repos/acme/widgets/git/commits/<sha>',
      'POST /repos/acme/widgets/git/blobs',
      'POST /repos/acme/widgets/git/blobs',
      'POST /repos/acme/widgets/git/trees',
      'POST /repos/acme/widgets/git/commits',
      'PATCH /repos/acme/widgets/git/refs/heads/main',
    ]);
    assert.deepEqual(sent[2].json, { content: '# Widgets v2\n', encoding: 'utf-8' });
    assert.deepEqual(sent[3].json, { content: 'IyEvYmluL3No', encoding: 'base64' });
    const tree = sent[4].json;
    assert.equal(tree.tree.length, 3);
    assert.deepEqual(tree.tree[2], { path: 'old.txt', mode: '100644', type: 'blob', sha: null });
    assert.equal(tree.tree[1].mode, '100755');
    assert.deepEqual(sent[5].json.parents, [INITIAL_HEAD]);
    assert.equal(sent[5].json.message, 'Update docs');
    assert.deepEqual(sent[6].json, { sha: value.sha, force: false });
    assert.equal(value.parentSha, INITIAL_HEAD);
    assert.equal(value.branch, 'main');
    assert.equal(state.head, value.sha);
  });

  test('commitFiles refuses with branch_moved when the head is not the expected one, before writing anything', async () => {
    const { value, sent } = await run(`return github.commitFiles(repo, "main", { message: "m", expectedHeadSha: "${'a'.repeat(40)}", files: [{ path: "x.txt", content: "x" }] });`);
    assert.equal(value.error.name, 'GitHubError');
    assert.equal(value.error.code, 'branch_moved');
    assert.deepEqual(sent.map((r) => r.method), ['GET']);
  });

  test('commitFiles reports branch_moved when the branch moves during the commit (the ref update is never forced)', async () => {
    const head = state.head;
    state.raceOnUpdate = true;
    const updates = state.refUpdates.length;
    const { value } = await run(`return github.commitFiles(repo, "main", { message: "m", expectedHeadSha: "${head}", files: [{ path: "x.txt", content: "x" }] });`);
    assert.equal(value.error.code, 'branch_moved');
    assert.equal(value.error.status, 422);
    assert.deepEqual(state.refUpdates.slice(updates).map((u) => u.force), [false]);
  });

  test('issues and comments: list without pull requests, create, update, comment', async () => {
    const { value, sent } = await run(`return {
      list: github.listIssues(repo, { state: "all", labels: ["bug", "ui"], perPage: 50 }),
      issue: github.getIssue(repo, 1),
      created: github.createIssue(repo, { title: "New", body: "Text", labels: ["bug"] }),
      updated: github.updateIssue(repo, 1, { state: "closed", stateReason: "completed" }),
      comments: github.listIssueComments(repo, 1),
      comment: github.addIssueComment(repo, 1, "Thanks!"),
      labels: github.listLabels(repo),
    };`);
    assert.equal(sent[0].path, '/repos/acme/widgets/issues?per_page=50&page=1&state=all&labels=bug%2Cui');
    assert.deepEqual(value.list.items.map((i: any) => i.number), [1, 2]);
    assert.equal(typeof value.list.nextPageToken, 'string');
    assert.deepEqual(value.issue, {
      number: 1, title: 'Issue 1', body: 'It breaks.', state: 'open', stateReason: null, author: 'octocat', assignees: ['hubot'], labels: ['bug'], milestone: 'v1.0',
      comments: 1, isPullRequest: false, locked: false, createdAt: '2024-04-01T00:00:00Z', updatedAt: '2024-04-02T00:00:00Z', closedAt: null,
      htmlUrl: 'https://github.com/acme/widgets/issues/1', repository: 'acme/widgets',
    });
    assert.deepEqual(sent[2].json, { title: 'New', body: 'Text', labels: ['bug'] });
    assert.equal(value.created.number, 3);
    assert.deepEqual([sent[3].method, sent[3].path, sent[3].json], ['PATCH', '/repos/acme/widgets/issues/1', { state: 'closed', state_reason: 'completed' }]);
    assert.equal(value.updated.state, 'closed');
    assert.deepEqual(value.comments.items[0], { id: 11, author: 'hubot', body: 'Me too', createdAt: '2024-04-03T00:00:00Z', updatedAt: '2024-04-03T00:00:00Z', htmlUrl: 'https://github.com/acme/widgets/issues/1#issuecomment-11' });
    assert.deepEqual([sent[5].method, sent[5].path, sent[5].json], ['POST', '/repos/acme/widgets/issues/1/comments', { body: 'Thanks!' }]);
    assert.equal(value.comment.id, 12);
    assert.deepEqual(value.labels.items, [{ name: 'bug', color: 'd73a4a', description: 'Something is broken' }]);
  });

  test('pull requests: get, diff, list, create, update, merge (and not_mergeable / branch_moved), files, reviews, comments, reactions', async () => {
    const { value, sent } = await run(`return {
      pull: github.getPullRequest(repo, 7),
      diff: github.getPullRequestDiff(repo, 7),
      list: github.listPullRequests(repo, { state: "open", head: "sprockets", base: "main" }),
      created: github.createPullRequest(repo, { title: "Gears", head: "gears", base: "main", draft: true }),
      updated: github.updatePullRequest(repo, 7, { title: "Better sprockets" }),
      merged: github.mergePullRequest(repo, 7, { method: "squash", expectedHeadSha: github.getPullRequest(repo, 7)!.head.sha }),
      files: github.listPullRequestFiles(repo, 7),
      reviews: github.listPullRequestReviews(repo, 7),
      review: github.createPullRequestReview(repo, 7, { event: "REQUEST_CHANGES", body: "Please fix", comments: [{ path: "src/sprocket.ts", line: 3, body: "off by one" }] }),
      comments: github.listPullRequestComments(repo, 7),
      comment: github.addPullRequestComment(repo, 7, { body: "Here", path: "src/sprocket.ts", line: 5 }),
      reply: github.addPullRequestComment(repo, 7, { body: "Done", inReplyTo: 90 }),
      reactions: github.getPullRequestReactions(repo, 7),
    };`);
    const at = (method: string, path: string) => sent.find((r) => r.method === method && r.path === path);
    assert.equal(value.pull.head.ref, 'sprockets');
    assert.equal(value.pull.mergeable, true);
    assert.equal(value.pull.additions, 10);
    assert.deepEqual(value.pull.requestedReviewers, ['hubot']);
    assert.match(value.diff, /^diff --git a\/src\/sprocket\.ts/);
    assert.equal(sent[1].headers.accept, 'application/vnd.github.diff');
    assert.equal(sent[2].path, '/repos/acme/widgets/pulls?per_page=30&page=1&state=open&head=acme%3Asprockets&base=main');
    assert.equal(value.list.items[0].mergeable, null);
    assert.deepEqual(at('POST', '/repos/acme/widgets/pulls')!.json, { title: 'Gears', head: 'gears', base: 'main', draft: true });
    assert.deepEqual(at('PATCH', '/repos/acme/widgets/pulls/7')!.json, { title: 'Better sprockets' });
    assert.equal(value.updated.title, 'Better sprockets');
    assert.deepEqual(at('PUT', '/repos/acme/widgets/pulls/7/merge')!.json, { merge_method: 'squash', sha: value.pull.head.sha });
    assert.equal(value.merged.merged, true);
    assert.deepEqual(value.files.items[1], { filename: 'src/gear.ts', status: 'renamed', additions: 0, deletions: 3, changes: 3, patch: null, previousFilename: 'src/cog.ts', sha: value.files.items[1].sha });
    assert.equal(value.reviews.items[0].state, 'APPROVED');
    assert.deepEqual(at('POST', '/repos/acme/widgets/pulls/7/reviews')!.json, { event: 'REQUEST_CHANGES', body: 'Please fix', comments: [{ path: 'src/sprocket.ts', line: 3, body: 'off by one' }] });
    assert.equal(value.review.state, 'CHANGES_REQUESTED');
    assert.equal(value.comments.items[0].line, 4);
    const commentPosts = sent.filter((r) => r.method === 'POST' && r.path === '/repos/acme/widgets/pulls/7/comments');
    assert.deepEqual(commentPosts.map((r) => r.json), [
      { body: 'Here', path: 'src/sprocket.ts', line: 5, commit_id: value.pull.head.sha, side: 'RIGHT' },
      { body: 'Done', in_reply_to: 90 },
    ]);
    assert.equal(value.reply.inReplyToId, 90);
    assert.deepEqual(value.reactions.counts, { '+1': 2, rocket: 1 });

    const refused = await run(`return { notMergeable: (() => { try { return github.mergePullRequest(repo, 8); } catch (e: any) { return e.code; } })(),
      moved: (() => { try { return github.mergePullRequest(repo, 7, { expectedHeadSha: "${'b'.repeat(40)}" }); } catch (e: any) { return e.code; } })() };`);
    assert.deepEqual(refused.value, { notMergeable: 'not_mergeable', moved: 'branch_moved' });
  });

  test('commits, releases, teams, rate limit and the account-wide searches', async () => {
    const { value, sent } = await run(`return {
      commits: github.listCommits(repo, { sha: "main", path: "src/sprocket.ts", since: "2024-01-01" }),
      commit: github.getCommit(repo, "main"),
      releases: github.listReleases(repo),
      latest: github.getLatestRelease(repo),
      teams: github.listTeams(),
      members: github.listTeamMembers("ACME", "core"),
      limit: github.getRateLimit(),
      repos: github.searchRepositories("widgets language:ts", { sort: "stars" }),
      users: github.searchUsers("octo"),
      code: github.searchCode(repo, "teeth language:ts"),
    };`);
    assert.equal(sent[0].path, '/repos/acme/widgets/commits?per_page=30&page=1&sha=main&path=src%2Fsprocket.ts&since=2024-01-01');
    assert.equal(value.commits.items[0].files, null);
    assert.equal(value.commit.files[0].filename, 'README.md');
    assert.equal(value.commit.authorLogin, 'octocat');
    assert.equal(value.releases.items[0].tagName, 'v1.0.0');
    assert.equal(value.latest.assets[0].downloadUrl, 'https://github.com/acme/widgets/releases/download/v1.0.0/widgets.tgz');
    assert.deepEqual(value.teams.items[0], { id: 1, slug: 'core', name: 'Core', description: 'Core team', org: 'acme', privacy: 'closed', htmlUrl: 'https://github.com/orgs/acme/teams/core' });
    assert.deepEqual(value.members.items.map((m: any) => m.login), ['octocat', 'hubot']);
    assert.deepEqual(value.limit.resources.search, { limit: 30, remaining: 29, used: 1, reset: 1714560000 });
    assert.equal(sent.find((r) => r.path.startsWith('/search/repositories'))!.path, '/search/repositories?q=widgets%20language%3Ats&sort=stars&per_page=30&page=1');
    assert.equal(value.repos.totalCount, 1234);
    assert.equal(value.repos.items[0].fullName, 'acme/widgets');
    assert.equal(value.users.items[0].login, 'octocat');
    assert.equal(sent.find((r) => r.path.startsWith('/search/code'))!.path, '/search/code?q=teeth%20language%3Ats%20repo%3Aacme%2Fwidgets&per_page=30&page=1');
    assert.deepEqual(value.code.items[0], { name: 'sprocket.ts', path: 'src/sprocket.ts', sha: value.code.items[0].sha, repository: 'acme/widgets', htmlUrl: 'https://github.com/acme/widgets/blob/main/src/sprocket.ts' });
  });

  test('repository-scoped searches add repo: and is:issue / is:pr, and refuse syntax that leaves the repository before any check', async () => {
    const { value, sent } = await run(`return {
      issues: github.searchIssues(repo, "crash label:bug"),
      pulls: github.searchPullRequests(repo, "review:required"),
      summaries: github.searchPullRequestSummaries(repo, "draft:false", { perPage: 5 }),
    };`);
    assert.equal(new URL(sent[0].path, 'https://x').searchParams.get('q'), 'crash label:bug repo:acme/widgets is:issue');
    assert.equal(new URL(sent[1].path, 'https://x').searchParams.get('q'), 'review:required repo:acme/widgets is:pr');
    assert.equal(value.issues.totalCount, 1234);
    assert.equal(sent[2].path, '/graphql');
    assert.deepEqual(sent[2].json.variables, { q: 'draft:false repo:acme/widgets is:pr', first: 5, after: null });
    assert.equal(value.summaries.items.length, 1);
    assert.deepEqual(value.summaries.items[0], {
      number: 7, title: 'Add sprockets (draft:false repo:acme/widgets is:pr)', state: 'OPEN', isDraft: false, author: 'octocat', createdAt: '2024-04-10T00:00:00Z', mergedAt: null,
      additions: 10, deletions: 3, changedFiles: 2, reviewDecision: 'REVIEW_REQUIRED', headRef: 'sprockets', baseRef: 'main', labels: ['feature'], url: 'https://github.com/acme/widgets/pull/7',
    });
    const next = await run(`return github.searchPullRequestSummaries(repo, null, { pageToken: ${JSON.stringify(value.summaries.nextPageToken)} });`);
    assert.equal(next.sent[0].json.variables.after, 'Y3Vyc29yOjE=');

    // Under a Blueprint that grants nothing: invalid_argument (not a denial) shows the refusal comes before the check.
    for (const [call, word] of [
      ['searchIssues(repo, "bug repo:other/secret")', 'repo:'],
      ['searchIssues(repo, "bug org:other")', 'org:'],
      ['searchCode(repo, "key user:someone")', 'user:'],
      ['searchIssues(repo, "x is:pr")', 'is:pr'],
      ['searchPullRequests(repo, "x is:issue")', 'is:issue'],
      ['searchPullRequests(repo, "a OR b")', 'OR'],
      ['searchPullRequestSummaries(repo, "x -repo:a/b")', 'repo:'],
    ]) {
      const out = await runUngranted(`return github.${call};`);
      assert.equal(out.value.error.code, 'invalid_argument', call);
      assert.ok(out.value.error.message.includes(word), `${call}: ${out.value.error.message}`);
      assert.equal(out.sent.length, 0, call);
    }
  });

  test('cross-repository searches send their own fields to the check; a filtered grant denies other authors with no request', async () => {
    const { value, sent } = await run(`return {
      issues: github.searchIssuesAcrossRepositories("leak org:acme", { author: "octocat", createdSince: "2024-01-01", createdUntil: "2024-06-30" }),
      pulls: github.searchPullRequestsAcrossRepositories("bump", { createdSince: "2024-01-01" }),
    };`);
    assert.equal(new URL(sent[0].path, 'https://x').searchParams.get('q'), 'leak org:acme is:issue author:octocat created:2024-01-01..2024-06-30');
    assert.equal(new URL(sent[1].path, 'https://x').searchParams.get('q'), 'bump is:pr created:>=2024-01-01');
    assert.equal(value.issues.items[1].isPullRequest, true);
    const denied = await run('return github.searchIssuesAcrossRepositories("leak", { author: "hubot" });');
    assert.equal(denied.value.error.name, 'PermissionDeniedError');
    assert.equal(denied.value.error.capability, 'github.com/issues.searchAcrossRepositories');
    assert.equal(denied.sent.length, 0);
    const smuggled = await run('return github.searchIssuesAcrossRepositories("leak author:hubot", { author: "octocat" });');
    assert.equal(smuggled.value.error.code, 'invalid_argument');
    assert.equal(smuggled.sent.length, 0);
  });

  test('denials: an ungranted capability, a filter on owner and `base == null` refuse with no request sent', async () => {
    const { value, sent } = await run(`const r = (f: () => unknown) => { try { f(); return "allowed"; } catch (e: any) { return e.name + " " + (e.capability ?? e.code); } };
      return {
        deleteBranch: r(() => github.deleteBranch(repo, "old")),
        otherOwner: r(() => github.getRepository({ owner: "someone", name: "private" })),
        rebase: r(() => github.updatePullRequest(repo, 7, { base: "release" })),
      };`);
    assert.deepEqual(value, {
      deleteBranch: 'PermissionDeniedError github.com/branches.delete',
      otherOwner: 'PermissionDeniedError github.com/repositories.get',
      rebase: 'PermissionDeniedError github.com/pulls.update',
    });
    assert.equal(sent.length, 0);
  });

  test('without GITHUB_TOKEN every operation throws missing_token and sends nothing', async () => {
    const { value, sent } = await run('return github.getRepository(repo);', false);
    assert.equal(value.error.name, 'GitHubError');
    assert.equal(value.error.code, 'missing_token');
    assert.equal(value.error.status, 0);
    assert.match(value.error.message, /GITHUB_TOKEN/);
    assert.equal(sent.length, 0);
    const others = await run(`const r = (f: () => unknown) => { try { f(); return "no error"; } catch (e: any) { return e.code; } };
      return [r(() => github.searchPullRequestSummaries(repo)), r(() => github.commitFiles(repo, "main", { message: "m", expectedHeadSha: "${INITIAL_HEAD}", files: [{ path: "a", content: "b" }] })), r(() => github.mergePullRequest(repo, 7))];`, false);
    assert.deepEqual(others.value, ['missing_token', 'missing_token', 'missing_token']);
    assert.equal(others.sent.length, 0);
  });

  test("GitHub's error answers map to codes with request id, documentation URL, rate-limit and validation metadata", async () => {
    const { value } = await run(`const out: Record<string, unknown> = {};
      for (const name of ["s401", "s403", "s403-rate", "s404", "s422", "s429", "s500", "bad-json", "drop"]) {
        try { github.listBranches({ owner: "errors", name }); out[name] = "no error"; }
        catch (e: any) { out[name] = { name: e.name, code: e.code ?? null, status: e.status ?? null, message: e.message, requestId: e.requestId, documentationUrl: e.documentationUrl, retryAfterSeconds: e.retryAfterSeconds, rateLimitRemaining: e.rateLimitRemaining, rateLimitReset: e.rateLimitReset, errors: e.errors }; }
      }
      return out;`);
    assert.deepEqual([value.s401.name, value.s401.code, value.s401.status, value.s401.requestId], ['GitHubError', 'unauthorized', 401, 'ERR:s401']);
    assert.deepEqual([value.s403.code, value.s403.documentationUrl, value.s403.retryAfterSeconds], ['forbidden', 'https://docs.github.com/rest/branches/branches#list-branches', null]);
    assert.equal(value['s403-rate'].code, 'rate_limited');
    assert.equal(value['s403-rate'].status, 403);
    assert.equal(value['s403-rate'].rateLimitRemaining, 0);
    assert.ok(value['s403-rate'].retryAfterSeconds > 0 && value['s403-rate'].retryAfterSeconds <= 120, String(value['s403-rate'].retryAfterSeconds));
    assert.equal(typeof value['s403-rate'].rateLimitReset, 'number');
    assert.deepEqual([value.s404.code, value.s404.status], ['not_found', 404]);
    assert.deepEqual([value.s422.code, value.s422.errors], ['http_error', [{ resource: 'Issue', field: 'title', code: 'missing_field', message: null }]]);
    assert.deepEqual([value.s429.code, value.s429.status, value.s429.retryAfterSeconds, value.s429.rateLimitRemaining], ['rate_limited', 429, 7, 0]);
    assert.deepEqual([value.s500.code, value.s500.status], ['http_error', 500]);
    assert.deepEqual([value['bad-json'].code, value['bad-json'].status], ['invalid_response', 200]);
    // A transport failure is svc:http's own Error, passed through unchanged (not a GitHubError).
    assert.deepEqual([value.drop.name, value.drop.code], ['Error', null]);
    assert.ok(!JSON.stringify(value).includes(TOKEN));
  });

  test('bad arguments throw invalid_argument naming the field, before any check or request', async () => {
    const { value, sent } = await runUngranted(`const r = (f: () => unknown) => { try { f(); return "no error"; } catch (e: any) { return e.code + ": " + e.message; } };
      return [
        r(() => github.getRepository("acme/widgets" as any)),
        r(() => github.getRepository({ owner: "acme", name: "../x" })),
        r(() => github.getIssue(repo, 0)),
        r(() => github.getBranch(repo, "a..b")),
        r(() => github.commitFiles(repo, "main", { message: "m", expectedHeadSha: "abc", files: [] })),
        r(() => github.listIssues(repo, { perPage: 500 })),
      ];`);
    assert.equal(sent.length, 0);
    const [bareString, badName, zero, dots, short, perPage] = value as string[];
    assert.match(bareString, /^invalid_argument: repository: expected an object \{owner, name\}/);
    assert.match(badName, /^invalid_argument: repository\.name/);
    assert.match(zero, /^invalid_argument: number/);
    assert.match(dots, /^invalid_argument: branch/);
    assert.match(short, /^invalid_argument: input\.expectedHeadSha/);
    assert.match(perPage, /^invalid_argument: options\.perPage/);
  });
});
