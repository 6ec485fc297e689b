// structuredClone for the value types a program can build in the isolate.
export function structuredClone<T>(value: T): T {
  const seen = new Map<unknown, unknown>();
  const copy = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'function' || typeof v === 'symbol') throw new Error(`structuredClone: ${typeof v} values cannot be cloned`);
      return v;
    }
    if (seen.has(v)) return seen.get(v);
    if (v instanceof Date) return new Date(v.getTime());
    if (v instanceof RegExp) return new RegExp(v.source, v.flags);
    if (v instanceof ArrayBuffer) return v.slice(0);
    if (ArrayBuffer.isView(v)) {
      const view = v as unknown as { constructor: new (b: ArrayBuffer, o: number, l: number) => unknown; buffer: ArrayBuffer; byteOffset: number; byteLength: number; length?: number };
      const buffer = view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength);
      return v instanceof DataView ? new DataView(buffer) : new view.constructor(buffer, 0, view.length ?? view.byteLength);
    }
    if (v instanceof Map) {
      const out = new Map();
      seen.set(v, out);
      for (const [k, item] of v) out.set(copy(k), copy(item));
      return out;
    }
    if (v instanceof Set) {
      const out = new Set();
      seen.set(v, out);
      for (const item of v) out.add(copy(item));
      return out;
    }
    if (v instanceof Error) {
      const out = new (v.constructor as ErrorConstructor)(v.message);
      seen.set(v, out);
      return out;
    }
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      seen.set(v, out);
      for (let i = 0; i < v.length; i++) out[i] = copy(v[i]);
      return out;
    }
    const out: Record<string, unknown> = {};
    seen.set(v, out);
    for (const key of Object.keys(v)) out[key] = copy((v as Record<string, unknown>)[key]);
    return out;
  };
  return copy(value) as T;
}
