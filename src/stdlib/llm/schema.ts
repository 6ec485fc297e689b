// JSON Schemas of typed calls: read from an object or its JSON text,
// wrapped as {value: …} for providers that need an object root, and the local check of
// the listed keywords. Other keywords go to the provider unchecked. Errors name the JSON
// path ($.items[2].name) and what was expected.
export type JsonSchema = { [keyword: string]: unknown };

export function readSchema(value: unknown, fn: string): JsonSchema {
  if (typeof value === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new TypeError(`${fn}: schema text is not JSON`);
    }
    return readSchema(parsed, fn);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new TypeError(`${fn}: schema must be a JSON Schema object or its JSON text`);
  return JSON.parse(JSON.stringify(value)) as JsonSchema;
}

export function hasObjectRoot(schema: JsonSchema): boolean {
  return schema.type === 'object';
}

/** The schema sent to a provider that needs an object root. */
export function wrapped(schema: JsonSchema): JsonSchema {
  return { type: 'object', properties: { value: schema }, required: ['value'], additionalProperties: false };
}

const typeOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value);

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  if (type === 'number') return actual === 'number' || actual === 'integer';
  return actual === type;
}

const child = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);

/** The first violation as `at <path>: <expectation>`, or null when `value` conforms. */
export function violation(schema: unknown, value: unknown, path = '$'): string | null {
  if (schema === true || schema === undefined) return null;
  if (schema === false) return `at ${path}: no value is allowed here`;
  if (typeof schema !== 'object' || schema === null) return null;
  const s = schema as JsonSchema;
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!types.some((t) => matchesType(value, t))) return `at ${path}: expected ${types.join(' or ')}, got ${typeOf(value) === 'integer' ? 'number' : typeOf(value)}`;
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => deepEqual(e, value))) return `at ${path}: expected one of ${JSON.stringify(s.enum)}`;
  if ('const' in s && !deepEqual(s.const, value)) return `at ${path}: expected ${JSON.stringify(s.const)}`;
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) return `at ${path}: expected at least ${s.minimum}`;
    if (typeof s.maximum === 'number' && value > s.maximum) return `at ${path}: expected at most ${s.maximum}`;
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) return `at ${path}: expected at least ${s.minItems} items, got ${value.length}`;
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) return `at ${path}: expected at most ${s.maxItems} items, got ${value.length}`;
    if (s.items !== undefined && !Array.isArray(s.items)) {
      for (let i = 0; i < value.length; i++) {
        const problem = violation(s.items, value[i], child(path, i));
        if (problem) return problem;
      }
    }
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const properties = (s.properties ?? {}) as Record<string, unknown>;
    if (Array.isArray(s.required)) for (const key of s.required as string[]) if (!Object.prototype.hasOwnProperty.call(record, key)) return `at ${child(path, key)}: required property is missing`;
    for (const [key, item] of Object.entries(record)) {
      if (Object.prototype.hasOwnProperty.call(properties, key)) {
        const problem = violation(properties[key], item, child(path, key));
        if (problem) return problem;
      } else if (s.additionalProperties === false) return `at ${child(path, key)}: property is not allowed`;
      else if (typeof s.additionalProperties === 'object') {
        const problem = violation(s.additionalProperties, item, child(path, key));
        if (problem) return problem;
      }
    }
  }
  if (Array.isArray(s.anyOf) && !s.anyOf.some((alt) => violation(alt, value, path) === null)) return `at ${path}: expected a value matching at least one anyOf alternative`;
  if (Array.isArray(s.oneOf)) {
    const matching = s.oneOf.filter((alt) => violation(alt, value, path) === null).length;
    if (matching !== 1) return `at ${path}: expected a value matching exactly one oneOf alternative, ${matching} match`;
  }
  return null;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Model output text as JSON: a ```json fence around it is tolerated (fallback mode). */
export function parseOutput(text: string): { ok: true; value: unknown } | { ok: false } {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i.exec(trimmed);
  try {
    return { ok: true, value: JSON.parse(fenced ? fenced[1] : trimmed) };
  } catch {
    return { ok: false };
  }
}
