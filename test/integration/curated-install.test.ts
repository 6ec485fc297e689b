// `svc packages install <the official repository> @svc/<name>` through a real server: the
// code-host stand-in serves this repository's own packages/ project (svc.toml in packages/,
// not at the root) under the official owner/repo, so the reserved @svc scope is accepted.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, tempDir } from '../harness';
import { startCodeHost } from '../support/code-host';
import { curatedRoot } from '../support/curated';
import { OFFICIAL_REPOSITORY } from '../../src/packages';

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

describe('installing a curated Package from the official repository', () => {
  test('the server finds packages/svc.toml, builds @svc/github and installs it with the archive digest', async () => {
    const host = await startCodeHost(tempDir());
    const official = `${OFFICIAL_REPOSITORY.owner}/${OFFICIAL_REPOSITORY.repo}`;
    const commit = host.addCommit(official, ['main'], curatedFiles());
    const server = await startServer({ env: { NODE_EXTRA_CA_CERTS: host.certFile, SVC_GITHUB_API_URL: host.url }, timeoutMs: 60_000 });
    try {
      const reply = await server.request('POST', '/v1/packages/install', { body: { url: `${official}@main`, package: '@svc/github' } });
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(reply.json.installed, [{ name: '@svc/github', version: '0.1.0', digest: host.digestOf(commit) }]);
      assert.deepEqual(reply.json.warnings, []);
      const listed = await server.request('GET', '/v1/packages');
      assert.ok(listed.json.packages.some((p: { name: string; managed: boolean }) => p.name === '@svc/github' && p.managed));
    } finally {
      await server.stop();
      host.close();
    }
  });
});
