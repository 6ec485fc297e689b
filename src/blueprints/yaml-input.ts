// Reads the YAML tree as the schema's input: the schema says, at each place, what a scalar
// is read as, so a string field keeps `10` as the text `10` (YAML would make it a number)
// and a quoted "true" stays text where a boolean is wanted (and is refused there). An
// empty value (`key:`) of a known field counts as absent, as if the key were not written;
// in a map of names with text values it is the empty text; elsewhere in a list or a map of
// names, or in a mapping whose keys are counted, it stays null for the schema to judge.
import type { z } from 'zod';
import { fieldMeta } from './schema';
import type { TreeNode } from './yaml-tree';

type Def = { type: string; shape?: Record<string, z.ZodType>; valueType?: z.ZodType; element?: z.ZodType; options?: z.ZodType[]; innerType?: z.ZodType; in?: z.ZodType; values?: unknown[] };
export const defOf = (schema: z.ZodType) => schema._zod.def as unknown as Def;

/** Optional, nullable, default and transform wrappers removed (a transform's input side). */
export function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let def = defOf(current); def.innerType || (def.type === 'pipe' && def.in); def = defOf(current)) current = def.innerType ?? def.in!;
  return current;
}

/** The scalar types a place accepts (a union's alternatives together). */
function scalarTypes(schema: z.ZodType | undefined): Set<string> {
  if (!schema) return new Set();
  const def = defOf(unwrap(schema));
  if (def.type === 'union') return new Set(def.options!.flatMap((option) => [...scalarTypes(option)]));
  if (def.type === 'enum' || def.type === 'literal') return new Set(def.values?.every((v) => typeof v === 'string') ?? true ? ['string'] : ['string', 'number', 'boolean']);
  return new Set([def.type]);
}

/** The object a mapping is read against: the place's own, or a union's first object alternative. */
function mappingSchema(schema: z.ZodType | undefined): (Def & { emptyIsWritten?: boolean }) | null {
  if (!schema) return null;
  const def = defOf(unwrap(schema));
  if (def.type === 'object' || def.type === 'record') return { ...def, emptyIsWritten: fieldMeta(schema)['x-empty-is-written'] === true };
  if (def.type === 'union') return def.options!.map(mappingSchema).find((d) => d !== null) ?? null;
  return null;
}

function listElement(schema: z.ZodType | undefined): z.ZodType | undefined {
  if (!schema) return undefined;
  const def = defOf(unwrap(schema));
  if (def.type === 'array') return def.element;
  if (def.type === 'union') return def.options!.map(listElement).find((e) => e !== undefined);
  return undefined;
}

/** The tree under `schema` as plain input for it. */
export function schemaInput(schema: z.ZodType | undefined, node: TreeNode): unknown {
  switch (node.kind) {
    case 'null':
      return null;
    case 'scalar': {
      // A field that wants a YAML string gets the value as YAML read it (`7` stays a number and is refused).
      if (schema && fieldMeta(schema)['x-yaml-string'] && typeof node.value !== 'string') return node.value;
      const accepts = scalarTypes(schema);
      // Where text is also taken (`size_limit: 1.50`), a number that is not a safe whole number keeps its written text.
      if (typeof node.value === 'number' && !node.quoted && accepts.has('number') && (Number.isSafeInteger(node.value) || !accepts.has('string'))) return node.value;
      if (typeof node.value === 'boolean' && !node.quoted && accepts.has('boolean')) return node.value;
      if (accepts.has('string') || accepts.has('boolean') || accepts.has('number')) return typeof node.value === 'string' ? node.value : node.text;
      return node.value;
    }
    case 'seq': {
      const element = listElement(schema);
      return node.items.map((item) => schemaInput(element, item));
    }
    case 'map': {
      const def = mappingSchema(schema);
      const input: Record<string, unknown> = {};
      for (const { key, value } of node.entries) {
        const field = def?.type === 'object' ? def.shape![key] : def?.valueType;
        if (def?.type === 'object' && field && value.kind === 'null' && !def.emptyIsWritten) continue;
        // `X-Header:` in a map of text values is the empty text.
        if (def?.type === 'record' && value.kind === 'null' && scalarTypes(field).has('string')) {
          Object.defineProperty(input, key, { value: '', enumerable: true, writable: true, configurable: true });
          continue;
        }
        Object.defineProperty(input, key, { value: schemaInput(field, value), enumerable: true, writable: true, configurable: true });
      }
      return input;
    }
  }
}
