// Symbolic links never lead a file operation out of its file area, and never around a
// path rule: a clone from a real git server whose repository holds links (to a file
// beside the area, dangling absolute and relative ones, one to a denied file) checks
// them out as plain files holding the target text; links already in the area (as a
// volume may hold) are refused by every svc:fs, svc:code and svc:git operation, shown
// as `symlink` by stat and list, and removed as themselves. Plus the default size limit
// of an ephemeral area.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../harness';
import { seedRepository, startGitServer, type GitServer } from '../support/git-server';

const SECRET = 'the secret line\n';
const HOST_SECRET = 'host file beside the area\n';

describe('file areas and symbolic links', () => {
  let remote: GitServer;
  let server: TestServer;
  let outside: string;
  let far: http.Server;
  const farRequests: string[] = [];
  before(async () => {
    far = http.createServer((req, res) => {
      farRequests.push(req.url ?? '');
      res.end('downloaded\n');
    });
    await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
    outside = tempDir('svc-outside-');
    fs.writeFileSync(path.join(outside, 'host.txt'), HOST_SECRET);
    remote = await startGitServer();
    seedRepository(
      remote.root,
      'links',
      { 'secret.txt': SECRET, 'README.md': '# links\n' },
      {
        alias: 'secret.txt',
        dangle: path.join(outside, 'new.txt'),
        // From <home>/server/vfs/sessions/<id>/repo up to <home>.
        rel: '../../../../../x.txt',
        hostfile: path.join(outside, 'host.txt'),
        hostdir: outside,
      },
    );
    server = await startServer({ runners: 1, args: ['--allow-localhost'], env: { NODE_EXTRA_CA_CERTS: remote.certFile }, config: { max_ephemeral_vfs_size: 1 } });
    const rules = ['fs.read', 'fs.write', 'fs.stat', 'fs.list', 'fs.copy', 'fs.move', 'fs.remove', 'fs.mkdir', 'git.clone', 'git.commit', 'http.download']
      .map((capability) => `    - {capability: ${capability}, action: allow}`)
      .join('\n');
    const created = await server.request('POST', '/v1/blueprints', {
      body: {
        // typecheck: off (types stripped, not checked): these programs are about links, not types.
        yaml: `name: links
typecheck: off
vfs: per_session
allow_insecure_http: true
git: {identity: {name: Bot, email: bot@example.com}}
permissions:
  main:
    - {capability: fs.read, filter: 'path glob "/repo/secret*"', action: deny}
    - {capability: fs.write, filter: 'path glob "/repo/secret*"', action: deny}
${rules}
`,
      },
    });
    assert.equal(created.status, 200, created.text);
    for (const yaml of ['name: scratch\ndefault: allow\ntypecheck: off\n', 'name: roomy\ndefault: allow\ntypecheck: off\nvfs: {mode: ephemeral, size_limit: 4MB}\n']) {
      const reply = await server.request('POST', '/v1/blueprints', { body: { yaml } });
      assert.equal(reply.status, 200, reply.text);
    }
  });
  after(async () => {
    await server.stop();
    remote.close();
    far.close();
  });

  async function session(): Promise<{ id: string; dir: string; exec: (code: string) => Promise<any> }> {
    const id = (await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'links' } })).json.session_id;
    const exec = async (code: string) => (await server.request('POST', `/v1/sessions/${id}/execute`, { token: server.userToken, body: { code } })).json;
    return { id, dir: path.join(server.home, 'server', 'vfs', 'sessions', id), exec };
  }

  /** What each attempt in a program returns: ["ok", value] or [error name, message]. */
  const attempt = 'const attempt = (f) => { try { return ["ok", f()]; } catch (e) { return [e.name, e.message]; } };';

  function nothingOutside(): void {
    assert.deepEqual(fs.readdirSync(outside).sort(), ['host.txt']);
    assert.equal(fs.readFileSync(path.join(outside, 'host.txt'), 'utf8'), HOST_SECRET);
    assert.equal(fs.existsSync(path.join(server.home, 'x.txt')), false);
  }

  test('a clone checks links out as plain files holding the target text; writes through them stay in the area', async () => {
    const { dir, exec } = await session();
    const result = await exec(`import * as fs from "svc:fs";
import * as code from "svc:code";
import { Repository } from "svc:git";
export function main() {
  ${attempt}
  const repo = Repository.clone("${remote.url}/links.git", "/repo");
  const before = repo.status();
  return {
    listing: fs.list("/repo").filter((e) => e.name !== ".git").map((e) => [e.name, e.kind]),
    alias: attempt(() => fs.readText("/repo/alias")),
    aliasAppend: attempt(() => fs.appendText("/repo/alias", "more\\n")),
    secret: attempt(() => fs.readText("/repo/secret.txt")),
    hostfile: attempt(() => code.read("/repo/hostfile").lines.map((l) => l.text)),
    hostdir: attempt(() => fs.readText("/repo/hostdir/host.txt")),
    dangleAppend: attempt(() => fs.appendText("/repo/dangle", "appended\\n")),
    relWrite: attempt(() => fs.writeText("/repo/rel", "written\\n")),
    copy: attempt(() => fs.copy("/repo/README.md", "/repo/hostfile")),
    clean: before.clean,
    diff: repo.diff(),
  };
}`);
    assert.equal(result.error, null, JSON.stringify(result.error));
    const value = JSON.parse(result.result);
    assert.deepEqual(value.listing, [
      ['README.md', 'file'],
      ['alias', 'file'],
      ['dangle', 'file'],
      ['hostdir', 'file'],
      ['hostfile', 'file'],
      ['rel', 'file'],
      ['secret.txt', 'file'],
    ]);
    assert.deepEqual(value.alias, ['ok', 'secret.txt']);
    assert.deepEqual(value.aliasAppend, ['ok', null]);
    assert.equal(value.secret[0], 'PermissionDeniedError');
    assert.deepEqual(value.hostfile, ['ok', [path.join(outside, 'host.txt')]]);
    assert.equal(value.hostdir[0], 'Error');
    assert.match(value.hostdir[1], /^fs\.readText \/repo\/hostdir\/host\.txt: /);
    assert.deepEqual([value.dangleAppend, value.relWrite, value.copy], [['ok', null], ['ok', null], ['ok', null]]);
    assert.equal(value.clean, true);
    assert.doesNotMatch(JSON.stringify(value.diff), /host file beside/);
    assert.match(value.diff.patch, /\+.*new\.txtappended\n/);

    nothingOutside();
    const repo = path.join(dir, 'repo');
    for (const name of ['alias', 'dangle', 'rel', 'hostfile', 'hostdir']) assert.equal(fs.lstatSync(path.join(repo, name)).isFile(), true, name);
    assert.equal(fs.readFileSync(path.join(repo, 'secret.txt'), 'utf8'), SECRET);
    assert.equal(fs.readFileSync(path.join(repo, 'alias'), 'utf8'), 'secret.txtmore\n');
    assert.equal(fs.readFileSync(path.join(repo, 'dangle'), 'utf8'), `${path.join(outside, 'new.txt')}appended\n`);
    assert.equal(fs.readFileSync(path.join(repo, 'rel'), 'utf8'), 'written\n');
  });

  test('links already in the area are never followed: reads, writes, copies and git refuse them; stat, list and remove see the link itself', async () => {
    const { dir, exec } = await session();
    const prepared = await exec(`import * as fs from "svc:fs";
import { Repository } from "svc:git";
export function main() { Repository.clone("${remote.url}/links.git", "/repo"); fs.writeText("/plain.txt", "plain\\n"); }`);
    assert.equal(prepared.error, null, JSON.stringify(prepared.error));
    // Placed from the host, as a named volume may hold them.
    const repo = path.join(dir, 'repo');
    fs.symlinkSync('secret.txt', path.join(repo, 'alias2'));
    fs.symlinkSync(path.join(outside, 'new2.txt'), path.join(repo, 'dangle2'));
    fs.symlinkSync('../../../../../x.txt', path.join(repo, 'rel2'));
    fs.symlinkSync(path.join(outside, 'host.txt'), path.join(repo, 'hostlink'));
    fs.symlinkSync(outside, path.join(dir, 'linkdir'));
    fs.symlinkSync(outside, path.join(repo, 'linkeddir'));

    const result = await exec(`import * as fs from "svc:fs";
import * as code from "svc:code";
import * as http from "svc:http";
import { Repository } from "svc:git";
export function main() {
  ${attempt}
  const base = "http://127.0.0.1:${(far.address() as AddressInfo).port}";
  const repo = Repository.open("/repo");
  const diff = attempt(() => repo.diff());
  return {
    read: attempt(() => fs.readText("/repo/alias2")),
    readBytes: attempt(() => fs.readBytes("/repo/hostlink", 0, 100)),
    peek: attempt(() => fs.peek("/repo/hostlink")),
    size: attempt(() => fs.size("/repo/hostlink")),
    codeRead: attempt(() => code.read("/repo/hostlink")),
    append: attempt(() => fs.appendText("/repo/alias2", "changed\\n")),
    edit: attempt(() => code.edit("/repo/alias2", "secret", "public")),
    throughDir: attempt(() => fs.readText("/linkdir/host.txt")),
    writeThroughDir: attempt(() => fs.writeText("/linkdir/new.txt", "x")),
    mkdirThroughDir: attempt(() => fs.mkdir("/linkdir/sub")),
    listThroughDir: attempt(() => fs.list("/linkdir")),
    dangleWrite: attempt(() => fs.writeText("/repo/dangle2", "x")),
    dangleAppend: attempt(() => fs.append("/repo/dangle2", "x")),
    relAppend: attempt(() => fs.appendText("/repo/rel2", "x")),
    writer: attempt(() => { const w = fs.writer("/repo/rel2"); w.writeLine("x"); w.close(); }),
    copyOnto: attempt(() => fs.copy("/plain.txt", "/repo/dangle2")),
    copyFrom: attempt(() => fs.copy("/repo/hostlink", "/copied.txt")),
    copyTree: attempt(() => fs.copy("/repo", "/repo-copy", true)),
    download: attempt(() => http.download(base + "/a", "/repo/dangle2")),
    downloadOver: attempt(() => http.download(base + "/b", "/repo/hostlink", { overwrite: true })),
    downloadThroughDir: attempt(() => http.download(base + "/c", "/linkdir/d.txt")),
    downloaded: attempt(() => { http.download(base + "/d", "/repo/plain-download.txt"); return fs.readText("/repo/plain-download.txt"); }),
    search: code.search("host file beside").files,
    stat: fs.stat("/repo/hostlink"),
    exists: fs.exists("/repo/dangle2"),
    listed: fs.list("/repo").filter((e) => e.kind === "symlink").map((e) => e.name),
    diff,
    status: attempt(() => repo.status().entries.map((e) => e.path)),
    added: attempt(() => { repo.add(["."]); repo.commit("links as links"); return ["hostlink", "linkeddir"].map((p) => new TextDecoder().decode(repo.show("HEAD", p))); }),
    removed: attempt(() => fs.remove("/repo/alias2")),
    moved: attempt(() => fs.move("/plain.txt", "/repo/dangle2")),
  };
}`);
    assert.equal(result.error, null, JSON.stringify(result.error));
    const value = JSON.parse(result.result);
    const refused = (entry: [string, string], fn: string, at: string) => {
      assert.equal(entry[0], 'Error', `${fn}: ${JSON.stringify(entry)}`);
      assert.match(entry[1], new RegExp(`^${fn.replace('.', '\\.')} .*${at}.*symbolic link; file operations never follow links`), fn);
    };
    refused(value.read, 'fs.readText', '/repo/alias2');
    refused(value.readBytes, 'fs.readBytes', '/repo/hostlink');
    refused(value.peek, 'fs.peek', '/repo/hostlink');
    refused(value.size, 'fs.size', '/repo/hostlink');
    refused(value.codeRead, 'fs.read', '/repo/hostlink');
    refused(value.append, 'fs.appendText', '/repo/alias2');
    refused(value.edit, 'fs.edit', '/repo/alias2');
    refused(value.throughDir, 'fs.readText', '/linkdir');
    refused(value.writeThroughDir, 'fs.writeText', '/linkdir');
    refused(value.mkdirThroughDir, 'fs.mkdir', '/linkdir');
    refused(value.listThroughDir, 'fs.list', '/linkdir');
    refused(value.dangleWrite, 'fs.writeText', '/repo/dangle2');
    refused(value.dangleAppend, 'fs.append', '/repo/dangle2');
    refused(value.relAppend, 'fs.appendText', '/repo/rel2');
    refused(value.writer, 'fs.writer', '/repo/rel2');
    refused(value.copyOnto, 'fs.copy', '/repo/dangle2');
    refused(value.copyFrom, 'fs.copy', '/repo/hostlink');
    refused(value.copyTree, 'fs.copy', '/repo/');
    refused(value.download, 'fs.download', '/repo/dangle2');
    refused(value.downloadOver, 'fs.download', '/repo/hostlink');
    refused(value.downloadThroughDir, 'fs.download', '/linkdir');
    assert.deepEqual(value.downloaded, ['ok', 'downloaded\n']);
    assert.deepEqual(farRequests, ['/d']);
    assert.deepEqual(value.search, []);
    assert.equal(value.stat.kind, 'symlink');
    assert.equal(value.exists, true);
    assert.deepEqual(value.listed.sort(), ['alias2', 'dangle2', 'hostlink', 'linkeddir', 'rel2']);
    // git shows a link as its target text, as git itself does, and stores it as a link.
    assert.equal(value.diff[0], 'ok', JSON.stringify(value.diff));
    assert.doesNotMatch(JSON.stringify(value.diff), /host file beside|the secret line/);
    assert.match(value.diff[1].patch, new RegExp(`\\+${path.join(outside, 'host.txt').replaceAll('/', '\\/')}`));
    assert.equal(value.status[0], 'ok');
    assert.deepEqual(value.added, ['ok', [path.join(outside, 'host.txt'), outside]]);
    assert.ok(!`${server.lines().join('\n')}${server.stderr()}`.includes('host file beside'));
    assert.deepEqual(value.removed, ['ok', null]);
    assert.deepEqual(value.moved, ['ok', null]);

    nothingOutside();
    assert.equal(fs.existsSync(path.join(repo, 'alias2')), false);
    assert.equal(fs.readFileSync(path.join(repo, 'secret.txt'), 'utf8'), SECRET);
    // The move replaced the link itself with the file.
    assert.equal(fs.lstatSync(path.join(repo, 'dangle2')).isFile(), true);
    assert.equal(fs.readFileSync(path.join(repo, 'dangle2'), 'utf8'), 'plain\n');
    assert.equal(fs.existsSync(path.join(dir, 'repo-copy')), false);
    assert.equal(fs.existsSync(path.join(dir, 'copied.txt')), false);
  });

  test('an ephemeral area without size_limit gets the server default (max_ephemeral_vfs_size); its own size_limit wins', async () => {
    const program = `import * as fs from "svc:fs";
export function main() {
  const chunk = "x".repeat(512 * 1024);
  try { for (let i = 0; i < 4; i++) fs.appendText("/big.txt", chunk); } catch (e) { return [e.name, e.message, fs.size("/big.txt"), fs.info().sizeLimit]; }
  return ["ok", fs.size("/big.txt"), fs.info().sizeLimit];
}`;
    const limited = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'scratch', code: program } });
    assert.equal(limited.json.error, null, JSON.stringify(limited.json.error));
    const [name, message, size, limit] = JSON.parse(limited.json.result);
    assert.equal(name, 'QuotaExceededError');
    assert.equal(message, "fs.appendText /big.txt: the filesystem's size limit of 1048576 bytes (set by max_ephemeral_vfs_size) would be exceeded: 1048576 bytes are in use and this needs 524288 more");
    assert.deepEqual([size, limit], [1048576, 1048576]);
    assert.equal(server.audit({ type: 'decision', execution_id: limited.json.execution_id, capability: 'fs.write', decision: 'deny', source: 'quota' }).length, 1);

    const roomy = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'roomy', code: program } });
    assert.equal(roomy.json.error, null, JSON.stringify(roomy.json.error));
    assert.deepEqual(JSON.parse(roomy.json.result), ['ok', 2 * 1024 * 1024, 4 * 1024 * 1024]);
  });
});
