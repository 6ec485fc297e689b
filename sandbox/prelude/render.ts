// Text rendering shared by console lines and messages: strings as is, errors as
// `Name: message`, objects as JSON from a safe encoder (Map, Set, BigInt, cycles,
// functions handled).
import { jsonStringify } from './intrinsics';
function functionLabel(fn: Function): string {
  return fn.name ? `[Function ${fn.name}]` : '[Function (anonymous)]';
}

export function safeJson(value: unknown): string {
  const seen = new Set<unknown>();
  const convert = (v: unknown): unknown => {
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'function') return functionLabel(v);
    if (typeof v === 'symbol') return v.toString();
    if (v === undefined) return null;
    if (v === null || typeof v !== 'object') return v;
    if (seen.has(v)) return '[Circular]';
    seen.add(v);
    try {
      if (v instanceof Error) return `${v.name}: ${v.message}`;
      if (v instanceof Map) {
        const out: Record<string, unknown> = {};
        for (const [k, item] of v) out[String(k)] = convert(item);
        return out;
      }
      if (v instanceof Set) return [...v].map(convert);
      if (Array.isArray(v)) return v.map(convert);
      if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return convert((v as { toJSON: () => unknown }).toJSON());
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v)) out[key] = convert((v as Record<string, unknown>)[key]);
      return out;
    } finally {
      seen.delete(v);
    }
  };
  try {
    return jsonStringify(convert(value)) ?? String(value);
  } catch (error) {
    return `[unrenderable: ${(error as Error)?.message ?? 'error'}]`;
  }
}

export function renderValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'symbol') return value.toString();
  if (typeof value === 'function') return functionLabel(value);
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  return safeJson(value);
}
