// docs/blueprints.md's key tables and docs/blueprint.schema.json, generated from the
// Blueprint schema (src/blueprints/schema.ts). scripts/generate-blueprint-docs.mjs writes
// them (`npm run generate`); a test fails when the committed files differ.
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { AuthProxyRuleSchema, BlueprintDocumentSchema, blueprintJsonSchema, fieldMeta as metaOf, McpServerSchema, placeholderFields } from '../src/blueprints/schema';

export const BLUEPRINT_DOCS_FILE = new URL('../docs/blueprints.md', import.meta.url);
export const BLUEPRINT_SCHEMA_FILE = new URL('../docs/blueprint.schema.json', import.meta.url);

const cell = (text: string | undefined) => (text ?? '').replace(/\|/g, '\\|');

function topLevelTable(): string[] {
  return [
    '| Key | Type | Default | What |',
    '| --- | --- | --- | --- |',
    ...Object.entries(BlueprintDocumentSchema.shape).map(([key, field]) => {
      const meta = metaOf(field);
      return `| \`${key}\` | ${cell(meta['x-doc-type'])} | ${cell(meta['x-doc-default'])} | ${cell(meta.description)} |`;
    }),
  ];
}

function fieldTable(schema: z.ZodObject): string[] {
  return ['| Field | What |', '| --- | --- |', ...Object.entries(schema.shape).map(([key, field]) => `| \`${key}\` | ${cell(metaOf(field as z.ZodType).description)} |`)];
}

function placeholderTable(): string[] {
  const rows = placeholderFields().map(({ path, fills }) => `| \`${path}\` | ${fills.map((f) => `\`\${${f}.NAME}\``).join(', ')} |`);
  return ['| Field | Fills |', '| --- | --- |', ...rows, '| `permissions.*[].filter` | `${vars.NAME}` (the filter language\'s own grammar, below) |'];
}

const TABLES: Record<string, () => string[]> = {
  'top-level keys': topLevelTable,
  'auth_proxy fields': () => fieldTable(AuthProxyRuleSchema),
  'mcp fields': () => fieldTable(McpServerSchema),
  placeholders: placeholderTable,
};

const begin = (name: string) => `<!-- generated from src/blueprints/schema.ts by \`npm run generate\`: ${name} -->`;
const END = '<!-- end of generated table -->';

/** docs/blueprints.md with every generated table rendered from the schema. */
export function blueprintDocsSource(current = readFileSync(BLUEPRINT_DOCS_FILE, 'utf8')): string {
  let text = current;
  for (const [name, render] of Object.entries(TABLES)) {
    const start = text.indexOf(begin(name));
    const end = text.indexOf(END, start);
    if (start === -1 || end === -1) throw new Error(`docs/blueprints.md has no generated table '${name}' (${begin(name)} … ${END})`);
    text = `${text.slice(0, start)}${begin(name)}\n${render().join('\n')}\n${text.slice(end)}`;
  }
  return text;
}

export function blueprintSchemaSource(): string {
  return `${JSON.stringify(blueprintJsonSchema(), null, 2)}\n`;
}
