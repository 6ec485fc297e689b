// TextEncoder/TextDecoder (UTF-8) and atob/btoa for a bare V8 isolate.
export class TextEncoder {
  readonly encoding = 'utf-8';
  encode(input = ''): Uint8Array {
    const text = String(input);
    const bytes: number[] = [];
    for (const char of text) {
      let code = char.codePointAt(0)!;
      if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd; // lone surrogate
      if (code < 0x80) bytes.push(code);
      else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 63));
      else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
      else bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
    }
    return new Uint8Array(bytes);
  }
}

export class TextDecoder {
  readonly encoding = 'utf-8';
  constructor(label = 'utf-8') {
    if (!/^utf-?8$/i.test(String(label))) throw new RangeError(`TextDecoder supports only utf-8, got ${label}`);
  }
  decode(input?: ArrayBuffer | ArrayBufferView): string {
    if (input === undefined) return '';
    const bytes = input instanceof ArrayBuffer ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    let out = '';
    for (let i = 0; i < bytes.length; ) {
      const b = bytes[i];
      let code = 0xfffd;
      let size = 1;
      if (b < 0x80) code = b;
      else if (b >= 0xc2 && b < 0xe0 && i + 1 < bytes.length) {
        code = ((b & 31) << 6) | (bytes[i + 1] & 63);
        size = 2;
      } else if (b >= 0xe0 && b < 0xf0 && i + 2 < bytes.length) {
        code = ((b & 15) << 12) | ((bytes[i + 1] & 63) << 6) | (bytes[i + 2] & 63);
        size = 3;
      } else if (b >= 0xf0 && b < 0xf5 && i + 3 < bytes.length) {
        code = ((b & 7) << 18) | ((bytes[i + 1] & 63) << 12) | ((bytes[i + 2] & 63) << 6) | (bytes[i + 3] & 63);
        size = 4;
      }
      out += String.fromCodePoint(code);
      i += size;
    }
    return out;
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function btoa(input: string): string {
  const text = String(input);
  let out = '';
  for (let i = 0; i < text.length; i += 3) {
    const codes = [text.charCodeAt(i), text.charCodeAt(i + 1), text.charCodeAt(i + 2)];
    for (const c of codes) if (c > 255) throw new Error('btoa: the string contains characters outside Latin-1');
    const [a, b, c] = codes;
    const n = (a << 16) | ((b || 0) << 8) | (c || 0);
    out += ALPHABET[(n >> 18) & 63] + ALPHABET[(n >> 12) & 63];
    out += i + 1 < text.length ? ALPHABET[(n >> 6) & 63] : '=';
    out += i + 2 < text.length ? ALPHABET[n & 63] : '=';
  }
  return out;
}

export function atob(input: string): string {
  const text = String(input).replace(/[\t\n\f\r ]/g, '');
  if (text.length % 4 === 1 || /[^A-Za-z0-9+/=]/.test(text) || /=[^=]/.test(text)) throw new Error('atob: the string is not valid base64');
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const char of text.replace(/=+$/, '')) {
    buffer = (buffer << 6) | ALPHABET.indexOf(char);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((buffer >> bits) & 0xff);
    }
  }
  return out;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary);
}

export function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
