// API tokens and the authentication mode: every refusal names the
// entry and never the token; only SHA-256 digests are kept.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { refused, scratch, settingsOf, TOKEN, writeFile } from './support';

const USER_TOKEN = 'u'.repeat(24) + '-._~+/' + '0123456789' + '==';

function tokenConfig(dir: string, entries: Array<{ name?: unknown; role?: unknown; content?: string; token_file?: string }>) {
  return {
    api_tokens: entries.map((e, i) => {
      const entry: Record<string, unknown> = {};
      if ('name' in e) entry.name = e.name;
      if ('role' in e) entry.role = e.role;
      entry.token_file = e.token_file ?? writeFile(dir, `token-${i}`, e.content ?? '');
      return entry;
    }),
  };
}

describe('accepted tokens', () => {
  test('SVC_SERVER_TOKEN is an admin named SVC_SERVER_TOKEN; file entries keep name and role', () => {
    const dir = scratch();
    const s = settingsOf({ dir, config: tokenConfig(dir, [{ name: 'harness', role: 'user', content: `\n  ${USER_TOKEN}  \n` }]) });
    assert.deepEqual(s.tokens.map((t) => [t.name, t.role]), [['SVC_SERVER_TOKEN', 'admin'], ['harness', 'user']]);
  });
  test('only the SHA-256 digest of the trimmed value is kept', () => {
    const dir = scratch();
    const s = settingsOf({ dir, config: tokenConfig(dir, [{ name: 'harness', role: 'user', content: `${USER_TOKEN}\n` }]) });
    assert.deepEqual(s.tokens[1].digest, createHash('sha256').update(USER_TOKEN).digest());
    assert.deepEqual(s.tokens[0].digest, createHash('sha256').update(TOKEN).digest());
    assert.ok(!JSON.stringify(s).includes(USER_TOKEN));
    assert.ok(!JSON.stringify(s).includes(TOKEN));
  });
  test('file entries alone are enough', () => {
    const dir = scratch();
    const s = settingsOf({ dir, noToken: true, config: tokenConfig(dir, [{ name: 'ops', role: 'admin', content: USER_TOKEN }]) });
    assert.deepEqual(s.tokens.map((t) => t.name), ['ops']);
  });
  test('32 characters not counting padding is the minimum', () => {
    assert.equal(settingsOf({ env: { SVC_SERVER_TOKEN: `${'x'.repeat(32)}=` } }).tokens.length, 1);
  });
  test('--allow-unauthenticated without tokens serves with no token check', () => {
    const s = settingsOf({ noToken: true, argv: ['--allow-unauthenticated'] });
    assert.deepEqual([s.allowUnauthenticated, s.tokens.length], [true, 0]);
  });
  test('allow_unauthenticated is on when any source turns it on', () => {
    assert.equal(settingsOf({ noToken: true, env: { SVC_ALLOW_UNAUTHENTICATED: 'true' }, config: { allow_unauthenticated: false } }).allowUnauthenticated, true);
    assert.equal(settingsOf({ noToken: true, config: { allow_unauthenticated: true } }).allowUnauthenticated, true);
  });
});

describe('refusals', () => {
  test('no token at all names SVC_SERVER_TOKEN, api_tokens and --allow-unauthenticated', () => {
    refused({ noToken: true }, [/SVC_SERVER_TOKEN/, /api_tokens/, /--allow-unauthenticated/]);
  });
  test('tokens together with allow_unauthenticated are refused', () => {
    refused({ argv: ['--allow-unauthenticated'] }, /either requires a token or it does not; remove one/);
  });
  test('a short token reports its length, not its value', () => {
    const value = 'short-token-value==';
    const message = refused({ env: { SVC_SERVER_TOKEN: value } }, [/SVC_SERVER_TOKEN/, /is 17 characters long, not counting `=` padding; use at least 32/]);
    assert.ok(!message.includes(value));
  });
  test('a character outside the alphabet is refused without echoing the token', () => {
    const value = `${'b'.repeat(40)}!`;
    const message = refused({ env: { SVC_SERVER_TOKEN: value } }, /SVC_SERVER_TOKEN: .*character outside/);
    assert.ok(!message.includes(value));
  });
  test('`=` in the middle is outside the alphabet', () => {
    refused({ env: { SVC_SERVER_TOKEN: `${'b'.repeat(20)}=${'b'.repeat(20)}` } }, /character outside/);
  });
  test('a SVC_SERVER_TOKEN that is not valid text is refused', () => {
    refused({ env: { SVC_SERVER_TOKEN: `${'c'.repeat(40)}\uFFFD` } }, /SVC_SERVER_TOKEN is not valid text/);
  });
  const entryCases: Array<[string, (dir: string) => Record<string, unknown>, RegExp[]]> = [
    ['a duplicate name (including SVC_SERVER_TOKEN)', (d) => tokenConfig(d, [{ name: 'SVC_SERVER_TOKEN', role: 'user', content: USER_TOKEN }]), [/api_tokens\[0\]/, /`SVC_SERVER_TOKEN` is used twice/]],
    ['a duplicate name between entries', (d) => tokenConfig(d, [{ name: 'a', role: 'user', content: USER_TOKEN }, { name: 'a', role: 'user', content: 'z'.repeat(40) }]), [/api_tokens\[1\]/, /`a` is used twice/]],
    ['a duplicate value', (d) => tokenConfig(d, [{ name: 'dup', role: 'user', content: `${TOKEN}\n` }]), [/api_tokens\[0\]` \(dup\)/, /same token as SVC_SERVER_TOKEN/]],
    ['an empty token file', (d) => tokenConfig(d, [{ name: 'x', role: 'user', content: '  \n' }]), [/api_tokens\[0\]/, /token file is empty/]],
    ['an unreadable token file', (d) => tokenConfig(d, [{ name: 'x', role: 'user', token_file: `${d}/absent` }]), [/api_tokens\[0\]/, /cannot read token file/]],
    ['a bad role', (d) => tokenConfig(d, [{ name: 'x', role: 'root', content: USER_TOKEN }]), [/api_tokens\[0\]/, /role must be `admin` or `user`, got `root`/]],
    ['a blank name', (d) => tokenConfig(d, [{ name: '  ', role: 'user', content: USER_TOKEN }]), [/api_tokens\[0\]/, /token name must be non-empty/]],
    ['a name with a line break', (d) => tokenConfig(d, [{ name: 'a\nb', role: 'user', content: USER_TOKEN }]), [/control characters or line breaks/]],
    ['a missing role', (d) => tokenConfig(d, [{ name: 'x', content: USER_TOKEN }]), [/api_tokens\[0\]/, /`role` is required/]],
    ['a missing name', (d) => tokenConfig(d, [{ role: 'user', content: USER_TOKEN }]), [/api_tokens\[0\]/, /`name` is required/]],
    ['a short token in a file', (d) => tokenConfig(d, [{ name: 'x', role: 'user', content: 'abc' }]), [/api_tokens\[0\]` \(x\)/, /is 3 characters long/]],
    ['api_tokens that is not a list', () => ({ api_tokens: { name: 'x' } }), [/config `api_tokens`: expected a list/]],
  ];
  for (const [name, config, patterns] of entryCases) {
    test(`${name} is refused naming the entry`, () => {
      const dir = scratch();
      const message = refused({ dir, config: config(dir) }, patterns);
      assert.ok(!message.includes(USER_TOKEN) && !message.includes(TOKEN), 'no token value in the message');
    });
  }
  test('a token file path resolves against the config file directory', () => {
    const dir = scratch();
    writeFile(dir, 'tokens/ops', USER_TOKEN);
    const s = settingsOf({ dir, config: { api_tokens: [{ name: 'ops', role: 'admin', token_file: 'tokens/ops' }] } });
    assert.equal(s.tokens.length, 2);
  });
});
