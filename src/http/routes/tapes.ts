// A finished run's tape (GET /v1/runs/{id}/tape) and forks of it (POST /v1/runs/{id}/fork),
// server-operations.md §4.9. The run's owner token or an admin; any other token, or an
// unknown id, 404 `unknown_run`; a run still under way, 409 `run_not_finished`.
import type { Hono } from 'hono';
import { z } from '@hono/zod-openapi';
import type { Executor } from '../../execution';
import { bindBlueprint } from '../../sessions';
import { forkedEntries, resumePlan, TapeError, type ForkAnswer, type RunTapes } from '../../journal';
import type { ServerLog } from '../../audit';
import { HttpError } from '../errors';
import { defineRoute, json, serve } from '../route';
import { ErrorBody } from '../schemas';
import { bodyOf } from '../validation';
import type { AppEnv } from '../types';
import type { Blueprint } from '../../blueprints';
import type { RecordedPackage, TapePackage } from '../../packages';

export interface TapeRouteDependencies {
  tapes: RunTapes;
  executor: Executor<Blueprint>;
  resolveBlueprint: (name: string) => Blueprint | null;
  newId: () => string;
  log: ServerLog;
  /** A run's Packages with the code it loaded (src/packages/tape-code.ts). */
  packageCode: (recorded: readonly RecordedPackage[]) => Promise<TapePackage[]>;
}

const TapeBody = z.looseObject({ format: z.literal('svc.tape/1'), execution_id: z.string(), program: z.string(), journal: z.array(z.looseObject({ step: z.number().int(), kind: z.string() })) }).openapi('Tape');
const forkBody = z
  .strictObject({
    step: z.number().int().min(0),
    answer: z.union([z.strictObject({ value: z.unknown() }), z.strictObject({ error: z.strictObject({ name: z.string().max(256), message: z.string().max(64 * 1024) }) })]),
  })
  .openapi('ForkRequest');
const RunStarted = z.strictObject({ execution_id: z.string(), session_id: z.string(), state: z.string() }).openapi('RunStarted');

export const tapeRoutes = {
  tape: defineRoute({ method: 'get', path: '/v1/runs/{execution_id}/tape', role: 'user', tag: 'sessions', summary: 'A finished run\'s tape (svc.tape/1): program, journal and result, for `svc replay`',
    responses: { 200: json(TapeBody, 'The tape'), 404: json(ErrorBody, '`unknown_run`'), 409: json(ErrorBody, '`run_not_finished`') } }),
  fork: defineRoute({ method: 'post', path: '/v1/runs/{execution_id}/fork', role: 'user', tag: 'sessions', summary: 'Replay a run to a host call, substitute its answer, and continue live as a new run', body: forkBody,
    responses: { 202: json(RunStarted, 'The new run, under way'), 400: json(ErrorBody, '`invalid_step`, `not_replayable`'), 404: json(ErrorBody, '`unknown_run`, `blueprint_not_found`'), 409: json(ErrorBody, '`run_not_finished`') } }),
};

export function mountTapeRoutes(app: Hono<AppEnv>, deps: TapeRouteDependencies): void {
  const finishedRun = (executionId: string, principal: { name: string; role: string }) => {
    const found = deps.tapes.lookup(executionId);
    const unknown = HttpError.of(404, 'unknown_run', `no run '${executionId}' is known to this token (runs are kept for run_retention)`);
    if (found.state === 'unknown' || (found.owner !== principal.name && principal.role !== 'admin')) throw unknown;
    if (found.state === 'running') throw HttpError.of(409, 'run_not_finished', `run '${executionId}' has not finished; its tape is ready when it has`);
    return found;
  };

  serve(app, tapeRoutes.tape, async (c) => {
    const found = finishedRun(c.req.param('execution_id') ?? '', c.get('principal'));
    // A run with Packages: the tape carries their code so `svc replay` can load them offline.
    const packages = found.run.packages.length > 0 ? await deps.packageCode(found.run.packages) : [];
    return c.json(found.tape(packages));
  });

  serve(app, tapeRoutes.fork, (c) => {
    const principal = c.get('principal');
    const found = finishedRun(c.req.param('execution_id') ?? '', principal);
    const body = bodyOf<z.infer<typeof forkBody>>(c);
    if (found.run.journal.truncated) throw HttpError.of(400, 'not_replayable', `run '${found.run.executionId}' passed max_run_journal_size: its journal holds nothing to replay`);
    if ('value' in body.answer && body.answer.value === undefined) throw HttpError.of(400, 'invalid_request', 'answer.value must be a JSON value (use null for none)');
    let entries;
    try {
      entries = forkedEntries(found.run.journal.entries, body.step, body.answer as ForkAnswer);
    } catch (error) {
      if (error instanceof TapeError) throw HttpError.of(400, 'invalid_step', error.message);
      throw error;
    }
    const blueprint = deps.resolveBlueprint(found.run.blueprint.name);
    if (!blueprint) throw HttpError.of(404, 'blueprint_not_found', `blueprint '${found.run.blueprint.name}' is no longer registered on this server`);
    const binding = bindBlueprint(blueprint, found.run.variables, {});
    if (!binding.ok) throw HttpError.of(400, 'invalid_request', binding.error);
    const executionId = deps.newId();
    const sessionId = deps.newId();
    // The new run belongs to whoever forked it; it runs as a one-off, beyond this request.
    void deps.executor
      .execute({
        entryPoint: 'http',
        principal: principal.name,
        sessionId,
        executionId,
        blueprint,
        variables: binding.value.variables,
        cwd: binding.value.fileArea.cwd,
        code: found.run.code,
        fileArea: binding.value.fileArea,
        harnessSecrets: binding.value.secrets,
        throwaway: true,
        replay: resumePlan(entries),
      })
      .catch((error: unknown) => deps.log.warn('svc_server::journal', `fork ${executionId} of ${found.run.executionId} failed: ${error instanceof Error ? error.message : String(error)}`));
    return c.json({ execution_id: executionId, session_id: sessionId, state: 'running' }, 202);
  });
}


