// The `@capability <name> [{ <bindings> }] [description]` doc tag.
export type Binding =
  | { kind: 'param'; field: string; param: string; path: string[] }
  | { kind: 'computed'; field: string; type: FieldType }
  | { kind: 'fixed'; field: string; type: FieldType };

export type FieldType = 'string' | 'number' | 'boolean' | 'string[]' | 'number[]' | 'object' | 'null';

export interface CapabilityTag {
  name: string;
  bindings: Binding[];
  description: string;
}

const TYPES = new Set(['string', 'number', 'boolean', 'string[]', 'number[]', 'object']);

/** Splits on commas outside quotes. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (const ch of text) {
    if (quote) {
      current += ch;
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === ',') {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

/** Parses the text after `@capability`; returns a problem text instead when malformed. */
export function parseCapabilityTag(text: string): CapabilityTag | string {
  const trimmed = text.replace(/\s+/g, ' ').trim();
  const nameMatch = /^(\S+)\s*/.exec(trimmed);
  if (!nameMatch || nameMatch[1].startsWith('{')) return '@capability needs a capability name, e.g. `@capability acme.com/credits.apply { customerId, amount }`';
  const name = nameMatch[1];
  let rest = trimmed.slice(nameMatch[0].length);
  const bindings: Binding[] = [];
  if (rest.startsWith('{')) {
    const close = rest.indexOf('}');
    if (close < 0) return `@capability ${name}: the bindings \`{ ... }\` are not closed`;
    for (const part of splitTopLevel(rest.slice(1, close))) {
      const colon = part.indexOf(':');
      const field = (colon < 0 ? part : part.slice(0, colon)).trim();
      if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(field)) return `@capability ${name}: \`${part}\` is not a binding (use \`field\`, \`field: $param.path\`, \`field: string\` or \`field: "fixed"\`)`;
      if (colon < 0) {
        bindings.push({ kind: 'param', field, param: field, path: [] });
        continue;
      }
      const value = part.slice(colon + 1).trim();
      if (value.startsWith('$')) {
        const [param, ...path] = value.slice(1).split('.');
        bindings.push({ kind: 'param', field, param, path });
      } else if (TYPES.has(value)) bindings.push({ kind: 'computed', field, type: value as FieldType });
      else if (/^"[^"]*"$|^'[^']*'$/.test(value)) bindings.push({ kind: 'fixed', field, type: 'string' });
      else if (/^-?\d+(\.\d+)?$/.test(value)) bindings.push({ kind: 'fixed', field, type: 'number' });
      else if (value === 'true' || value === 'false') bindings.push({ kind: 'fixed', field, type: 'boolean' });
      else if (value === 'null') bindings.push({ kind: 'fixed', field, type: 'null' });
      else return `@capability ${name}: \`${field}: ${value}\` is not a binding value (use \`$param\`, a type such as \`string\`, or a fixed value)`;
    }
    rest = rest.slice(close + 1).trim();
  }
  return { name, bindings, description: rest };
}
