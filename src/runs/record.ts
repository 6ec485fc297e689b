// The run record on the wire (server-operations reference §4.9): one zod schema owns the
// shape; the TypeScript types are inferred from it and the OpenAPI document names it.
import { z } from '@hono/zod-openapi';

export const RUN_STATES = ['queued', 'running', 'waiting_for_approval', 'finished'] as const;
export type RunState = (typeof RUN_STATES)[number];

export const RUN_ENTRY_POINTS = ['rest', 'session', 'mcp'] as const;
export type RunEntryPoint = (typeof RUN_ENTRY_POINTS)[number];

const recordFields = {
  execution_id: z.string(),
  session_id: z.string(),
  blueprint: z.string(),
  entry_point: z.enum(RUN_ENTRY_POINTS).describe('`rest` (POST /v1/execute), `session` (POST /v1/sessions/{id}/execute) or `mcp` (the MCP execute tool)'),
  state: z.enum(RUN_STATES),
  started_at: z.string().describe('RFC 3339 UTC time the run was accepted'),
  finished_at: z.string().nullable().describe('RFC 3339 UTC time it finished; null until then'),
};

export const RunRecord = z
  .strictObject({
    ...recordFields,
    result: z.looseObject({}).nullable().describe('The execute result body once finished (ExecuteResult), else null'),
  })
  .openapi('RunRecord');
export type RunRecord = z.infer<typeof RunRecord>;

/** A record in a listing: everything but the result. */
export const RunSummary = z.strictObject(recordFields).openapi('RunSummary');
export type RunSummary = z.infer<typeof RunSummary>;

export const RunList = z.strictObject({ runs: z.array(RunSummary).describe('Newest first') }).openapi('RunList');

/** The 202 answer of an asynchronous start (`Prefer: respond-async`). */
export const RunStarted = z.strictObject({ execution_id: z.string(), session_id: z.string(), state: z.enum(RUN_STATES) }).openapi('RunStarted');
export type RunStarted = z.infer<typeof RunStarted>;
