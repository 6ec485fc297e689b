// The schema's issues as Blueprint faults: the message each field's error map wrote, the
// error class, the YAML path and the node the caret points at. Of several issues the one
// the document shows first is reported: in a mapping its unknown keys, then its missing or
// conflicting fields, then its values in document order; at the top level each key in
// document order and a missing `name` last; faults of meaning (`kind`, `name`, llm limits)
// only when the structure is sound (they are checked with the other semantic checks).
import { z } from 'zod';
import { fieldNames } from './schema';
import { defOf, unwrap } from './yaml-input';
import { BlueprintValidationError, locate, type BlueprintErrorCode, type Path } from './readers';
import type { FaultParams } from './schema-kit';
import type { TreeNode } from './yaml-tree';

export interface Fault {
  code: BlueprintErrorCode;
  leaf: string;
  path: Path;
  offset: number | null;
  /** Faults of meaning are reported only when the structure is sound. */
  semantic: boolean;
  /** Where the fault is in reading order (see orderAt); compared element by element. */
  order: number[];
}

/** The written node at `path`, empty values included. */
function nodeAt(root: TreeNode, path: Path): TreeNode | undefined {
  let node: TreeNode | undefined = root;
  for (const step of path) {
    if (node?.kind === 'map') node = node.entries.find((e) => e.key === step)?.value;
    else if (node?.kind === 'seq' && typeof step === 'number') node = node.items[step];
    else return undefined;
  }
  return node;
}

function keyOffset(root: TreeNode, path: Path): number | null {
  const holder = nodeAt(root, path.slice(0, -1));
  const entry = holder?.kind === 'map' ? holder.entries.find((e) => e.key === path[path.length - 1]) : undefined;
  return entry ? entry.keyOffset : locate(root, path.slice(0, -1));
}

/** The offset of the node at `path` itself (an empty value's own place), else of its nearest ancestor. */
function nodeOffset(root: TreeNode, path: Path): number | null {
  return nodeAt(root, path)?.offset ?? locate(root, path);
}

/**
 * The reading order of a place: at the top level and in maps of names and lists the
 * written order, in a fixed mapping the order of its fields in the schema.
 */
function orderAt(schema: z.ZodType, root: TreeNode, path: Path): number[] {
  const order: number[] = [];
  let place: z.ZodType | undefined = schema;
  let node: TreeNode | undefined = root;
  for (const step of path) {
    const def: ReturnType<typeof defOf> | undefined = place ? mappingDef(place) : undefined;
    if (node?.kind === 'map') {
      const index = node.entries.findIndex((e) => e.key === step);
      order.push(def?.type === 'object' && node !== root ? Object.keys(def.shape!).indexOf(String(step)) : index);
      node = node.entries[index]?.value;
    } else {
      order.push(typeof step === 'number' ? step : 0);
      node = node?.kind === 'seq' && typeof step === 'number' ? node.items[step] : undefined;
    }
    place = def?.type === 'object' ? def.shape![String(step)] : def?.type === 'record' ? def.valueType : def?.type === 'array' ? def.element : undefined;
  }
  return order;
}

/** A place's definition, a union's by its mapping alternative (the one its fields are in). */
function mappingDef(place: z.ZodType): ReturnType<typeof defOf> {
  const def = defOf(unwrap(place));
  return def.type === 'union' ? (def.options!.map((option) => defOf(unwrap(option))).find((option) => option.type === 'object') ?? def) : def;
}

/** Before a mapping's fields: its name's faults, its unknown keys, then its missing or conflicting fields. */
const NAME_LEVEL = -3;
const UNKNOWN_KEYS = -2;
export const MAPPING_LEVEL = -1;
const AFTER_FIELDS = Number.MAX_SAFE_INTEGER;

function toFault(issue: z.core.$ZodIssue, root: TreeNode, schema: z.ZodType): Fault {
  const params = (issue as { params?: FaultParams }).params ?? {};
  const code = params.code ?? 'parse_error';
  const semantic = params.semantic === true;
  const own = issue.path as Path;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0];
    const path = params.path ?? [...own, key];
    const offset = params.caret ? locate(root, params.caret) : keyOffset(root, [...own, key]);
    // Top-level keys are read in document order; a nested mapping's keys are checked before its values.
    const order = own.length === 0 ? orderAt(schema, root, [key]) : [...orderAt(schema, root, own), UNKNOWN_KEYS];
    return { code, leaf: issue.message, path, offset, semantic, order };
  }
  const missing = isMissing(issue);
  // A missing field is reported at the mapping that lacks it (a top-level one by its own name).
  const path = params.path ?? (missing && own.length > 1 ? own.slice(0, -1) : own);
  const at = params.at ?? (missing ? 'parent' : 'node');
  const holder = missing ? own.slice(0, -1) : path.slice(0, -1);
  const offset = params.caret ? nodeOffset(root, params.caret) : at === 'key' ? keyOffset(root, path) : at === 'parent' ? nodeOffset(root, holder) : nodeOffset(root, path);
  // The top-level `name` is looked for after every key was read.
  const suffix = params.beforeKeys ? [NAME_LEVEL] : params.afterFields ? [AFTER_FIELDS] : params.mappingLevel ? [MAPPING_LEVEL] : [];
  const order = missing && own.length === 1 ? [AFTER_FIELDS] : missing && !params.inTurn ? [...orderAt(schema, root, holder), MAPPING_LEVEL] : [...orderAt(schema, root, own), ...suffix];
  return { code, leaf: issue.message, path, offset, semantic, order };
}

/** A required field not written (its schema was handed nothing). */
const isMissing = (issue: z.core.$ZodIssue | z.core.$ZodRawIssue) => (issue.code === 'invalid_type' || issue.code === 'invalid_value') && (issue as { input?: unknown }).input === undefined;

const EXPECTED: Record<string, string> = { string: 'a string', boolean: '`true` or `false`', number: 'a whole number', int: 'a whole number', object: 'a mapping', record: 'a mapping', array: 'a list', map: 'a mapping' };

/** The messages every field shares (a field's own error map, when it has one, wins). */
export function blueprintErrorMap(issue: z.core.$ZodRawIssue): string | undefined {
  const path = (issue.path ?? []) as Path;
  const where = path.join('.');
  if (issue.code === 'unrecognized_keys') {
    const accepted = fieldNames(issue.inst as z.ZodType);
    return `unknown field \`${issue.keys[0]}\`${where ? ` in ${where}` : ''}, expected one of ${accepted.map((k) => `\`${k}\``).join(', ')}`;
  }
  if (isMissing(issue)) {
    const key = path[path.length - 1];
    return path.length > 1 ? `${path.slice(0, -1).join('.')}: missing field \`${key}\`` : `missing field \`${key}\``;
  }
  if (issue.code === 'custom' && (issue.params as FaultParams | undefined)?.problem) return `${where}: ${(issue.params as FaultParams).problem}`;
  if (issue.code === 'invalid_type') return `${where || 'document'}: expected ${EXPECTED[issue.expected] ?? issue.expected}`;
  if (issue.code === 'too_big' || issue.code === 'too_small') return `${where}: expected a whole number`;
  return undefined;
}

function before(a: Fault, b: Fault): number {
  if (a.semantic !== b.semantic) return a.semantic ? 1 : -1;
  // A place's own fault and those inside it compare as if it were the place's first field.
  for (let i = 0; i < Math.max(a.order.length, b.order.length); i++) if ((a.order[i] ?? 0) !== (b.order[i] ?? 0)) return (a.order[i] ?? 0) - (b.order[i] ?? 0);
  return a.order.length - b.order.length;
}

/** The schema's issues as faults, first reported first (structure before meaning). */
export function schemaFaults(issues: readonly z.core.$ZodIssue[], root: TreeNode, schema: z.ZodType): Fault[] {
  return issues.map((issue) => toFault(issue, root, schema)).sort(before);
}

/** A fault another reader threw while reading the top-level key `key`, ranked where that key is written (`suffix`: within it). */
export function readerFault(error: BlueprintValidationError, root: TreeNode, schema: z.ZodType, key: string, suffix: number[] = []): Fault {
  return { code: error.code, leaf: error.leaf, path: error.path, offset: error.offset, semantic: false, order: [...orderAt(schema, root, [key]), ...suffix] };
}

/**
 * A union reports the alternative the value was written as: a mapping refused by a union
 * (zod says only that no alternative matched) is parsed again by the union's mapping
 * alternative at the same place, and its own issues stand for the union's.
 */
export function unionIssuesExpanded(issues: readonly z.core.$ZodIssue[], schema: z.ZodType, parse: (schema: z.ZodType, input: unknown) => readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return issues.flatMap((issue) => {
    const input = (issue as { input?: unknown }).input;
    if (issue.code !== 'invalid_union' || typeof input !== 'object' || input === null || Array.isArray(input) || !issue.path.every((step) => typeof step === 'string')) return [issue];
    const union = schemaAt(schema, issue.path as string[]);
    const mapping = union && defOf(unwrap(union)).options?.find((option) => defOf(unwrap(option)).type === 'object');
    if (!mapping) return [issue];
    // Nested under the same keys, so each field's error map sees its whole path.
    const nested = (issue.path as string[]).reduceRight<z.ZodType>((inner, key) => z.object({ [key]: inner }), mapping);
    const nestedInput = (issue.path as string[]).reduceRight<unknown>((inner, key) => ({ [key]: inner }), input);
    return parse(nested, nestedInput);
  });
}

function schemaAt(schema: z.ZodType, path: string[]): z.ZodType | undefined {
  let place: z.ZodType | undefined = schema;
  for (const step of path) {
    const def: ReturnType<typeof defOf> | undefined = place ? defOf(unwrap(place)) : undefined;
    place = def?.type === 'object' ? def.shape![step] : def?.type === 'record' ? def.valueType : undefined;
  }
  return place;
}

/** The first of several faults, or null. */
export function firstFault(faults: readonly Fault[]): Fault | null {
  return [...faults].sort(before)[0] ?? null;
}

export function throwFault(fault: Fault): never {
  throw new BlueprintValidationError(fault.code, fault.leaf, fault.path, fault.offset);
}
