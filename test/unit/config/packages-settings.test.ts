// The Package install settings: github_api_url (file, flag, SVC_ variable; https only),
// official_repository (owner/repo; none by default) and deny_warnings (file,
// --deny-warnings, SVC_DENY_WARNINGS=1), in settings_hash and --help.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeSettingsHash, parseCommand } from '../../../src/config';
import { refused, settingsOf } from './support';

test('github_api_url defaults to api.github.com and comes from the file, the variable or the flag (flag wins)', () => {
  assert.equal(settingsOf().githubApiUrl, 'https://api.github.com');
  assert.equal(settingsOf({ config: { github_api_url: 'https://ghe.example.com/api/v3/' } }).githubApiUrl, 'https://ghe.example.com/api/v3');
  assert.equal(settingsOf({ env: { SVC_GITHUB_API_URL: 'https://env.example.com' }, config: { github_api_url: 'https://file.example.com' } }).githubApiUrl, 'https://env.example.com');
  assert.equal(settingsOf({ argv: ['--github-api-url', 'https://flag.example.com'], env: { SVC_GITHUB_API_URL: 'https://env.example.com' } }).githubApiUrl, 'https://flag.example.com');
});

test('github_api_url must be an https URL without query or credentials', () => {
  refused({ env: { SVC_GITHUB_API_URL: 'http://api.github.com' } }, /\$SVC_GITHUB_API_URL: expected an https:\/\/ URL/);
  refused({ argv: ['--github-api-url', 'not a url'] }, /--github-api-url: expected an https:\/\/ URL/);
  refused({ config: { github_api_url: 'https://x.example.com/?a=1' } }, /config `github_api_url`: expected an https:\/\/ URL without query/);
  refused({ config: { github_api_url: 5 } }, /config `github_api_url`: expected text/);
});

test('official_repository is none by default and owner/repo from the file, the variable or the flag (flag wins)', () => {
  assert.equal(settingsOf().officialRepository, null);
  assert.deepEqual(settingsOf({ config: { official_repository: 'Acme/svc-packages' } }).officialRepository, { owner: 'Acme', repo: 'svc-packages' });
  assert.deepEqual(settingsOf({ env: { SVC_OFFICIAL_REPOSITORY: 'env-org/svc' }, config: { official_repository: 'file-org/svc' } }).officialRepository, { owner: 'env-org', repo: 'svc' });
  assert.deepEqual(settingsOf({ argv: ['--official-repository', 'flag-org/svc.git'], env: { SVC_OFFICIAL_REPOSITORY: 'env-org/svc' } }).officialRepository, { owner: 'flag-org', repo: 'svc' });
  refused({ env: { SVC_OFFICIAL_REPOSITORY: 'svc' } }, /\$SVC_OFFICIAL_REPOSITORY: expected a repository as owner\/repo \(e\.g\. acme\/svc\), got `svc`/);
  refused({ argv: ['--official-repository', 'https://github.com/a/b'] }, /--official-repository: expected a repository as owner\/repo/);
  refused({ config: { official_repository: 'a/b/c' } }, /config `official_repository`: expected a repository as owner\/repo/);
  refused({ config: { official_repository: 'a/..' } }, /config `official_repository`: expected a repository/);
  refused({ config: { official_repository: 7 } }, /config `official_repository`: expected text/);
});

test('deny_warnings: the flag, SVC_DENY_WARNINGS=1 or the file turn it on; other variable values stop startup', () => {
  assert.equal(settingsOf().denyWarnings, false);
  assert.equal(settingsOf({ argv: ['--deny-warnings'] }).denyWarnings, true);
  assert.equal(settingsOf({ env: { SVC_DENY_WARNINGS: '1' } }).denyWarnings, true);
  assert.equal(settingsOf({ config: { deny_warnings: true } }).denyWarnings, true);
  assert.equal(settingsOf({ env: { SVC_DENY_WARNINGS: '' } }).denyWarnings, false);
  refused({ env: { SVC_DENY_WARNINGS: 'yes' } }, /\$SVC_DENY_WARNINGS: expected `1`/);
});

test('the settings change settings_hash and appear in --help', () => {
  const hash = (options: Parameters<typeof settingsOf>[0]) => computeSettingsHash(settingsOf(options), '127.0.0.1:8128');
  assert.notEqual(hash({}), hash({ env: { SVC_GITHUB_API_URL: 'https://ghe.example.com/api/v3' } }));
  assert.notEqual(hash({}), hash({ argv: ['--deny-warnings'] }));
  assert.notEqual(hash({}), hash({ env: { SVC_OFFICIAL_REPOSITORY: 'acme/svc' } }));
  assert.notEqual(hash({ env: { SVC_OFFICIAL_REPOSITORY: 'acme/svc' } }), hash({ env: { SVC_OFFICIAL_REPOSITORY: 'acme/other' } }));
  const help = parseCommand({ argv: ['--help'], env: {}, cwd: '/', homeDir: null, tmpDir: '/tmp', version: 'x' } as never);
  assert.equal(help.kind, 'help');
  const text = (help as { text: string }).text;
  assert.match(text, /--github-api-url <url> .*\$SVC_GITHUB_API_URL/);
  assert.match(text, /--deny-warnings .*\$SVC_DENY_WARNINGS/);
  assert.match(text, /--official-repository <owner\/repo> .*@svc.*\$SVC_OFFICIAL_REPOSITORY/);
});
