// A small in-memory GitHub for @svc/github's integration tests, answering on api.github.com
// with the shapes of GitHub's REST v3 (2022-11-28) and GraphQL documentation: one repository
// acme/widgets (branch main, a few files, issues, pull requests) plus error repositories
// errors/s<status> whose reads answer that status with GitHub's headers.
import crypto from 'node:crypto';
import type { StandInReply, StandInRequest } from '../stand-in';

export const OWNER = 'acme';
export const REPO = 'widgets';
const API = 'https://api.github.com';
const WEB = 'https://github.com';

export const README = '# Widgets\n\nSmall parts, well made. ✓\n';
/** A 2 MiB file: the contents API (object media type) leaves its content out, the blob API returns it. */
export const LARGE = Buffer.alloc(2 * 1024 * 1024, 0x61);
/** Not UTF-8. */
export const BINARY = Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80]);

const sha1 = (text: string) => crypto.createHash('sha1').update(text).digest('hex');
const blobSha = (bytes: Buffer) => sha1(`blob ${bytes.length}\0${bytes.toString('latin1')}`);

export const INITIAL_HEAD = sha1('commit-1');
const INITIAL_TREE = sha1('tree-1');

const owner = { login: OWNER, id: 100, node_id: 'O_acme', type: 'Organization', site_admin: false, html_url: `${WEB}/${OWNER}`, url: `${API}/users/${OWNER}` };
const octocat = { login: 'octocat', id: 1, node_id: 'U_octocat', type: 'User', site_admin: false, html_url: `${WEB}/octocat`, url: `${API}/users/octocat` };
const hubot = { login: 'hubot', id: 2, node_id: 'U_hubot', type: 'User', site_admin: false, html_url: `${WEB}/hubot`, url: `${API}/users/hubot` };

export function repositoryJson(name = REPO) {
  return {
    id: 1296269,
    node_id: 'R_widgets',
    name,
    full_name: `${OWNER}/${name}`,
    owner,
    private: false,
    html_url: `${WEB}/${OWNER}/${name}`,
    description: 'Widgets for everyone',
    fork: false,
    url: `${API}/repos/${OWNER}/${name}`,
    clone_url: `${WEB}/${OWNER}/${name}.git`,
    homepage: null,
    language: 'TypeScript',
    forks_count: 3,
    stargazers_count: 42,
    watchers_count: 42,
    open_issues_count: 2,
    default_branch: 'main',
    topics: ['widgets', 'parts'],
    archived: false,
    disabled: false,
    visibility: 'public',
    pushed_at: '2024-05-01T10:00:00Z',
    created_at: '2020-01-01T00:00:00Z',
    updated_at: '2024-05-01T10:00:00Z',
  };
}

function issueJson(number: number, extra: Record<string, unknown> = {}) {
  return {
    id: 1000 + number,
    node_id: `I_${number}`,
    url: `${API}/repos/${OWNER}/${REPO}/issues/${number}`,
    repository_url: `${API}/repos/${OWNER}/${REPO}`,
    html_url: `${WEB}/${OWNER}/${REPO}/issues/${number}`,
    number,
    state: 'open',
    state_reason: null,
    title: `Issue ${number}`,
    body: 'It breaks.',
    user: octocat,
    labels: [{ id: 1, node_id: 'L_bug', name: 'bug', color: 'd73a4a', description: 'Something is broken', default: true }],
    assignees: [hubot],
    milestone: { title: 'v1.0', number: 1, state: 'open' },
    locked: false,
    comments: 1,
    created_at: '2024-04-01T00:00:00Z',
    updated_at: '2024-04-02T00:00:00Z',
    closed_at: null,
    author_association: 'CONTRIBUTOR',
    ...extra,
  };
}

function pullJson(number: number, extra: Record<string, unknown> = {}) {
  return {
    id: 2000 + number,
    node_id: `PR_${number}`,
    url: `${API}/repos/${OWNER}/${REPO}/pulls/${number}`,
    html_url: `${WEB}/${OWNER}/${REPO}/pull/${number}`,
    diff_url: `${WEB}/${OWNER}/${REPO}/pull/${number}.diff`,
    number,
    state: 'open',
    locked: false,
    title: 'Add sprockets',
    user: octocat,
    body: 'Adds sprockets.',
    labels: [{ id: 2, node_id: 'L_feat', name: 'feature', color: 'a2eeef', description: null, default: false }],
    created_at: '2024-04-10T00:00:00Z',
    updated_at: '2024-04-11T00:00:00Z',
    closed_at: null,
    merged_at: null,
    merge_commit_sha: null,
    assignees: [],
    requested_reviewers: [hubot],
    draft: false,
    head: { label: `${OWNER}:sprockets`, ref: 'sprockets', sha: sha1('pr-head'), user: owner, repo: repositoryJson() },
    base: { label: `${OWNER}:main`, ref: 'main', sha: INITIAL_HEAD, user: owner, repo: repositoryJson() },
    merged: false,
    mergeable: true,
    mergeable_state: 'clean',
    comments: 0,
    review_comments: 1,
    commits: 2,
    additions: 10,
    deletions: 3,
    changed_files: 2,
    ...extra,
  };
}

const commitJson = (sha: string, message: string, withFiles: boolean) => ({
  sha,
  node_id: `C_${sha.slice(0, 6)}`,
  url: `${API}/repos/${OWNER}/${REPO}/commits/${sha}`,
  html_url: `${WEB}/${OWNER}/${REPO}/commit/${sha}`,
  commit: {
    author: { name: 'Octo Cat', email: 'octocat@example.com', date: '2024-05-01T10:00:00Z' },
    committer: { name: 'GitHub', email: 'noreply@github.com', date: '2024-05-01T10:00:00Z' },
    message,
    tree: { sha: INITIAL_TREE, url: `${API}/repos/${OWNER}/${REPO}/git/trees/${INITIAL_TREE}` },
    comment_count: 0,
  },
  author: octocat,
  committer: null,
  parents: [{ sha: sha1('commit-0'), url: '', html_url: '' }],
  ...(withFiles
    ? { stats: { total: 3, additions: 2, deletions: 1 }, files: [{ sha: blobSha(Buffer.from(README)), filename: 'README.md', status: 'modified', additions: 2, deletions: 1, changes: 3, patch: '@@ -1 +1,2 @@\n-# W\n+# Widgets\n+' }] }
    : {}),
});

const reviewCommentJson = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  node_id: `RC_${id}`,
  pull_request_review_id: 80,
  diff_hunk: '@@ -1 +1 @@',
  path: 'src/sprocket.ts',
  commit_id: sha1('pr-head'),
  original_commit_id: sha1('pr-head'),
  user: hubot,
  body: 'Nit: rename this.',
  created_at: '2024-04-11T00:00:00Z',
  updated_at: '2024-04-11T00:00:00Z',
  html_url: `${WEB}/${OWNER}/${REPO}/pull/7#discussion_r${id}`,
  author_association: 'MEMBER',
  start_line: null,
  original_start_line: null,
  start_side: null,
  line: 4,
  original_line: 4,
  side: 'RIGHT',
  ...extra,
});

export interface GitHubState {
  head: string;
  /** When set, the next ref update finds the branch moved (a push between read and update). */
  raceOnUpdate: boolean;
  blobs: Array<{ content: string; encoding: string; sha: string }>;
  trees: Array<{ base_tree: string; tree: unknown[]; sha: string }>;
  commits: Array<{ message: string; tree: string; parents: string[]; sha: string }>;
  refUpdates: Array<{ sha: string; force: unknown }>;
}

/** Link header of page `page` of a two-page list (`path` without query). */
function link(path: string, page: number, last = 2): Record<string, string> {
  if (page >= last) return { link: `<${API}${path}?page=1>; rel="first", <${API}${path}?page=${page - 1}>; rel="prev"` };
  return { link: `<${API}${path}?page=${page + 1}>; rel="next", <${API}${path}?page=${last}>; rel="last"` };
}

const ok = (json: unknown, headers: Record<string, string> = {}): StandInReply => ({ status: 200, json, headers: { 'x-github-request-id': 'ABCD:1234', 'x-ratelimit-remaining': '4999', ...headers } });
const notFound = (): StandInReply => ({ status: 404, json: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' }, headers: { 'x-github-request-id': 'NF:1' } });

/** The error answer GitHub gives for `status` (errors/s<status> repositories). */
function errorAnswer(kind: string): StandInReply {
  const reset = String(Math.floor(Date.now() / 1000) + 120);
  const base = { 'x-github-request-id': `ERR:${kind}`, 'x-ratelimit-limit': '5000', 'x-ratelimit-reset': reset };
  switch (kind) {
    case 's401':
      return { status: 401, headers: base, json: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' } };
    case 's403':
      return { status: 403, headers: { ...base, 'x-ratelimit-remaining': '4000' }, json: { message: 'Resource not accessible by personal access token', documentation_url: 'https://docs.github.com/rest/branches/branches#list-branches', status: '403' } };
    case 's403-rate':
      return { status: 403, headers: { ...base, 'x-ratelimit-remaining': '0' }, json: { message: 'API rate limit exceeded for user ID 1.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api', status: '403' } };
    case 's404':
      return notFound();
    case 's422':
      return { status: 422, headers: base, json: { message: 'Validation Failed', errors: [{ resource: 'Issue', code: 'missing_field', field: 'title' }], documentation_url: 'https://docs.github.com/rest/issues/issues#create-an-issue', status: '422' } };
    case 's429':
      return { status: 429, headers: { ...base, 'x-ratelimit-remaining': '0', 'retry-after': '7' }, json: { message: 'You have exceeded a secondary rate limit.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits', status: '429' } };
    case 'drop':
      return { destroy: true };
    case 'bad-json':
      return { status: 200, headers: base, body: '<html>oops</html>' };
    default:
      return { status: 500, headers: base, json: { message: 'Server Error' } };
  }
}

export function gitHubStandIn(): { state: GitHubState; handler: (request: StandInRequest) => StandInReply } {
  const state: GitHubState = { head: INITIAL_HEAD, raceOnUpdate: false, blobs: [], trees: [], commits: [], refUpdates: [] };

  const handler = (request: StandInRequest): StandInReply => {
    const url = new URL(request.path, API);
    const path = url.pathname;
    const page = Number(url.searchParams.get('page') ?? '1');
    const m = request.method;

    if (m === 'POST' && path === '/graphql') {
      const q = String(request.json?.variables?.q ?? '');
      return ok({
        data: {
          search: {
            issueCount: 1,
            pageInfo: { hasNextPage: true, endCursor: 'Y3Vyc29yOjE=' },
            nodes: [
              { number: 7, title: `Add sprockets (${q})`, state: 'OPEN', isDraft: false, author: { login: 'octocat' }, createdAt: '2024-04-10T00:00:00Z', mergedAt: null, additions: 10, deletions: 3, changedFiles: 2, reviewDecision: 'REVIEW_REQUIRED', headRefName: 'sprockets', baseRefName: 'main', labels: { nodes: [{ name: 'feature' }] }, url: `${WEB}/${OWNER}/${REPO}/pull/7` },
              {},
            ],
          },
        },
      });
    }
    if (m === 'GET' && path === '/user') return ok({ ...octocat, name: 'The Octocat', company: '@github', blog: '', location: 'San Francisco', email: 'octocat@example.com', bio: null, public_repos: 8, followers: 20, following: 0, created_at: '2011-01-25T18:44:36Z', updated_at: '2024-01-01T00:00:00Z' });
    if (m === 'GET' && path === '/rate_limit') {
      const bucket = (limit: number) => ({ limit, used: 1, remaining: limit - 1, reset: 1714560000 });
      return ok({ resources: { core: bucket(5000), search: bucket(30), graphql: bucket(5000) }, rate: bucket(5000) });
    }
    if (m === 'GET' && path === '/user/teams') {
      return ok([{ id: 1, node_id: 'T_core', url: `${API}/teams/1`, html_url: `${WEB}/orgs/${OWNER}/teams/core`, name: 'Core', slug: 'core', description: 'Core team', privacy: 'closed', permission: 'pull', organization: { ...owner, name: 'Acme' } }]);
    }
    if (m === 'GET' && path === `/orgs/${OWNER}/teams/core/members`) return ok([octocat, hubot]);
    if (m === 'GET' && path.startsWith('/search/')) {
      const kind = path.slice('/search/'.length);
      const items =
        kind === 'repositories' ? [repositoryJson()]
        : kind === 'users' ? [{ ...octocat, score: 1 }]
        : kind === 'code' ? [{ name: 'sprocket.ts', path: 'src/sprocket.ts', sha: sha1('sprocket'), url: '', git_url: '', html_url: `${WEB}/${OWNER}/${REPO}/blob/main/src/sprocket.ts`, repository: repositoryJson(), score: 1 }]
        : kind === 'issues' ? [issueJson(1, { score: 1 }), issueJson(7, { title: 'Add sprockets', pull_request: { url: `${API}/repos/${OWNER}/${REPO}/pulls/7`, html_url: `${WEB}/${OWNER}/${REPO}/pull/7`, merged_at: null }, score: 1 })]
        : null;
      if (!items) return notFound();
      return ok({ total_count: 1234, incomplete_results: false, items }, link(path, page, 34));
    }

    const repoMatch = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path);
    if (!repoMatch) return notFound();
    const [, o, r, restRaw] = repoMatch;
    const rest = restRaw ?? '';
    if (o === 'errors') return errorAnswer(r);
    if (o !== OWNER || r !== REPO) return notFound();
    const base = `/repos/${OWNER}/${REPO}`;

    if (m === 'GET' && rest === '') return ok(repositoryJson());
    // Branches.
    if (m === 'GET' && rest === '/branches') {
      const list = page === 1 ? [{ name: 'main', commit: { sha: state.head, url: '' }, protected: true }] : [{ name: 'sprockets', commit: { sha: sha1('pr-head'), url: '' }, protected: false }];
      return ok(list, link(`${base}/branches`, page));
    }
    if (m === 'GET' && rest.startsWith('/branches/')) {
      const name = decodeURIComponent(rest.slice('/branches/'.length));
      if (name !== 'main' && name !== 'feature/x') return notFound();
      return ok({ name, commit: { sha: state.head, node_id: 'C', commit: {}, url: '' }, _links: {}, protected: name === 'main', protection_url: '' });
    }
    if (m === 'POST' && rest === '/git/refs') {
      const ref = String(request.json?.ref);
      return { status: 201, json: { ref, node_id: 'REF_1', url: `${API}${base}/git/${ref}`, object: { type: 'commit', sha: request.json?.sha, url: '' } } };
    }
    if (m === 'DELETE' && rest.startsWith('/git/refs/heads/')) return { status: 204, body: '' };
    // Git data (commitFiles).
    if (m === 'GET' && rest === '/git/ref/heads/main') return ok({ ref: 'refs/heads/main', node_id: 'REF_main', url: '', object: { type: 'commit', sha: state.head, url: '' } });
    if (m === 'GET' && rest.startsWith('/git/commits/')) {
      const sha = rest.slice('/git/commits/'.length);
      return ok({ sha, node_id: 'C', url: '', html_url: '', author: {}, committer: {}, message: 'previous', tree: { sha: INITIAL_TREE, url: '' }, parents: [], verification: { verified: false } });
    }
    if (m === 'POST' && rest === '/git/blobs') {
      const sha = sha1(`blob:${request.body}`);
      state.blobs.push({ content: request.json?.content, encoding: request.json?.encoding, sha });
      return { status: 201, json: { url: `${API}${base}/git/blobs/${sha}`, sha } };
    }
    if (m === 'POST' && rest === '/git/trees') {
      const sha = sha1(`tree:${request.body}`);
      state.trees.push({ base_tree: request.json?.base_tree, tree: request.json?.tree, sha });
      return { status: 201, json: { sha, url: '', tree: [], truncated: false } };
    }
    if (m === 'POST' && rest === '/git/commits') {
      const sha = sha1(`commit:${request.body}`);
      state.commits.push({ message: request.json?.message, tree: request.json?.tree, parents: request.json?.parents, sha });
      return { status: 201, json: { sha, node_id: 'C_new', url: '', html_url: `${WEB}/${OWNER}/${REPO}/commit/${sha}`, author: {}, committer: {}, message: request.json?.message, tree: { sha: request.json?.tree, url: '' }, parents: [], verification: { verified: false } } };
    }
    if (m === 'PATCH' && rest === '/git/refs/heads/main') {
      state.refUpdates.push({ sha: request.json?.sha, force: request.json?.force });
      const created = state.commits.find((c) => c.sha === request.json?.sha);
      if (state.raceOnUpdate) {
        state.raceOnUpdate = false;
        state.head = sha1('someone-else');
      }
      // Without force, GitHub only fast-forwards: the new commit must have the head as parent.
      if (request.json?.force !== true && !created?.parents.includes(state.head)) {
        return { status: 422, headers: { 'x-github-request-id': 'FF:1' }, json: { message: 'Update is not a fast forward', documentation_url: 'https://docs.github.com/rest/git/refs#update-a-reference', status: '422' } };
      }
      state.head = request.json?.sha;
      return ok({ ref: 'refs/heads/main', node_id: 'REF_main', url: '', object: { type: 'commit', sha: state.head, url: '' } });
    }
    if (m === 'GET' && rest.startsWith('/git/trees/')) {
      const target = rest.slice('/git/trees/'.length);
      if (target !== 'main' && target !== INITIAL_TREE) return notFound();
      const entries = [
        { path: 'README.md', mode: '100644', type: 'blob', sha: blobSha(Buffer.from(README)), size: Buffer.byteLength(README), url: '' },
        { path: 'src', mode: '040000', type: 'tree', sha: sha1('src-tree'), url: '' },
      ];
      if (url.searchParams.get('recursive')) entries.push({ path: 'src/sprocket.ts', mode: '100644', type: 'blob', sha: sha1('sprocket'), size: 120, url: '' });
      return ok({ sha: INITIAL_TREE, url: '', tree: entries, truncated: false });
    }
    if (m === 'GET' && rest.startsWith('/git/blobs/')) {
      const sha = rest.slice('/git/blobs/'.length);
      if (sha !== blobSha(LARGE)) return notFound();
      return ok({ sha, node_id: 'B', size: LARGE.length, url: '', content: LARGE.toString('base64').replace(/(.{60})/g, '$1\n'), encoding: 'base64' });
    }
    // Contents.
    if (m === 'GET' && (rest === '/contents' || rest.startsWith('/contents/'))) {
      const file = decodeURIComponent(rest.slice('/contents/'.length));
      const fileJson = (name: string, bytes: Buffer, inline: boolean, size = bytes.length) => ({
        type: 'file',
        encoding: inline ? 'base64' : 'none',
        size,
        name: name.split('/').pop(),
        path: name,
        content: inline ? bytes.toString('base64').replace(/(.{60})/g, '$1\n') : '',
        sha: blobSha(bytes),
        url: '',
        git_url: '',
        html_url: `${WEB}/${OWNER}/${REPO}/blob/main/${name}`,
        download_url: `https://raw.githubusercontent.com/${OWNER}/${REPO}/main/${name}`,
        _links: {},
      });
      const entry = (name: string, type: string, size: number) => ({ type, size, name: name.split('/').pop(), path: name, sha: sha1(name), url: '', git_url: '', html_url: '', download_url: null, _links: {} });
      if (rest === '/contents' || file === '') return ok([entry('README.md', 'file', Buffer.byteLength(README)), entry('src', 'dir', 0)]);
      if (file === 'README.md') return ok(fileJson('README.md', Buffer.from(README), true));
      if (file === 'assets/large.bin') return ok(fileJson('assets/large.bin', LARGE, false));
      if (file === 'assets/binary.bin') return ok(fileJson('assets/binary.bin', BINARY, true));
      if (file === 'assets/huge.bin') return ok(fileJson('assets/huge.bin', Buffer.alloc(0), false, 11 * 1024 * 1024));
      if (file === 'src') {
        const entries = [entry('src/sprocket.ts', 'file', 120), entry('src/lib', 'dir', 0)];
        // The object media type wraps a directory listing in an object.
        return ok(String(request.headers.accept).includes('object') ? { ...entry('src', 'dir', 0), entries } : entries);
      }
      return notFound();
    }
    // Commits and releases.
    if (m === 'GET' && rest === '/commits') return ok([commitJson(state.head, 'Latest change', false)], link(`${base}/commits`, page));
    if (m === 'GET' && rest.startsWith('/commits/')) {
      const ref = decodeURIComponent(rest.slice('/commits/'.length));
      if (ref === 'f'.repeat(40)) return { status: 422, json: { message: `No commit found for SHA: ${ref}`, documentation_url: 'https://docs.github.com/rest/commits/commits#get-a-commit', status: '422' } };
      if (ref !== 'main' && ref !== state.head) return notFound();
      return ok(commitJson(state.head, 'Latest change', true));
    }
    const releaseJson = { url: '', html_url: `${WEB}/${OWNER}/${REPO}/releases/tag/v1.0.0`, id: 1, node_id: 'RE_1', tag_name: 'v1.0.0', target_commitish: 'main', name: 'v1.0.0', body: 'First release', draft: false, prerelease: false, created_at: '2024-03-01T00:00:00Z', published_at: '2024-03-01T00:00:00Z', author: octocat, assets: [{ url: '', id: 1, name: 'widgets.tgz', label: '', content_type: 'application/gzip', state: 'uploaded', size: 1024, download_count: 5, browser_download_url: `${WEB}/${OWNER}/${REPO}/releases/download/v1.0.0/widgets.tgz` }] };
    if (m === 'GET' && rest === '/releases') return ok([releaseJson]);
    if (m === 'GET' && rest === '/releases/latest') return ok(releaseJson);
    if (m === 'GET' && rest === '/labels') return ok([{ id: 1, node_id: 'L_bug', url: '', name: 'bug', color: 'd73a4a', default: true, description: 'Something is broken' }]);
    // Issues.
    if (m === 'GET' && rest === '/issues') return ok([issueJson(1), issueJson(7, { pull_request: { url: '', html_url: '', diff_url: '', patch_url: '', merged_at: null } }), issueJson(2)], link(`${base}/issues`, page));
    if (m === 'POST' && rest === '/issues') return { status: 201, json: issueJson(3, { title: request.json?.title, body: request.json?.body ?? null, comments: 0 }) };
    const issue = /^\/issues\/(\d+)(\/.*)?$/.exec(rest);
    if (issue) {
      const n = Number(issue[1]);
      const sub = issue[2] ?? '';
      if (n === 999) return notFound();
      if (m === 'GET' && sub === '') return ok(issueJson(n));
      if (m === 'PATCH' && sub === '') return ok(issueJson(n, { ...request.json, ...(request.json?.labels ? { labels: request.json.labels.map((name: string) => ({ name })) } : {}) }));
      if (m === 'GET' && sub === '/comments') return ok([{ id: 11, node_id: 'IC_11', url: '', html_url: `${WEB}/${OWNER}/${REPO}/issues/${n}#issuecomment-11`, body: 'Me too', user: hubot, created_at: '2024-04-03T00:00:00Z', updated_at: '2024-04-03T00:00:00Z', author_association: 'MEMBER' }]);
      if (m === 'POST' && sub === '/comments') return { status: 201, json: { id: 12, node_id: 'IC_12', url: '', html_url: `${WEB}/${OWNER}/${REPO}/issues/${n}#issuecomment-12`, body: request.json?.body, user: octocat, created_at: '2024-05-02T00:00:00Z', updated_at: '2024-05-02T00:00:00Z', author_association: 'MEMBER' } };
      if (m === 'GET' && sub === '/reactions') return ok([{ id: 1, node_id: 'RE', user: octocat, content: '+1', created_at: '2024-04-12T00:00:00Z' }, { id: 2, node_id: 'RE', user: hubot, content: '+1', created_at: '2024-04-12T00:00:00Z' }, { id: 3, node_id: 'RE', user: hubot, content: 'rocket', created_at: '2024-04-12T00:00:00Z' }]);
    }
    // Pull requests.
    if (m === 'GET' && rest === '/pulls') return ok([pullJson(7, { mergeable: undefined, mergeable_state: undefined, additions: undefined, deletions: undefined, changed_files: undefined, commits: undefined })]);
    if (m === 'POST' && rest === '/pulls') return { status: 201, json: pullJson(9, { title: request.json?.title, draft: request.json?.draft ?? false }) };
    const pull = /^\/pulls\/(\d+)(\/.*)?$/.exec(rest);
    if (pull) {
      const n = Number(pull[1]);
      const sub = pull[2] ?? '';
      if (n === 999) return notFound();
      if (m === 'GET' && sub === '') {
        if (String(request.headers.accept).includes('diff')) return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'diff --git a/src/sprocket.ts b/src/sprocket.ts\n+export const teeth = 12;\n' };
        return ok(pullJson(n));
      }
      if (m === 'PATCH' && sub === '') return ok(pullJson(n, { title: request.json?.title ?? 'Add sprockets', ...(request.json?.base ? { base: { label: `${OWNER}:${request.json.base}`, ref: request.json.base, sha: INITIAL_HEAD, user: owner, repo: repositoryJson() } } : {}) }));
      if (m === 'PUT' && sub === '/merge') {
        if (n === 8) return { status: 405, json: { message: 'Pull Request is not mergeable', documentation_url: 'https://docs.github.com/rest/pulls/pulls#merge-a-pull-request', status: '405' } };
        if (request.json?.sha && request.json.sha !== sha1('pr-head')) return { status: 409, json: { message: 'Head branch was modified. Review and try the merge again.', documentation_url: 'https://docs.github.com/rest/pulls/pulls#merge-a-pull-request', status: '409' } };
        return ok({ sha: sha1('merge'), merged: true, message: 'Pull Request successfully merged' });
      }
      if (m === 'GET' && sub === '/files') return ok([{ sha: sha1('sprocket'), filename: 'src/sprocket.ts', status: 'added', additions: 10, deletions: 0, changes: 10, blob_url: '', raw_url: '', contents_url: '', patch: '@@ -0,0 +1,10 @@' }, { sha: sha1('old'), filename: 'src/gear.ts', previous_filename: 'src/cog.ts', status: 'renamed', additions: 0, deletions: 3, changes: 3, blob_url: '', raw_url: '', contents_url: '' }], link(`${base}/pulls/${n}/files`, page));
      if (m === 'GET' && sub === '/reviews') return ok([{ id: 80, node_id: 'PRR_80', user: hubot, body: 'Looks good', state: 'APPROVED', html_url: `${WEB}/${OWNER}/${REPO}/pull/${n}#pullrequestreview-80`, pull_request_url: '', author_association: 'MEMBER', submitted_at: '2024-04-11T00:00:00Z', commit_id: sha1('pr-head'), _links: {} }]);
      if (m === 'POST' && sub === '/reviews') return ok({ id: 81, node_id: 'PRR_81', user: octocat, body: request.json?.body ?? '', state: request.json?.event === 'APPROVE' ? 'APPROVED' : request.json?.event === 'REQUEST_CHANGES' ? 'CHANGES_REQUESTED' : 'COMMENTED', html_url: `${WEB}/${OWNER}/${REPO}/pull/${n}#pullrequestreview-81`, pull_request_url: '', author_association: 'MEMBER', submitted_at: '2024-05-02T00:00:00Z', commit_id: request.json?.commit_id ?? sha1('pr-head'), _links: {} });
      if (m === 'GET' && sub === '/comments') return ok([reviewCommentJson(90)]);
      if (m === 'POST' && sub === '/comments') {
        const j = request.json ?? {};
        return { status: 201, json: reviewCommentJson(91, { body: j.body, user: octocat, ...(j.in_reply_to ? { in_reply_to_id: j.in_reply_to } : { path: j.path, line: j.line, side: j.side, commit_id: j.commit_id }) }) };
      }
    }
    return notFound();
  };
  return { state, handler };
}
