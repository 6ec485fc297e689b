// logfmt encoding of server-log and audit records (server-operations §7.2): fixed header
// keys first, then fields (sorted and flattened for audit records), values quoted only
// when needed, one line per record, at most 1 MiB.

export const MAX_RECORD_BYTES = 1024 * 1024;
const MAX_DEPTH = 63;
const MAX_NODES = 4096;
const HEADER_KEYS = new Set(['ts', 'level', 'stream', 'target', 'msg']);

export class LogfmtError extends Error {}

const needsQuoting = /[\s\u0000-\u001f\u007f-\u009f="]/u;
const invalidKey = /[\s\u0000-\u001f\u007f-\u009f="\\]/u;

export function encodeValue(value: string): string {
  if (value === '') return '""';
  if (!needsQuoting.test(value)) return value;
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (char === '"') out += '\\"';
    else if (char === '\\') out += '\\\\';
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value) ?? 'null';
  if (typeof value === 'bigint') return value.toString();
  return String(value);
}

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** Flattens nested objects and arrays into dotted/positional keys. */
export function flatten(fields: Record<string, unknown>, sorted: boolean): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let nodes = 0;
  const walk = (prefix: string, value: unknown, depth: number) => {
    if (++nodes > MAX_NODES) throw new LogfmtError('record has too many fields');
    if (depth > MAX_DEPTH) throw new LogfmtError('record nests too deeply');
    if (Array.isArray(value)) {
      value.forEach((item, index) => walk(`${prefix}.${index}`, item, depth + 1));
    } else if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
      const keys = Object.keys(value as Record<string, unknown>).filter((k) => (value as Record<string, unknown>)[k] !== undefined);
      if (sorted) keys.sort(byteOrder);
      for (const key of keys) walk(`${prefix}.${key}`, (value as Record<string, unknown>)[key], depth + 1);
    } else if (value !== undefined) {
      out.push([prefix, value instanceof Date ? value.toISOString() : scalarText(value)]);
    }
  };
  const keys = Object.keys(fields).filter((k) => fields[k] !== undefined);
  if (sorted) keys.sort(byteOrder);
  for (const key of keys) {
    const name = HEADER_KEYS.has(key) ? `fields.${key}` : key;
    walk(name, fields[key], 1);
  }
  return out;
}

export interface Header {
  ts: Date;
  level: string;
  stream: 'log' | 'audit';
  target: string;
  msg: string;
}

/** Encodes one record as a line (without the newline); throws LogfmtError when it cannot. */
export function encodeLogfmt(header: Header, fields: Record<string, unknown>, options: { sorted: boolean }): string {
  const pairs: Array<[string, string]> = [
    ['ts', header.ts.toISOString()],
    ['level', header.level],
    ['stream', header.stream],
    ['target', header.target],
    ['msg', header.msg],
    ...flatten(fields, options.sorted),
  ];
  const parts: string[] = [];
  for (const [key, value] of pairs) {
    if (key === '' || invalidKey.test(key)) throw new LogfmtError(`invalid field name ${JSON.stringify(key)}`);
    parts.push(`${key}=${encodeValue(value)}`);
  }
  const line = parts.join(' ');
  if (Buffer.byteLength(line, 'utf8') > MAX_RECORD_BYTES) throw new LogfmtError('record exceeds 1 MiB');
  return line;
}

/** Parses one logfmt line into ordered key/value pairs (for tests and tools). */
export function parseLogfmt(line: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let i = 0;
  const n = line.length;
  while (i < n) {
    while (i < n && line[i] === ' ') i++;
    if (i >= n) break;
    let key = '';
    while (i < n && line[i] !== '=' && line[i] !== ' ') key += line[i++];
    if (line[i] !== '=') {
      out.push([key, '']);
      continue;
    }
    i++;
    let value = '';
    if (line[i] === '"') {
      i++;
      while (i < n && line[i] !== '"') {
        if (line[i] === '\\' && i + 1 < n) {
          const next = line[i + 1];
          if (next === 'n') value += '\n';
          else if (next === 'r') value += '\r';
          else if (next === 't') value += '\t';
          else if (next === 'u') {
            value += String.fromCharCode(parseInt(line.slice(i + 2, i + 6), 16));
            i += 4;
          } else value += next;
          i += 2;
        } else value += line[i++];
      }
      i++;
    } else {
      while (i < n && line[i] !== ' ') value += line[i++];
    }
    out.push([key, value]);
  }
  return out;
}
