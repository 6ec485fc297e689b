// The result text of `main` (program-runtime §2.3): strings as is, undefined → null,
// other values as JSON text; values JSON would silently mangle are refused with their
// type and JSON path.
import { jsonStringify } from './intrinsics';
const MAX_RESULT_BYTES = 16 * 1024 * 1024;

export class ResultError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TypeError';
  }
}

function refusedType(value: unknown): string | null {
  if (typeof value === 'bigint') return 'BigInt';
  if (typeof value !== 'object' || value === null) return null;
  if (value instanceof Map) return 'Map';
  if (value instanceof Set) return 'Set';
  if (value instanceof WeakMap) return 'WeakMap';
  if (value instanceof WeakSet) return 'WeakSet';
  if (value instanceof Promise) return 'Promise';
  if (value instanceof ArrayBuffer) return 'ArrayBuffer';
  if (value instanceof DataView) return 'DataView';
  if (ArrayBuffer.isView(value)) return (value as { constructor: { name: string } }).constructor.name || 'typed array';
  return null;
}

const advice: Record<string, string> = {
  Map: 'convert it with Object.fromEntries(map)',
  Set: 'convert it with [...set]',
  BigInt: 'convert it with String(value)',
  Promise: 'await it first',
};

function check(value: unknown, path: string, stack: Set<unknown>): void {
  let current = value;
  if (current !== null && typeof current === 'object' && typeof (current as { toJSON?: unknown }).toJSON === 'function') {
    current = (current as { toJSON: (key: string) => unknown }).toJSON('');
  }
  const refused = refusedType(current);
  if (refused) {
    const how = advice[refused] ?? 'convert it to plain arrays, objects, strings or numbers';
    throw new ResultError(`main returned a value JSON cannot represent: a ${refused} at ${path}; ${how}`);
  }
  if (current === null || typeof current !== 'object') return;
  if (stack.has(current)) throw new ResultError(`main returned a value with a cycle at ${path}; JSON cannot represent cycles`);
  stack.add(current);
  if (Array.isArray(current)) current.forEach((item, i) => check(item, `${path}[${i}]`, stack));
  else for (const key of Object.keys(current)) check((current as Record<string, unknown>)[key], /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${jsonStringify(key)}]`, stack);
  stack.delete(current);
}

export function resultText(value: unknown): string | null {
  if (typeof value === 'string') return checkSize(value);
  if (value === undefined) return null;
  if (typeof value === 'function') throw new ResultError('main returned a function; return data (a string, number, array or object) instead');
  if (typeof value === 'symbol') throw new ResultError('main returned a symbol; return data (a string, number, array or object) instead');
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  check(value, '$', new Set());
  return checkSize(jsonStringify(value) ?? 'null');
}

function checkSize(text: string): string {
  // Each UTF-16 unit is at most 3 UTF-8 bytes; only measure exactly when close.
  if (text.length * 3 > MAX_RESULT_BYTES) {
    let bytes = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 2 : 3;
    }
    if (bytes > MAX_RESULT_BYTES) throw new ResultError('the result is larger than 16 MiB; write the data to a file and return its path instead');
  }
  return text;
}
