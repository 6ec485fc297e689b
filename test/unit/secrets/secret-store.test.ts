// The sealed secret store: file layout and modes, sealing (no value in clear, the key name
// bound as associated data), key rules, the key check at boot, listing and the store-off
// behaviour.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { KEY_MISMATCH_MESSAGE, SecretStore, SecretStoreError, storeKeyProblem } from '../../../src/secrets';
import { tempDir } from '../../support/temp-dirs';

const CANARY = 'canary-7d41c0e9-secret-value';

function storeDir(): string {
  return path.join(tempDir('svc-'), 'secrets');
}

function failsWith(code: string) {
  return (error: unknown) => error instanceof SecretStoreError && error.code === code;
}

test('a value is sealed in one 0600 file named by the hex of its key, in a 0700 directory, never in clear', () => {
  const dir = storeDir();
  const store = new SecretStore(dir, randomBytes(32));
  store.put('billing/api_key', CANARY);
  const file = path.join(dir, Buffer.from('billing/api_key').toString('hex'));
  assert.ok(fs.existsSync(file));
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const sealed = fs.readFileSync(file);
  assert.equal(sealed[0], 1, 'format version byte');
  assert.equal(sealed.length, 1 + 12 + Buffer.byteLength(CANARY) + 16);
  for (const name of fs.readdirSync(dir)) assert.ok(!fs.readFileSync(path.join(dir, name)).includes(Buffer.from(CANARY)), `${name} holds the value in clear`);
  assert.equal(store.get('billing/api_key'), CANARY);
});

test('each write uses a fresh nonce, and an overwrite replaces the value', () => {
  const dir = storeDir();
  const store = new SecretStore(dir, randomBytes(32));
  const file = path.join(dir, Buffer.from('k').toString('hex'));
  store.put('k', 'same');
  const first = fs.readFileSync(file);
  store.put('k', 'same');
  assert.notDeepEqual(fs.readFileSync(file), first);
  store.put('k', 'changed');
  assert.equal(store.get('k'), 'changed');
  assert.ok(!fs.readdirSync(dir).some((name) => name.endsWith('.tmp')), 'a temporary file was left behind');
});

test('a sealed file renamed to another key does not open', () => {
  const dir = storeDir();
  const store = new SecretStore(dir, randomBytes(32));
  store.put('a', CANARY);
  fs.copyFileSync(path.join(dir, Buffer.from('a').toString('hex')), path.join(dir, Buffer.from('b').toString('hex')));
  assert.throws(() => store.get('b'), failsWith('internal_error'));
});

test('the same key reopens the store after a restart; another key is refused at startup with the fixed message', () => {
  const dir = storeDir();
  const key = randomBytes(32);
  new SecretStore(dir, key).put('k', CANARY);
  const reopened = new SecretStore(dir, Buffer.from(key));
  reopened.verifyKey();
  assert.equal(reopened.get('k'), CANARY);
  const wrong = new SecretStore(dir, randomBytes(32));
  assert.throws(() => wrong.verifyKey(), (error: unknown) => error instanceof SecretStoreError && error.code === 'key_mismatch' && error.message === KEY_MISMATCH_MESSAGE);
});

test('a fresh directory passes the key check, and the check entry is written by the first put', () => {
  const dir = storeDir();
  const store = new SecretStore(dir, randomBytes(32));
  store.verifyKey();
  assert.equal(fs.existsSync(dir), false, 'verifying created the directory');
  store.put('k', 'v');
  assert.ok(fs.existsSync(path.join(dir, '.key-check')));
  assert.deepEqual(store.list(), ['k']);
});

test('startup removes temporary files of an interrupted write', () => {
  const dir = storeDir();
  const store = new SecretStore(dir, randomBytes(32));
  store.put('k', 'v');
  fs.writeFileSync(path.join(dir, `${Buffer.from('k').toString('hex')}.123.abcd.tmp`), 'partial');
  store.verifyKey();
  assert.deepEqual(fs.readdirSync(dir).filter((name) => name.endsWith('.tmp')), []);
});

test('list returns keys only, byte-sorted, filtered by prefix, without reserved OAuth entries', () => {
  const store = new SecretStore(storeDir(), randomBytes(32));
  for (const key of ['b', 'a/x', 'B', 'a/y', 'ab']) store.put(key, 'v');
  store.put('mcp_oauth/support/linear', 'token', { allowReserved: true });
  assert.deepEqual(store.list(), ['B', 'a/x', 'a/y', 'ab', 'b']);
  assert.deepEqual(store.list('a/'), ['a/x', 'a/y']);
  assert.deepEqual(store.list('zzz'), []);
  assert.equal(store.get('mcp_oauth/support/linear', { allowReserved: true }), 'token');
  assert.equal(store.get('mcp_oauth/support/linear'), undefined);
});

test('delete removes the value; deleting an absent key is not_found', () => {
  const store = new SecretStore(storeDir(), randomBytes(32));
  store.put('k', 'v');
  assert.equal(store.has('k'), true);
  store.delete('k');
  assert.equal(store.has('k'), false);
  assert.equal(store.get('k'), undefined);
  assert.throws(() => store.delete('k'), failsWith('not_found'));
});

test('keys breaking the store-key rules and empty values are refused', () => {
  const store = new SecretStore(storeDir(), randomBytes(32));
  for (const key of ['', '/a', 'a/', 'a//b', 'a/./b', '../a', 'a b', 'ä', 'x'.repeat(257), 'mcp_oauth/x']) {
    assert.throws(() => store.put(key, 'v'), failsWith('invalid_key'), JSON.stringify(key));
  }
  assert.throws(() => store.put('k', ''), failsWith('invalid_value'));
  assert.throws(() => store.delete('../a'), failsWith('invalid_key'));
  assert.equal(storeKeyProblem('a.b/c-d_e/F9'), null);
  assert.equal(storeKeyProblem('x'.repeat(256)), null);
  assert.equal(storeKeyProblem('mcp_oauth/x', { allowReserved: true }), null);
});

test('without a key every operation is no_secret_store, has is false and get is undefined', () => {
  const dir = storeDir();
  const store = new SecretStore(dir, null);
  assert.equal(store.enabled, false);
  assert.throws(() => store.put('k', 'v'), failsWith('no_secret_store'));
  assert.throws(() => store.list(), failsWith('no_secret_store'));
  assert.throws(() => store.delete('k'), failsWith('no_secret_store'));
  assert.match((() => { try { store.list(); } catch (e) { return (e as Error).message; } return ''; })(), /^no secret store is configured on this server/);
  assert.equal(store.has('k'), false);
  assert.equal(store.get('k'), undefined);
  store.verifyKey();
  assert.equal(fs.existsSync(dir), false);
});

test('error messages never contain the value', () => {
  const store = new SecretStore(storeDir(), randomBytes(32));
  try {
    store.put('bad key', CANARY);
    assert.fail('accepted');
  } catch (error) {
    assert.ok(!(error as Error).message.includes(CANARY));
  }
});
