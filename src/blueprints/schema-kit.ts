// The pieces every part of the Blueprint schema is built from: field meta (what the docs
// and the placeholder check read), text fields that fill placeholders, and what the fields'
// error maps read off a zod issue to word a refusal.
import { z } from 'zod';
import type { Path } from './readers';

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
