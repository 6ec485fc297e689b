// logfmt encoding of server-log and audit records: the fixed
// header first, then the fields flattened into dotted/positional keys (sorted by byte order
// for audit records, call-site order for log records); values quoted only when needed.
// Pure functions; a record that cannot be encoded raises a LogfmtError and is dropped whole.
// Written here rather than taken from npm: the `logfmt` package quotes a value only for a
// space or `=` and passes newlines and other controls through, so a value could split or forge
// an audit line; this writer quotes on any whitespace or control and escapes them.

/** A record may take at most 1 MiB of UTF-8, the newline excluded. */
export const MAX_RECORD_BYTES = 1_048_576;
/** Field structures may nest at most this many levels (a top-level field is level 1). */
export const MAX_DEPTH = 63;
/** Field structures may hold at most this many values (containers included). */
export const MAX_NODES = 4_096;

const HEADER_KEYS: ReadonlySet<string> = new Set(['ts', 'level', 'stream', 'target', 'msg']);
const LEVELS: ReadonlySet<string> = new Set(['error', 'warn', 'info', 'debug', 'trace']);
const TIMESTAMP_SHAPE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

// Whitespace (`\s` with the u flag: Unicode spaces too), C0 and C1 controls, `=` and `"` force quotes.
const VALUE_NEEDS_QUOTES = /[\s\u0000-\u001f\u007f-\u009f="]/u;
const KEY_FORBIDDEN = /[\s\u0000-\u001f\u007f-\u009f="\\]/u;

export type LogfmtErrorCode = 'invalid_key' | 'invalid_header' | 'invalid_timestamp' | 'invalid_value' | 'too_deep' | 'too_many_nodes' | 'too_large';

export class LogfmtError extends Error {
  constructor(
    readonly code: LogfmtErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'LogfmtError';
  }
}

export interface LogfmtHeader {
  ts: Date;
  level: string;
  stream: 'log' | 'audit';
  target: string;
  msg: string;
}

export interface EncodeOptions {
  /** true: object keys in byte order at every level (audit); false: call-site order (log). */
  sorted: boolean;
}

/** Encodes one record as a line without its newline; throws LogfmtError when it cannot. */
export function encodeLogfmt(header: LogfmtHeader, fields: Record<string, unknown>, options: EncodeOptions): string {
  const line = new LineBuilder();
  for (const [key, value] of headerPairs(header)) line.add(key, value);
  for (const [key, value] of flattenFields(fields, options)) line.add(key, value);
  return line.text();
}

/** Quotes and escapes a value when it is empty or holds whitespace, a control, `=` or `"`. */
export function encodeValue(value: string): string {
  if (value === '') return '""';
  if (!VALUE_NEEDS_QUOTES.test(value)) return value;
  let out = '"';
  for (const char of value) out += escapeChar(char);
  return `${out}"`;
}

function escapeChar(char: string): string {
  switch (char) {
    case '"':
      return '\\"';
    case '\\':
      return '\\\\';
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
  }
  const code = char.codePointAt(0)!;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return `\\u${code.toString(16).padStart(4, '0')}`;
  return char;
}

export function isValidKey(key: string): boolean {
  return key !== '' && !KEY_FORBIDDEN.test(key);
}

/** Compares strings by UTF-8 byte order (which equals code point order, unlike `<`). */
export function compareByteOrder(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (astral code points) sort after every BMP unit, as their UTF-8 does.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

function headerPairs(header: LogfmtHeader): Array<[string, string]> {
  if (!LEVELS.has(header.level)) throw new LogfmtError('invalid_header', `invalid level ${JSON.stringify(header.level)}`);
  if (header.stream !== 'log' && header.stream !== 'audit') throw new LogfmtError('invalid_header', 'invalid stream');
  if (typeof header.target !== 'string' || typeof header.msg !== 'string') throw new LogfmtError('invalid_header', 'target and msg must be text');
  return [
    ['ts', formatTimestamp(header.ts)],
    ['level', header.level],
    ['stream', header.stream],
    ['target', header.target],
    ['msg', header.msg],
  ];
}

function formatTimestamp(ts: Date): string {
  const text = ts instanceof Date && !Number.isNaN(ts.getTime()) ? ts.toISOString() : '';
  // Years outside 0000-9999 render as `+010000-…`, which is not the documented shape.
  if (!TIMESTAMP_SHAPE.test(text)) throw new LogfmtError('invalid_timestamp', 'invalid timestamp');
  return text;
}

/** Accumulates `key=value` parts, refusing invalid keys and stopping as soon as 1 MiB is passed. */
class LineBuilder {
  private readonly parts: string[] = [];
  private bytes = -1; // the first part has no separating space

  add(key: string, value: string): void {
    if (!isValidKey(key)) throw new LogfmtError('invalid_key', `invalid field name ${JSON.stringify(key)}`);
    const part = `${key}=${encodeValue(value)}`;
    this.bytes += 1 + Buffer.byteLength(part, 'utf8');
    if (this.bytes > MAX_RECORD_BYTES) throw new LogfmtError('too_large', 'record exceeds 1 MiB');
    this.parts.push(part);
  }

  text(): string {
    return this.parts.join(' ');
  }
}

/**
 * Flattens event fields into (key, text) pairs: nested objects become dotted keys, arrays
 * positional keys, empty containers and undefined values nothing. A top-level field named
 * like a header key is renamed `fields.<name>` (before sorting, so it sorts by its new name).
 */
export function flattenFields(fields: Record<string, unknown>, options: EncodeOptions): Array<[string, string]> {
  const walker = new Flattener(options.sorted);
  const named = ownKeys(fields).map((key): [string, unknown] => [HEADER_KEYS.has(key) ? `fields.${key}` : key, fields[key]]);
  if (options.sorted) named.sort(([a], [b]) => compareByteOrder(a, b));
  for (const [key, value] of named) walker.visit(key, value, 1);
  return walker.pairs;
}

class Flattener {
  readonly pairs: Array<[string, string]> = [];
  private nodes = 0;

  constructor(private readonly sorted: boolean) {}

  visit(key: string, value: unknown, depth: number): void {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return;
    if (depth > MAX_DEPTH) throw new LogfmtError('too_deep', `fields nest deeper than ${MAX_DEPTH} levels`);
    if (++this.nodes > MAX_NODES) throw new LogfmtError('too_many_nodes', `fields hold more than ${MAX_NODES} values`);
    const scalar = scalarText(value);
    if (scalar !== null) {
      this.pairs.push([key, scalar]);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => this.visit(`${key}.${index}`, item, depth + 1));
    } else {
      this.visitObject(key, value as Record<string, unknown>, depth);
    }
  }

  private visitObject(key: string, value: Record<string, unknown>, depth: number): void {
    const keys = ownKeys(value);
    if (this.sorted) keys.sort(compareByteOrder);
    for (const child of keys) {
      // Checked per segment so that an empty name cannot hide inside a dotted key.
      if (!isValidKey(child)) throw new LogfmtError('invalid_key', `invalid field name ${JSON.stringify(`${key}.${child}`)}`);
      this.visit(`${key}.${child}`, value[child], depth + 1);
    }
  }
}

function ownKeys(value: Record<string, unknown>): string[] {
  return Object.keys(value).filter((key) => value[key] !== undefined);
}

/** Text of a leaf value, or null when the value is a container to flatten. */
function scalarText(value: unknown): string | null {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
      // JSON text: NaN and the infinities have none, so they read `null` as JSON would write them.
      return JSON.stringify(value);
    case 'bigint':
      return value.toString();
  }
  if (value === null) return 'null';
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new LogfmtError('invalid_value', 'invalid date value');
    return value.toISOString();
  }
  // Errors have no enumerable fields; their message is what a reader of the log needs.
  if (value instanceof Error) return value.message;
  return null;
}

/**
 * Parses one logfmt line into ordered (key, value) pairs, undoing encodeValue's quoting.
 * For tests and tools; tolerant of a trailing newline and of a missing closing quote.
 */
export function parseLogfmt(line: string): Array<[string, string]> {
  const text = line.endsWith('\n') ? line.slice(0, line.endsWith('\r\n') ? -2 : -1) : line;
  const pairs: Array<[string, string]> = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === ' ') {
      i++;
      continue;
    }
    const keyEnd = findEither(text, i, '=', ' ');
    const key = text.slice(i, keyEnd);
    if (text[keyEnd] !== '=') {
      pairs.push([key, '']);
      i = keyEnd;
      continue;
    }
    const [value, next] = text[keyEnd + 1] === '"' ? readQuoted(text, keyEnd + 2) : readBare(text, keyEnd + 1);
    pairs.push([key, value]);
    i = next;
  }
  return pairs;
}

function findEither(text: string, from: number, a: string, b: string): number {
  let i = from;
  while (i < text.length && text[i] !== a && text[i] !== b) i++;
  return i;
}

function readBare(text: string, from: number): [string, number] {
  const end = findEither(text, from, ' ', ' ');
  return [text.slice(from, end), end];
}

const UNESCAPED: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

function readQuoted(text: string, from: number): [string, number] {
  let value = '';
  let i = from;
  while (i < text.length && text[i] !== '"') {
    if (text[i] !== '\\' || i + 1 >= text.length) {
      value += text[i++];
      continue;
    }
    const next = text[i + 1];
    if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
      value += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
      i += 6;
    } else {
      value += UNESCAPED[next] ?? next;
      i += 2;
    }
  }
  return [value, i + 1];
}
