// Placeholders in Blueprint text. Which `${…}` a field fills is the schema's (its
// `x-placeholders`): auth_proxy and mcp values fill `${secrets.NAME}`, vfs paths and git
// values `${vars.NAME}`, every other text field nothing. A `${…}` a field does not fill
// (`${vars.tenant}` in an auth_proxy header) or a misspelt one (`${secret.A}`, `${var.x}`)
// would be used as written, so it is refused with a caret under it. Runs after the section
// checks, which keep their own messages (undeclared names, unterminated references);
// permission filters have their own grammar (src/policy) and are not walked here.
import type { z } from 'zod';
import { caretExcerpt } from '../policy';
import { fail, type BlueprintErrorCode, type Path } from './readers';
import { BlueprintDocumentSchema, fieldMeta, type Placeholder } from './schema';
import { defOf, unwrap } from './yaml-input';
import type { TreeNode } from './yaml-tree';

/** A `${…}` that reads as a placeholder: a name, optionally dotted (`vars.x`, `secret.A`, `TOKEN`). */
const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_-]*)(?:\.([^{}]*))?\}/g;

/** Each section's error class (the reference's "class of the block it appears in"). */
const SECTION_CODES: Record<string, BlueprintErrorCode> = {
  vfs: 'invalid_vfs',
  secrets: 'invalid_secrets',
  variables: 'invalid_variables',
  auth_proxy: 'invalid_auth_proxy',
  git: 'invalid_git',
  mcp: 'invalid_mcp',
  llm: 'invalid_llm',
};

/** The alternative of a union the node was written as (a mapping's by its keys). */
function branch(schema: z.ZodType, node: TreeNode): z.ZodType | null {
  const inner = unwrap(schema);
  const def = defOf(inner);
  if (def.type !== 'union') return inner;
  const options = def.options!.map(unwrap);
  if (node.kind === 'map') return options.find((o) => defOf(o).type === 'object' && node.entries.every((e) => e.key in defOf(o).shape!)) ?? null;
  if (node.kind === 'scalar') return options.find((o) => ['string', 'enum', 'literal'].includes(defOf(o).type)) ?? null;
  return null;
}

const placeholdersOf = (schema: z.ZodType): readonly Placeholder[] => fieldMeta(schema)['x-placeholders'] ?? [];

/** The placeholder kind a misspelt namespace was meant to be (`secret`, `Secrets` → secrets). */
function meantKind(namespace: string): Placeholder | null {
  const lower = namespace.toLowerCase();
  if (lower.startsWith('var')) return 'vars';
  if (lower.startsWith('secret')) return 'secrets';
  return null;
}

/** Why `${namespace.rest}` is refused in a field filling `fills`, or null. */
function placeholderProblem(namespace: string, rest: string | undefined, fills: readonly Placeholder[], where: string): string | null {
  if (rest !== undefined && (fills as readonly string[]).includes(namespace)) return null;
  const written = `\`\${${namespace}${rest === undefined ? '' : `.${rest}`}}\``;
  const meant = meantKind(namespace);
  const filled = fills.length ? `${where} fills only ${fills.map((f) => `\${${f}.NAME}`).join(' and ')}` : `${where} takes no placeholders`;
  if (meant && fills.includes(meant)) return `${written} is not a placeholder: write \`\${${meant}.${rest ?? 'NAME'}}\``;
  if (!fills.length && namespace === 'env') return `${written} is not filled: ${filled} (only the server config reads \${env.…}), so it would be used as written`;
  return `${written} is not filled here: ${filled}, so it would be used as written`;
}

function checkText(value: string, fills: readonly Placeholder[], path: Path, node: TreeNode): void {
  for (const match of value.matchAll(PLACEHOLDER)) {
    const where = path.map((step) => (typeof step === 'number' ? `[${step}]` : step)).join('.').replace(/\.\[/g, '[');
    const problem = placeholderProblem(match[1], match[2], fills, where);
    if (problem) fail(SECTION_CODES[path[0] as string] ?? 'parse_error', `${problem}\n${caretExcerpt(value, match.index, match[0].length).text}`, path, node);
  }
}

function walk(schema: z.ZodType, node: TreeNode, path: Path): void {
  const at = branch(schema, node);
  if (!at) return;
  const def = defOf(at);
  if (node.kind === 'scalar') {
    if (typeof node.value === 'string') checkText(node.value, placeholdersOf(at), path, node);
    return;
  }
  if (node.kind === 'map') {
    for (const entry of node.entries) {
      const child = def.type === 'object' ? def.shape![entry.key] : def.type === 'record' ? def.valueType : undefined;
      if (child) walk(child, entry.value, [...path, entry.key]);
    }
    return;
  }
  if (node.kind === 'seq' && def.type === 'array') node.items.forEach((item, i) => walk(def.element!, item, [...path, i]));
}

/** Refuses the first `${…}` its field does not fill, in document order (filters excepted). */
export function checkPlaceholders(root: TreeNode): void {
  if (root.kind !== 'map') return;
  for (const entry of root.entries) {
    if (entry.key === 'permissions') continue;
    const schema = BlueprintDocumentSchema.shape[entry.key as keyof typeof BlueprintDocumentSchema.shape];
    if (schema) walk(schema, entry.value, [entry.key]);
  }
}
