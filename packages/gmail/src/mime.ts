// RFC 5322 / MIME helpers of @svc/gmail: address lists, header encoding, building the raw
// message Gmail sends, and base64 / base64url both ways (pure, no I/O).
import { GmailError } from "./client";

/** One mailbox of an address header. */
export interface Mailbox {
  /** Display name, or null when the header gives only the address. */
  name: string | null;
  /** The bare address, lower-cased. */
  email: string;
}

// The base64 and UTF-8 codecs here are our own and build their output in blocks: the
// runtime's atob/btoa/TextEncoder keep one array entry per byte, which a multi-megabyte
// attachment cannot afford within a run's memory.
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/** Bytes encoded per block (a multiple of 3, so blocks join without padding). */
const BLOCK = 3072;

function encodeBlock(bytes: Uint8Array, start: number, end: number, alphabet: string, pad: string): string {
  const quads: string[] = [];
  let i = start;
  for (; i + 2 < end; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    quads.push(alphabet[n >> 18] + alphabet[(n >> 12) & 63] + alphabet[(n >> 6) & 63] + alphabet[n & 63]);
  }
  if (end - i === 1) {
    const n = bytes[i] << 16;
    quads.push(alphabet[n >> 18] + alphabet[(n >> 12) & 63] + pad + pad);
  } else if (end - i === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    quads.push(alphabet[n >> 18] + alphabet[(n >> 12) & 63] + alphabet[(n >> 6) & 63] + pad);
  }
  return quads.join("");
}

/** Standard base64 with padding, or with `url` base64url without padding. */
export function toBase64(bytes: Uint8Array, url = false): string {
  const blocks: string[] = [];
  for (let i = 0; i < bytes.length; i += BLOCK) blocks.push(encodeBlock(bytes, i, Math.min(i + BLOCK, bytes.length), url ? URL_ALPHABET : ALPHABET, url ? "" : "="));
  return blocks.join("");
}

/** UTF-8 bytes of a string (lone surrogates become U+FFFD). */
export function utf8(text: string): Uint8Array {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) length += 1;
    else if (c < 0x800) length += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      length += 4;
      i++;
    } else length += 3;
  }
  const out = new Uint8Array(length);
  let o = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) out[o++] = c;
    else if (c < 0x800) {
      out[o++] = 0xc0 | (c >> 6);
      out[o++] = 0x80 | (c & 63);
    } else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      c = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
      out[o++] = 0xf0 | (c >> 18);
      out[o++] = 0x80 | ((c >> 12) & 63);
      out[o++] = 0x80 | ((c >> 6) & 63);
      out[o++] = 0x80 | (c & 63);
    } else {
      if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
      out[o++] = 0xe0 | (c >> 12);
      out[o++] = 0x80 | ((c >> 6) & 63);
      out[o++] = 0x80 | (c & 63);
    }
  }
  return out;
}

/** base64url without padding of a string's UTF-8 bytes (Gmail's `raw`). */
export function textToBase64Url(text: string): string {
  return toBase64(utf8(text), true);
}

/** Value of each base64 and base64url digit; -1 for others, -2 for what is skipped. */
const DIGITS = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < 64; i++) table[ALPHABET.charCodeAt(i)] = i;
  table[45] = 62; // "-"
  table[95] = 63; // "_"
  for (const skip of [9, 10, 13, 32, 61]) table[skip] = -2; // whitespace and "="
  return table;
})();

/** Decodes base64 or base64url (padding optional); null when the text is not base64. */
export function fromBase64(text: string): Uint8Array | null {
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let o = 0;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? DIGITS[c] : -1;
    if (v === -2) continue;
    if (v === -1) return null;
    digits++;
    buffer = ((buffer << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 255;
    }
  }
  if (digits % 4 === 1) return null;
  return out.subarray(0, o);
}

/** UTF-8 to a string, block by block; invalid sequences become U+FFFD. */
function utf8Decode(bytes: Uint8Array): string {
  const blocks: string[] = [];
  let units: number[] = [];
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length) {
    const b0 = bytes[i];
    let code = 0xfffd;
    let size = 1;
    if (b0 < 0x80) code = b0;
    else if (b0 >= 0xc2 && b0 < 0xe0 && (bytes[i + 1] & 0xc0) === 0x80) {
      code = ((b0 & 31) << 6) | (bytes[i + 1] & 63);
      size = 2;
    } else if (b0 >= 0xe0 && b0 < 0xf0 && (bytes[i + 1] & 0xc0) === 0x80 && (bytes[i + 2] & 0xc0) === 0x80) {
      const c = ((b0 & 15) << 12) | ((bytes[i + 1] & 63) << 6) | (bytes[i + 2] & 63);
      if (c >= 0x800 && (c < 0xd800 || c > 0xdfff)) code = c;
      size = 3;
    } else if (b0 >= 0xf0 && b0 < 0xf5 && (bytes[i + 1] & 0xc0) === 0x80 && (bytes[i + 2] & 0xc0) === 0x80 && (bytes[i + 3] & 0xc0) === 0x80) {
      const c = ((b0 & 7) << 18) | ((bytes[i + 1] & 63) << 12) | ((bytes[i + 2] & 63) << 6) | (bytes[i + 3] & 63);
      if (c >= 0x10000 && c <= 0x10ffff) code = c;
      size = 4;
    }
    i += size;
    if (code > 0xffff) units.push(0xd800 + ((code - 0x10000) >> 10), 0xdc00 + ((code - 0x10000) & 1023));
    else units.push(code);
    if (units.length >= 4096) {
      blocks.push(String.fromCharCode(...units));
      units = [];
    }
  }
  blocks.push(String.fromCharCode(...units));
  return blocks.join("");
}

/** Decodes body bytes by charset: UTF-8 unless the part says Latin-1 / ASCII. */
export function decodeText(bytes: Uint8Array, charset: string | null): string {
  const cs = (charset ?? "utf-8").toLowerCase();
  if (cs === "iso-8859-1" || cs === "latin1" || cs === "us-ascii" || cs === "windows-1252") {
    const blocks: string[] = [];
    for (let i = 0; i < bytes.length; i += 4096) blocks.push(String.fromCharCode(...bytes.subarray(i, i + 4096)));
    return blocks.join("");
  }
  return utf8Decode(bytes);
}

/** Splits an address list on commas outside quotes, angle brackets and comments. */
function splitList(text: string): string[] {
  const out: string[] = [];
  let current = "";
  let quoted = false;
  let angle = 0;
  let comment = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === "\\" && i + 1 < text.length) {
        current += c + text[++i];
        continue;
      }
      if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === "(") comment++;
    else if (c === ")" && comment > 0) comment--;
    else if (c === "<") angle++;
    else if (c === ">" && angle > 0) angle--;
    else if ((c === "," || c === ";") && angle === 0 && comment === 0) {
      out.push(current);
      current = "";
      continue;
    }
    current += c;
  }
  out.push(current);
  return out.map((s) => s.trim()).filter((s) => s !== "");
}

const ADDRESS = /^[^\s@<>()",;:\\[\]]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

/** Parses one mailbox (`Ada <ada@example.com>`, `"Doe, Jo" <jo@x.org>`, `bob@y.com (Bob)`); null when it has no valid address. */
export function parseMailbox(entry: string): Mailbox | null {
  let text = entry.trim();
  // A group `Team: a@x, b@y;` is split by the caller; drop a leading group label here.
  const group = /^[^"<>@,]*:\s*/.exec(text);
  if (group && !text.startsWith('"')) text = text.slice(group[0].length);
  let name: string | null = null;
  let address: string;
  const angle = /^(.*)<([^<>]*)>\s*(?:\(.*\))?$/.exec(text);
  if (angle) {
    address = angle[2].trim();
    const raw = angle[1].trim();
    name = raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw;
    name = decodeWords(name).trim() || null;
  } else {
    const comment = /\(([^()]*)\)/.exec(text);
    if (comment) name = decodeWords(comment[1]).trim() || null;
    address = text.replace(/\([^()]*\)/g, "").trim();
  }
  if (!ADDRESS.test(address)) return null;
  return { name, email: address.toLowerCase() };
}

/** Parses an address header value; entries without a valid address are skipped. */
export function parseAddressList(text: string | null): Mailbox[] {
  if (text == null) return [];
  const out: Mailbox[] = [];
  for (const entry of splitList(text)) {
    const mailbox = parseMailbox(entry);
    if (mailbox) out.push(mailbox);
  }
  return out;
}

/**
 * Validates caller-given recipients: a string (comma-separated list allowed) or an array of
 * strings, each `addr` or `Name <addr>`. Throws invalid_argument naming the field.
 */
export function recipientsArg(value: unknown, field: string, required: boolean): Mailbox[] {
  if (value == null) {
    if (required) throw new GmailError("invalid_argument", `${field} must name at least one recipient ("ada@example.com" or "Ada <ada@example.com>")`);
    return [];
  }
  const entries = typeof value === "string" ? [value] : Array.isArray(value) ? value : null;
  if (entries === null) throw new GmailError("invalid_argument", `${field} must be an address string or an array of address strings`);
  const out: Mailbox[] = [];
  entries.forEach((entry, i) => {
    if (typeof entry !== "string" || /[\r\n]/.test(entry)) throw new GmailError("invalid_argument", `${field}[${i}] must be a single-line address string`);
    for (const part of splitList(entry)) {
      const mailbox = parseMailbox(part);
      if (!mailbox) throw new GmailError("invalid_argument", `${field} has an entry without a valid address: ${JSON.stringify(part)} (use "ada@example.com" or "Ada <ada@example.com>")`);
      out.push(mailbox);
    }
  });
  if (required && out.length === 0) throw new GmailError("invalid_argument", `${field} must name at least one recipient`);
  return out;
}

/** The bare, lower-cased, distinct addresses of To, Cc and Bcc, in order: the `recipients` checked. */
export function recipientAddresses(...lists: Mailbox[][]): string[] {
  const seen = new Set<string>();
  for (const list of lists) for (const m of list) seen.add(m.email);
  return [...seen];
}

/** Decodes RFC 2047 encoded words (`=?UTF-8?B?...?=`, `=?UTF-8?Q?...?=`). */
export function decodeWords(text: string): string {
  return text.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=(\s+(?==\?))?/g, (_all, charset: string, kind: string, data: string) => {
    let bytes: Uint8Array | null;
    if (kind.toUpperCase() === "B") bytes = fromBase64(data);
    else {
      const q = data.replace(/_/g, " ");
      const list: number[] = [];
      for (let i = 0; i < q.length; i++) {
        if (q[i] === "=" && /^[0-9A-Fa-f]{2}$/.test(q.slice(i + 1, i + 3))) {
          list.push(parseInt(q.slice(i + 1, i + 3), 16));
          i += 2;
        } else list.push(q.charCodeAt(i) & 255);
      }
      bytes = new Uint8Array(list);
    }
    return bytes ? decodeText(bytes, charset) : _all;
  });
}

function isPrintableAscii(text: string): boolean {
  return /^[\x20-\x7e]*$/.test(text);
}

/** A header value as an RFC 2047 encoded word when it is not plain ASCII. */
export function encodeWord(text: string): string {
  return isPrintableAscii(text) ? text : "=?UTF-8?B?" + toBase64(utf8(text)) + "?=";
}

function formatMailbox(m: Mailbox): string {
  if (m.name == null) return m.email;
  if (!isPrintableAscii(m.name)) return encodeWord(m.name) + " <" + m.email + ">";
  return '"' + m.name.replace(/(["\\])/g, "\\$1") + '" <' + m.email + ">";
}

/** A file attached to an outgoing message, already read and base64-encoded. */
export interface OutgoingFile {
  filename: string;
  contentType: string;
  base64: string;
}

/** Who a message goes to and what it says, validated. */
export interface MessageContent {
  to: Mailbox[];
  cc: Mailbox[];
  bcc: Mailbox[];
  subject: string;
  text: string | null;
  html: string | null;
}

/** Everything of an outgoing message, validated. */
export interface Outgoing extends MessageContent {
  inReplyTo: string | null;
  references: string | null;
  files: OutgoingFile[];
}

function wrap76(text: string): string {
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += 76) lines.push(text.slice(i, i + 76));
  return lines.join("\r\n");
}

function textPart(type: "plain" | "html", body: string): string {
  return `Content-Type: text/${type}; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\n` + wrap76(toBase64(utf8(body))) + "\r\n";
}

function boundary(tag: string, seed: number): string {
  return `svc_${tag}_${seed.toString(36)}_${Math.random().toString(36).slice(2, 10)}`;
}

function quoteParam(value: string): string {
  return isPrintableAscii(value) ? '"' + value.replace(/(["\\])/g, "\\$1") + '"' : '"' + encodeWord(value) + '"';
}

/** Builds the RFC 5322 message (CRLF line ends) Gmail sends; Gmail fills in From, Date and Message-ID. */
export function buildMime(message: Outgoing): string {
  const headers: string[] = [];
  if (message.to.length) headers.push("To: " + message.to.map(formatMailbox).join(", "));
  if (message.cc.length) headers.push("Cc: " + message.cc.map(formatMailbox).join(", "));
  if (message.bcc.length) headers.push("Bcc: " + message.bcc.map(formatMailbox).join(", "));
  headers.push("Subject: " + encodeWord(message.subject));
  if (message.inReplyTo) headers.push("In-Reply-To: " + message.inReplyTo);
  if (message.references) headers.push("References: " + message.references);
  headers.push("MIME-Version: 1.0");
  const seed = Date.now();
  let body: string;
  if (message.html != null && message.text != null) {
    const b = boundary("alt", seed);
    body = `Content-Type: multipart/alternative; boundary="${b}"\r\n\r\n--${b}\r\n` + textPart("plain", message.text) + `--${b}\r\n` + textPart("html", message.html) + `--${b}--\r\n`;
  } else if (message.html != null) body = textPart("html", message.html);
  else body = textPart("plain", message.text ?? "");
  if (message.files.length > 0) {
    const b = boundary("mixed", seed);
    let mixed = `Content-Type: multipart/mixed; boundary="${b}"\r\n\r\n--${b}\r\n` + body;
    for (const file of message.files) {
      mixed += `--${b}\r\nContent-Type: ${file.contentType}; name=${quoteParam(file.filename)}\r\nContent-Disposition: attachment; filename=${quoteParam(file.filename)}\r\nContent-Transfer-Encoding: base64\r\n\r\n` + wrap76(file.base64) + "\r\n";
    }
    body = mixed + `--${b}--\r\n`;
  }
  return headers.join("\r\n") + "\r\n" + body;
}

const TYPES: Record<string, string> = {
  txt: "text/plain", md: "text/markdown", csv: "text/csv", html: "text/html", htm: "text/html", json: "application/json", xml: "application/xml",
  pdf: "application/pdf", zip: "application/zip", gz: "application/gzip", png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif",
  svg: "image/svg+xml", webp: "image/webp", ics: "text/calendar", doc: "application/msword", docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
};

/** A content type guessed from a file name's extension (application/octet-stream otherwise). */
export function contentTypeFor(filename: string): string {
  const dot = filename.lastIndexOf(".");
  return (dot >= 0 && TYPES[filename.slice(dot + 1).toLowerCase()]) || "application/octet-stream";
}
