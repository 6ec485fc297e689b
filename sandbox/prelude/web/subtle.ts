// crypto.subtle: digest (SHA-1/256/384/512), HMAC and AES-GCM keys (generate, import and
// export as raw or JWK), sign/verify and encrypt/decrypt. The hashing and ciphers run on
// the host (src/stdlib/web) as asynchronous host calls (like fetch: counted against the
// run's calls in flight, dropped when the run ends), charged to host fuel; keys live in private fields here, so a
// program can neither forge a CryptoKey nor read a non-extractable key's bytes.
import { SymbolCtor, ArrayPrototypePush, ErrorCtor, ObjectFreeze, PromiseCtor, PromisePrototypeThen, PromiseReject, PromiseResolve, StringCtor, StringPrototypeSlice, StringPrototypeToUpperCase, TypedArrayPrototypeGetLength, TypedArrayPrototypeSlice } from './primordials';
import { native } from '../native';
import { base64ToBytes, bytesToBase64 } from '../encoding';
import { bufferSource, toArrayBuffer } from './bytes';
import { newDOMException, type DOMException } from '../dom-exception';
import { listOf } from './headers';
import { hostAsync } from './host';
import { interfaceName } from '../idl';

type Usage = 'encrypt' | 'decrypt' | 'sign' | 'verify';
const HASHES = ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512'];
const HMAC_JWK_ALG: Record<string, string> = { 'SHA-1': 'HS1', 'SHA-256': 'HS256', 'SHA-384': 'HS384', 'SHA-512': 'HS512' };
const HMAC_USAGES: Usage[] = ['sign', 'verify'];
const AES_USAGES: Usage[] = ['encrypt', 'decrypt'];
const CONSTRUCT = SymbolCtor('CryptoKey');

interface KeyAlgorithm {
  name: 'HMAC' | 'AES-GCM';
  hash?: { name: string };
  length: number;
}

function has(list: readonly string[], value: string): boolean {
  for (let i = 0; i < list.length; i++) if (list[i] === value) return true;
  return false;
}

function notSupported(message: string): DOMException {
  return newDOMException(message, 'NotSupportedError');
}

/** An algorithm identifier: a name, or an object with a name (matched case-insensitively). */
function algorithmName(value: unknown, allowed: readonly string[], fn: string): string {
  const raw = typeof value === 'string' ? value : typeof value === 'object' && value !== null ? (value as { name?: unknown }).name : undefined;
  if (typeof raw !== 'string') throw new TypeError(`crypto.subtle.${fn}: the algorithm must be a name or an object with a name`);
  const upper = StringPrototypeToUpperCase(raw);
  for (let i = 0; i < allowed.length; i++) if (allowed[i] === upper) return allowed[i];
  throw notSupported(`crypto.subtle.${fn}: ${raw} is not supported here; supported: ${joined(allowed)}`);
}

function joined(list: readonly string[]): string {
  let out = '';
  for (let i = 0; i < list.length; i++) out += (i > 0 ? ', ' : '') + list[i];
  return out;
}

function randomBytes(count: number): Uint8Array {
  return base64ToBytes(native.random(count) as string);
}

function base64url(bytes: Uint8Array): string {
  const text = bytesToBase64(bytes);
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '=') break;
    out += c === '+' ? '-' : c === '/' ? '_' : c;
  }
  return out;
}

function fromBase64url(text: unknown, fn: string): Uint8Array {
  if (typeof text !== 'string') throw new TypeError(`crypto.subtle.${fn}: the JWK needs a "k" string`);
  let standard = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    standard += c === '-' ? '+' : c === '_' ? '/' : c;
  }
  while (standard.length % 4 !== 0) standard += '=';
  try {
    return base64ToBytes(standard);
  } catch {
    throw newDOMException(`crypto.subtle.${fn}: the JWK "k" is not base64url`, 'DataError');
  }
}

// Module-private (handed out by the static block).
let keyParts: (key: unknown, fn: string, usage: Usage | null, name: string | null) => { algorithm: KeyAlgorithm; extractable: boolean; usages: readonly Usage[]; raw: Uint8Array };

export class CryptoKey {
  readonly #algorithm: KeyAlgorithm;
  readonly #extractable: boolean;
  readonly #usages: readonly Usage[];
  readonly #raw: Uint8Array;
  constructor(token?: unknown, algorithm?: KeyAlgorithm, extractable?: boolean, usages?: Usage[], raw?: Uint8Array) {
    if (token !== CONSTRUCT) throw new TypeError('Illegal constructor: keys come from crypto.subtle.importKey or generateKey');
    this.#algorithm = ObjectFreeze(algorithm!);
    this.#extractable = extractable!;
    this.#usages = ObjectFreeze(usages!);
    this.#raw = raw!;
  }
  get type(): string {
    return 'secret';
  }
  get extractable(): boolean {
    return this.#extractable;
  }
  get algorithm(): KeyAlgorithm {
    return this.#algorithm;
  }
  get usages(): readonly Usage[] {
    return this.#usages;
  }
  static {
    keyParts = (key, fn, usage, name) => {
      if (!(typeof key === 'object' && key !== null && #raw in key)) throw new TypeError(`crypto.subtle.${fn}: the key must be a CryptoKey`);
      const k = key as CryptoKey;
      if (name !== null && k.#algorithm.name !== name) throw newDOMException(`crypto.subtle.${fn}: this is a ${k.#algorithm.name} key, not ${name}`, 'InvalidAccessError');
      if (usage !== null && !has(k.#usages, usage)) throw newDOMException(`crypto.subtle.${fn}: the key's usages do not include "${usage}"`, 'InvalidAccessError');
      return { algorithm: k.#algorithm, extractable: k.#extractable, usages: k.#usages, raw: k.#raw };
    };
  }
}
interfaceName(CryptoKey, 'CryptoKey');


function usagesOf(value: unknown, allowed: readonly Usage[], fn: string): Usage[] {
  const items = typeof value === 'object' && value !== null ? listOf(value, `crypto.subtle.${fn}: keyUsages`) : null;
  if (items === null) throw new TypeError(`crypto.subtle.${fn}: keyUsages must be an array`);
  const out: Usage[] = [];
  for (let i = 0; i < items.length; i++) {
    const usage = StringCtor(items[i]);
    if (!has(allowed, usage)) throw newDOMException(`crypto.subtle.${fn}: "${usage}" is not a usage of this key type (allowed: ${joined(allowed)})`, 'SyntaxError');
    if (!has(out, usage)) ArrayPrototypePush(out, usage as Usage);
  }
  if (out.length === 0) throw newDOMException(`crypto.subtle.${fn}: keyUsages must not be empty`, 'SyntaxError');
  return out;
}

function hashOf(algorithm: unknown, fn: string): string {
  const hash = typeof algorithm === 'object' && algorithm !== null ? (algorithm as { hash?: unknown }).hash : undefined;
  if (hash === undefined) throw new TypeError(`crypto.subtle.${fn}: HMAC needs a hash (SHA-1, SHA-256, SHA-384 or SHA-512)`);
  return algorithmName(hash, HASHES, fn);
}

function makeKey(name: 'HMAC' | 'AES-GCM', hash: string | null, raw: Uint8Array, extractable: boolean, usages: Usage[]): CryptoKey {
  const algorithm: KeyAlgorithm = hash === null ? { name, length: TypedArrayPrototypeGetLength(raw) * 8 } : { name, hash: ObjectFreeze({ name: hash }), length: TypedArrayPrototypeGetLength(raw) * 8 };
  return new CryptoKey(CONSTRUCT, algorithm, extractable === true, usages, raw);
}

function checkAesLength(bits: number, fn: string): void {
  // Web Crypto: key data of a bad length is a DataError; a bad length to generate, an OperationError.
  if (bits !== 128 && bits !== 192 && bits !== 256) throw newDOMException(`crypto.subtle.${fn}: an AES key is 128, 192 or 256 bits, not ${bits}`, fn === 'generateKey' ? 'OperationError' : 'DataError');
}

/**
 * One operation on the host, started now (its bytes are read now) and settled when the
 * host replies, shaped by `shape`. Host errors named OperationError become DOMExceptions,
 * as Web Crypto reports them.
 */
function onHost<T>(fn: string, shape: (reply: unknown) => T, op: string, ...args: unknown[]): Promise<T> {
  let started: ReturnType<typeof hostAsync>;
  try {
    started = hostAsync(op, args);
  } catch (error) {
    // Not started (too many calls in flight, the run ending): the reason, under this function's name.
    const reason = error instanceof ErrorCtor ? error.message : StringCtor(error);
    const prefix = `.${op}: `;
    const text = StringPrototypeSlice(reason, 0, prefix.length) === prefix ? StringPrototypeSlice(reason, prefix.length) : reason;
    return PromiseReject(new ErrorCtor(`crypto.subtle.${fn}: ${text}`));
  }
  return new PromiseCtor<T>((resolve, reject) => {
    PromisePrototypeThen(
      started.promise,
      (reply) => {
        try {
          resolve(shape(reply));
        } catch (error) {
          reject(error);
        }
      },
      (error) => reject(error instanceof ErrorCtor && error.name === 'OperationError' ? newDOMException(error.message, 'OperationError') : error),
    );
  });
}

const arrayBufferOf = (reply: unknown): ArrayBuffer => toArrayBuffer(reply as Uint8Array);
const isTrue = (reply: unknown): boolean => reply === true;

/** Runs a step and returns its value as a settled promise (errors become rejections). */
function settled<T>(step: () => T): Promise<T> {
  try {
    return PromiseResolve(step()) as Promise<T>;
  } catch (error) {
    return PromiseReject(error);
  }
}

/** Runs a step that returns a promise of its own (errors thrown before it become rejections). */
function started<T>(step: () => Promise<T>): Promise<T> {
  try {
    return step();
  } catch (error) {
    return PromiseReject(error);
  }
}

function aesParams(algorithm: unknown, fn: string): { iv: Uint8Array; additionalData: Uint8Array | null; tagLength: number | null } {
  algorithmName(algorithm, ['AES-GCM'], fn);
  const params = algorithm as { iv?: unknown; additionalData?: unknown; tagLength?: unknown };
  if (params.iv === undefined) throw new TypeError(`crypto.subtle.${fn}: AES-GCM needs an iv`);
  return {
    iv: bufferSource(params.iv, `crypto.subtle.${fn}: iv`),
    additionalData: params.additionalData === undefined ? null : bufferSource(params.additionalData, `crypto.subtle.${fn}: additionalData`),
    tagLength: params.tagLength === undefined ? null : (params.tagLength as number),
  };
}

export const subtle = ObjectFreeze({
  digest(algorithm: unknown, data: unknown): Promise<ArrayBuffer> {
    return started(() => {
      const name = algorithmName(algorithm, HASHES, 'digest');
      return onHost('digest', arrayBufferOf, 'digest', name, bufferSource(data, 'crypto.subtle.digest: data'));
    });
  },
  importKey(format: unknown, keyData: unknown, algorithm: unknown, extractable: unknown, keyUsages: unknown): Promise<CryptoKey> {
    return settled(() => {
      const name = algorithmName(algorithm, ['HMAC', 'AES-GCM'], 'importKey') as 'HMAC' | 'AES-GCM';
      const hash = name === 'HMAC' ? hashOf(algorithm, 'importKey') : null;
      const usages = usagesOf(keyUsages, name === 'HMAC' ? HMAC_USAGES : AES_USAGES, 'importKey');
      let raw: Uint8Array;
      if (format === 'raw') raw = bufferSource(keyData, 'crypto.subtle.importKey: keyData');
      else if (format === 'jwk') {
        if (typeof keyData !== 'object' || keyData === null) throw new TypeError('crypto.subtle.importKey: a JWK must be an object');
        const jwk = keyData as { kty?: unknown; k?: unknown };
        if (jwk.kty !== 'oct') throw newDOMException('crypto.subtle.importKey: a JWK for HMAC or AES-GCM has kty "oct"', 'DataError');
        raw = fromBase64url(jwk.k, 'importKey');
      } else throw notSupported(`crypto.subtle.importKey: the format ${StringCtor(format)} is not supported here (raw or jwk)`);
      if (name === 'AES-GCM') checkAesLength(TypedArrayPrototypeGetLength(raw) * 8, 'importKey');
      else if (TypedArrayPrototypeGetLength(raw) === 0) throw newDOMException('crypto.subtle.importKey: an HMAC key must not be empty', 'DataError');
      return makeKey(name, hash, TypedArrayPrototypeSlice(raw), extractable === true, usages);
    });
  },
  generateKey(algorithm: unknown, extractable: unknown, keyUsages: unknown): Promise<CryptoKey> {
    return settled(() => {
      const name = algorithmName(algorithm, ['HMAC', 'AES-GCM'], 'generateKey') as 'HMAC' | 'AES-GCM';
      const length = (algorithm as { length?: unknown }).length;
      if (name === 'AES-GCM') {
        const bits = length as number;
        checkAesLength(bits, 'generateKey');
        return makeKey(name, null, randomBytes(bits / 8), extractable === true, usagesOf(keyUsages, AES_USAGES, 'generateKey'));
      }
      const hash = hashOf(algorithm, 'generateKey');
      const bits = length === undefined ? (hash === 'SHA-384' || hash === 'SHA-512' ? 1024 : 512) : (length as number);
      if (typeof bits !== 'number' || bits <= 0 || bits % 8 !== 0 || bits > 8192) throw newDOMException('crypto.subtle.generateKey: an HMAC key length is a positive multiple of 8 bits, at most 8192', 'OperationError');
      return makeKey(name, hash, randomBytes(bits / 8), extractable === true, usagesOf(keyUsages, HMAC_USAGES, 'generateKey'));
    });
  },
  exportKey(format: unknown, key: unknown): Promise<ArrayBuffer | Record<string, unknown>> {
    return settled(() => {
      const parts = keyParts(key, 'exportKey', null, null);
      if (!parts.extractable) throw newDOMException('crypto.subtle.exportKey: the key is not extractable', 'InvalidAccessError');
      if (format === 'raw') return toArrayBuffer(parts.raw);
      if (format !== 'jwk') throw notSupported(`crypto.subtle.exportKey: the format ${StringCtor(format)} is not supported here (raw or jwk)`);
      const alg = parts.algorithm.name === 'HMAC' ? HMAC_JWK_ALG[parts.algorithm.hash!.name] : `A${TypedArrayPrototypeGetLength(parts.raw) * 8}GCM`;
      const ops: string[] = [];
      for (let i = 0; i < parts.usages.length; i++) ArrayPrototypePush(ops, parts.usages[i]);
      return { kty: 'oct', k: base64url(parts.raw), alg, ext: true, key_ops: ops };
    });
  },
  sign(algorithm: unknown, key: unknown, data: unknown): Promise<ArrayBuffer> {
    return started(() => {
      algorithmName(algorithm, ['HMAC'], 'sign');
      const parts = keyParts(key, 'sign', 'sign', 'HMAC');
      return onHost('sign', arrayBufferOf, 'hmacSign', parts.algorithm.hash!.name, parts.raw, bufferSource(data, 'crypto.subtle.sign: data'));
    });
  },
  verify(algorithm: unknown, key: unknown, signature: unknown, data: unknown): Promise<boolean> {
    return started(() => {
      algorithmName(algorithm, ['HMAC'], 'verify');
      const parts = keyParts(key, 'verify', 'verify', 'HMAC');
      return onHost('verify', isTrue, 'hmacVerify', parts.algorithm.hash!.name, parts.raw, bufferSource(signature, 'crypto.subtle.verify: signature'), bufferSource(data, 'crypto.subtle.verify: data'));
    });
  },
  encrypt(algorithm: unknown, key: unknown, data: unknown): Promise<ArrayBuffer> {
    return started(() => {
      const params = aesParams(algorithm, 'encrypt');
      const parts = keyParts(key, 'encrypt', 'encrypt', 'AES-GCM');
      return onHost('encrypt', arrayBufferOf, 'aesGcm', 'encrypt', parts.raw, params.iv, bufferSource(data, 'crypto.subtle.encrypt: data'), params.additionalData, params.tagLength);
    });
  },
  decrypt(algorithm: unknown, key: unknown, data: unknown): Promise<ArrayBuffer> {
    return started(() => {
      const params = aesParams(algorithm, 'decrypt');
      const parts = keyParts(key, 'decrypt', 'decrypt', 'AES-GCM');
      return onHost('decrypt', arrayBufferOf, 'aesGcm', 'decrypt', parts.raw, params.iv, bufferSource(data, 'crypto.subtle.decrypt: data'), params.additionalData, params.tagLength);
    });
  },
});

