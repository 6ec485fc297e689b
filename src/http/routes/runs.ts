// The run records (server-operations reference §4.9): GET /v1/runs/{id} (optionally held
// with `wait` until the run finishes), GET /v1/runs, POST /v1/runs/{id}/cancel. A `user`
// token sees its own runs, an `admin` token every run; anything else is `unknown_run`.
// Also the 202 answer of an asynchronous start, which both execute routes share.
import type { Context, Hono } from 'hono';
import { z } from '@hono/zod-openapi';
import { deadlineSignal } from '../../network';
import { RUN_STATES, RunList, RunRecord, RunStarted, type RunState, type RunStore } from '../../runs';
import { HttpError } from '../errors';
import { defineRoute, json, serve } from '../route';
import { ErrorBody } from '../schemas';
import type { AppEnv } from '../types';

export interface RunRouteDependencies {
  runs: RunStore;
}

export const MAX_WAIT_SECONDS = 60;
export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 500;

const byId = { execution_id: 'id' };
const unknown = json(ErrorBody, '`unknown_run`: no such run, its record has expired, or it is another token\'s');
const badQuery = json(ErrorBody, '`invalid_query`: the message names the parameter and what it accepts');

export const runRoutes = {
  get: defineRoute({ method: 'get', path: '/v1/runs/{execution_id}', routeParams: byId, role: 'user', tag: 'runs', summary: 'A run\'s record; with `wait`, held until it finishes',
    query: z.object({ wait: z.string().optional().openapi({ param: { description: `Seconds (0-${MAX_WAIT_SECONDS}) to hold the answer until the run is finished; the record as it is then` } }) }),
    responses: { 200: json(RunRecord, 'The run record'), 400: badQuery, 404: unknown } }),
  list: defineRoute({ method: 'get', path: '/v1/runs', role: 'user', tag: 'runs', summary: 'Runs, newest first: the caller\'s own (admin tokens: every one)',
    query: z.object({
      state: z.enum(RUN_STATES).optional(),
      session_id: z.string().optional(),
      blueprint: z.string().optional(),
      limit: z.string().optional().openapi({ param: { description: `At most this many (1-${MAX_LIST_LIMIT}, default ${DEFAULT_LIST_LIMIT})` } }),
    }),
    responses: { 200: json(RunList, 'Records without their results'), 400: badQuery } }),
  cancel: defineRoute({ method: 'post', path: '/v1/runs/{execution_id}/cancel', routeParams: byId, role: 'user', tag: 'runs', summary: 'Stop a run in flight: it ends `cancelled`',
    responses: { 202: json(RunRecord, 'Cancellation asked; the record as it was (GET it, with `wait`, for the end)'), 404: unknown, 409: json(ErrorBody, '`run_finished`: the run had already finished') } }),
};

export function mountRunRoutes(app: Hono<AppEnv>, deps: RunRouteDependencies): void {
  serve(app, runRoutes.list, (c) => {
    const state = c.req.query('state');
    if (state !== undefined && !(RUN_STATES as readonly string[]).includes(state)) throw invalidQuery('state', state, `one of ${RUN_STATES.join(', ')}`);
    const limit = wholeQuery(c, 'limit', 1, MAX_LIST_LIMIT) ?? DEFAULT_LIST_LIMIT;
    const runs = deps.runs.list({ state: state as RunState | undefined, sessionId: c.req.query('session_id'), blueprint: c.req.query('blueprint'), limit }, c.get('principal'));
    return c.json({ runs });
  });

  serve(app, runRoutes.get, async (c) => {
    const id = c.req.param('id') ?? '';
    const viewer = c.get('principal');
    const wait = wholeQuery(c, 'wait', 0, MAX_WAIT_SECONDS) ?? 0;
    const record = deps.runs.get(id, viewer);
    if (!record) throw unknownRun(id);
    if (record.state === 'finished' || wait === 0) return c.json(record);
    // Held without polling: the store wakes us when the run finishes; the time running out,
    // the client leaving or the server stopping ends the wait early.
    const held = deadlineSignal([c.req.raw.signal, c.get('cancelSignal')], wait * 1000);
    const current = await deps.runs.whenFinished(id, viewer, held.signal).finally(held.release);
    if (!current) throw unknownRun(id);
    return c.json(current);
  });

  serve(app, runRoutes.cancel, (c) => {
    const id = c.req.param('id') ?? '';
    const outcome = deps.runs.cancel(id, c.get('principal'));
    if (outcome.kind === 'unknown') throw unknownRun(id);
    if (outcome.kind === 'finished') throw HttpError.of(409, 'run_finished', `run '${id}' has already finished; there is nothing to cancel (GET /v1/runs/${id} for its result)`);
    return c.json(outcome.record, 202);
  });
}

/** The 202 answer of an asynchronous start: where to follow the run. */
export function runStartedAnswer(c: Context<AppEnv>, started: RunStarted): Response {
  c.header('Location', `/v1/runs/${started.execution_id}`);
  c.header('Preference-Applied', 'respond-async');
  return c.json(started, 202);
}

function unknownRun(id: string): HttpError {
  return HttpError.of(404, 'unknown_run', `no run '${id}' is known to this token (it may have expired: records are kept run_retention and within max_run_store_size)`);
}

function invalidQuery(name: string, value: string, accepted: string): HttpError {
  return HttpError.of(400, 'invalid_query', `query parameter \`${name}\` must be ${accepted}, got \`${value}\``, { parameter: name });
}

/** A whole-number query parameter within [min, max], or undefined when absent. */
function wholeQuery(c: Context<AppEnv>, name: string, min: number, max: number): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  const value = /^[0-9]{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) throw invalidQuery(name, raw, `a whole number from ${min} to ${max}`);
  return value;
}
