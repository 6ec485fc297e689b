// Typed readers over the YAML tree shared by every Blueprint section: the error class with
// its message prefix, mapping/key checks, strings, booleans, integers, durations and sizes.
// Each reader refuses the wrong YAML type as a parse_error at the node's path.
import type { TreeNode } from './yaml-tree';
import { sizeInBytes } from '../config';

export type BlueprintErrorCode =
  | 'parse_error'
  | 'invalid_kind'
  | 'invalid_name'
  | 'invalid_packages'
  | 'invalid_secrets'
  | 'invalid_auth_proxy'
  | 'invalid_permissions'
  | 'invalid_variables'
  | 'invalid_git'
  | 'invalid_vfs'
  | 'invalid_mcp'
  | 'invalid_llm'
  | 'invalid_filter';

const PREFIX: Record<BlueprintErrorCode, string> = {
  parse_error: 'blueprint parse error',
  invalid_kind: 'invalid blueprint kind',
  invalid_name: 'invalid blueprint name',
  invalid_packages: 'invalid packages config',
  invalid_secrets: 'invalid secrets config',
  invalid_auth_proxy: 'invalid auth_proxy config',
  invalid_permissions: 'invalid permissions config',
  invalid_variables: 'invalid variables config',
  invalid_git: 'invalid git config',
  invalid_vfs: 'invalid vfs config',
  invalid_mcp: 'invalid mcp config',
  invalid_llm: 'invalid llm config',
  invalid_filter: 'invalid filter',
};

export class BlueprintValidationError extends Error {
  constructor(
    readonly code: BlueprintErrorCode,
    readonly leaf: string,
    readonly path: Array<string | number>,
    readonly offset: number | null,
  ) {
    super(code === 'parse_error' && leaf === 'blueprint YAML is empty' ? leaf : `${PREFIX[code]}: ${leaf}`);
  }
}

export const NAME = /^[A-Za-z0-9_-]+$/;
export type Path = Array<string | number>;

export function fail(code: BlueprintErrorCode, leaf: string, path: Path, node?: TreeNode | null): never {
  throw new BlueprintValidationError(code, leaf, path, node ? node.offset : null);
}

export type MapNode = Extract<TreeNode, { kind: 'map' }>;

export function asMap(node: TreeNode, path: Path): MapNode | null {
  if (node.kind === 'null') return null;
  if (node.kind !== 'map') fail('parse_error', `${path.join('.') || 'document'}: expected a mapping`, path, node);
  return node;
}

export function checkKeys(node: MapNode, accepted: readonly string[], path: Path): void {
  for (const entry of node.entries) {
    if (!accepted.includes(entry.key)) {
      fail('parse_error', `unknown field \`${entry.key}\`${path.length ? ` in ${path.join('.')}` : ''}, expected one of ${accepted.map((k) => `\`${k}\``).join(', ')}`, [...path, entry.key], { kind: 'null', offset: entry.keyOffset });
    }
  }
}

export function get(node: MapNode, key: string): TreeNode | undefined {
  const entry = node.entries.find((e) => e.key === key);
  return entry && entry.value.kind !== 'null' ? entry.value : undefined;
}

export function text(node: TreeNode, path: Path): string {
  if (node.kind !== 'scalar' || (typeof node.value === 'object' && node.value !== null)) fail('parse_error', `${path.join('.')}: expected a string`, path, node);
  return typeof node.value === 'string' ? node.value : node.text;
}

export function bool(node: TreeNode, path: Path): boolean {
  if (node.kind !== 'scalar' || typeof node.value !== 'boolean' || node.quoted) fail('parse_error', `${path.join('.')}: expected \`true\` or \`false\``, path, node);
  return node.value;
}

export function integer(node: TreeNode, path: Path): number {
  if (node.kind !== 'scalar' || typeof node.value !== 'number' || node.quoted || !Number.isSafeInteger(node.value)) fail('parse_error', `${path.join('.')}: expected a whole number`, path, node);
  return node.value;
}

export function stringMap(node: TreeNode | undefined, path: Path): Record<string, string> | undefined {
  if (!node) return undefined;
  const map = asMap(node, path);
  const out: Record<string, string> = {};
  for (const entry of map?.entries ?? []) out[entry.key] = entry.value.kind === 'null' ? '' : text(entry.value, [...path, entry.key]);
  return out;
}

/** `<number><unit>` in seconds, or why not (the caller names the field); `days` also accepts `d` (approval_timeout). */
export function durationReading(raw: string, days = false): { seconds: number; problem?: undefined } | { seconds?: undefined; problem: string } {
  const units = days ? 's, m, h, or d' : 's, m, or h';
  const match = /^([0-9]+)\s*([A-Za-z]*)$/.exec(raw.trim());
  if (!match) return { problem: `invalid duration '${raw}': expected <number><${units.replace(/, (or )?/g, '|')}>` };
  if (match[2] === '') return { problem: `duration '${raw}' needs a unit (${units})` };
  const unit = match[2].toLowerCase();
  const factor = unit === 's' ? 1 : unit === 'm' ? 60 : unit === 'h' ? 3600 : unit === 'd' && days ? 86_400 : null;
  if (factor === null) return { problem: `unknown duration unit '${match[2]}' in '${raw}' (use ${units})` };
  const seconds = Number(match[1]) * factor;
  if (!Number.isSafeInteger(seconds * 1000)) return { problem: `duration '${raw}' overflows` };
  if (seconds < 1) return { problem: `duration '${raw}' must be at least 1s` };
  return { seconds };
}

export function parseSize(node: TreeNode, path: Path): number {
  if (node.kind === 'scalar' && typeof node.value === 'number' && !node.quoted) {
    if (!Number.isInteger(node.value)) fail('parse_error', `size_limit: invalid size '${node.text}'`, path, node);
    if (!Number.isSafeInteger(node.value)) fail('parse_error', `size_limit: size '${node.text}' overflows`, path, node);
    if (node.value < 1) fail('parse_error', `size_limit: must be at least 1 byte, not ${node.text}`, path, node);
    return node.value;
  }
  const raw = text(node, path);
  const size = sizeInBytes(raw);
  if (size.kind === 'syntax') fail('parse_error', `size_limit: invalid size '${raw}'`, path, node);
  if (size.kind === 'unit') fail('parse_error', `size_limit: unknown size unit '${size.unit}' in '${raw}' (use B, KB, MB, GB, TB)`, path, node);
  if (size.kind === 'overflow') fail('parse_error', `size_limit: size '${raw}' overflows`, path, node);
  if (size.bytes < 1) fail('parse_error', 'size_limit: must be at least 1 byte', path, node);
  return size.bytes;
}

/** Throws a fault found at `path` (by a module that knows paths, not nodes) at its position. */
export function failAt(error: { code: string; message: string; path: Path }, root: TreeNode): never {
  throw new BlueprintValidationError(error.code as BlueprintErrorCode, error.message, error.path, locate(root, error.path));
}

/** Offset of the node at `path`, or of its nearest existing ancestor. */
export function locate(root: TreeNode, path: Path): number | null {
  let node: TreeNode | undefined = root;
  let offset: number | null = root.offset;
  for (const step of path) {
    if (!node) break;
    if (node.kind === 'map') {
      const entry: { key: string; keyOffset: number; value: TreeNode } | undefined = node.entries.find((e) => e.key === step);
      if (!entry) break;
      offset = entry.value.kind === 'null' ? entry.keyOffset : entry.value.offset;
      node = entry.value;
    } else if (node.kind === 'seq' && typeof step === 'number' && node.items[step]) {
      node = node.items[step];
      offset = node.offset;
    } else break;
  }
  return offset;
}
