// UTF-8 and base64 for a bare V8 isolate: the functions trusted code uses (built on the
// primordials, so a program's patches cannot change what they produce) and the
// TextEncoder/TextDecoder/atob/btoa globals programs see, which are thin shells over them.
import {
  ArrayBufferPrototypeGetByteLength,
  ArrayPrototypeJoin,
  ArrayPrototypePush,
  DataViewPrototypeGetBuffer,
  DataViewPrototypeGetByteLength,
  DataViewPrototypeGetByteOffset,
  isArrayBuffer,
  isDataView,
  ObjectFreeze,
  ReflectApply,
  regExpTest,
  String_,
  StringFromCharCode,
  StringFromCodePoint,
  StringPrototypeCharCodeAt,
  StringPrototypeCodePointAt,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetLength,
  typedArrayKind,
  Uint8Array_,
} from './primordials';
import { newDOMException, type DOMException } from './dom-exception';

// Bytes and text move through these in bulk (file contents, HTTP bodies, attachments): they
// write into preallocated typed arrays and build strings a chunk of char codes at a time,
// so a run holds about the data itself, never one array entry per byte.
const CHUNK = 8192;

/** A string of char codes, appended to `pieces` a chunk at a time. */
class TextBuilder {
  private codes: number[] = [];
  private readonly pieces: string[] = [];
  push(code: number): void {
    ArrayPrototypePush(this.codes, code);
    if (this.codes.length >= CHUNK) this.flush();
  }
  finish(): string {
    this.flush();
    return this.pieces.length === 1 ? this.pieces[0] : ArrayPrototypeJoin(this.pieces, '');
  }
  private flush(): void {
    if (this.codes.length === 0) return;
    ArrayPrototypePush(this.pieces, ReflectApply(StringFromCharCode, undefined, this.codes));
    this.codes = [];
  }
}

/** UTF-8 bytes of a string; lone surrogates become U+FFFD. */
export function utf8Encode(text: string): Uint8Array {
  let size = 0;
  for (let i = 0; i < text.length; i++) {
    const code = StringPrototypeCodePointAt(text, i)!;
    if (code > 0xffff) {
      i++;
      size += 4;
    } else size += code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
  }
  const out = new Uint8Array_(size);
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    let code = StringPrototypeCodePointAt(text, i)!;
    if (code > 0xffff) i++;
    else if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd; // lone surrogate
    if (code < 0x80) out[at++] = code;
    else if (code < 0x800) {
      out[at++] = 0xc0 | (code >> 6);
      out[at++] = 0x80 | (code & 63);
    } else if (code < 0x10000) {
      out[at++] = 0xe0 | (code >> 12);
      out[at++] = 0x80 | ((code >> 6) & 63);
      out[at++] = 0x80 | (code & 63);
    } else {
      out[at++] = 0xf0 | (code >> 18);
      out[at++] = 0x80 | ((code >> 12) & 63);
      out[at++] = 0x80 | ((code >> 6) & 63);
      out[at++] = 0x80 | (code & 63);
    }
  }
  return out;
}

/** A byte view over an ArrayBuffer, typed array or DataView (read through captured getters). */
export function viewBytes(input: unknown, what: string): Uint8Array {
  if (isArrayBuffer(input)) return new Uint8Array_(input, 0, ArrayBufferPrototypeGetByteLength(input));
  if (typedArrayKind(input) !== undefined) {
    const view = input as ArrayBufferView;
    return new Uint8Array_(TypedArrayPrototypeGetBuffer(view), TypedArrayPrototypeGetByteOffset(view), TypedArrayPrototypeGetByteLength(view));
  }
  if (isDataView(input)) return new Uint8Array_(DataViewPrototypeGetBuffer(input), DataViewPrototypeGetByteOffset(input), DataViewPrototypeGetByteLength(input));
  throw new TypeError(`${what} takes an ArrayBuffer, a typed array or a DataView`);
}

/**
 * Text of UTF-8 bytes, as the Encoding standard's UTF-8 decoder (without BOM handling):
 * each maximal malformed subpart becomes one U+FFFD (overlongs, surrogates and values past
 * U+10FFFF are malformed), and the byte that broke a sequence starts the next one.
 */
export function utf8Decode(bytes: Uint8Array): string {
  const length = TypedArrayPrototypeGetLength(bytes);
  const text = new TextBuilder();
  let i = 0;
  while (i < length) {
    const b = bytes[i];
    if (b < 0x80) {
      text.push(b);
      i++;
      continue;
    }
    let needed = 0;
    let code = 0;
    let lower = 0x80;
    let upper = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
      needed = 1;
      code = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      if (b === 0xe0) lower = 0xa0;
      if (b === 0xed) upper = 0x9f;
      needed = 2;
      code = b & 0xf;
    } else if (b >= 0xf0 && b <= 0xf4) {
      if (b === 0xf0) lower = 0x90;
      if (b === 0xf4) upper = 0x8f;
      needed = 3;
      code = b & 7;
    } else {
      text.push(0xfffd);
      i++;
      continue;
    }
    let j = i + 1;
    let seen = 0;
    while (seen < needed && j < length) {
      const c = bytes[j];
      if (c < lower || c > upper) break;
      lower = 0x80;
      upper = 0xbf;
      code = (code << 6) | (c & 0x3f);
      j++;
      seen++;
    }
    i = j;
    if (seen < needed) text.push(0xfffd);
    else if (code > 0xffff) {
      code -= 0x10000;
      text.push(0xd800 | (code >> 10));
      text.push(0xdc00 | (code & 0x3ff));
    } else text.push(code);
  }
  return text.finish();
}

// The TextEncoder/TextDecoder (and the stream forms) programs see are @exodus/bytes's

// The base64 alphabet as arithmetic rather than lookup tables: nothing to build when
// the prelude is evaluated (once per run).
function digitCode(value: number): number {
  if (value < 26) return 65 + value; // A-Z
  if (value < 52) return 71 + value; // a-z
  if (value < 62) return value - 4; // 0-9
  return value === 62 ? 43 : 47; // + /
}

function digitValue(code: number): number {
  if (code >= 65 && code <= 90) return code - 65;
  if (code >= 97 && code <= 122) return code - 71;
  if (code >= 48 && code <= 57) return code + 4;
  if (code === 43) return 62;
  return code === 47 ? 63 : 255;
}
const PAD = 61; // '='

/** Base64 of `length` byte values read through `byteAt` (bytes, or a Latin-1 string's codes). */
function encodeBase64(length: number, byteAt: (i: number) => number): string {
  const out = new TextBuilder();
  for (let i = 0; i < length; i += 3) {
    const a = byteAt(i);
    const b = i + 1 < length ? byteAt(i + 1) : 0;
    const c = i + 2 < length ? byteAt(i + 2) : 0;
    const n = (a << 16) | (b << 8) | c;
    out.push(digitCode((n >> 18) & 63));
    out.push(digitCode((n >> 12) & 63));
    out.push(i + 1 < length ? digitCode((n >> 6) & 63) : PAD);
    out.push(i + 2 < length ? digitCode(n & 63) : PAD);
  }
  return out.finish();
}

/** atob's error is the DOMException HTML specifies; the bytes helpers for trusted code keep a plain Error. */
function invalidBase64(what: string): Error {
  const message = `${what}: the string is not valid base64`;
  return what === 'atob' ? newDOMException(message, 'InvalidCharacterError') : new Error(message);
}

function isSpace(code: number): boolean {
  return code === 9 || code === 10 || code === 12 || code === 13 || code === 32;
}

/** Decodes base64 text (whitespace ignored) into `emit`, after checking it; returns the byte count. */
function decodeBase64(text: string, what: string, emit: ((byte: number) => void) | null): number {
  let digits = 0;
  let padding = 0;
  let buffer = 0;
  let bits = 0;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = StringPrototypeCharCodeAt(text, i);
    if (isSpace(code)) continue;
    if (code === PAD) {
      padding++;
      continue;
    }
    const value = digitValue(code);
    if (value === 255 || padding > 0) throw invalidBase64(what);
    digits++;
    buffer = ((buffer << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (emit !== null) emit((buffer >> bits) & 0xff);
      count++;
    }
  }
  if ((digits + padding) % 4 === 1) throw invalidBase64(what);
  // HTML's forgiving-base64: '=' only as one or two final characters of a whole quantum.
  if (what === 'atob' && padding > 0 && ((digits + padding) % 4 !== 0 || padding > 2)) throw invalidBase64(what);
  return count;
}

export function btoa(input: string): string {
  const text = String_(input);
  for (let i = 0; i < text.length; i++) if (StringPrototypeCharCodeAt(text, i) > 255) throw newDOMException('btoa: the string contains characters outside Latin-1', 'InvalidCharacterError');
  return encodeBase64(text.length, (i) => StringPrototypeCharCodeAt(text, i));
}

export function atob(input: string): string {
  const out = new TextBuilder();
  decodeBase64(String_(input), 'atob', (byte) => out.push(byte));
  return out.finish();
}

export function bytesToBase64(bytes: Uint8Array): string {
  return encodeBase64(TypedArrayPrototypeGetLength(bytes), (i) => bytes[i]);
}

export function base64ToBytes(text: string): Uint8Array {
  const bytes = new Uint8Array_(decodeBase64(text, 'base64', null));
  let at = 0;
  decodeBase64(text, 'base64', (byte) => (bytes[at++] = byte));
  return bytes;
}

