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
  regExpTest,
  String_,
  StringFromCharCode,
  StringFromCodePoint,
  StringPrototypeCharCodeAt,
  StringPrototypeCodePointAt,
  StringPrototypeIndexOf,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetLength,
  typedArrayKind,
  Uint8Array_,
} from './primordials';

/** UTF-8 bytes of a string; lone surrogates become U+FFFD. */
export function utf8Encode(text: string): Uint8Array {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let code = StringPrototypeCodePointAt(text, i)!;
    if (code > 0xffff) i++;
    else if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd; // lone surrogate
    if (code < 0x80) ArrayPrototypePush(bytes, code);
    else if (code < 0x800) ArrayPrototypePush(bytes, 0xc0 | (code >> 6), 0x80 | (code & 63));
    else if (code < 0x10000) ArrayPrototypePush(bytes, 0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
    else ArrayPrototypePush(bytes, 0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
  }
  const out = new Uint8Array_(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = bytes[i];
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

/** Text of UTF-8 bytes; malformed sequences become U+FFFD. */
export function utf8Decode(bytes: Uint8Array): string {
  const length = TypedArrayPrototypeGetLength(bytes);
  const pieces: string[] = [];
  for (let i = 0; i < length; ) {
    const b = bytes[i];
    let code = 0xfffd;
    let size = 1;
    if (b < 0x80) code = b;
    else if (b >= 0xc2 && b < 0xe0 && i + 1 < length) {
      code = ((b & 31) << 6) | (bytes[i + 1] & 63);
      size = 2;
    } else if (b >= 0xe0 && b < 0xf0 && i + 2 < length) {
      code = ((b & 15) << 12) | ((bytes[i + 1] & 63) << 6) | (bytes[i + 2] & 63);
      size = 3;
    } else if (b >= 0xf0 && b < 0xf5 && i + 3 < length) {
      code = ((b & 7) << 18) | ((bytes[i + 1] & 63) << 12) | ((bytes[i + 2] & 63) << 6) | (bytes[i + 3] & 63);
      size = 4;
    }
    ArrayPrototypePush(pieces, StringFromCodePoint(code > 0x10ffff ? 0xfffd : code));
    i += size;
  }
  return ArrayPrototypeJoin(pieces, '');
}

export class TextEncoder {
  readonly encoding = 'utf-8';
  encode(input = ''): Uint8Array {
    return utf8Encode(String_(input));
  }
}

export class TextDecoder {
  readonly encoding = 'utf-8';
  constructor(label = 'utf-8') {
    if (!regExpTest(/^utf-?8$/i, String_(label))) throw new RangeError(`TextDecoder supports only utf-8, got ${String_(label)}`);
  }
  decode(input?: ArrayBuffer | ArrayBufferView): string {
    if (input === undefined) return '';
    return utf8Decode(viewBytes(input, 'TextDecoder.decode'));
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function btoa(input: string): string {
  const text = String_(input);
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += 3) {
    const a = StringPrototypeCharCodeAt(text, i);
    const b = i + 1 < text.length ? StringPrototypeCharCodeAt(text, i + 1) : 0;
    const c = i + 2 < text.length ? StringPrototypeCharCodeAt(text, i + 2) : 0;
    if (a > 255 || b > 255 || c > 255) throw new Error('btoa: the string contains characters outside Latin-1');
    const n = (a << 16) | (b << 8) | c;
    ArrayPrototypePush(pieces, ALPHABET[(n >> 18) & 63], ALPHABET[(n >> 12) & 63], i + 1 < text.length ? ALPHABET[(n >> 6) & 63] : '=', i + 2 < text.length ? ALPHABET[n & 63] : '=');
  }
  return ArrayPrototypeJoin(pieces, '');
}

function isSpace(code: number): boolean {
  return code === 9 || code === 10 || code === 12 || code === 13 || code === 32;
}

export function atob(input: string): string {
  const text = String_(input);
  const digits: number[] = [];
  let padding = 0;
  for (let i = 0; i < text.length; i++) {
    const code = StringPrototypeCharCodeAt(text, i);
    if (isSpace(code)) continue;
    if (code === 61 /* = */) {
      padding++;
      continue;
    }
    const value = StringPrototypeIndexOf(ALPHABET, text[i]);
    if (value === -1 || padding > 0) throw new Error('atob: the string is not valid base64');
    ArrayPrototypePush(digits, value);
  }
  if ((digits.length + padding) % 4 === 1) throw new Error('atob: the string is not valid base64');
  const pieces: string[] = [];
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < digits.length; i++) {
    buffer = ((buffer << 6) | digits[i]) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      ArrayPrototypePush(pieces, StringFromCharCode((buffer >> bits) & 0xff));
    }
  }
  return ArrayPrototypeJoin(pieces, '');
}

export function bytesToBase64(bytes: Uint8Array): string {
  const length = TypedArrayPrototypeGetLength(bytes);
  const pieces: string[] = [];
  for (let i = 0; i < length; i++) ArrayPrototypePush(pieces, StringFromCharCode(bytes[i]));
  return btoa(ArrayPrototypeJoin(pieces, ''));
}

export function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array_(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = StringPrototypeCharCodeAt(binary, i);
  return bytes;
}

ObjectFreeze(TextEncoder.prototype);
ObjectFreeze(TextDecoder.prototype);
