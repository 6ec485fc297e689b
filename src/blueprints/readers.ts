// What every Blueprint reader shares: the error class with its message prefix, the one
// duration and size reader (schema.ts words their refusals), the text of a scalar (the
// policy's `default`), and where a path is in the document.
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

export function text(node: TreeNode, path: Path): string {
  if (node.kind !== 'scalar' || (typeof node.value === 'object' && node.value !== null)) fail('parse_error', `${path.join('.')}: expected a string`, path, node);
  return typeof node.value === 'string' ? node.value : node.text;
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

/** A `size_limit` in bytes (a whole number, or text such as `100MB`), or why not. */
export function sizeReading(value: number | string): { bytes: number; problem?: undefined } | { bytes?: undefined; problem: string } {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return { problem: `size_limit: invalid size '${value}'` };
    if (!Number.isSafeInteger(value)) return { problem: `size_limit: size '${value}' overflows` };
    if (value < 1) return { problem: `size_limit: must be at least 1 byte, not ${value}` };
    return { bytes: value };
  }
  const size = sizeInBytes(value);
  if (size.kind === 'syntax') return { problem: `size_limit: invalid size '${value}'` };
  if (size.kind === 'unit') return { problem: `size_limit: unknown size unit '${size.unit}' in '${value}' (use B, KB, MB, GB, TB)` };
  if (size.kind === 'overflow') return { problem: `size_limit: size '${value}' overflows` };
  if (size.bytes < 1) return { problem: 'size_limit: must be at least 1 byte' };
  return { bytes: size.bytes };
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
