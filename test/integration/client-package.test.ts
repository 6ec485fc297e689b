// clients/typescript is installable outside the repository: `npm pack` builds a tarball
// that, unpacked into a fresh project's node_modules next to its dependency (openapi-fetch)
// and peer dependencies (ai, zod), imports and talks to a real server.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { repoRoot, startServer, tempDir, type TestServer } from '../harness';
import { START_TIMEOUT_MS } from '../support/cli';

describe('the @svc/client tarball', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ runners: 1, timeoutMs: START_TIMEOUT_MS });
    assert.ok((await server.request('POST', '/v1/blueprints', { body: { yaml: YAML.stringify({ name: 'calc' }) } })).status < 300);
  });
  after(async () => server?.stop());

  test('npm pack, install from the tarball, run a program', () => {
    const out = tempDir();
    const client = path.join(repoRoot, 'clients', 'typescript');
    const npmEnv = { ...process.env, npm_config_update_notifier: 'false' };
    // `npm pack` builds through `prepack`; `npm test` has built dist/ already, and other
    // test files import it, so build only when it is missing and pack without scripts.
    if (!fs.existsSync(path.join(client, 'dist', 'index.js'))) assert.equal(spawnSync('npm', ['run', 'build'], { cwd: client, env: npmEnv }).status, 0);
    const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--pack-destination', out, '--json'], { cwd: client, encoding: 'utf8', env: npmEnv });
    assert.equal(packed.status, 0, packed.stderr);
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')));
    const files = info.files.map((f: { path: string }) => f.path);
    for (const file of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']) assert.ok(files.includes(file), `${file} is packed`);
    assert.ok(!files.some((f: string) => f.startsWith('src/') || f.startsWith('test/')), 'only the build is packed');
    assert.equal(JSON.parse(fs.readFileSync(path.join(client, 'package.json'), 'utf8')).scripts.prepack, 'npm run build', 'a plain `npm pack` builds dist/ first');

    const project = tempDir();
    const target = path.join(project, 'node_modules', '@svc', 'client');
    fs.mkdirSync(target, { recursive: true });
    const untar = spawnSync('tar', ['-xzf', path.join(out, info.filename), '-C', target, '--strip-components=1']);
    assert.equal(untar.status, 0, String(untar.stderr));
    const manifest = JSON.parse(fs.readFileSync(path.join(target, 'package.json'), 'utf8'));
    assert.equal(manifest.private, undefined, 'installable: not private');
    assert.deepEqual(Object.keys(manifest.peerDependencies).sort(), ['ai', 'zod']);
    // What `npm install` of the tarball would bring: its dependencies (openapi-fetch) beside the peers.
    for (const dependency of [...Object.keys(manifest.peerDependencies), ...Object.keys(manifest.dependencies ?? {})]) {
      fs.symlinkSync(path.join(repoRoot, 'node_modules', dependency), path.join(project, 'node_modules', dependency));
    }

    fs.writeFileSync(
      path.join(project, 'harness.mjs'),
      `import { SvcClient, svcTools } from '@svc/client';
const client = new SvcClient({ baseUrl: process.env.SVC_URL, token: process.env.SVC_TOKEN });
const run = await client.executeOnce({ blueprint: 'calc', code: 'export function main() { return 6 * 7; }' });
const tools = await svcTools(client, { blueprint: 'calc' });
console.log(JSON.stringify({ result: run.ok ? run.value.result : run.error, tools: tools.ok ? Object.keys(tools.value.tools).sort() : tools.error }));
`,
    );
    const ran = spawnSync(process.execPath, ['harness.mjs'], { cwd: project, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', SVC_URL: server.url, SVC_TOKEN: server.userToken } });
    assert.equal(ran.status, 0, ran.stderr);
    const printed = JSON.parse(ran.stdout);
    assert.equal(printed.result, '42');
    assert.ok(printed.tools.includes('execute'), ran.stdout);
  });
});
