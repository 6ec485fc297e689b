// Host side of the web platform globals: `fetch` is the `svc:http` verb of
// its method (same capability, context, rules and outbound block: src/stdlib/http's
// `exchange`), and crypto.subtle's digest, HMAC and AES-GCM run here, charged to host
// fuel, on Node's Web Crypto (libuv's thread pool: a large digest holds neither the
// program, which gets a promise, nor the server's event loop). Programs cannot import
// this module; the prelude's globals call it.
import { STATUS_CODES } from 'node:http';
import { webcrypto } from 'node:crypto';
import { HOST_FUEL } from '../fuel';
import { bodyForReply, exchange, prepare, verbGate, type RedirectMode, type VerbParams } from '../http/operations';
import { gated, ungated, type HostCall, type HostModule } from '../types';

/** Why the Web Crypto operations need no capability. */
const PURE = 'pure computation on the caller\'s own bytes, like svc:crypto';
const REDIRECTS: readonly RedirectMode[] = ['follow', 'manual', 'error'];
const HASHES = ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512'];
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

/** The request as the verb of its method sees it, plus fetch's redirect mode and timeout. */
function parseFetch(args: unknown[], run: Parameters<typeof prepare>[0]): VerbParams {
  const ask = args[0] as FetchArgs;
  if (typeof ask !== 'object' || ask === null) throw new TypeError('fetch: the request must be an object');
  const redirect = ask.redirect === undefined ? 'follow' : ask.redirect;
  if (!REDIRECTS.includes(redirect as RedirectMode)) throw new TypeError(`fetch: redirect must be one of ${REDIRECTS.map((r) => `"${r}"`).join(', ')}`);
  if (ask.timeoutMs !== undefined && (typeof ask.timeoutMs !== 'number' || !(ask.timeoutMs > 0))) throw new TypeError('fetch: timeoutMs must be a positive number');
  if (ask.body !== undefined && ask.body !== null && !(ask.body instanceof Uint8Array)) throw new TypeError('fetch: the body must be bytes');
  // Passed in, not spread over prepare's result: a waiting fetch keeps this object, and a spread copy had a map of its own.
  return prepare(run, 'fetch', typeof ask.method === 'string' ? ask.method : 'GET', ask.url, ask.body ?? null, ask.headers, redirect as RedirectMode, ask.timeoutMs as number | undefined);
}

const fetchOperation = gated({
  parse: parseFetch,
  gate: verbGate,
  // Not async: a waiting fetch keeps no suspended frame here.
  run: (call: HostCall, params: VerbParams, allowed) =>
    exchange(call, params, allowed[0].context).then((reply) => ({ status: reply.status, statusText: STATUS_CODES[reply.status] ?? '', headers: reply.headers, body: bodyForReply(reply.content), url: reply.url, redirected: reply.redirected })),
});

function bytes(value: unknown, fn: string, name: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`crypto.subtle.${fn}: ${name} must be bytes`);
  return value;
}

function hashName(value: unknown, fn: string): string {
  const name = typeof value === 'string' ? value.toUpperCase() : '';
  if (!HASHES.includes(name)) throw new TypeError(`crypto.subtle.${fn}: the hash must be one of ${HASHES.join(', ')}`);
  return name;
}

/** Node's Web Crypto refusing the bytes (an empty key, ...) is the guest's OperationError. */
async function operation<T>(fn: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new OperationError(`crypto.subtle.${fn}: ${(error as Error)?.message ?? String(error)}`);
  }
}

function hmacKey(hash: string, key: Uint8Array, fn: 'sign' | 'verify'): Promise<webcrypto.CryptoKey> {
  return webcrypto.subtle.importKey('raw', key, { name: 'HMAC', hash }, false, [fn]);
}

async function aesGcm(call: HostCall, args: unknown[]): Promise<Uint8Array> {
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
  if (fn === 'decrypt' && data.length < tagBits / 8) throw new OperationError('crypto.subtle.decrypt: the data is shorter than the tag');
  call.charge(HOST_FUEL.HASH_PER_BYTE * (data.length + (aad?.length ?? 0)));
  const params = { name: 'AES-GCM', iv, tagLength: tagBits, ...(aad ? { additionalData: aad } : {}) };
  const cryptoKey = await operation(fn, () => webcrypto.subtle.importKey('raw', key, 'AES-GCM', false, [fn]));
  if (fn === 'encrypt') return new Uint8Array(await operation(fn, () => webcrypto.subtle.encrypt(params, cryptoKey, data)));
  try {
    return new Uint8Array(await webcrypto.subtle.decrypt(params, cryptoKey, data));
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
    digest: ungated(PURE, {
      parse: (args) => ({ algorithm: hashName(args[0], 'digest'), data: bytes(args[1], 'digest', 'data') }),
      run: async (call, { algorithm, data }: { algorithm: string; data: Uint8Array }) => {
        call.charge(HOST_FUEL.HASH_PER_BYTE * data.length);
        return new Uint8Array(await operation('digest', () => webcrypto.subtle.digest(algorithm, data)));
      },
    }),
    hmacSign: ungated(PURE, {
      parse: (args) => ({ algorithm: hashName(args[0], 'sign'), key: bytes(args[1], 'sign', 'the key'), data: bytes(args[2], 'sign', 'data') }),
      run: async (call, { algorithm, key, data }: { algorithm: string; key: Uint8Array; data: Uint8Array }) => {
        call.charge(HOST_FUEL.HASH_PER_BYTE * (key.length + data.length));
        return new Uint8Array(await operation('sign', async () => webcrypto.subtle.sign('HMAC', await hmacKey(algorithm, key, 'sign'), data)));
      },
    }),
    hmacVerify: ungated(PURE, {
      parse: (args) => ({ algorithm: hashName(args[0], 'verify'), key: bytes(args[1], 'verify', 'the key'), signature: bytes(args[2], 'verify', 'signature'), data: bytes(args[3], 'verify', 'data') }),
      // Web Crypto's verify compares in constant time.
      run: async (call, { algorithm, key, signature, data }: { algorithm: string; key: Uint8Array; signature: Uint8Array; data: Uint8Array }) => {
        call.charge(HOST_FUEL.HASH_PER_BYTE * (key.length + data.length));
        return operation('verify', async () => webcrypto.subtle.verify('HMAC', await hmacKey(algorithm, key, 'verify'), signature, data));
      },
    }),
    aesGcm: ungated(PURE, { run: (call, args: unknown[]) => aesGcm(call, args) }),
  },
  // The globals reach it through the prelude; an import of it is refused.
  availableFor: () => false,
};
