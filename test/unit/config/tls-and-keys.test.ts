// TLS files (both or neither, size, PEM, matching key), the secret store key, and
// health-check mode, which reads only the address and certificate.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { refused, run, scratch, settingsOf, writeFile } from './support';

let certs: string;
let cert: string;
let key: string;

before(() => {
  certs = scratch();
  cert = path.join(certs, 'c.pem');
  key = path.join(certs, 'k.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
});

describe('TLS', () => {
  test('neither file: plain HTTP', () => {
    assert.equal(settingsOf().tls, null);
  });
  test('both files: the PEM contents are loaded', () => {
    const s = settingsOf({ argv: ['--tls-cert-file', cert, '--tls-key-file', key] });
    assert.deepEqual(s.tls?.cert, fs.readFileSync(cert));
    assert.deepEqual(s.tls?.key, fs.readFileSync(key));
    assert.equal(s.tls?.certFile, cert);
  });
  test('TLS files in the config file resolve against its directory', () => {
    const dir = scratch();
    fs.copyFileSync(cert, path.join(dir, 'server.crt'));
    fs.copyFileSync(key, path.join(dir, 'server.key'));
    const s = settingsOf({ dir, config: { tls: { cert_file: 'server.crt', key_file: 'server.key' } } });
    assert.equal(s.tls?.keyFile, path.join(dir, 'server.key'));
  });
  test('only one file set stops startup naming both settings', () => {
    refused({ env: { SVC_TLS_CERT_FILE: cert } }, /HTTPS requires both tls\.cert_file and tls\.key_file/);
    refused({ argv: ['--tls-key-file', key] }, /HTTPS requires both tls\.cert_file and tls\.key_file \(or --tls-cert-file and --tls-key-file\)/);
  });
  test('an unreadable certificate stops startup naming the file', () => {
    refused({ argv: ['--tls-cert-file', path.join(certs, 'absent.pem'), '--tls-key-file', key] }, /cannot read TLS certificate .*absent\.pem/);
  });
  test('a certificate that is not PEM stops startup', () => {
    const dir = scratch();
    const garbage = writeFile(dir, 'bad.pem', 'not a certificate\n');
    refused({ argv: ['--tls-cert-file', garbage, '--tls-key-file', key] }, /TLS certificate .*bad\.pem is not a valid PEM certificate/);
  });
  test('a DER certificate is refused: the setting is PEM', () => {
    const dir = scratch();
    const der = writeFile(dir, 'c.der', new X509Certificate(fs.readFileSync(cert)).raw);
    refused({ argv: ['--tls-cert-file', der, '--tls-key-file', key] }, /not a valid PEM certificate/);
  });
  test('a key that is not a PEM private key stops startup', () => {
    refused({ argv: ['--tls-cert-file', cert, '--tls-key-file', cert] }, /TLS key .*c\.pem is not a valid PEM private key/);
  });
  test('a file over 1 MiB stops startup', () => {
    const dir = scratch();
    const big = writeFile(dir, 'big.pem', Buffer.concat([fs.readFileSync(cert), Buffer.alloc(1024 * 1024, 0x0a)]));
    refused({ argv: ['--tls-cert-file', big, '--tls-key-file', key] }, /TLS certificate .*big\.pem is larger than 1 MiB/);
  });
  test('a key that does not match the certificate stops startup', () => {
    const dir = scratch();
    const other = writeFile(dir, 'other.pem', generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    refused({ argv: ['--tls-cert-file', cert, '--tls-key-file', other] }, /TLS key .*other\.pem does not match the certificate/);
  });
  test('an encrypted key is refused with a reason', () => {
    const dir = scratch();
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const encrypted = writeFile(dir, 'enc.pem', pair.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' }) as string);
    refused({ argv: ['--tls-cert-file', cert, '--tls-key-file', encrypted] }, /TLS key .*enc\.pem is encrypted/);
  });
});

describe('secret store key', () => {
  const key32 = Buffer.alloc(32, 7);
  test('no key: the store is off', () => {
    assert.equal(settingsOf().secretStore.key, null);
  });
  test('SVC_SECRET_KEY is the default variable; padding optional; whitespace trimmed', () => {
    assert.deepEqual(settingsOf({ env: { SVC_SECRET_KEY: key32.toString('base64') } }).secretStore.key, key32);
    assert.deepEqual(settingsOf({ env: { SVC_SECRET_KEY: key32.toString('base64').replace(/=+$/, '') } }).secretStore.key, key32);
  });
  test('secret_store.key_env names another variable', () => {
    const s = settingsOf({ env: { MY_STORE_KEY: key32.toString('base64'), SVC_SECRET_KEY: 'ignored' }, config: { secret_store: { key_env: 'MY_STORE_KEY' } } });
    assert.deepEqual(s.secretStore.key, key32);
  });
  test('key_file wins over key_env, and its whitespace is trimmed', () => {
    const dir = scratch();
    writeFile(dir, 'store.key', `\n${key32.toString('base64')}\n`);
    const s = settingsOf({ dir, argv: ['--secret-store-key-file', 'store.key'], env: { SVC_SECRET_KEY: 'garbage' } });
    assert.deepEqual(s.secretStore.key, key32);
  });
  const malformed: Array<[string, string]> = [
    ['too short', Buffer.alloc(16).toString('base64')],
    ['too long', Buffer.alloc(33).toString('base64')],
    ['not base64', '!'.repeat(44)],
    ['URL-safe alphabet', Buffer.alloc(32, 0xfb).toString('base64url')],
  ];
  for (const [name, value] of malformed) {
    test(`a malformed key (${name}) in the variable stops startup without echoing it`, () => {
      const message = refused({ env: { SVC_SECRET_KEY: value } }, /secret store key in \$SVC_SECRET_KEY: expected base64 of exactly 32 bytes/);
      assert.ok(!message.includes(value));
    });
  }
  test('an unreadable key file stops startup', () => {
    const dir = scratch();
    refused({ dir, argv: ['--secret-store-key-file', 'absent.key'] }, /cannot read the secret store key file .*absent\.key/);
  });
  test('a malformed key file stops startup naming the file', () => {
    const dir = scratch();
    writeFile(dir, 'bad.key', 'abc');
    refused({ dir, config: { secret_store: { key_file: 'bad.key' } } }, /secret store key file .*bad\.key: expected base64 of exactly 32 bytes/);
  });
  test('secret_store.dir moves the store', () => {
    const dir = scratch();
    assert.equal(settingsOf({ dir, argv: ['--secret-store-dir', 'sec'] }).secretStore.dir, path.join(dir, 'sec'));
  });
});

describe('health-check mode', () => {
  test('probes the configured address with no token configured', () => {
    const command = run({ noToken: true, argv: ['--health-check'], env: { SVC_PORT: '9999', SVC_BIND: '10.0.0.5' } });
    assert.deepEqual(command, { kind: 'health-check', target: { host: '10.0.0.5', port: 9999, tls: null } });
  });
  for (const [bind, host] of [['0.0.0.0', '127.0.0.1'], ['::', '::1'], ['0:0:0:0:0:0:0:0', '::1']] as const) {
    test(`a wildcard bind ${bind} is probed on ${host}`, () => {
      assert.deepEqual(run({ noToken: true, argv: ['--health-check', '--bind', bind] }), { kind: 'health-check', target: { host, port: 8128, tls: null } });
    });
  }
  test('PORT alone is probed on loopback', () => {
    assert.deepEqual(run({ noToken: true, argv: ['--health-check'], env: { PORT: '7000' } }), { kind: 'health-check', target: { host: '127.0.0.1', port: 7000, tls: null } });
  });
  test('reads the address from the config file', () => {
    assert.deepEqual(run({ noToken: true, argv: ['--health-check'], config: { bind: '127.0.0.2', port: 1234 } }), { kind: 'health-check', target: { host: '127.0.0.2', port: 1234, tls: null } });
  });
  test('over TLS it carries the certificate, never reading the key file', () => {
    const command = run({ noToken: true, argv: ['--health-check', '--tls-cert-file', cert, '--tls-key-file', path.join(certs, 'never-read.key')] });
    assert.equal(command.kind, 'health-check');
    assert.deepEqual((command as { target: { tls: unknown } }).target.tls, { certPem: fs.readFileSync(cert) });
  });
  test('ignores token files, the store key and the log file, and writes nothing', () => {
    const dir = scratch();
    const command = run({
      dir,
      noToken: true,
      argv: ['--health-check'],
      env: { SVC_SECRET_KEY: 'malformed', SVC_LOG_FILE: 'svc.log' },
      config: { api_tokens: [{ name: 'x', role: 'user', token_file: 'absent' }], secret_store: { key_file: 'absent.key' }, github_token_file: 'absent' },
    });
    assert.equal(command.kind, 'health-check');
    assert.deepEqual(fs.readdirSync(dir), ['config.yaml']);
  });
  test('a malformed address setting still stops it', () => {
    refused({ noToken: true, argv: ['--health-check'], env: { SVC_PORT: 'x' } }, /\$SVC_PORT: expected a port number/);
  });
});
