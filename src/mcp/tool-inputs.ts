// The tool inputs, declared once: the MCP endpoint's eight tools (their JSON Schemas for
// tools/list and the argument check come from these) and the TypeScript client's AI SDK
// tools. This file imports only zod: `npm run generate` copies it into the client as
// clients/typescript/src/tool-inputs.ts (a test fails when the copy is stale).
import { z } from 'zod';

const ProgramCode = z.string().describe('TypeScript program with a top-level `main` function');
const SearchQuery = z.string().describe('Name, description word or exported symbol; empty lists everything');
const PackageName = z.string().describe('Module or Package name, e.g. svc:fs');
const BuiltinNames = z.array(z.string()).describe('Built-in names such as Math.max or Temporal.Instant');
const FilePath = z.string().describe("A path in this session's file area, absolute or relative to the working directory");

/** The MCP tools' inputs (strict: an undeclared argument is refused). */
export const MCP_TOOL_INPUTS = {
  svc__typescript__execute: z.strictObject({ code: ProgramCode }),
  svc__typescript__last_run: z.strictObject({}),
  svc__typescript__packages__search: z.strictObject({ query: SearchQuery.optional() }),
  svc__typescript__packages__docs: z.strictObject({ name: PackageName }),
  svc__typescript__builtins__list: z.strictObject({}),
  svc__typescript__builtins__docs: z.strictObject({ names: BuiltinNames.min(1) }),
  svc__files__read: z.strictObject({
    path: FilePath,
    offset: z.number().int().min(1).nullable().optional().describe('First line to return, 1-based (default 1)'),
    limit: z.number().int().min(1).max(5000).nullable().optional().describe('Lines to return (default 2000, at most 5000)'),
  }),
  svc__files__list: z.strictObject({
    path: FilePath.nullable().optional().describe('The directory (default the working directory)'),
    recursive: z.boolean().nullable().optional().describe('Also list subdirectories'),
  }),
} as const;

/** The AI SDK tools' inputs (client: execute, search, docs, builtins, last_run). */
export const executeInput = z.object({ code: ProgramCode });
export const searchInput = z.object({ query: SearchQuery.default('') });
export const docsInput = z.object({ name: PackageName });
export const builtinsInput = z.object({ names: BuiltinNames.optional().describe('Built-in names such as Math.max or Temporal.Instant; omit to list them') });
export const lastRunInput = z.object({});
