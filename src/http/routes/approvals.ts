// Approval endpoints (admin): list and read the approvals `ask-human` calls wait on, and
// answer one. The first answer settles it (REST, CLI or an MCP elicitation); a later one gets
// 409 `approval_decided` with the state it found. Answering is audited as an `approval`
// record by src/approvals, and as an `admin` record like every mutating admin route.
import type { Hono } from 'hono';
import { z } from '@hono/zod-openapi';
import { APPROVAL_SCOPES, APPROVAL_STATES, MAX_LISTED, MAX_REASON_CHARS, type ApprovalDecision, type ApprovalState, type Approvals } from '../../approvals';
import type { AuditWriter } from '../../audit';
import { adminAudit, noteAdminAudit } from '../admin-audit';
import { HttpError } from '../errors';
import { defineRoute, json, serve } from '../route';
import { ErrorBody } from '../schemas';
import type { AppEnv } from '../types';
import { bodyOf } from '../validation';

export interface ApprovalRouteDependencies {
  approvals: Approvals;
  audit: AuditWriter;
}

export const ApprovalBody = z
  .strictObject({
    approval_id: z.string(),
    execution_id: z.string(),
    session_id: z.string(),
    blueprint: z.string(),
    token_name: z.string().describe('The token the run belongs to'),
    caller: z.string().describe('`main` or the Package whose code made the call'),
    capability: z.string(),
    context: z.record(z.string(), z.unknown()).describe("The call's filter context, as the policy saw it"),
    line: z.number().int().nullable().describe('Program line of the call, when known'),
    state: z.enum(APPROVAL_STATES),
    created_at: z.string(),
    expires_at: z.string().describe("created_at plus the Blueprint's approval_timeout"),
    decided_at: z.string().nullable(),
    decided_by: z.string().nullable().describe('Token name of whoever answered'),
    reason: z.string().nullable(),
    scope: z.enum(APPROVAL_SCOPES).describe('`run`: later calls of the same capability and context in the run pass without asking'),
  })
  .openapi('Approval');
const ApprovalList = z.strictObject({ approvals: z.array(ApprovalBody) }).openapi('ApprovalList');
const Decided = z.strictObject({ error: z.literal('approval_decided'), state: z.enum(APPROVAL_STATES), message: z.string() }).openapi('ApprovalDecided');

export const decideBody = z
  .strictObject({
    decision: z.enum(['approve', 'deny']),
    reason: z.string().max(MAX_REASON_CHARS).optional().describe(`At most ${MAX_REASON_CHARS} characters; a denial's reason reaches the program`),
    scope: z.enum(APPROVAL_SCOPES).optional().describe('`call` (default) or `run`'),
  })
  .openapi('ApprovalDecisionRequest');

const listQuery = z.object({
  state: z.string().optional().openapi({ param: { description: `One of ${APPROVAL_STATES.join(', ')} (default pending)` } }),
  blueprint: z.string().optional(),
  session_id: z.string().optional(),
  execution_id: z.string().optional(),
  limit: z.string().optional().openapi({ param: { description: `1 to ${MAX_LISTED} (default ${MAX_LISTED})` } }),
});

const unknown = json(ErrorBody, '`unknown_approval`');
export const approvalRoutes = {
  list: defineRoute({ method: 'get', path: '/v1/approvals', role: 'admin', tag: 'approvals', summary: 'Approvals that `ask-human` calls wait on (newest first)', query: listQuery,
    responses: { 200: json(ApprovalList, 'Newest first'), 400: json(ErrorBody, '`invalid_request`: a query parameter names what it accepts') } }),
  get: defineRoute({ method: 'get', path: '/v1/approvals/{approval_id}', role: 'admin', tag: 'approvals', summary: 'One approval', responses: { 200: json(ApprovalBody, 'The approval'), 404: unknown } }),
  decide: defineRoute({ method: 'post', path: '/v1/approvals/{approval_id}', role: 'admin', tag: 'approvals', summary: 'Approve or deny a pending approval', body: decideBody,
    responses: { 200: json(ApprovalBody, 'Settled: the waiting call goes on (approve) or fails with PermissionDeniedError, source `human` (deny)'), 404: unknown, 409: json(Decided, 'Already answered or expired') } }),
};

function listState(raw: string | undefined): ApprovalState {
  if (raw === undefined) return 'pending';
  const state = APPROVAL_STATES.find((s) => s === raw);
  if (!state) throw HttpError.of(400, 'invalid_request', `state: unknown value '${raw}'; expected one of ${APPROVAL_STATES.join(', ')}`);
  return state;
}

function listLimit(raw: string | undefined): number {
  if (raw === undefined) return MAX_LISTED;
  const limit = Number(raw);
  if (!/^[0-9]+$/.test(raw) || limit < 1 || limit > MAX_LISTED) throw HttpError.of(400, 'invalid_request', `limit: '${raw}' is not a whole number from 1 to ${MAX_LISTED}`);
  return limit;
}

export function mountApprovalRoutes(app: Hono<AppEnv>, deps: ApprovalRouteDependencies): void {
  const { approvals, audit } = deps;

  serve(app, approvalRoutes.list, (c) => {
    const q = (name: string) => c.req.query(name);
    const optional = (name: 'blueprint' | 'session_id' | 'execution_id') => (q(name) === undefined ? {} : { [name]: q(name) });
    return c.json({ approvals: approvals.list({ state: listState(q('state')), limit: listLimit(q('limit')), ...optional('blueprint'), ...optional('session_id'), ...optional('execution_id') }) });
  });

  serve(app, approvalRoutes.get, (c) => {
    const id = c.req.param('approval_id') ?? '';
    const approval = approvals.get(id);
    if (!approval) throw HttpError.of(404, 'unknown_approval', `no approval ${id}`);
    return c.json(approval);
  });

  serve(app, approvalRoutes.decide, adminAudit(audit, 'approval_decided'), (c) => {
    const id = c.req.param('approval_id') ?? '';
    const body = bodyOf<ApprovalDecision>(c);
    noteAdminAudit(c, { approval_id: id, decision: body.decision });
    const outcome = approvals.decide(id, body, { name: c.get('principal').name, via: 'rest' });
    if (outcome.ok) return c.json(outcome.approval);
    if (outcome.error === 'unknown_approval') throw HttpError.of(404, 'unknown_approval', `no approval ${id}`);
    throw HttpError.of(409, 'approval_decided', `approval ${id} is already ${outcome.state}`, { state: outcome.state });
  });
}
