// Tools of an upstream MCP server as functions of `@mcp/<server>`:
// which names become named exports, which are degraded or dropped, JSON Schema to
// TypeScript declarations, and the warnings these choices produce.

/** One tool as the upstream server listed it (the fields we read). */
export interface UpstreamTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
}

export interface CatalogueTool {
  name: string;
  /** A valid identifier and not a reserved word: a named export too. */
  named: boolean;
  description: string;
  /** `(args: {...})`, `(args?: {...})` or `()`. */
  parameters: string;
  returns: string;
  /** Why the result is typed as it is (the doc comment's last line). */
  resultNote: string;
  /** Some input property is typed `unknown`. */
  unknownInputs: boolean;
  /** No representable output schema. */
  unknownResult: boolean;
}

const DEPTH_LIMIT = 12;

const RESERVED = new Set([
  'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum', 'export', 'extends', 'false',
  'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof',
  'var', 'void', 'while', 'with', 'yield', 'eval', 'arguments', 'implements', 'interface', 'package', 'private', 'protected', 'public', 'static', 'let',
]);

/** A tool name usable as `import { name }` and `name(...)`. */
export function isNamedExport(name: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) && !RESERVED.has(name) && name !== '__esModule' && !name.startsWith('__svc');
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const SCALARS = new Set(['string', 'number', 'integer', 'boolean', 'null']);

interface Rendered {
  text: string;
  /** Something inside became `unknown` where the schema said more. */
  lossy: boolean;
}

const key = (name: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name));

function scalar(type: string, schema: Json): string {
  if (type === 'string') {
    const values = Array.isArray(schema.enum) ? schema.enum : null;
    if (values && values.length >= 2 && values.every((v) => typeof v === 'string')) return values.map((v) => JSON.stringify(v)).join(' | ');
    return 'string';
  }
  return type === 'integer' ? 'number' : type;
}

/**
 * JSON Schema → TypeScript type text: scalars and string enums, unions of scalars
 * (anyOf/oneOf or a type list), arrays and objects; anything else (`$ref`, `allOf`, `not`,
 * nesting past the depth limit) is `unknown`, marked lossy.
 */
export function schemaType(schema: unknown, depth = 0): Rendered {
  if (!isObject(schema) || depth > DEPTH_LIMIT) return { text: 'unknown', lossy: true };
  if ('$ref' in schema || 'allOf' in schema || 'not' in schema) return { text: 'unknown', lossy: true };
  if (Array.isArray(schema.enum) && !schema.enum.every((v) => typeof v === 'string')) return { text: 'unknown', lossy: true };
  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
  if (alternatives) {
    const parts: string[] = [];
    for (const alt of alternatives) {
      if (!isObject(alt) || typeof alt.type !== 'string' || !SCALARS.has(alt.type) || 'anyOf' in alt || 'oneOf' in alt) return { text: 'unknown', lossy: true };
      parts.push(scalar(alt.type, alt));
    }
    return { text: [...new Set(parts)].join(' | ') || 'unknown', lossy: parts.length === 0 };
  }
  const type = schema.type;
  if (Array.isArray(type)) {
    if (type.length === 0 || !type.every((t) => typeof t === 'string' && SCALARS.has(t))) return { text: 'unknown', lossy: true };
    return { text: [...new Set(type.map((t) => scalar(t as string, schema)))].join(' | '), lossy: false };
  }
  if (typeof type === 'string' && SCALARS.has(type)) return { text: scalar(type, schema), lossy: false };
  if (type === 'array') {
    if (!('items' in schema)) return { text: 'unknown[]', lossy: false };
    const item = schemaType(schema.items, depth + 1);
    return { text: /[|&]/.test(item.text) && !item.text.startsWith('{') ? `(${item.text})[]` : `${item.text}[]`, lossy: item.lossy };
  }
  if (type === 'object' || (type === undefined && isObject(schema.properties))) {
    if (!isObject(schema.properties)) return { text: '{ [key: string]: unknown }', lossy: false };
    return objectType(schema, depth);
  }
  return { text: 'unknown', lossy: true };
}

function objectType(schema: Json, depth: number): Rendered {
  const properties = schema.properties as Json;
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  let lossy = false;
  const members = Object.entries(properties).map(([name, property]) => {
    const rendered = schemaType(property, depth + 1);
    lossy ||= rendered.lossy;
    return `${key(name)}${required.has(name) ? '' : '?'}: ${rendered.text}`;
  });
  return { text: members.length ? `{ ${members.join('; ')} }` : '{}', lossy };
}

const RESULT_NOTES = {
  typed: "Result typed from the tool's output schema.",
  missing: 'The server publishes no output schema: the result is unknown; inspect it before use.',
  unrepresentable: "The tool's output schema is not representable: the result is unknown; inspect it before use.",
};

export function describeTool(tool: UpstreamTool): CatalogueTool {
  const input = isObject(tool.inputSchema) ? tool.inputSchema : {};
  const properties = isObject(input.properties) ? input.properties : {};
  // A tool with no properties still takes an argument object, as agents call every tool:
  // `tool({})`. Without `additionalProperties: false` the server may read more fields.
  let parameters = input.additionalProperties === false ? '(args?: Record<string, never>)' : '(args?: Record<string, unknown>)';
  let unknownInputs = false;
  if (Object.keys(properties).length > 0) {
    const rendered = objectType({ ...input, properties }, 0);
    unknownInputs = rendered.lossy;
    const required = Array.isArray(input.required) && input.required.length > 0;
    parameters = `(args${required ? '' : '?'}: ${rendered.text})`;
  }
  let returns = 'unknown';
  let resultNote = RESULT_NOTES.missing;
  if (tool.outputSchema !== undefined) {
    const rendered = schemaType(tool.outputSchema);
    if (rendered.text !== 'unknown' && !rendered.lossy) {
      returns = rendered.text;
      resultNote = RESULT_NOTES.typed;
    } else resultNote = RESULT_NOTES.unrepresentable;
  }
  return {
    name: tool.name,
    named: isNamedExport(tool.name),
    description: (tool.description ?? '').trim(),
    parameters,
    returns,
    resultNote,
    unknownInputs,
    unknownResult: returns === 'unknown',
  };
}

/** Tools kept for the Package (duplicates dropped) and the warnings for the rest. */
export function catalogueTools(server: string, listed: UpstreamTool[]): { tools: CatalogueTool[]; warnings: string[] } {
  const counts = new Map<string, number>();
  for (const t of listed) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  const warnings: string[] = [];
  const tools: CatalogueTool[] = [];
  for (const [name, count] of counts) {
    if (count > 1) warnings.push(`@mcp/${server}: tool '${name}' dropped: the server lists ${count} tools with this name`);
  }
  for (const t of listed) {
    if (counts.get(t.name)! > 1) continue;
    const tool = describeTool(t);
    if (!tool.named) warnings.push(`@mcp/${server}: tool '${tool.name}' is not a usable identifier: call it through the default import as ${server}[${JSON.stringify(tool.name)}](args)`);
    tools.push(tool);
  }
  const unknownResults = tools.filter((t) => t.unknownResult).length;
  if (unknownResults > 0) warnings.push(`@mcp/${server}: ${unknownResults} tool${unknownResults === 1 ? '' : 's'} return unknown (output schemas missing or not representable); consult the docs`);
  const unknownInputs = tools.filter((t) => t.unknownInputs).length;
  if (unknownInputs > 0) warnings.push(`@mcp/${server}: ${unknownInputs} tool${unknownInputs === 1 ? ' has' : 's have'} input properties typed unknown; consult the docs`);
  return { tools, warnings };
}

function docComment(tool: CatalogueTool, indent: string): string {
  const text = `${tool.description ? `${tool.description.replace(/\*\//g, '*\\/')} ` : ''}${tool.resultNote}`;
  const lines = text.split('\n');
  return lines.length === 1 ? `${indent}/** ${lines[0]} */` : [`${indent}/**`, ...lines.map((l) => `${indent} * ${l}`), `${indent} */`].join('\n');
}

/** The Package's declarations (the asynchronous form `@mcp/<server>/async`: every tool returns a promise), served by the docs endpoint. */
export function renderDeclarations(server: string, tools: CatalogueTool[], form: 'sync' | 'async' = 'sync'): string {
  const local = isNamedExport(server) ? server : 'server';
  const returns = (tool: CatalogueTool) => (form === 'async' ? `Promise<${tool.returns}>` : tool.returns);
  const out = [`declare module "@mcp/${server}${form === 'async' ? '/async' : ''}" {`];
  for (const tool of tools.filter((t) => t.named)) {
    out.push(docComment(tool, '  '));
    out.push(`  export function ${tool.name}${tool.parameters}: ${returns(tool)};`);
  }
  out.push(`  const ${local}: {`);
  for (const tool of tools) {
    if (tool.named) out.push(`    ${tool.name}: typeof ${tool.name};`);
    else {
      out.push(docComment(tool, '    '));
      out.push(`    ${JSON.stringify(tool.name)}: ${tool.parameters} => ${returns(tool)};`);
    }
  }
  out.push('  };', `  export default ${local};`, '}');
  return out.join('\n');
}

export function packageDescription(server: string, count: number): string {
  return `MCP server '${server}' (${count} tool${count === 1 ? '' : 's'})`;
}
