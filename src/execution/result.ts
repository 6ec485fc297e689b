// The execute result and last-run record, built from a sandbox outcome or from a refusal
// before the program ran. The zod schemas here are the one owner of these wire shapes: the
// TypeScript types are inferred from them, the OpenAPI document (src/http) and the MCP
// tool answers (src/mcp) use them, and the TypeScript client's types are generated from
// that document. `z` comes from @hono/zod-openapi so `.openapi(name)` can name a schema
// as a component of the document.
import { z } from '@hono/zod-openapi';
import { RUN_ERROR_KINDS, type Diagnostic } from '../../sandbox';

/** Every `error.kind` of an execute result: the run's own, then refusals before it ran. */
export const EXECUTE_ERROR_KINDS = [...RUN_ERROR_KINDS, 'compile_error', 'package_resolution', 'blueprint_not_found', 'invalid_request'] as const;
export type ExecuteErrorKind = (typeof EXECUTE_ERROR_KINDS)[number];

/** `true` only when A and B are the same type (a schema proven to match a type owned elsewhere). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * A compile or type-check diagnostic on the wire. The type is owned by sandbox/contract.ts
 * (the runner and compile workers load no zod); the check below fails the build when the
 * two part.
 */
export const CompileDiagnostic = z.strictObject({
  severity: z.enum(['error', 'warning']),
  line: z.number().int(),
  column: z.number().int(),
  message: z.string(),
  notes: z.array(z.strictObject({ line: z.number().int(), column: z.number().int(), message: z.string() })).optional(),
  help: z.string().optional().describe('A suggested fix (the type checker\'s spelling suggestion)'),
});
const compileDiagnosticMatches: Same<z.infer<typeof CompileDiagnostic>, Diagnostic> = true;
void compileDiagnosticMatches;

export const ExecuteError = z
  .strictObject({
    kind: z.enum(EXECUTE_ERROR_KINDS),
    message: z.string(),
    caller: z.string().optional(),
    capability: z.string().optional(),
    source: z.string().optional().describe('permission_denied only: policy, invariant or read_only'),
    diagnostics: z.array(CompileDiagnostic).optional(),
  })
  .openapi('ExecuteError');
export type ExecuteError = z.infer<typeof ExecuteError>;

// `z.union([X, z.null()])` rather than `.nullable()`: zod-to-openapi would otherwise make
// the named component itself nullable.
const errorOrNull = z.union([ExecuteError, z.null()]);

/** Type errors that did not block the run (`typecheck: on`), or why it ran unchecked: at most 20, present only when non-empty. */
const Warnings = z
  .array(CompileDiagnostic)
  .max(20)
  .optional()
  .describe('Present only when non-empty: type errors that did not stop the run (severity warning; with typecheck: on only errors against svc\'s declarations block), or why the program ran unchecked. At most 20.');

export const ExecuteResult = z
  .strictObject({
    execution_id: z.string(),
    session_id: z.string(),
    result: z.string().nullable(),
    console: z.array(z.string()),
    error: errorOrNull,
    discovery_warnings: z.array(z.string()).optional(),
    warnings: Warnings,
  })
  .openapi('ExecuteResult');
export type ExecuteResult = z.infer<typeof ExecuteResult>;

export const LastRunRecord = z.strictObject({ result: z.string().nullable(), console: z.array(z.string()), error: errorOrNull, warnings: Warnings }).openapi('LastRunRecord');
export type LastRunRecord = z.infer<typeof LastRunRecord>;

/** The MCP execute tool's structured answer: the execute result without the session id (the MCP session carries it). */
export const ToolExecuteResult = ExecuteResult.omit({ session_id: true });
export type ToolExecuteResult = z.infer<typeof ToolExecuteResult>;

/** The MCP last-run tool's structured answer: the record and the run it came from. */
export const ToolLastRun = LastRunRecord.extend({ execution_id: z.string().nullable() });
export type ToolLastRun = z.infer<typeof ToolLastRun>;

/** What one execution produced: the response body and the session's last-run record. */
export interface ExecutionReport {
  response: ExecuteResult;
  lastRun: LastRunRecord | null;
  /** The program did not produce this answer (its run was lost with its runner): an idempotency key never keeps it. */
  lost?: true;
}

// The run a last-run record came from (the MCP last-run tool answers it); the record's
// own shape is the interface's and stays without it.
const recordRuns = new WeakMap<object, string>();

export function executionIdOf(record: object): string | null {
  return recordRuns.get(record) ?? null;
}

export function executeResult(ids: { executionId: string; sessionId: string }, result: string | null, consoleLines: string[], error: ExecuteError | null, discoveryWarnings: string[] = [], warnings: Diagnostic[] = []): ExecutionReport {
  // Present only when non-empty.
  const typeWarnings = warnings.length > 0 ? { warnings: warnings.slice(0, 20) } : {};
  const lastRun: LastRunRecord = { result: error ? null : result, console: consoleLines, error, ...typeWarnings };
  recordRuns.set(lastRun, ids.executionId);
  return {
    response: {
      execution_id: ids.executionId,
      session_id: ids.sessionId,
      result: error ? null : result,
      // The execute result carries console lines only on failure; last-run always has them.
      console: error ? consoleLines : [],
      error,
      // Present only when non-empty.
      ...(discoveryWarnings.length > 0 ? { discovery_warnings: [...discoveryWarnings] } : {}),
      ...typeWarnings,
    },
    lastRun,
  };
}
