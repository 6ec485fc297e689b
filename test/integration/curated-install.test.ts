// `svc packages install <the official repository> @svc/<name>` through a real server: the
// code-host stand-in serves this repository's own packages/ project (svc.toml in packages/,
// not at the root) under the repository named by `official_repository`, so the reserved
// @svc scope is accepted; the owner/scope rule still binds it and every other repository.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../harness';
import { startCodeHost, type CodeHost } from '../support/code-host';
import { curatedRoot } from '../support/curated';
import { manifest } from '../support/packages';

/** packages/ as repository files (build output left out). */
function curatedFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '.svc') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[path.join('packages', path.relative(curatedRoot, full))] = fs.readFileSync(full, 'utf8');
    }
  };
  walk(curatedRoot);
  files['README.md'] = '# svc\n';
  return files;
}

const OFFICIAL = 'svc-project/svc';
const simple = (name: string): Record<string, string> => ({ 'svc.toml': manifest([{ name }]), 'docs/readme.md': `# ${name}\n`, 'src/lib.ts': '/** One. */\nexport const one = 1;\n' });

describe('installing a curated Package from the official repository (setting official_repository)', () => {
  let host: CodeHost;
  let server: TestServer;
  before(async () => {
    host = await startCodeHost(tempDir());
    server = await startServer({ env: { NODE_EXTRA_CA_CERTS: host.certFile, SVC_GITHUB_API_URL: host.url, SVC_OFFICIAL_REPOSITORY: OFFICIAL }, timeoutMs: 60_000 });
  });
  after(async () => {
    await server?.stop();
    host?.close();
  });

  test('the server finds packages/svc.toml, builds @svc/github (and @svc/kit, its dependency, first) and installs it with the archive digest', async () => {
    const commit = host.addCommit(OFFICIAL, ['main'], curatedFiles());
    const reply = await server.request('POST', '/v1/packages/install', { body: { url: `${OFFICIAL}@main`, package: '@svc/github' } });
    assert.equal(reply.status, 200, reply.text);
    const digest = host.digestOf(commit);
    assert.deepEqual(reply.json.installed, [
      { name: '@svc/kit', version: '0.1.0', digest },
      { name: '@svc/github', version: '0.1.0', digest },
    ]);
    assert.deepEqual(reply.json.warnings, []);
    const listed = await server.request('GET', '/v1/packages');
    assert.ok(listed.json.packages.some((p: { name: string; managed: boolean }) => p.name === '@svc/github' && p.managed));
  });

  test('the scope rule has no exception: the official repository cannot publish a foreign scope, others cannot publish @svc or a foreign scope', async () => {
    const refused = async (repository: string, name: string, message: RegExp) => {
      host.addCommit(repository, ['main'], simple(name));
      const reply = await server.request('POST', '/v1/packages/install', { body: { url: `${repository}@main` } });
      assert.equal(reply.status, 400, reply.text);
      assert.equal(reply.json.error, 'scope_mismatch');
      assert.match(reply.json.message, message);
      const names = (await server.request('GET', '/v1/packages')).json.packages.map((p: { name: string }) => p.name);
      assert.ok(!names.includes(name), `${name} was not installed`);
    };
    // The official repository is bound by the owner rule for every scope but @svc.
    host.addCommit(OFFICIAL, ['foreign'], simple('@acme/claimed'));
    const foreign = await server.request('POST', '/v1/packages/install', { body: { url: `${OFFICIAL}@foreign` } });
    assert.equal(foreign.status, 400, foreign.text);
    assert.equal(foreign.json.error, 'scope_mismatch');
    assert.match(foreign.json.message, /@acme\/claimed: the scope @acme differs from the repository owner 'svc-project'/);
    // Another repository claiming a foreign scope, and the old placeholder svc/svc claiming @svc.
    await refused('mallory/pkgs', '@acme/billing', /@acme\/billing: the scope @acme differs from the repository owner 'mallory'/);
    await refused('svc/svc', '@svc/fake', /the scope @svc is reserved for the official svc repository; svc\/svc may not publish it \(the official repository is svc-project\/svc\)/);
    await refused('svc/svc', '@acme/x', /the scope @acme differs from the repository owner 'svc'/);
    // Its own owner's scope is fine, like for any repository.
    host.addCommit(OFFICIAL, ['own'], simple('@svc-project/tools'));
    const own = await server.request('POST', '/v1/packages/install', { body: { url: `${OFFICIAL}@own` } });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.json.installed[0].name, '@svc-project/tools');
  });
});
