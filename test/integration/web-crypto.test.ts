// crypto.subtle against the real server, with known-answer vectors: digests (FIPS 180
// "abc"), HMAC (RFC 4231 case 2), AES-GCM (the GCM specification's test case 3/4 and a
// tampered tag), key import/export/generation rules, and host fuel charged for the work.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../harness';

let server: TestServer;
before(async () => {
  server = await startServer({ runners: 1 });
  // Wrong arguments are sent on purpose (the runtime's own validation is tested): no type check.
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\n' } });
  assert.ok(created.status < 300, created.text);
});
after(async () => server.stop());

async function run(code: string) {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json as { result: string | null; error: { kind: string; message: string } | null; execution_id: string };
}

const HEX = `const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
const unhex = (s) => new Uint8Array(s.match(/../g).map((x) => parseInt(x, 16)));`;

test('digest: SHA-1/256/384/512 of "abc" match FIPS 180 vectors; names are case-insensitive; MD5 is NotSupportedError', async () => {
  const out = await run(`${HEX}
export async function main() {
  const data = new TextEncoder().encode('abc');
  const r = {};
  for (const name of ['SHA-1', 'sha-256', { name: 'SHA-384' }, 'SHA-512']) r[typeof name === 'string' ? name.toUpperCase() : name.name] = hex(await crypto.subtle.digest(name, data));
  let md5 = '';
  try { await crypto.subtle.digest('MD5', data); } catch (e) { md5 = e.name; }
  r.md5 = md5;
  r.view = hex(await crypto.subtle.digest('SHA-256', new DataView(data.buffer)));
  return r;
}`);
  assert.equal(out.error, null, JSON.stringify(out.error));
  assert.deepEqual(JSON.parse(out.result!), {
    'SHA-1': 'a9993e364706816aba3e25717850c26c9cd0d89d',
    'SHA-256': 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    'SHA-384': 'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7',
    'SHA-512': 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
    md5: 'NotSupportedError',
    view: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  });
});

test('HMAC: RFC 4231 test case 2 signs and verifies; a wrong signature, a wrong usage and a forged key are refused', async () => {
  const out = await run(`${HEX}
export async function main() {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', enc.encode('Jefe'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  const data = enc.encode('what do ya want for nothing?');
  const sig = await crypto.subtle.sign('HMAC', key, data);
  const sig512 = await crypto.subtle.sign('HMAC', await crypto.subtle.importKey('raw', enc.encode('Jefe'), { name: 'HMAC', hash: { name: 'SHA-512' } }, false, ['sign']), data);
  const ok = await crypto.subtle.verify('HMAC', key, sig, data);
  const bad = await crypto.subtle.verify('HMAC', key, new Uint8Array(32), data);
  const signOnly = await crypto.subtle.importKey('raw', enc.encode('k'), { name: 'HMAC', hash: 'SHA-1' }, false, ['sign']);
  let usage = ''; try { await crypto.subtle.verify('HMAC', signOnly, sig, data); } catch (e) { usage = e.name; }
  let forged = ''; try { await crypto.subtle.sign('HMAC', Object.create(CryptoKey.prototype), data); } catch (e) { forged = e.name; }
  let exported = ''; try { await crypto.subtle.exportKey('raw', key); } catch (e) { exported = e.name; }
  let constructed = ''; try { new CryptoKey(); } catch (e) { constructed = e.name; }
  return { sig: hex(sig), sig512: hex(sig512), ok, bad, usage, forged, exported, constructed, algorithm: key.algorithm, type: key.type, extractable: key.extractable, usages: key.usages };
}`);
  assert.equal(out.error, null, JSON.stringify(out.error));
  assert.deepEqual(JSON.parse(out.result!), {
    sig: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    sig512: '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
    ok: true,
    bad: false,
    usage: 'InvalidAccessError',
    forged: 'TypeError',
    exported: 'InvalidAccessError',
    constructed: 'TypeError',
    algorithm: { name: 'HMAC', hash: { name: 'SHA-256' }, length: 32 },
    type: 'secret',
    extractable: false,
    usages: ['sign', 'verify'],
  });
});

test('AES-GCM: GCM spec test cases 3 and 4 (with additional data) encrypt to the known ciphertext and tag and decrypt back; a flipped bit is OperationError', async () => {
  const out = await run(`${HEX}
export async function main() {
  const key = await crypto.subtle.importKey('raw', unhex('feffe9928665731c6d6a8f9467308308'), 'AES-GCM', true, ['encrypt', 'decrypt']);
  const iv = unhex('cafebabefacedbaddecaf888');
  const plain3 = unhex('d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255');
  const c3 = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, plain3);
  const back = await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, key, c3);
  const plain4 = plain3.slice(0, 60);
  const aad = unhex('feedfacedeadbeeffeedfacedeadbeefabaddad2');
  const c4 = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: aad }, key, plain4);
  const tampered = new Uint8Array(c4.slice(0)); tampered[0] ^= 1;
  let failure = ''; try { await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: aad }, key, tampered); } catch (e) { failure = e.name; }
  const raw = hex(await crypto.subtle.exportKey('raw', key));
  const jwk = await crypto.subtle.exportKey('jwk', key);
  const again = await crypto.subtle.importKey('jwk', jwk, { name: 'AES-GCM' }, false, ['decrypt']);
  const viaJwk = hex(await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, again, c3)) === hex(plain3);
  let badLength = ''; try { await crypto.subtle.importKey('raw', new Uint8Array(10), 'AES-GCM', false, ['encrypt']); } catch (e) { badLength = e.name; }
  const generated = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  const roundTrip = new TextDecoder().decode(await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, generated, await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, generated, new TextEncoder().encode('hello'))));
  return { c3: hex(c3), back: hex(back) === hex(plain3), c4: hex(c4), failure, raw, jwk, viaJwk, badLength, roundTrip, generatedLength: (generated.algorithm as AesKeyAlgorithm).length };
}`);
  assert.equal(out.error, null, JSON.stringify(out.error));
  const r = JSON.parse(out.result!);
  assert.equal(r.c3, '42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985' + '4d5c2af327cd64a62cf35abd2ba6fab4');
  assert.equal(r.back, true);
  assert.equal(r.c4, '42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091' + '5bc94fbc3221a5db94fae95ae7121a47');
  assert.equal(r.failure, 'OperationError');
  assert.equal(r.raw, 'feffe9928665731c6d6a8f9467308308');
  assert.deepEqual(r.jwk, { kty: 'oct', k: '_v_pkoZlcxxtao-UZzCDCA', alg: 'A128GCM', ext: true, key_ops: ['encrypt', 'decrypt'] });
  assert.equal(r.viaJwk, true);
  assert.equal(r.badLength, 'DataError');
  assert.equal(r.roundTrip, 'hello');
  assert.equal(r.generatedLength, 256);
});

test('the host does the hashing and charges host fuel by size', async () => {
  const small = await run(`export async function main() { await crypto.subtle.digest('SHA-256', new Uint8Array(16)); }`);
  const large = await run(`export async function main() { await crypto.subtle.digest('SHA-256', new Uint8Array(400000)); }`);
  const fuel = (id: string) => Number(server.audit({ type: 'execution', event: 'finished', execution_id: id })[0].host_fuel);
  assert.ok(fuel(large.execution_id) - fuel(small.execution_id) >= 4 * (400000 - 16), `${fuel(small.execution_id)} -> ${fuel(large.execution_id)}`);
});
