// Outbound grants (network.allow_ip, allow_localhost, allow_private), MCP Host entries and
// OAuth provider registrations.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { refused, settingsOf } from './support';

describe('network.allow_ip', () => {
  const canonical: Array<[string, string]> = [
    ['127.0.0.1', '127.0.0.1/32'],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['192.168.1.0/24', '192.168.1.0/24'],
    ['::1', '::1/128'],
    ['FD00::ABCD', 'fd00::abcd/128'],
    ['2001:DB8:0:0::/32', '2001:db8::/32'],
    ['::ffff:10.0.0.1', '10.0.0.1/32'],
    ['0.0.0.0/0', '0.0.0.0/0'],
  ];
  for (const [entry, expected] of canonical) {
    test(`\`${entry}\` becomes ${expected}`, () => {
      assert.deepEqual(settingsOf({ argv: ['--allow-ip', entry] }).network.allowIp, [expected]);
    });
  }
  const bad = ['example.com', '10.0.0.0/33', '::/129', '10', '0x7f.0.0.1', '010.0.0.1', '10.1', '1.2.3.4/8/1', '10.0.0.0/', 'fe80::1%eth0', '*'];
  for (const entry of bad) {
    test(`\`${entry}\` is refused`, () => {
      refused({ env: { SVC_ALLOW_IP: entry } }, /\$SVC_ALLOW_IP: expected an IP address or CIDR range, got `/);
    });
  }
  test('a bad entry names its source', () => {
    refused({ config: { network: { allow_ip: ['nope'] } } }, /config `network\.allow_ip`: expected an IP address or CIDR range, got `nope`/);
    refused({ argv: ['--allow-ip', '10.0.0.1,nope'] }, /--allow-ip: expected an IP address or CIDR range, got `nope`/);
  });
  test('entries from every source add up, each once', () => {
    const s = settingsOf({ argv: ['--allow-ip', '10.0.0.1'], env: { SVC_ALLOW_IP: '192.168.0.0/16, ::1' }, config: { network: { allow_ip: ['127.0.0.1', '10.0.0.1/32'] } } });
    assert.deepEqual([...s.network.allowIp].sort(), ['10.0.0.1/32', '127.0.0.1/32', '192.168.0.0/16', '::1/128']);
  });
});

describe('allow_localhost and allow_private', () => {
  test('off by default', () => {
    const s = settingsOf();
    assert.deepEqual([s.network.allowLocalhost, s.network.allowPrivate, s.network.grantsFromEnvironment], [false, false, []]);
  });
  test('any source turns a grant on; none revokes another', () => {
    assert.equal(settingsOf({ env: { SVC_ALLOW_LOCALHOST: '0' }, config: { network: { allow_localhost: true } } }).network.allowLocalhost, true);
    assert.equal(settingsOf({ argv: ['--allow-private'], config: { network: { allow_private: false } } }).network.allowPrivate, true);
  });
  test('grants from variables are listed by variable name', () => {
    const s = settingsOf({ env: { SVC_ALLOW_LOCALHOST: 'on', SVC_ALLOW_PRIVATE: 'yes', SVC_ALLOW_IP: '10.0.0.1' } });
    assert.deepEqual([...s.network.grantsFromEnvironment].sort(), ['SVC_ALLOW_IP', 'SVC_ALLOW_LOCALHOST', 'SVC_ALLOW_PRIVATE']);
  });
  test('grants from flags or the file are not listed as from the environment', () => {
    const s = settingsOf({ argv: ['--allow-localhost', '--allow-ip', '10.0.0.1'], env: { SVC_ALLOW_PRIVATE: 'no' }, config: { network: { allow_private: true } } });
    assert.deepEqual(s.network.grantsFromEnvironment, []);
  });
});

describe('mcp_allowed_hosts', () => {
  test('entries from every source add up, lower-cased', () => {
    const s = settingsOf({ argv: ['--mcp-allowed-host', 'Flag.Example'], env: { SVC_MCP_ALLOWED_HOSTS: 'svc.local:8128, [FD00::1]:443' }, config: { mcp_allowed_hosts: ['Example.COM', 'svc.local:8128'] } });
    assert.deepEqual([...s.mcpAllowedHosts].sort(), ['[fd00::1]:443', 'example.com', 'flag.example', 'svc.local:8128']);
  });
  const accepted = ['host', 'my-host.example.org', 'host:1', 'host:65535', '10.0.0.1:80', '[::1]:8128', '[::1]'];
  for (const entry of accepted) {
    test(`\`${entry}\` is accepted`, () => {
      assert.deepEqual(settingsOf({ config: { mcp_allowed_hosts: [entry] } }).mcpAllowedHosts, [entry]);
    });
  }
  const bad = ['host:65536', 'host:', 'http://host', 'host/path', '::1', '[not-v6]:1', 'host:port', 'a b', '[::1]:99999'];
  for (const entry of bad) {
    test(`\`${entry}\` stops startup naming the source`, () => {
      refused({ config: { mcp_allowed_hosts: [entry] } }, /config `mcp_allowed_hosts`: expected `host`, `host:port` or `\[v6\]:port`/);
    });
  }
  test('a bad variable entry names the variable', () => {
    refused({ env: { SVC_MCP_ALLOWED_HOSTS: 'ok.test,bad host' } }, /\$SVC_MCP_ALLOWED_HOSTS: expected/);
  });
});

describe('mcp_oauth.providers', () => {
  test('providers keep file order, lower-cased match, scopes and the secret reference', () => {
    const s = settingsOf({
      config: {
        mcp_oauth: {
          providers: [
            { match: 'GitHub.com', client_id: 'abc', client_secret: '${env.GH_SECRET}', scopes: ['repo', 'read:org'] },
            { match: 'auth.example.org:8443', client_id: 'xyz' },
            { match: 'id.example.net', client_id: 'lit', client_secret: 'literal-secret' },
            { match: 'sso.example.com', client_id: 'st', client_secret: '${secrets.SSO}' },
          ],
        },
      },
    });
    assert.deepEqual(s.mcpOAuthProviders, [
      { match: 'github.com', clientId: 'abc', clientSecret: '${env.GH_SECRET}', scopes: ['repo', 'read:org'] },
      { match: 'auth.example.org', clientId: 'xyz', scopes: [] },
      { match: 'id.example.net', clientId: 'lit', clientSecret: 'literal-secret', scopes: [] },
      { match: 'sso.example.com', clientId: 'st', clientSecret: '${secrets.SSO}', scopes: [] },
    ]);
  });
  const cases: Array<[string, unknown, RegExp]> = [
    ['a missing match', [{ client_id: 'a' }], /mcp_oauth\.providers\[0\]`: `match` is required/],
    ['a missing client_id', [{ match: 'a.test' }], /mcp_oauth\.providers\[0\]`: `client_id` is required/],
    ['an empty client_id', [{ match: 'a.test', client_id: ' ' }], /mcp_oauth\.providers\[0\]\.client_id`: expected a non-empty client id/],
    ['a match that is a URL', [{ match: 'https://a.test/oauth', client_id: 'a' }], /mcp_oauth\.providers\[0\]\.match`: expected the host of an authorization server/],
    ['two providers with the same match', [{ match: 'a.test', client_id: 'a' }, { match: 'A.TEST:443', client_id: 'b' }], /mcp_oauth\.providers\[1\]`: another provider already matches `a\.test`/],
    ['a ${ secret of neither form', [{ match: 'a.test', client_id: 'a', client_secret: '${vault.X}' }], /client_secret`: expected a literal, `\$\{env\.VAR\}` or `\$\{secrets\.KEY\}`/],
    ['an unterminated ${ secret', [{ match: 'a.test', client_id: 'a', client_secret: '${env.X' }], /client_secret/],
    ['scopes that are not a list', [{ match: 'a.test', client_id: 'a', scopes: 'repo' }], /mcp_oauth\.providers\[0\]\.scopes`: expected a list/],
    ['providers that are not a list', { match: 'a.test' }, /config `mcp_oauth\.providers`: expected a list/],
  ];
  for (const [name, providers, pattern] of cases) {
    test(`${name} stops startup`, () => {
      refused({ config: { mcp_oauth: { providers } } }, pattern);
    });
  }
  test('a client secret never appears in a message', () => {
    const message = refused({ config: { mcp_oauth: { providers: [{ match: 'a.test', client_id: 'a', client_secret: 'super-secret-value', bogus: 1 }] } } }, /unknown key/);
    assert.ok(!message.includes('super-secret-value'));
  });
});

describe('network.hosts (--add-host, SVC_ADD_HOSTS)', () => {
  test('off by default', () => {
    assert.deepEqual(settingsOf().network.hosts, {});
  });
  test('entries from every source add up; names lower-cased, a trailing dot dropped, addresses canonical', () => {
    const s = settingsOf({
      argv: ['--add-host', 'API.Example.com.=10.0.0.7', '--add-host=b.test=::FFFF:127.0.0.1,c.test=FD00::0001'],
      env: { SVC_ADD_HOSTS: 'env.test=127.0.0.2, e2.test=[::1]' },
      config: { network: { hosts: { 'file.test': '192.0.2.10' } } },
    });
    assert.deepEqual({ ...s.network.hosts }, {
      'api.example.com': '10.0.0.7',
      'b.test': '127.0.0.1',
      'c.test': 'fd00::1',
      'e2.test': '::1',
      'env.test': '127.0.0.2',
      'file.test': '192.0.2.10',
    });
  });
  test('for a name given twice the flag wins over the variable, the variable over the file, a later entry over an earlier one', () => {
    const config = { network: { hosts: { 'x.test': '192.0.2.1', 'y.test': '192.0.2.1', 'z.test': '192.0.2.1' } } };
    const s = settingsOf({ argv: ['--add-host', 'x.test=192.0.2.3', '--add-host', 'x.test=192.0.2.4'], env: { SVC_ADD_HOSTS: 'x.test=192.0.2.2,y.test=192.0.2.2' }, config });
    assert.deepEqual({ ...s.network.hosts }, { 'x.test': '192.0.2.4', 'y.test': '192.0.2.2', 'z.test': '192.0.2.1' });
  });
  test('a host entry is not a grant: no grant from the variable, no change to the block', () => {
    const s = settingsOf({ env: { SVC_ADD_HOSTS: 'a.test=127.0.0.1' } });
    assert.deepEqual([s.network.grantsFromEnvironment, s.network.allowLocalhost, s.network.allowIp], [[], false, []]);
  });
  const badEntries: Array<[string, RegExp]> = [
    ['nope', /--add-host: expected `NAME=IP` \(for example `api\.example\.com=10\.0\.0\.7`\), got `nope`/],
    ['a.test=', /--add-host: `a\.test` needs one IP address, got ``/],
    ['a.test=example.org', /--add-host: `a\.test` needs one IP address, got `example\.org`/],
    ['a.test=10.0.0.0/8', /`a\.test` needs one IP address, got `10\.0\.0\.0\/8`/],
    ['a.test=fe80::1%eth0', /`a\.test` needs one IP address/],
    ['a.test=010.0.0.1', /`a\.test` needs one IP address/],
    ['=10.0.0.1', /--add-host: expected a host name such as `api\.example\.com`, got ``/],
    ['10.0.0.1=10.0.0.2', /expected a host name such as `api\.example\.com`, got `10\.0\.0\.1`/],
    ['bad host=10.0.0.1', /expected a host name .* got `bad host`/],
    ['-a.test=10.0.0.1', /expected a host name .* got `-a\.test`/],
    ['a..test=10.0.0.1', /expected a host name .* got `a\.\.test`/],
    ['https://a.test=10.0.0.1', /expected a host name .* got `https:\/\/a\.test`/],
  ];
  for (const [entry, pattern] of badEntries) {
    test(`\`${entry}\` stops startup naming the entry`, () => {
      refused({ argv: ['--add-host', entry] }, pattern);
    });
  }
  test('a bad variable or file entry names its source and the entry', () => {
    refused({ env: { SVC_ADD_HOSTS: 'ok.test=10.0.0.1,broken' } }, /\$SVC_ADD_HOSTS: expected `NAME=IP`.*got `broken`/);
    refused({ config: { network: { hosts: { 'ok.test': 'not-an-ip' } } } }, /config `network\.hosts`: `ok\.test` needs one IP address, got `not-an-ip`/);
    refused({ config: { network: { hosts: { 'ok.test': 7 } } } }, /config `network\.hosts\.ok\.test`: expected text/);
    refused({ config: { network: { hosts: ['a.test=10.0.0.1'] } } }, /config `network\.hosts`: expected a mapping/);
  });
  test('--add-host needs a value', () => {
    refused({ argv: ['--add-host'] }, /--add-host needs a value/, 'usage');
  });
});
