// POST /v1/execute: a one-off run in a throw-away session. Every outcome is a 200 execute
// result with the `mcp-session-id` header: an unknown Blueprint is `blueprint_not_found`,
// invalid variables, secrets or the paths they fill are `invalid_request`. The run's
// last-run record stays readable through GET /v1/sessions/{id}/last-run. A client that
// disconnects cancels its run, unless it started it with `Prefer: respond-async` (202 once
// admitted; the run goes on and its record answers GET /v1/runs/{id}).
import type { Hono } from 'hono';
import { z } from '@hono/zod-openapi';
import type { Executor, ExecuteErrorKind, ExecuteResult, LastRunRecord } from '../../execution';
import type { Blueprint } from '../../blueprints';
import { bindBlueprint } from '../../sessions';
import { prefersAsync, RunStarted } from '../../runs';
import { defineRoute, json, serve } from '../route';
import { ExecuteResult as ExecuteResultBody } from '../schemas';
import { runStartedAnswer } from './runs';
import type { AppEnv } from '../types';

export interface ExecuteRouteDependencies {
  /** Runs get the registry's Blueprint object itself (one version for policy and services alike). */
  executor: Executor<Blueprint>;
  /** The Blueprint in force, or null when it is not registered or not usable; looked up once per run. */
  resolveBlueprint: (name: string) => Blueprint | null;
  /** Keeps the last-run record of a one-off run (readable by its session id, for the token `owner` names). */
  rememberLastRun: (sessionId: string, lastRun: LastRunRecord, owner: string) => void;
  newId: () => string;
}

const stringMap = z.record(z.string(), z.string());
export const oneOffBody = z.object({
  code: z.string(),
  blueprint: z.string(),
  variables: stringMap.optional(),
  secrets: stringMap.optional(),
}).openapi('OneOffExecuteRequest');

/** `Prefer: respond-async` on either execute route (documented once). */
export const preferHeader = z.object({
  Prefer: z.string().optional().openapi({ param: { description: '`respond-async`: answer 202 `{execution_id, session_id, state}` with `Location: /v1/runs/<id>` once the run is admitted; the run then goes on whether or not the client stays' } }),
});

export const executeRoute = defineRoute({ method: 'post', path: '/v1/execute', role: 'user', tag: 'sessions', summary: 'One-off run in a throw-away session', body: oneOffBody,
  headers: preferHeader,
  responseHeaders: { 'mcp-session-id': 'The session the request ran in' },
  responses: { 200: json(ExecuteResultBody, 'Every outcome, including `blueprint_not_found` and `invalid_request`'), 202: json(RunStarted, 'With `Prefer: respond-async`: the run was admitted; `Location: /v1/runs/<execution_id>` follows it') } });

function refusal(executionId: string, sessionId: string, kind: ExecuteErrorKind, message: string): ExecuteResult {
  return { execution_id: executionId, session_id: sessionId, result: null, console: [], error: { kind, message } };
}

export function mountExecuteRoutes(app: Hono<AppEnv>, deps: ExecuteRouteDependencies): void {
  serve(app, executeRoute, async (c, { body }) => {
    const principal = c.get('principal').name;
    const sessionId = deps.newId();
    c.header('mcp-session-id', sessionId);

    const blueprint = deps.resolveBlueprint(body.blueprint);
    if (!blueprint) {
      const executionId = deps.executor.refuse({ entryPoint: 'http', principal, sessionId, blueprintName: body.blueprint, code: body.code, errorClass: 'blueprint_not_found' });
      return c.json(refusal(executionId, sessionId, 'blueprint_not_found', `blueprint '${body.blueprint}' is not registered on this server (or cannot be used); register it with \`svc blueprint apply <file>.yaml\` or POST /v1/blueprints {"yaml": "name: ${body.blueprint}\\n..."}`));
    }
    const binding = bindBlueprint(blueprint, body.variables, body.secrets);
    if (!binding.ok) {
      const executionId = deps.executor.refuse({
        entryPoint: 'http',
        principal,
        sessionId,
        blueprintName: body.blueprint,
        blueprintHash: blueprint.hash,
        code: body.code,
        errorClass: 'invalid_request',
      });
      return c.json(refusal(executionId, sessionId, 'invalid_request', binding.error));
    }

    const detached = prefersAsync(c.req.header('prefer'));
    const executionId = deps.newId();
    const running = deps.executor.execute({
      executionId,
      entryPoint: 'http',
      principal,
      sessionId,
      blueprint,
      variables: binding.value.variables,
      cwd: binding.value.fileArea.cwd,
      code: body.code,
      fileArea: binding.value.fileArea,
      harnessSecrets: binding.value.secrets,
      throwaway: true,
      // Nobody can read a one-off's result once its client has gone (it has no
      // Idempotency-Key to come back with): the run stops as `cancelled` and frees its runner.
      // An asynchronous start has no requester to wait for: only its record's cancel stops it.
      ...(detached ? {} : { signal: c.req.raw.signal }),
      // A waiting client learns the run's id only from its answer: the record may be written
      // with the result (one commit per short run); a 202 hands the id out, so it is not.
      recordWriteBehind: !detached,
    });
    const remembered = running.then((report) => {
      if (report.lastRun) deps.rememberLastRun(sessionId, report.lastRun, principal);
      return report;
    });
    if (detached) {
      // Its outcome is in its record; a failure of the server itself is logged by the executor's record.
      remembered.catch(() => {});
      return runStartedAnswer(c, { execution_id: executionId, session_id: sessionId, state: 'queued' });
    }
    return c.json((await remembered).response);
  });
}
