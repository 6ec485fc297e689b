// The pieces every part of the Blueprint schema is built from: field meta (what the docs
// and the placeholder check read), text fields that fill placeholders, and what the fields'
// error maps read off a zod issue to word a refusal.
import { z } from 'zod';
import type { BlueprintErrorCode, Path } from './readers';

/** The placeholders a text field fills; any other `${…}` in it is refused. */
export type Placeholder = 'vars' | 'secrets';

/** What the docs and the placeholder check read beside the JSON Schema keywords. */
export interface FieldMeta {
  description?: string;
  /** The type as the docs write it. */
  'x-doc-type'?: string;
  /** The default as the docs write it. */
  'x-doc-default'?: string;
  'x-placeholders'?: readonly Placeholder[];
  /** A text field whose YAML value must be a string: `7` is refused, not read as the text `7` (yaml-input.ts). */
  'x-yaml-string'?: boolean;
  /** A mapping whose empty values (`key:`) count as written keys (read by yaml-input.ts). */
  'x-empty-is-written'?: boolean;
}

export const meta = <T extends z.ZodType>(schema: T, fields: FieldMeta): T => schema.meta(fields as Record<string, unknown>);
/** A text field that fills `${secrets.NAME}` (outside the program, at use). */
export const secretsText = (description: string) => meta(z.string(), { description, 'x-placeholders': ['secrets'] });
/** A text field that fills `${vars.NAME}` (with the session's variables). */
export const varsText = (description: string) => meta(z.string(), { description, 'x-placeholders': ['vars'] });

export type Issue = z.core.$ZodRawIssue;
export const pathOf = (issue: Issue) => (issue.path ?? []) as Path;
export const whereOf = (issue: Issue) => pathOf(issue).join('.');
/** The name of the entry `depth` steps into the path (`mcp.<server>` → the server). */
export const nameAt = (issue: Issue, depth: number) => String(pathOf(issue)[depth]);
export const missing = (issue: Issue) => (issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input === undefined;
export const isMapping = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
/** `{}` for an absent or empty map (the model leaves empty maps out). */
export const nonEmpty = <T>(record: Record<string, T> | undefined) => (record && Object.keys(record).length > 0 ? record : undefined);
export const quotedList = (values: readonly string[]) => values.map((v) => `\`${v}\``).join(', ');

/** What an error map or a refinement may add to an issue (zod copies `params` onto it). */
export interface FaultParams {
  /** The error class; parse_error when absent. */
  code?: BlueprintErrorCode;
  /** The YAML path reported, when it is not the issue's own. */
  path?: Path;
  /** Where the caret goes: the node at the path (default), its key, or the mapping holding it. */
  at?: 'node' | 'key' | 'parent';
  /** The node the caret points at, when it is not the one at the reported path. */
  caret?: Path;
  /** A refinement's finding without the field's name: the message is `<path>: <problem>`. */
  problem?: string;
  /** A mapping-level fault (missing or conflicting fields): reported before the mapping's values. */
  mappingLevel?: boolean;
  /** A missing field noticed in its own turn among the mapping's fields, not before them. */
  inTurn?: boolean;
  /** A fault of a map entry's name: reported before anything inside the entry. */
  beforeKeys?: boolean;
  /** A fault of a whole map: reported after its entries. */
  afterFields?: boolean;
  /** A fault of meaning: reported in the semantic order, after every structure fault. */
  semantic?: boolean;
}

/** Stamps `params` on the issue an error map describes (zod keeps them) and returns the message. */
export function described(issue: object, message: string, params: FaultParams = {}): string {
  const stamped = issue as { params?: object };
  stamped.params = { ...stamped.params, ...params };
  return message;
}
