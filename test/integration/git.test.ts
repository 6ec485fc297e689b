// svc:git against a real smart-HTTP git server over TLS: init and commit in the file area,
// clone, fetch and fast-forward pull, a clone denied by a filter on `remote` (nothing
// fetched), and the module hidden from Blueprints without a git block.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../harness';
import { git, seedRepository, startGitServer, type GitServer } from '../support/git-server';

describe('svc:git', () => {
  let remote: GitServer;
  let server: TestServer;
  before(async () => {
    remote = await startGitServer();
    seedRepository(remote.root, 'project', { 'README.md': '# project\n' });
    seedRepository(remote.root, 'secret', { 'x.txt': 'x\n' });
    server = await startServer({ runners: 1, args: ['--allow-localhost'], env: { NODE_EXTRA_CA_CERTS: remote.certFile } });
    const blueprint = await server.request('POST', '/v1/blueprints', {
      body: {
        // typecheck: off (types stripped, not checked): these programs are about git, not types.
        yaml: `name: repos
typecheck: off
vfs: per_session
variables: {who: {default: Agent}}
git: {identity: {name: "\${vars.who} Bot", email: bot@example.com}}
permissions:
  main:
    - {capability: git.init, action: allow}
    - {capability: git.commit, action: allow}
    - {capability: git.fetch, action: allow}
    - {capability: git.clone, filter: 'remote glob "*/project.git"', action: allow}
    - {capability: fs.read, action: allow}
    - {capability: fs.write, action: allow}
`,
      },
    });
    assert.equal(blueprint.status, 200, blueprint.text);
    await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: nogit\ndefault: allow\ntypecheck: off\n' } });
  });
  after(async () => {
    await server.stop();
    remote.close();
  });

  async function session(): Promise<(code: string) => Promise<any>> {
    const id = (await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'repos' } })).json.session_id;
    return async (code) => (await server.request('POST', `/v1/sessions/${id}/execute`, { token: server.userToken, body: { code } })).json;
  }

  test('init, add and commit in the file area, authored by the Blueprint identity', async () => {
    const exec = await session();
    const result = await exec(`import * as fs from "svc:fs";
import { Repository } from "svc:git";
export function main() {
  const repo = Repository.init("/work");
  fs.writeText("/work/a.txt", "hello\\n");
  const before = repo.status();
  repo.add(["."]);
  const id = repo.commit("first");
  let empty = ""; try { repo.commit("again"); } catch (e) { empty = e.message; }
  fs.writeText("/work/a.txt", "hello world\\n");
  return { before: before.entries, id: id.length, log: repo.log().commits.map((c) => [c.message.trim(), c.authorName]), branch: repo.status().branch, diff: repo.diff().patch, empty, reopened: new Repository("/work").path };
}`);
    assert.equal(result.error, null, JSON.stringify(result.error));
    const value = JSON.parse(result.result);
    assert.deepEqual(value.before, [{ path: 'a.txt', staged: '', unstaged: '', untracked: true }]);
    assert.equal(value.id, 40);
    assert.deepEqual(value.log, [['first', 'Agent Bot']]);
    assert.equal(value.branch, 'main');
    assert.match(value.diff, /-hello\n\+hello world/);
    assert.match(value.empty, /empty commit/);
    assert.equal(value.reopened, '/work');
  });

  test('clone, then fetch and fast-forward pull bring new upstream commits', async () => {
    const exec = await session();
    const cloned = await exec(`import * as fs from "svc:fs";
import { Repository } from "svc:git";
export function main() { const repo = Repository.clone("${remote.url}/project.git", "/project"); return [fs.readText("/project/README.md"), repo.remotes()[0].url, repo.branches().map((b) => b.name)]; }`);
    assert.equal(cloned.error, null, JSON.stringify(cloned.error));
    assert.deepEqual(JSON.parse(cloned.result), ['# project\n', `${remote.url}/project.git`, ['main']]);

    const work = tempDir('svc-git-upstream-');
    git(work, 'clone', '-q', path.join(remote.root, 'project.git'), 'w');
    fs.writeFileSync(path.join(work, 'w', 'NEW.md'), 'new\n');
    git(path.join(work, 'w'), 'add', '.');
    git(path.join(work, 'w'), 'commit', '-q', '-m', 'upstream change');
    git(path.join(work, 'w'), 'push', '-q', 'origin', 'main');

    const pulled = await exec(`import * as fs from "svc:fs";
import { Repository } from "svc:git";
export function main() { const repo = Repository.open("/project"); const fetched = repo.fetch(); const moved = repo.pull(); return [fetched.branches, moved.previous !== moved.current, fs.readText("/project/NEW.md")]; }`);
    assert.equal(pulled.error, null, JSON.stringify(pulled.error));
    assert.deepEqual(JSON.parse(pulled.result), [['main'], true, 'new\n']);
    const decisions = server.audit({ type: 'decision', execution_id: pulled.execution_id, capability: 'git.fetch', decision: 'allow' });
    assert.ok(decisions.length >= 1);
  });

  test('git.clone denied by a filter on remote: permission_denied and nothing fetched', async () => {
    const exec = await session();
    const before = remote.requests.length;
    const result = await exec(`import { Repository } from "svc:git";\nexport function main() { Repository.clone("${remote.url}/secret.git", "/secret"); }`);
    assert.deepEqual([result.error.kind, result.error.capability], ['permission_denied', 'git.clone']);
    assert.equal(remote.requests.length, before);
    const http = await exec(`import { Repository } from "svc:git";\nexport function main() { try { Repository.clone("http://localhost/x.git", "/x"); } catch (e) { return e.name; } }`);
    assert.equal(http.result, 'TypeError');
  });

  test('svc:git cannot be imported under a Blueprint without a git block', async () => {
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'nogit', code: 'import { Repository } from "svc:git";\nexport function main() {}' } });
    assert.equal(reply.json.error.kind, 'compile_error');
    assert.match(reply.json.error.message, /svc:git/);
  });
});
