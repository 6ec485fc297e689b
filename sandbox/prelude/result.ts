// The result text of `main`: strings as is, undefined → null,
// other values as JSON text; values JSON would silently mangle are refused with their
// type and JSON path. The text is always a string, whatever the program patched.
import {
  ArrayIsArray,
  FunctionPrototypeCall,
  isArrayBuffer,
  isDataView,
  isMap,
  isPromise,
  isSet,
  isWeakMap,
  isWeakSet,
  jsonQuote,
  JSONStringify,
  NumberIsFinite,
  ObjectKeys,
  regExpTest,
  StringPrototypeCharCodeAt,
  SafeSet,
  typedArrayKind,
} from './primordials';
const MAX_RESULT_BYTES = 16 * 1024 * 1024;

export class ResultError extends TypeError {}

function refusedType(value: unknown): string | null {
  if (typeof value === 'bigint') return 'BigInt';
  if (typeof value !== 'object' || value === null) return null;
  if (isMap(value)) return 'Map';
  if (isSet(value)) return 'Set';
  if (isWeakMap(value)) return 'WeakMap';
  if (isWeakSet(value)) return 'WeakSet';
  if (isPromise(value)) return 'Promise';
  if (isArrayBuffer(value)) return 'ArrayBuffer';
  if (isDataView(value)) return 'DataView';
  const kind = typedArrayKind(value);
  if (kind !== undefined) return kind;
  return null;
}

function advice(refused: string): string {
  switch (refused) {
    case 'Map':
      return 'convert it with Object.fromEntries(map)';
    case 'Set':
      return 'convert it with [...set]';
    case 'BigInt':
      return 'convert it with String(value)';
    case 'Promise':
      return 'await it first';
    default:
      return 'convert it to plain arrays, objects, strings or numbers';
  }
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function check(value: unknown, path: string, stack: SafeSet<unknown>): void {
  let current = value;
  if (current !== null && typeof current === 'object') {
    const toJSON = (current as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') current = FunctionPrototypeCall(toJSON as (key: string) => unknown, current, '');
  }
  const refused = refusedType(current);
  if (refused) throw new ResultError(`main returned a value JSON cannot represent: a ${refused} at ${path}; ${advice(refused)}`);
  if (current === null || typeof current !== 'object') return;
  if (stack.has(current)) throw new ResultError(`main returned a value with a cycle at ${path}; JSON cannot represent cycles`);
  stack.add(current);
  if (ArrayIsArray(current)) {
    const list = current as unknown[];
    for (let i = 0; i < list.length; i++) check(list[i], `${path}[${i}]`, stack);
  } else {
    const keys = ObjectKeys(current);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      check((current as Record<string, unknown>)[key], regExpTest(IDENTIFIER, key) ? `${path}.${key}` : `${path}[${jsonQuote(key)}]`, stack);
    }
  }
  stack.delete(current);
}

export function resultText(value: unknown): string | null {
  if (typeof value === 'string') return checkSize(value);
  if (value === undefined) return null;
  if (typeof value === 'function') throw new ResultError('main returned a function; return data (a string, number, array or object) instead');
  if (typeof value === 'symbol') throw new ResultError('main returned a symbol; return data (a string, number, array or object) instead');
  if (typeof value === 'number' && !NumberIsFinite(value)) return `${value}`;
  check(value, '$', new SafeSet());
  // JSON.stringify semantics (the program's own toJSON included); the text is checked to be a string.
  const text: unknown = JSONStringify(value);
  return checkSize(typeof text === 'string' ? text : 'null');
}

function checkSize(text: string): string {
  // Each UTF-16 unit is at most 3 UTF-8 bytes; only measure exactly when close.
  if (text.length * 3 > MAX_RESULT_BYTES) {
    let bytes = 0;
    for (let i = 0; i < text.length; i++) {
      const c = StringPrototypeCharCodeAt(text, i);
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 2 : 3;
    }
    if (bytes > MAX_RESULT_BYTES) throw new ResultError('the result is larger than 16 MiB; write the data to a file and return its path instead');
  }
  return text;
}


