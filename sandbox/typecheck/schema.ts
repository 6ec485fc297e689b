// JSON Schema from a TypeScript type, for `llm.call<T>` / `llm.batch<T>` without a schema
// argument. Only what JSON can carry: a type with no JSON shape (a function, `any`, a Map,
// a bigint, a recursive type) is an error naming it, never a silent `{}`.
import type TypeScript from 'typescript';

export type JsonSchema = { [keyword: string]: unknown };
export type Derived = { ok: true; schema: JsonSchema } | { ok: false; message: string };

const DEPTH_LIMIT = 32;

class Inexpressible extends Error {}

export function deriveSchema(ts: typeof TypeScript, checker: TypeScript.TypeChecker, type: TypeScript.Type, at: TypeScript.Node): Derived {
  const active = new Set<TypeScript.Type>();
  const name = (t: TypeScript.Type) => checker.typeToString(t);
  const fail = (t: TypeScript.Type, why: string): never => {
    throw new Inexpressible(`cannot derive a JSON Schema from \`${name(t)}\`: ${why}; give the type a JSON shape or pass a schema argument`);
  };

  const literalSchema = (members: TypeScript.Type[]): JsonSchema | null => {
    if (members.length > 0 && members.every((m) => m.isStringLiteral())) return { type: 'string', enum: members.map((m) => (m as TypeScript.StringLiteralType).value) };
    if (members.length > 0 && members.every((m) => m.isNumberLiteral())) return { type: 'number', enum: members.map((m) => (m as TypeScript.NumberLiteralType).value) };
    return null;
  };

  const visit = (t: TypeScript.Type, depth: number): JsonSchema => {
    if (depth > DEPTH_LIMIT) fail(t, 'it nests too deeply');
    const f = t.flags;
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) fail(t, 'it says nothing about the shape of the value');
    if (f & ts.TypeFlags.Never || f & ts.TypeFlags.Void || f & ts.TypeFlags.Undefined) fail(t, 'JSON has no such value');
    if (f & (ts.TypeFlags.BigInt | ts.TypeFlags.BigIntLiteral)) fail(t, 'JSON has no bigint');
    if (f & (ts.TypeFlags.ESSymbol | ts.TypeFlags.UniqueESSymbol)) fail(t, 'JSON has no symbol');
    if (f & ts.TypeFlags.TypeParameter) fail(t, 'a type parameter has no fixed shape');
    if (f & ts.TypeFlags.Null) return { type: 'null' };
    if (f & ts.TypeFlags.String) return { type: 'string' };
    if (f & ts.TypeFlags.Number) return { type: 'number' };
    if (f & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (f & ts.TypeFlags.BooleanLiteral) return { type: 'boolean', const: name(t) === 'true' };
    if (t.isStringLiteral()) return { type: 'string', const: t.value };
    if (t.isNumberLiteral()) return { type: 'number', const: t.value };
    if (t.isUnion()) {
      // `undefined` in a union is optionality (handled by the property); `true | false` is boolean.
      let members = t.types.filter((m) => !(m.flags & ts.TypeFlags.Undefined));
      const booleans = members.filter((m) => m.flags & ts.TypeFlags.BooleanLiteral);
      if (booleans.length === 2) members = [...members.filter((m) => !(m.flags & ts.TypeFlags.BooleanLiteral)), checker.getBooleanType()];
      if (members.length === 1) return visit(members[0], depth + 1);
      const literals = literalSchema(members);
      if (literals) return literals;
      const nonNull = members.filter((m) => !(m.flags & ts.TypeFlags.Null));
      const literalsOrNull = nonNull.length < members.length ? literalSchema(nonNull) : null;
      if (literalsOrNull) return { type: [literalsOrNull.type, 'null'], enum: [...(literalsOrNull.enum as unknown[]), null] };
      return { anyOf: members.map((m) => visit(m, depth + 1)) };
    }
    if (!(f & ts.TypeFlags.Object) && !t.isIntersection()) fail(t, 'JSON has no such value');
    const symbol = t.getSymbol();
    if (symbol?.getName() === 'Date' && checker.getPropertyOfType(t, 'toISOString')) return { type: 'string', format: 'date-time' };
    if (checker.isTupleType(t)) {
      const elements = checker.getTypeArguments(t as TypeScript.TypeReference).map((e) => visit(e, depth + 1));
      const target = (t as TypeScript.TypeReference).target as TypeScript.TupleType;
      if (target.hasRestElement) fail(t, 'a tuple with a rest element has no fixed length');
      return { type: 'array', prefixItems: elements, minItems: target.minLength, maxItems: elements.length };
    }
    if (checker.isArrayType(t)) return { type: 'array', items: visit(checker.getTypeArguments(t as TypeScript.TypeReference)[0], depth + 1) };
    if (t.getCallSignatures().length > 0 || t.getConstructSignatures().length > 0) fail(t, 'a function is not JSON');
    if (symbol && ['Map', 'Set', 'WeakMap', 'WeakSet', 'Promise', 'RegExp', 'Uint8Array', 'ArrayBuffer'].includes(symbol.getName())) fail(t, `a ${symbol.getName()} is not JSON`);
    if (active.has(t)) fail(t, 'a recursive type has no finite schema');
    active.add(t);
    try {
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      for (const property of checker.getPropertiesOfType(t)) {
        const propertyType = checker.getTypeOfSymbolAtLocation(property, at);
        properties[property.getName()] = visit(propertyType, depth + 1);
        if (!(property.flags & ts.SymbolFlags.Optional)) required.push(property.getName());
      }
      const index = checker.getIndexInfosOfType(t).find((i) => i.keyType.flags & (ts.TypeFlags.String | ts.TypeFlags.Number));
      const schema: JsonSchema = { type: 'object', properties, required };
      schema.additionalProperties = index ? visit(index.type, depth + 1) : false;
      return schema;
    } finally {
      active.delete(t);
    }
  };

  try {
    return { ok: true, schema: visit(type, 0) };
  } catch (error) {
    if (error instanceof Inexpressible) return { ok: false, message: error.message };
    throw error;
  }
}
