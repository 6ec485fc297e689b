// The session endpoints: open, execute (optionally guarded by `Idempotency-Key`), rebind,
// last-run and delete: statuses and bodies of the session routes and of idempotency
// refusals; the lifecycle itself lives in src/sessions.
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from '@hono/zod-openapi';
import type { ExecuteErrorKind, ExecutionReport, Executor } from '../../execution';
import type { Blueprint } from '../../blueprints';
import {
  codeFingerprint,
  IdempotencyError,
  idempotencyKeyFrom,
  SessionError,
  type IdempotencyLedger,
  type Reservation,
  type SessionManager,
  type SessionView,
} from '../../sessions';
import { HttpError } from '../errors';
import { prefersAsync, RunStarted } from '../../runs';
import { defineRoute, json, serve } from '../route';
import { preferHeader } from './execute';
import { runStartedAnswer } from './runs';
import { ExecuteResult, IdempotencyRefusal, LastRunRecord, SessionCreated, SessionError as SessionErrorBody, SessionList } from '../schemas';
import { metrics } from '../../metrics';
import type { AppEnv } from '../types';

export interface SessionRouteDependencies {
  sessions: SessionManager<Blueprint>;
  /** Runs get the registry's Blueprint object itself (one version for policy and services alike). */
  executor: Executor<Blueprint>;
  /** Null when no ledger is available: guarded requests answer `idempotency_unavailable`. */
  ledger: IdempotencyLedger | null;
  newId: () => string;
  /** Per-run services of a session run (its file area, svc:session state, harness secrets). */
}

const stringMap = z.record(z.string(), z.string());
export const createBody = z.object({ blueprint: z.string(), variables: stringMap.optional(), secrets: stringMap.optional() }).openapi('CreateSessionRequest');
export const executeBody = z.object({ code: z.string() }).openapi('ExecuteInSessionRequest');
export const rebindBody = z.object({ secrets: stringMap }).openapi('RebindRequest');

/** Set (to `true`) on an answer replayed from the idempotency ledger instead of a run. */
export const IDEMPOTENT_REPLAYED = 'Idempotent-Replayed';

/** The session routes' hono patterns say `:id` (metrics label them by it). */
const byId = { session_id: 'id' };
const mcpSessionHeader = { 'mcp-session-id': 'The session the request ran in' };
const gone = json(SessionErrorBody, 'Unknown session, or its Blueprint is gone');
export const sessionRoutes = {
  list: defineRoute({ method: 'get', path: '/v1/sessions', role: 'user', tag: 'sessions', summary: 'Open sessions: the caller\'s own (admin tokens: every one)', responses: { 200: json(SessionList, 'Oldest first, with the per-token limit') } }),
  create: defineRoute({ method: 'post', path: '/v1/sessions', role: 'user', tag: 'sessions', summary: 'Open a session', body: createBody, responseHeaders: mcpSessionHeader,
    responses: { 200: json(SessionCreated, 'Opened'), 400: json(SessionErrorBody, 'Invalid variables, secrets or filled paths'), 404: json(SessionErrorBody, 'Unknown Blueprint'), 429: json(SessionErrorBody, '`session_limit`: the token has `max_sessions_per_token` sessions open'), 500: json(SessionErrorBody, 'The session could not be created') } }),
  execute: defineRoute({ method: 'post', path: '/v1/sessions/{session_id}/execute', routeParams: byId, role: 'user', tag: 'sessions', summary: 'Run a program in a session', body: executeBody,
    headers: z.object({
      'Idempotency-Key': z.string().min(1).max(120).regex(/^[\x20-\x7e]+$/).optional().openapi({ param: { description: 'Printable ASCII, 1 to 120 bytes, sent once: the same key with the same code replays the recorded outcome (of an asynchronous start: its 202 with the same execution_id)' } }),
      ...preferHeader.shape,
    }),
    responseHeaders: { ...mcpSessionHeader, [IDEMPOTENT_REPLAYED]: '`true` when the answer was replayed from an earlier request with the same Idempotency-Key (nothing ran, no audit records); absent for a run' },
    responses: { 200: json(ExecuteResult, 'Every program outcome, failures included'), 202: json(RunStarted, 'With `Prefer: respond-async`: the run was admitted; `Location: /v1/runs/<execution_id>` follows it'), 400: json(IdempotencyRefusal, 'Invalid Idempotency-Key'), 404: gone, 409: json(SessionErrorBody, '`session_requires_secrets`, `idempotency_conflict` or `idempotency_incomplete`'), 503: json(IdempotencyRefusal, '`idempotency_in_progress` or `idempotency_unavailable`') } }),
  rebind: defineRoute({ method: 'post', path: '/v1/sessions/{session_id}/rebind', routeParams: byId, role: 'user', tag: 'sessions', summary: 'Replace the harness secrets', body: rebindBody,
    responses: { 204: { empty: 'Rebound' }, 400: json(SessionErrorBody, 'Invalid secrets'), 404: gone } }),
  lastRun: defineRoute({ method: 'get', path: '/v1/sessions/{session_id}/last-run', routeParams: byId, role: 'user', tag: 'sessions', summary: 'The last run with its full console', responses: { 200: json(LastRunRecord, 'The last run'), 404: { empty: 'No run recorded' } } }),
  delete: defineRoute({ method: 'delete', path: '/v1/sessions/{session_id}', routeParams: byId, role: 'user', tag: 'sessions', summary: 'End a session', responses: { 204: { empty: 'Ended' }, 404: { empty: 'Unknown session' } } }),
};

/** Error kinds that end a run before the program is dispatched (nothing is recorded). */
const NOT_DISPATCHED: ReadonlySet<ExecuteErrorKind> = new Set(['compile_error', 'package_resolution']);

export function mountSessionRoutes(app: Hono<AppEnv>, deps: SessionRouteDependencies): void {
  serve(app, sessionRoutes.list, (c) => c.json({ sessions: deps.sessions.list(c.get('principal')), max_sessions_per_token: deps.sessions.sessionLimit }));

  serve(app, sessionRoutes.create, (c, { body }) => {
    try {
      const { sessionId } = deps.sessions.create({ ...body, principal: c.get('principal').name });
      c.header('mcp-session-id', sessionId);
      return c.json({ session_id: sessionId });
    } catch (error) {
      throw sessionRefusal(error);
    }
  });

  serve(app, sessionRoutes.execute, (c, { params, body }) => executeInSession(c, params.session_id, body.code, deps));

  serve(app, sessionRoutes.rebind, (c, { params, body }) => {
    try {
      deps.sessions.rebind(params.session_id, body.secrets, c.get('principal'));
      return c.body(null, 204);
    } catch (error) {
      throw sessionRefusal(error);
    }
  });

  serve(app, sessionRoutes.lastRun, (c, { params }) => {
    const record = deps.sessions.lastRun(params.session_id, c.get('principal'));
    if (!record) return c.body(null, 404);
    return c.json({ result: record.result, console: record.console, error: record.error, ...(record.warnings ? { warnings: record.warnings } : {}) });
  });

  serve(app, sessionRoutes.delete, (c, { params }) => {
    const ended = deps.sessions.delete(params.session_id, c.get('principal'));
    return c.body(null, ended ? 204 : 404);
  });
}

/** Session-level refusals as HTTP errors: status, `error` code and message. */
function sessionRefusal(error: unknown, executionId?: string): HttpError {
  if (!(error instanceof SessionError)) throw error;
  const withId = executionId ? { execution_id: executionId } : {};
  const { name, sessionId, required } = error.details;
  switch (error.code) {
    case 'unknown_blueprint':
      return new HttpError(404, { error: 'unknown blueprint', message: error.message, name });
    case 'invalid_binding':
      return new HttpError(400, { error: error.message });
    case 'create_failed':
      return new HttpError(500, { error: error.message });
    case 'session_limit':
      return new HttpError(429, { error: 'session_limit', message: error.message, limit: error.details.limit });
    case 'unknown_session':
      return new HttpError(404, { ...withId, error: 'unknown session', session_id: sessionId });
    case 'blueprint_gone':
      return new HttpError(404, { ...withId, error: 'blueprint no longer exists', message: error.message, name });
    case 'session_requires_secrets':
      return new HttpError(409, { ...withId, error: 'session_requires_secrets', required, session_id: sessionId });
  }
}

/** `error_class` of the audit pair for a session execute answered with an HTTP error. */
function errorClassOf(error: SessionError): string {
  if (error.code === 'blueprint_gone') return 'blueprint_not_found';
  return error.code;
}

function rawHeadersOf(c: Context<AppEnv>): readonly string[] {
  const incoming = c.env?.incoming;
  if (incoming?.rawHeaders) return incoming.rawHeaders;
  // Without the Node request (in-process tests) fall back to the joined header.
  const value = c.req.header('idempotency-key');
  return value === undefined ? [] : ['Idempotency-Key', value];
}

async function executeInSession(c: Context<AppEnv>, sessionId: string, code: string, deps: SessionRouteDependencies): Promise<Response> {
  const actor = c.get('principal');
  const principal = actor.name;
  const executionId = deps.newId();
  c.header('mcp-session-id', sessionId);
  const refuse = (errorClass: string, blueprintName: string, blueprintHash?: string) =>
    deps.executor.refuse({ entryPoint: 'session', principal, sessionId, blueprintName, blueprintHash, code, errorClass, executionId });

  // Order: the key, then the session checks, then the ledger.
  let key: string | null;
  try {
    key = idempotencyKeyFrom(rawHeadersOf(c));
  } catch (error) {
    if (!(error instanceof IdempotencyError)) throw error;
    refuse(error.code, deps.sessions.get(sessionId, actor)?.blueprintName ?? '');
    throw idempotencyRefusal(error, executionId, sessionId);
  }

  let prepared: { session: SessionView; blueprint: Blueprint };
  try {
    prepared = deps.sessions.prepareRun(sessionId, actor);
  } catch (error) {
    if (!(error instanceof SessionError)) throw error;
    refuse(errorClassOf(error), error.details.name ?? deps.sessions.get(sessionId, actor)?.blueprintName ?? '');
    throw sessionRefusal(error, executionId);
  }

  let reservation: Reservation | null = null;
  if (key !== null) {
    try {
      if (!deps.ledger) throw new IdempotencyError('idempotency_unavailable', 'this server has no idempotency ledger; send the request without Idempotency-Key');
      const decision = await deps.ledger.begin(sessionId, key, codeFingerprint(code));
      // A replay runs nothing and writes no audit records; the request still counted as activity.
      if (decision.kind === 'replay') {
        metrics.idempotencyReplays.inc();
        // The stored answer, byte for byte; the header tells a replay from a run.
        c.header(IDEMPOTENT_REPLAYED, 'true');
        if (decision.status === 202) return replayedStart(c, decision.body);
        return jsonBytes(c, decision.status, decision.body);
      }
      reservation = decision.reservation;
    } catch (error) {
      if (!(error instanceof IdempotencyError)) throw error;
      refuse(error.code, prepared.blueprint.name, prepared.blueprint.hash);
      throw idempotencyRefusal(error, executionId, sessionId);
    }
  }

  if (prefersAsync(c.req.header('prefer'))) {
    // Recorded at once: a retry with the key answers this 202 (same execution_id) without
    // waiting for the run, whose outcome is in its record.
    const started: RunStarted = { execution_id: executionId, session_id: sessionId, state: 'queued' };
    const running = runGuarded(c, deps, prepared, code, executionId, null);
    reservation?.complete(202, Buffer.from(JSON.stringify(started), 'utf8'));
    void running.then((report) => report.lastRun && deps.sessions.recordLastRun(sessionId, report.lastRun), () => {});
    return runStartedAnswer(c, started);
  }

  const report = await runGuarded(c, deps, prepared, code, executionId, reservation);
  const body = Buffer.from(JSON.stringify(report.response), 'utf8');
  if (reservation) resolveReservation(reservation, report.lost ? 'lost' : (report.response.error?.kind ?? null), body);
  if (report.lastRun) deps.sessions.recordLastRun(sessionId, report.lastRun);
  return jsonBytes(c, 200, body);
}

/** Runs the program; a handler failure abandons the reservation so waiters are not stuck. */
async function runGuarded(
  c: Context<AppEnv>,
  deps: SessionRouteDependencies,
  prepared: { session: SessionView; blueprint: Blueprint },
  code: string,
  executionId: string,
  reservation: Reservation | null,
): Promise<ExecutionReport> {
  const { session, blueprint } = prepared;
  const runEnded = deps.sessions.runStarted(session.id);
  try {
    return await deps.executor.execute({
      entryPoint: 'session',
      principal: c.get('principal').name,
      sessionId: session.id,
      blueprint,
      variables: { ...session.variables },
      cwd: session.fileArea.cwd,
      code,
      fileArea: session.fileArea,
      harnessSecrets: session.secrets,
      executionId,
    });
  } catch (error) {
    reservation?.abandon();
    throw error;
  } finally {
    runEnded();
  }
}

/**
 * Before dispatch nothing is recorded, nor is an answer the program did not produce (`lost`:
 * its runner was lost to another run's crash), so a retry with the key runs again; a run
 * the server cancelled (shutdown) has unknown effects, so it stays reserved and later
 * retries see `idempotency_incomplete`.
 */
function resolveReservation(reservation: Reservation, errorKind: ExecuteErrorKind | 'lost' | null, body: Buffer): void {
  if (errorKind === 'lost' || (errorKind !== null && NOT_DISPATCHED.has(errorKind))) reservation.release();
  else if (errorKind === 'cancelled') reservation.abandon();
  else reservation.complete(200, body);
}

function idempotencyRefusal(error: IdempotencyError, executionId: string, sessionId: string): HttpError {
  return new HttpError(error.status, { execution_id: executionId, error: error.code, session_id: sessionId, detail: error.message });
}

/** A replayed asynchronous start: its 202 body byte for byte, and where to follow the run. */
function replayedStart(c: Context<AppEnv>, body: Buffer): Response {
  const { execution_id: executionId } = JSON.parse(body.toString('utf8')) as RunStarted;
  c.header('Location', `/v1/runs/${executionId}`);
  c.header('Preference-Applied', 'respond-async');
  return jsonBytes(c, 202, body);
}

function jsonBytes(c: Context<AppEnv>, status: number, body: Buffer): Response {
  return c.body(new Uint8Array(body), status as ContentfulStatusCode, { 'content-type': 'application/json' });
}
