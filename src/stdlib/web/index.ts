// Host side of the web platform globals (design.md §2): `fetch` is the `svc:http` verb of
// its method (same capability, context, rules and outbound block: src/stdlib/http's
// `exchange`), and crypto.subtle's digest, HMAC and AES-GCM run here, charged to host
// fuel. Programs cannot import this module; the prelude's globals call it.
import { STATUS_CODES } from 'node:http';
import { type CipherGCMTypes, createCipheriv, createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { HOST_FUEL } from '../fuel';
import { exchange, type RedirectMode } from '../http/operations';
import type { HostCall, HostModule } from '../types';

const REDIRECTS: readonly RedirectMode[] = ['follow', 'manual', 'error'];
const HASHES: Record<string, string> = { 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };
const AES_TAG_BITS = [32, 64, 96, 104, 112, 120, 128];

/** A Web Crypto failure the guest rethrows as a DOMException of this name. */
class OperationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperationError';
  }
}

interface FetchArgs {
  method?: unknown;
  url?: unknown;
  headers?: unknown;
  body?: unknown;
  redirect?: unknown;
  timeoutMs?: unknown;
}

async function fetchOperation(call: HostCall, args: unknown[]) {
  const ask = (args[0] ?? {}) as FetchArgs;
  if (typeof ask !== 'object') throw new TypeError('fetch: the request must be an object');
  const redirect = ask.redirect === undefined ? 'follow' : ask.redirect;
  if (!REDIRECTS.includes(redirect as RedirectMode)) throw new TypeError(`fetch: redirect must be one of ${REDIRECTS.map((r) => `"${r}"`).join(', ')}`);
  if (ask.timeoutMs !== undefined && (typeof ask.timeoutMs !== 'number' || !(ask.timeoutMs > 0))) throw new TypeError('fetch: timeoutMs must be a positive number');
  if (ask.body !== undefined && ask.body !== null && !(ask.body instanceof Uint8Array)) throw new TypeError('fetch: the body must be bytes');
  const reply = await exchange(call, 'fetch', {
    method: typeof ask.method === 'string' ? ask.method : 'GET',
    url: ask.url,
    headers: ask.headers,
    body: ask.body ?? null,
    redirect: redirect as RedirectMode,
    timeoutMs: ask.timeoutMs as number | undefined,
  });
  return { status: reply.status, statusText: STATUS_CODES[reply.status] ?? '', headers: reply.headers, body: new Uint8Array(reply.content), url: reply.url, redirected: reply.redirected };
}

function bytes(value: unknown, fn: string, name: string): Buffer {
  if (!(value instanceof Uint8Array)) throw new TypeError(`crypto.subtle.${fn}: ${name} must be bytes`);
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

function hashName(value: unknown, fn: string): string {
  const name = typeof value === 'string' ? HASHES[value.toUpperCase()] : undefined;
  if (!name) throw new TypeError(`crypto.subtle.${fn}: the hash must be one of ${Object.keys(HASHES).join(', ')}`);
  return name;
}

function aesGcm(call: HostCall, args: unknown[]): Uint8Array {
  const [direction, keyArg, ivArg, dataArg, aadArg, tagArg] = args;
  const fn = direction === 'decrypt' ? 'decrypt' : 'encrypt';
  const key = bytes(keyArg, fn, 'the key');
  if (![16, 24, 32].includes(key.length)) throw new OperationError(`crypto.subtle.${fn}: an AES key is 128, 192 or 256 bits`);
  const iv = bytes(ivArg, fn, 'iv');
  if (iv.length === 0) throw new OperationError(`crypto.subtle.${fn}: iv must not be empty`);
  const data = bytes(dataArg, fn, 'data');
  const aad = aadArg === null || aadArg === undefined ? null : bytes(aadArg, fn, 'additionalData');
  const tagBits = tagArg === undefined || tagArg === null ? 128 : tagArg;
  if (typeof tagBits !== 'number' || !AES_TAG_BITS.includes(tagBits)) throw new OperationError(`crypto.subtle.${fn}: tagLength must be one of ${AES_TAG_BITS.join(', ')}`);
  const tagLength = tagBits / 8;
  const algorithm = `aes-${key.length * 8}-gcm`;
  call.charge(HOST_FUEL.HASH_PER_BYTE * (data.length + (aad?.length ?? 0)));
  if (fn === 'encrypt') {
    const cipher = createCipheriv(algorithm as CipherGCMTypes, key, iv, { authTagLength: tagLength });
    if (aad) cipher.setAAD(aad);
    return new Uint8Array(Buffer.concat([cipher.update(data), cipher.final(), cipher.getAuthTag()]));
  }
  if (data.length < tagLength) throw new OperationError('crypto.subtle.decrypt: the data is shorter than the tag');
  const decipher = createDecipheriv(algorithm as CipherGCMTypes, key, iv, { authTagLength: tagLength });
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(data.subarray(data.length - tagLength));
  try {
    return new Uint8Array(Buffer.concat([decipher.update(data.subarray(0, data.length - tagLength)), decipher.final()]));
  } catch {
    throw new OperationError('crypto.subtle.decrypt: the data or the additional data does not match its tag (wrong key, iv or tampered data)');
  }
}

export const webModule: HostModule = {
  name: 'web',
  description: 'Host side of the web platform globals (fetch, crypto.subtle); not importable',
  declarations: '',
  operations: {
    fetch: fetchOperation,
    digest: (call, args) => {
      const algorithm = hashName(args[0], 'digest');
      const data = bytes(args[1], 'digest', 'data');
      call.charge(HOST_FUEL.HASH_PER_BYTE * data.length);
      return new Uint8Array(createHash(algorithm).update(data).digest());
    },
    hmacSign: (call, args) => {
      const algorithm = hashName(args[0], 'sign');
      const key = bytes(args[1], 'sign', 'the key');
      const data = bytes(args[2], 'sign', 'data');
      call.charge(HOST_FUEL.HASH_PER_BYTE * (key.length + data.length));
      return new Uint8Array(createHmac(algorithm, key).update(data).digest());
    },
    hmacVerify: (call, args) => {
      const algorithm = hashName(args[0], 'verify');
      const key = bytes(args[1], 'verify', 'the key');
      const signature = bytes(args[2], 'verify', 'signature');
      const data = bytes(args[3], 'verify', 'data');
      call.charge(HOST_FUEL.HASH_PER_BYTE * (key.length + data.length));
      const expected = createHmac(algorithm, key).update(data).digest();
      return expected.length === signature.length && timingSafeEqual(expected, signature);
    },
    aesGcm,
  },
  // The globals reach it through the prelude; an import of it is refused.
  availableFor: () => false,
};
