// Reads Blueprint YAML into a small tree that remembers, for every node, where it was
// written (for diagnostics with line and column) and how scalars were written (so a
// string field keeps `10` as the text `10`, and a quoted "true" is not a boolean).
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, Scalar, type Document, type Node } from 'yaml';

export type TreeNode =
  | { kind: 'null'; offset: number }
  | { kind: 'scalar'; value: unknown; text: string; quoted: boolean; offset: number }
  | { kind: 'map'; entries: Array<{ key: string; keyOffset: number; value: TreeNode }>; offset: number }
  | { kind: 'seq'; items: TreeNode[]; offset: number };

export class TreeError extends Error {
  /** 1-based line and column, filled in by readTree once the offset is known. */
  position: { line: number; col: number } | null = null;

  constructor(
    message: string,
    readonly offset: number | null,
    readonly path: Array<string | number> = [],
  ) {
    super(message);
  }
}

export interface ParsedTree {
  root: TreeNode;
  position(offset: number | null): { line: number; col: number } | null;
}

function convert(node: Node | null | undefined, doc: Document, path: Array<string | number>, depth = 0): TreeNode {
  if (depth > 64) throw new TreeError('the document nests too deeply', null, path);
  if (node === null || node === undefined) return { kind: 'null', offset: 0 };
  if (isAlias(node)) return convert(node.resolve(doc) as Node, doc, path, depth + 1);
  const offset = node.range?.[0] ?? 0;
  if (isScalar(node)) {
    if (node.value === null) return { kind: 'null', offset };
    const quoted = node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE || node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED;
    return { kind: 'scalar', value: node.value, text: node.source ?? String(node.value), quoted, offset };
  }
  if (isMap(node)) {
    const entries: Array<{ key: string; keyOffset: number; value: TreeNode }> = [];
    const seen = new Set<string>();
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
      const keyOffset = (keyNode as Node | null)?.range?.[0] ?? offset;
      if (seen.has(key)) throw new TreeError(`duplicate key \`${key}\`: remove or rename the repeated declaration`, keyOffset, [...path, key]);
      seen.add(key);
      entries.push({ key, keyOffset, value: convert(pair.value as Node | null, doc, [...path, key], depth + 1) });
    }
    return { kind: 'map', entries, offset };
  }
  if (isSeq(node)) return { kind: 'seq', items: node.items.map((item, i) => convert(item as Node, doc, [...path, i], depth + 1)), offset };
  throw new TreeError('unsupported YAML node', offset, path);
}

export function readTree(text: string): ParsedTree {
  const lineCounter = new LineCounter();
  try {
    return readTreeCounting(text, lineCounter);
  } catch (error) {
    if (error instanceof TreeError && error.position === null && error.offset !== null) error.position = lineCounter.linePos(error.offset);
    throw error;
  }
}

function readTreeCounting(text: string, lineCounter: LineCounter): ParsedTree {
  const position = (offset: number | null) => {
    if (offset === null) return null;
    const { line, col } = lineCounter.linePos(offset);
    return { line, col };
  };
  if (text.trim() === '' || text.split('\n').every((line) => line.trim() === '' || line.trim().startsWith('#'))) {
    throw new TreeError('blueprint YAML is empty', null);
  }
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: false, merge: false, schema: 'core', customTags: [] });
  if (!Array.isArray(docs)) throw new TreeError('blueprint YAML is empty', null);
  if (docs.length > 1) throw new TreeError('blueprint YAML must hold exactly one document; remove the extra `---` document', docs[1].range?.[0] ?? null);
  const doc = docs[0];
  const problem = doc.errors[0] ?? doc.warnings.find((w) => /tag/i.test(w.message));
  if (problem) {
    // The position travels in the diagnostic's line and column, not in the message.
    throw new TreeError(problem.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, ''), problem.pos?.[0] ?? null);
  }
  const root = convert(doc.contents as Node | null, doc, []);
  if (root.kind === 'null') throw new TreeError('blueprint YAML is empty', null);
  if (root.kind !== 'map') throw new TreeError('the top level of a blueprint must be a mapping', root.offset);
  return { root, position };
}
