// The one JSON-Schema validator of the server (ajv, draft 2020-12) for values the host is
// handed: MCP tool arguments and typed model outputs. Runs on the server only: ajv compiles
// each schema into a function (new Function), never inside an isolate. Guest-given schemas
// are bounded in bytes before compiling, compiled validators are kept in a bounded cache
// keyed by the schema's JSON text, and `pattern` runs on RE2 (linear in the text), so no
// schema can stall the event loop on a regular expression. The first violation is reported
// as `at <JSON path>: <expectation>` ($.items[2].name).
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { RE2JS } from 're2js';
import { boundedCache, textBytes } from '../../sandbox/bounded-cache';

export type JsonSchema = { [keyword: string]: unknown };

/** Largest schema (as JSON text) compiled from guest input. */
export const MAX_SCHEMA_BYTES = 64 * 1024;
/** Compiled validators kept; a schema seen again is not compiled again. */
const CACHED_VALIDATORS = 64;
/** Their schema text and generated code together (each host worker thread keeps its own). */
export const CACHED_VALIDATOR_BYTES = 4 * 1024 * 1024;

/** A schema ajv cannot compile (an unresolvable `$ref`, a keyword of the wrong type, too large). */
export class SchemaError extends Error {
  override readonly name = 'SchemaError';
}

/** ajv's `code.regExp` hook: RE2 semantics (no backreferences or lookaround), linear time. */
function re2(pattern: string, flags: string): { test(text: string): boolean } {
  const compiled = RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  return { test: (text) => compiled.matcher(text).find() };
}
re2.code = 'svcRe2';

// addUsedSchema: false: a schema's `$id` is not registered ajv-wide, so one schema's `$id` never
// refuses (or answers for) another's.
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false, validateSchema: false, logger: false, addUsedSchema: false, code: { regExp: re2 } });

interface Compiled {
  validate: ValidateFunction;
  /** The object ajv compiled: ajv keeps every schema it compiled by this object until it is removed. */
  body: unknown;
  bytes: number;
}

// Without removing a schema from ajv when it leaves, ajv's own registry kept every distinct
// schema and its compiled code for the life of the thread (1,000 distinct schemas: 1,008 kept).
const cache = boundedCache<Compiled>({
  maxBytes: CACHED_VALIDATOR_BYTES,
  maxEntries: CACHED_VALIDATORS,
  sizeOf: (entry, text) => entry.bytes + textBytes(text),
  onLeave: (entry) => {
    if (typeof entry.body === 'object' && entry.body !== null) ajv.removeSchema(entry.body);
  },
});

/** What the validator cache holds now: entries, their estimated bytes, and the schemas ajv itself still registers (tests). */
export function validatorCacheUse(): { entries: number; bytes: number; registered: number } {
  return { entries: cache.size, bytes: cache.calculatedSize, registered: (ajv as unknown as { _cache: Map<unknown, unknown> })._cache.size };
}

/** The compiled validator of `schema`; throws SchemaError when it is too large or ajv refuses it. */
export function compileSchema(schema: unknown): ValidateFunction {
  const text = JSON.stringify(schema);
  if (Buffer.byteLength(text, 'utf8') > MAX_SCHEMA_BYTES) throw new SchemaError(`the schema is larger than ${MAX_SCHEMA_BYTES} bytes`);
  const cached = cache.get(text);
  if (cached) return cached.validate;
  // A `$schema` naming another draft is not a reason to refuse: the keywords are read as 2020-12.
  const parsed = JSON.parse(text) as JsonSchema | boolean;
  const body = typeof parsed === 'object' && parsed !== null ? Object.fromEntries(Object.entries(parsed).filter(([keyword]) => keyword !== '$schema')) : parsed;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(body);
  } catch (error) {
    // ajv registers a schema before compiling it: one it refused would stay registered.
    if (typeof body === 'object' && body !== null) ajv.removeSchema(body);
    throw new SchemaError(`the schema is not usable: ${(error as Error).message}`);
  }
  // The generated code (the validator's own source; ajv inlines most subschemas into it).
  const compiled: Compiled = { validate, body, bytes: textBytes(validate.toString()) };
  cache.set(text, compiled);
  // A validator over the whole budget is not kept, and ajv forgets it at once.
  if (!cache.has(text) && typeof body === 'object' && body !== null) ajv.removeSchema(body);
  return validate;
}

const typeOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** `$.a[2]["odd key"]` from a JSON Pointer (`/a/2/odd key`). */
function jsonPath(pointer: string, extra?: string): string {
  const steps = pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) steps.push(extra);
  return steps.reduce((path, step) => (/^\d+$/.test(step) ? `${path}[${step}]` : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(step) ? `${path}.${step}` : `${path}[${JSON.stringify(step)}]`), '$');
}

/** The value at a JSON Pointer of `root` (for the "got …" part of a type mismatch). */
function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let node: unknown = root;
  for (const step of pointer.slice(1).split('/')) node = (node as Record<string, unknown> | undefined)?.[step.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node;
}

function describe(error: ErrorObject, root: unknown): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `at ${jsonPath(error.instancePath, String(p.missingProperty))}: required property is missing`;
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return `at ${jsonPath(error.instancePath, String(p.additionalProperty ?? p.unevaluatedProperty))}: property is not allowed`;
    case 'type': {
      const got = valueAt(root, error.instancePath);
      return `at ${jsonPath(error.instancePath)}: expected ${String(p.type).split(',').join(' or ')}, got ${typeOf(got)}`;
    }
    case 'enum':
      return `at ${jsonPath(error.instancePath)}: expected one of ${JSON.stringify(p.allowedValues)}`;
    case 'const':
      return `at ${jsonPath(error.instancePath)}: expected ${JSON.stringify(p.allowedValue)}`;
    case 'minimum':
    case 'exclusiveMinimum':
      return `at ${jsonPath(error.instancePath)}: expected ${error.keyword === 'minimum' ? 'at least' : 'more than'} ${p.limit}`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `at ${jsonPath(error.instancePath)}: expected ${error.keyword === 'maximum' ? 'at most' : 'less than'} ${p.limit}`;
    case 'minItems':
    case 'maxItems': {
      const got = valueAt(root, error.instancePath);
      return `at ${jsonPath(error.instancePath)}: expected ${error.keyword === 'minItems' ? 'at least' : 'at most'} ${p.limit} items, got ${Array.isArray(got) ? got.length : '?'}`;
    }
    case 'anyOf':
      return `at ${jsonPath(error.instancePath)}: expected a value matching at least one anyOf alternative`;
    case 'oneOf': {
      const passing = p.passingSchemas;
      return `at ${jsonPath(error.instancePath)}: expected a value matching exactly one oneOf alternative, ${Array.isArray(passing) ? passing.length : 0} match`;
    }
    case 'false schema':
      return `at ${jsonPath(error.instancePath)}: no value is allowed here`;
    default:
      return `at ${jsonPath(error.instancePath)}: ${error.message ?? `fails \`${error.keyword}\``}`;
  }
}

/**
 * A host-task handler (plain data in and out): compiles `schema` and checks each of
 * `values`, answering the first violation of each (null when it conforms) or why the
 * schema is unusable. Guest-given schemas go through this in a worker thread: compiling one
 * costs time that grows with it.
 */
export function checkJsonValues(input: { schema: unknown; values: unknown[] }): { schemaError: string } | { problems: Array<string | null> } {
  try {
    compileSchema(input.schema);
  } catch (error) {
    if (error instanceof SchemaError) return { schemaError: error.message };
    throw error;
  }
  return { problems: input.values.map((value) => violation(input.schema, value)) };
}

/** The first violation of `schema` by `value` as `at <path>: <expectation>`, or null when it conforms. */
export function violation(schema: unknown, value: unknown): string | null {
  const validate = compileSchema(schema);
  if (validate(value)) return null;
  // Without allErrors ajv stops at the first failing keyword; an anyOf/oneOf failure comes
  // after its alternatives' errors, so the last error is the one that decided.
  const errors = validate.errors ?? [];
  const decisive = errors[errors.length - 1];
  if (!decisive) return 'at $: does not conform';
  // An anyOf where only one alternative has the value's type (a nullable number below its
  // minimum, a mapping where text or a mapping is accepted) is reported as that alternative's fault.
  if (decisive.keyword === 'anyOf') {
    const prefix = `${decisive.schemaPath}/`;
    const byAlternative = new Map<string, ErrorObject[]>();
    for (const e of errors) {
      if (!e.schemaPath.startsWith(prefix)) continue;
      const alternative = e.schemaPath.slice(prefix.length).split('/')[0];
      byAlternative.set(alternative, [...(byAlternative.get(alternative) ?? []), e]);
    }
    const typeMismatch = (list: ErrorObject[]) => list.some((e) => e.keyword === 'type' && e.instancePath === decisive.instancePath);
    const near = [...byAlternative.values()].filter((list) => !typeMismatch(list));
    if (near.length === 1) return describe(near[0][near[0].length - 1], value);
  }
  return describe(decisive, value);
}
