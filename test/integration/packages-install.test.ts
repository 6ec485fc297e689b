// Installing Packages through the real server from a loopback HTTPS code host (tarballs
// made at test time): success with digest, listing, up_to_date, already_installed and
// upgrade, dependency closure, every install error code, removal, the token file re-read
// per install, audit records, and Blueprint registration against the store.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../harness';
import { startCodeHost, tarGz, type CodeHost } from '../support/code-host';
import { billingSources, manifest, writeFiles, type FileMap } from '../support/packages';
import { runSvc, serverEnv, svcInProcess } from '../support/cli';

const billing = (extra: FileMap = {}): FileMap => ({ 'svc.toml': manifest([{ name: '@acme/billing', keywords: ['credits'] }]), ...billingSources(), ...extra });
const simple = (name: string, body = '/** One. */\nexport const one = 1;\n', deps?: string[], extra = ''): FileMap => ({
  'svc.toml': manifest([{ name, dependencies: deps }], extra),
  'docs/readme.md': `# ${name}\n`,
  'src/lib.ts': body,
});

describe('package install from a code host', () => {
  let host: CodeHost;
  let server: TestServer;
  let tokenFile: string;
  const install = (body: Record<string, unknown>) => server.request('POST', '/v1/packages/install', { body });

  before(async () => {
    const dir = tempDir();
    host = await startCodeHost(dir);
    tokenFile = path.join(dir, 'gh-token');
    fs.writeFileSync(tokenFile, '  first-token\n');
    // publish-local into $SVC_HOME/packages (the server's read-only fallback), before the server starts.
    const home = tempDir();
    const within = (directory: string, files: FileMap) => Object.fromEntries(Object.entries(files).map(([file, text]) => [`${directory}/${file}`, text]));
    const project = writeFiles(tempDir(), {
      'svc.toml': manifest([
        { name: '@acme/billing', keywords: ['credits'], path: 'billing' },
        { name: '@local/only', path: 'only' },
      ]),
      ...within('billing', billingSources()),
      ...within('only', { 'docs/readme.md': '# @local/only\n', 'src/lib.ts': '/** One. */\nexport const one = 1;\n' }),
    });
    const published = await runSvc(['build', 'publish-local'], { cwd: project, env: { SVC_HOME: home } });
    assert.equal(published.code, 0, published.stderr);
    for (const name of ['@acme/billing', '@local/only']) assert.match(published.stdout, new RegExp(`published ${name} 0\\.1\\.0 to `));
    server = await startServer({ home, env: { NODE_EXTRA_CA_CERTS: host.certFile, SVC_GITHUB_API_URL: host.url }, config: { github_token_file: tokenFile } });
  });
  after(async () => {
    await server?.stop();
    host?.close();
  });

  test('install resolves the ref, downloads through the redirect, records the digest of the archive and lists the Package', async () => {
    const v1 = host.addCommit('acme/billing-pkgs', ['v1'], billing());
    const reply = await install({ url: 'https://github.com/acme/billing-pkgs.git@v1' });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.sha, v1.sha);
    assert.deepEqual(reply.json.installed, [{ name: '@acme/billing', version: '0.1.0', digest: host.digestOf(v1) }]);
    assert.deepEqual(reply.json.up_to_date, []);
    assert.deepEqual(reply.json.warnings, []);
    // The token file's content (trimmed) was sent to the API origin.
    assert.ok(host.requests.some((r) => r.path === '/repos/acme/billing-pkgs/commits/v1' && r.authorization === 'Bearer first-token'));
    assert.ok(host.requests.some((r) => r.path.startsWith('/codeload/acme/billing-pkgs/')));
    const stored = path.join(server.home, 'server', 'packages', '@acme', 'billing');
    const metadata = JSON.parse(fs.readFileSync(path.join(stored, 'metadata.json'), 'utf8'));
    assert.deepEqual(metadata.source, { github: { owner: 'acme', repo: 'billing-pkgs', sha: v1.sha, digest: host.digestOf(v1) } });
    const list = await server.request('GET', '/v1/packages');
    assert.equal(list.status, 200);
    assert.deepEqual(list.json.roots, [path.join(server.home, 'server', 'packages'), path.join(server.home, 'packages')]);
    assert.deepEqual(list.json.packages, [
      { name: '@acme/billing', version: '0.1.0', description: 'The @acme/billing Package', root: path.join(server.home, 'server', 'packages'), managed: true, digest: host.digestOf(v1) },
      { name: '@local/only', version: '0.1.0', description: 'The @local/only Package', root: path.join(server.home, 'packages'), managed: false, digest: null },
    ]);
    const audit = server.audit({ type: 'admin', event: 'package_installed', status: '200' });
    assert.equal(audit.length, 1);
    assert.equal(audit[0]['packages.0.name'], '@acme/billing');
    assert.equal(audit[0]['packages.0.version'], '0.1.0');
    assert.equal(audit[0]['packages.0.digest'], host.digestOf(v1));
    assert.ok(!server.lines().some((l) => l.includes('first-token')), 'the token never reaches the log');
  });

  test('the same commit again is up_to_date; another commit is already_installed until upgrade; the token file is re-read', async () => {
    fs.writeFileSync(tokenFile, 'second-token');
    const again = await install({ url: 'acme/billing-pkgs', ref: 'v1' });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.json.installed, []);
    assert.equal(again.json.up_to_date[0].name, '@acme/billing');
    assert.ok(host.requests.some((r) => r.authorization === 'Bearer second-token'));
    const v2 = host.addCommit('acme/billing-pkgs', ['v2'], billing({ 'README.md': 'changed' }));
    const conflict = await install({ url: 'acme/billing-pkgs@v2' });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.json.error, 'already_installed');
    assert.match(conflict.json.message, new RegExp(`@acme/billing already installed at a different commit.*retry with upgrade to replace it with ${v2.sha}`));
    const upgraded = await install({ url: 'github.com/acme/billing-pkgs/tree/v2', upgrade: true });
    assert.equal(upgraded.status, 200, upgraded.text);
    assert.deepEqual(upgraded.json.installed, [{ name: '@acme/billing', version: '0.1.0', digest: host.digestOf(v2) }]);
    const listed = (await server.request('GET', '/v1/packages')).json.packages;
    assert.equal(listed[0].digest, host.digestOf(v2));
  });

  test('registration checks the store: package_missing, invalid_packages, filters on provided fields; discovery lists and documents the Packages', async () => {
    const blueprint = (packages: string, permissions: string) => ({ yaml: `name: billing\npackages: ${packages}\npermissions:\n${permissions}` });
    const grants = `  "@acme/billing":\n    - {capability: http.post, filter: 'host == "billing.internal.example.com"', action: allow}\n    - {capability: secrets.get, action: deny}\n`;
    const missing = await server.request('POST', '/v1/blueprints', { body: blueprint('["@acme/ghost"]', '  main: []\n') });
    assert.equal(missing.status, 400);
    assert.equal(missing.json.error, 'package_missing');
    assert.match(missing.json.message, /@acme\/ghost/);
    const ungranted = await server.request('POST', '/v1/blueprints', { body: blueprint('["@acme/billing"]', '  main: []\n') });
    assert.equal(ungranted.status, 400);
    assert.equal(ungranted.json.error, 'invalid_packages');
    assert.match(ungranted.json.message, /requires `http\.post` with filter `host == "billing\.internal\.example\.com" and path == "\/credits"`/);
    const badField = await server.request('POST', '/v1/blueprints', { body: blueprint('["@acme/billing"]', `${grants}  main:\n    - {capability: acme.com/credits.apply, filter: 'bogus == 1', action: allow}\n`) });
    assert.equal(badField.status, 400);
    assert.equal(badField.json.error, 'invalid_filter');
    assert.match(badField.json.message, /its fields are: amount, customerClass, customerId/);
    const created = await server.request('POST', '/v1/blueprints', {
      body: blueprint('["@acme/billing", "@local/only"]', `${grants}  main:\n    - {capability: acme.com/credits.apply, filter: 'amount <= 100 and customerClass == "gold"', action: allow}\n`),
    });
    assert.equal(created.status, 200, created.text);

    const search = await server.request('GET', '/v1/blueprints/billing/packages/search?q=credits', { token: server.userToken });
    assert.deepEqual(search.json.results, [{ name: '@acme/billing', description: 'The @acme/billing Package', source: 'registry' }]);
    const byExport = await server.request('GET', '/v1/blueprints/billing/packages/search?q=applycredit', { token: server.userToken });
    assert.deepEqual(byExport.json.results.map((r: { name: string }) => r.name), ['@acme/billing']);
    const all = (await server.request('GET', '/v1/blueprints/billing/packages/search', { token: server.userToken })).json.results;
    assert.deepEqual(all.filter((r: { source: string }) => r.source === 'registry').map((r: { name: string }) => r.name), ['@acme/billing', '@local/only']);
    const docs = await server.request('GET', `/v1/blueprints/billing/packages/docs?name=${encodeURIComponent('@acme/billing')}`, { token: server.userToken });
    assert.equal(docs.status, 200);
    assert.equal(docs.headers.get('content-type'), 'text/markdown; charset=utf-8');
    assert.match(docs.text, /^# Billing\n\nApply credits\.\n\n```ts\nimport \{ applyCredit \} from "@acme\/billing";\n```\n\n## Declarations\n\n```ts\n/);
    assert.match(docs.text, /export declare function applyCredit\(customerId: string, amount: number\): number;\n```\n$/);
    const near = await server.request('GET', '/v1/blueprints/billing/packages/docs?name=@acme/biling', { token: server.userToken });
    assert.equal(near.status, 404);
    assert.equal(near.json.did_you_mean, '@acme/billing');
    const prompt = await server.request('GET', '/v1/blueprints/billing/prompt', { token: server.userToken });
    assert.match(prompt.json.prompt, /Packages: `@acme\/billing`, `@local\/only`/);
  });

  test('a repository dependency is fetched at its pinned commit and installed first; the dependency closure of one selected Package', async () => {
    const core = host.addCommit('acme/core', ['main'], simple('@acme/core'));
    const files: FileMap = {
      'svc.toml': manifest([{ name: '@acme/app', path: 'app', dependencies: ['@acme/core'] }, { name: '@acme/other', path: 'other' }], `\n[dependencies]\n"@acme/core" = { github = "github.com/acme/core", rev = "${core.sha}" }\n`),
      'app/docs/readme.md': '# app\n',
      'app/src/lib.ts': 'import { one } from "@acme/core";\n/** Two. */\nexport const two = one + 1;\n',
      'other/docs/readme.md': '# other\n',
      'other/src/lib.ts': '/** Three. */\nexport const three = 3;\n',
    };
    const app = host.addCommit('acme/apps', ['main'], files);
    const reply = await install({ url: 'acme/apps', ref: 'main', package: '@acme/app' });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(
      reply.json.installed.map((p: { name: string; digest: string }) => [p.name, p.digest]),
      [
        ['@acme/core', host.digestOf(core)],
        ['@acme/app', host.digestOf(app)],
      ],
    );
    const names = (await server.request('GET', '/v1/packages')).json.packages.map((p: { name: string }) => p.name);
    assert.ok(names.includes('@acme/app') && names.includes('@acme/core') && !names.includes('@acme/other'));
  });

  const refused = async (body: Record<string, unknown>, status: number, error: string, message?: RegExp) => {
    const before = fs.readdirSync(path.join(server.home, 'server', 'packages')).sort();
    const reply = await install(body);
    assert.equal(reply.status, status, reply.text);
    assert.equal(reply.json.error, error, reply.text);
    assert.ok(Array.isArray(reply.json.warnings));
    if (message) assert.match(reply.json.message, message);
    assert.deepEqual(fs.readdirSync(path.join(server.home, 'server', 'packages')).sort(), before, 'nothing changed in the store');
    return reply;
  };

  test('400 errors: invalid_url, github_access, no_manifest, invalid_manifest, compile_failed, build_failed, scope_mismatch, warnings_denied, invalid_dependency', async () => {
    await refused({ url: 'ftp://example.com/x' }, 400, 'invalid_url', /only GitHub repositories/);
    await refused({ url: 'just-one-part' }, 400, 'invalid_url');
    await refused({ url: 'acme/nothing-here' }, 400, 'github_access', /not found or not accessible/);
    host.addCommit('acme/empty', ['main'], { 'README.md': 'no manifest' });
    await refused({ url: 'acme/empty@main' }, 400, 'no_manifest');
    host.addCommit('acme/badmanifest', ['main'], { 'svc.toml': '[[package]]\nname = "@acme/x"\n' });
    await refused({ url: 'acme/badmanifest@main' }, 400, 'invalid_manifest', /`version` is required/);
    host.addCommit('acme/syntax', ['main'], simple('@acme/syntax', 'export function f( {\n'));
    await refused({ url: 'acme/syntax@main' }, 400, 'compile_failed', /@acme\/syntax\/src\/lib\.ts:\d+:\d+: error/);
    host.addCommit('acme/badcheck', ['main'], simple('@acme/badcheck', 'import { check } from "svc:security";\n/**\n * F.\n * @capability a.com/b.c {}\n */\nexport function f(): void { check("a.com/b.c", { extra: 1 }); }\n'));
    await refused({ url: 'acme/badcheck@main' }, 400, 'build_failed', /sends `extra`/);
    host.addCommit('acme/wrongscope', ['main'], simple('@other/thing'));
    await refused({ url: 'acme/wrongscope@main' }, 400, 'scope_mismatch', /differs from the repository owner 'acme'/);
    host.addCommit('svc/not-official', ['main'], simple('@svc/fake'));
    await refused({ url: 'svc/not-official@main' }, 400, 'scope_mismatch', /reserved for the official svc repository; svc\/not-official may not publish it \(no official repository is configured \(setting official_repository\)\)/);
    host.addCommit('acme/warns', ['main'], simple('@acme/warns', 'export const undocumented = 1;\n'));
    const denied = await refused({ url: 'acme/warns@main', deny_warnings: true }, 400, 'warnings_denied', /^1 warning treated as errors/);
    assert.equal(denied.json.warnings.length, 1);
    assert.match(denied.json.warnings[0], /export `undocumented` has no doc comment/);
    host.addCommit('acme/dep-missing', ['main'], simple('@acme/needs', '/** X. */\nexport const x = 1;\n', ['@acme/ghost'], `\n[dependencies]\n"@acme/ghost" = { github = "acme/core", rev = "${'1'.repeat(40)}" }\n`));
    host.addCommit('acme/core', [], simple('@acme/core'));
    await refused({ url: 'acme/dep-missing@main' }, 502, 'dependency_fetch_failed');
    const core = host.addCommit('acme/core2', ['main'], simple('@acme/core2'));
    host.addCommit('acme/dep-wrong', ['main'], simple('@acme/needs2', '/** X. */\nexport const x = 1;\n', ['@acme/ghost'], `\n[dependencies]\n"@acme/ghost" = { github = "acme/core2", rev = "${core.sha}" }\n`));
    await refused({ url: 'acme/dep-wrong@main' }, 400, 'invalid_dependency', /has no package @acme\/ghost/);
    await refused({ url: 'acme/warns@main', package: 'not a name' }, 400, 'invalid_url');
  });

  test('409 dependency_conflict: one Package pinned at two commits', async () => {
    const a = host.addCommit('acme/shared', ['a'], simple('@acme/shared'));
    const b = host.addCommit('acme/shared', ['b'], simple('@acme/shared', '/** Two. */\nexport const two = 2;\n'));
    const midCommit = host.addCommit('acme/mid', ['pinned'], simple('@acme/mid', '/** M. */\nexport const m = 1;\n', ['@acme/shared'], `\n[dependencies]\n"@acme/shared" = { github = "acme/shared", rev = "${b.sha}" }\n`));
    const top: FileMap = {
      'svc.toml': manifest([{ name: '@acme/top', dependencies: ['@acme/shared', '@acme/mid'] }], `\n[dependencies]\n"@acme/shared" = { github = "acme/shared", rev = "${a.sha}" }\n"@acme/mid" = { github = "acme/mid", rev = "${midCommit.sha}" }\n`),
      'docs/readme.md': '# top\n',
      'src/lib.ts': '/** T. */\nexport const t = 1;\n',
    };
    host.addCommit('acme/top', ['main'], top);
    await refused({ url: 'acme/top@main' }, 409, 'dependency_conflict', new RegExp(`@acme/shared is required at two commits: ${a.sha}.*${b.sha}`));
  });

  test('502 and 503: resolve_failed, download_failed, github_rate_limited; 500 store_error and github_token_unavailable', async () => {
    host.addCommit('acme/flaky', ['main'], simple('@acme/flaky'));
    host.failWhen(/^\/repos\/acme\/flaky\/commits\//, 500);
    await refused({ url: 'acme/flaky@main' }, 502, 'resolve_failed', /HTTP 500/);
    host.clearFailures();
    host.failWhen(/^\/codeload\/acme\/flaky\//, 500);
    await refused({ url: 'acme/flaky@main' }, 502, 'download_failed', /HTTP 500/);
    host.clearFailures();
    host.failWhen(/^\/repos\/acme\/flaky\/commits\//, 403, { 'x-ratelimit-remaining': '0' });
    await refused({ url: 'acme/flaky@main' }, 503, 'github_rate_limited');
    host.clearFailures();
    host.addCommit('acme/escape', ['main'], tarGz([{ name: 'top/', type: '5' }, { name: 'top/../../evil', body: 'x' }]));
    await refused({ url: 'acme/escape@main' }, 502, 'download_failed', /climbs out/);
    // A file where the scope directory belongs makes the store unwritable.
    fs.writeFileSync(path.join(server.home, 'server', 'packages', '@blocked'), 'not a directory');
    host.addCommit('blocked/pkg', ['main'], simple('@blocked/pkg'));
    await refused({ url: 'blocked/pkg@main' }, 500, 'store_error');
    fs.rmSync(path.join(server.home, 'server', 'packages', '@blocked'));
    fs.rmSync(tokenFile);
    await refused({ url: 'acme/flaky@main' }, 500, 'github_token_unavailable', /github_token_file could not be read/);
    fs.writeFileSync(tokenFile, 'third-token');
  });

  test('CLI: svc packages install | list | remove over the admin API, and svc install into the local store', async () => {
    host.addCommit('cli/tools', ['v1'], simple('@cli/tools'));
    const env = { ...serverEnv(server), NODE_EXTRA_CA_CERTS: host.certFile };
    // Admin calls (the server fetches): the CLI in-process; `svc install` fetches itself, so it keeps a process trusting the host's CA.
    const installed = await svcInProcess(['packages', 'install', 'cli/tools@v1', '@cli/tools'], { env });
    assert.equal(installed.code, 0, installed.stderr);
    assert.match(installed.stdout, /^installed @cli\/tools 0\.1\.0 \(sha256:[0-9a-f]{64}\)$/m);
    const listed = await svcInProcess(['packages', 'list'], { env });
    assert.match(listed.stdout, /@cli\/tools +0\.1\.0 +managed/);
    const again = await svcInProcess(['packages', 'install', 'cli/tools', '--ref', 'v1'], { env });
    assert.match(again.stdout, /^up to date @cli\/tools 0\.1\.0$/m);
    const refused = await svcInProcess(['packages', 'install', 'nope nope'], { env });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /invalid_url/);
    const badDeny = await svcInProcess(['packages', 'install', 'cli/tools'], { env: { ...env, SVC_DENY_WARNINGS: 'yes' } });
    assert.equal(badDeny.code, 2);
    const removed = await svcInProcess(['packages', 'remove', '@cli/tools'], { env });
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /removed @cli\/tools 0\.1\.0/);
    const home = tempDir();
    const local = await runSvc(['install', 'cli/tools@v1'], { env: { SVC_HOME: home, SVC_GITHUB_API_URL: host.url, NODE_EXTRA_CA_CERTS: host.certFile, GH_TOKEN: 'cli-token' } });
    assert.equal(local.code, 0, local.stderr);
    assert.ok(fs.existsSync(path.join(home, 'packages', '@cli', 'tools', 'metadata.json')));
    assert.ok(host.requests.some((r) => r.authorization === 'Bearer cli-token'));
    const docs = await svcInProcess(['docs', '@cli/tools'], { env: { SVC_HOME: home } });
    assert.equal(docs.code, 0, docs.stderr);
    assert.match(docs.stdout, /^@cli\/tools — The @cli\/tools Package\n\n\/\*\* One\. \*\/\nexport declare const one = 1;/);
  });

  test('remove: invalid_name, not_found, not_managed for a fallback-only Package, success with still_available_from and an audit record', async () => {
    assert.equal((await server.request('DELETE', '/v1/packages/nope')).json.error, 'invalid_name');
    const missing = await server.request('DELETE', '/v1/packages/@acme/none');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error, 'not_found');
    assert.equal(missing.json.message, "package '@acme/none' is not installed");
    const listed = (await server.request('GET', '/v1/packages')).json.packages;
    assert.deepEqual(listed.find((p: { name: string }) => p.name === '@local/only'), { name: '@local/only', version: '0.1.0', description: 'The @local/only Package', root: path.join(server.home, 'packages'), managed: false, digest: null });
    const notManaged = await server.request('DELETE', '/v1/packages/@local/only');
    assert.equal(notManaged.status, 409);
    assert.equal(notManaged.json.error, 'not_managed');
    const removed = await server.request('DELETE', '/v1/packages/%40acme%2Fbilling');
    assert.equal(removed.status, 200, removed.text);
    assert.equal(removed.json.name, '@acme/billing');
    assert.equal(removed.json.version, '0.1.0');
    assert.match(removed.json.digest, /^sha256:[0-9a-f]{64}$/);
    assert.equal(removed.json.still_available_from, path.join(server.home, 'packages'));
    const audit = server.audit({ type: 'admin', event: 'package_removed', status: '200' });
    assert.equal(audit.at(-1)?.name, '@acme/billing');
    assert.equal(audit.at(-1)?.digest, removed.json.digest);
    assert.equal((await server.request('GET', '/v1/packages')).json.packages.find((p: { name: string }) => p.name === '@acme/billing').managed, false);
  });
});
