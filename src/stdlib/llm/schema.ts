// JSON Schemas of typed calls: read from an object or its JSON text (bounded in bytes),
// wrapped as {value: …} for providers that need an object root. Compiling and checking are
// the server's one validator's (src/json-schema), run in a host worker thread by the
// operations: errors name the JSON path ($.items[2].name).
import { MAX_SCHEMA_BYTES, type JsonSchema } from '../../json-schema';

export { violation } from '../../json-schema';
export type { JsonSchema };

export function readSchema(value: unknown, fn: string): JsonSchema {
  if (typeof value === 'string') {
    if (Buffer.byteLength(value, 'utf8') > MAX_SCHEMA_BYTES) throw new TypeError(`${fn}: the schema is larger than ${MAX_SCHEMA_BYTES} bytes`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new TypeError(`${fn}: schema text is not JSON`);
    }
    return readSchema(parsed, fn);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new TypeError(`${fn}: schema must be a JSON Schema object or its JSON text`);
  const text = JSON.stringify(value);
  if (Buffer.byteLength(text, 'utf8') > MAX_SCHEMA_BYTES) throw new TypeError(`${fn}: the schema is larger than ${MAX_SCHEMA_BYTES} bytes`);
  return JSON.parse(text) as JsonSchema;
}

export function hasObjectRoot(schema: JsonSchema): boolean {
  return schema.type === 'object';
}

/** The schema sent to a provider that needs an object root. */
export function wrapped(schema: JsonSchema): JsonSchema {
  return { type: 'object', properties: { value: schema }, required: ['value'], additionalProperties: false };
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
