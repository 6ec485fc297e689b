// An approval question put to the MCP client that started the run (elicitation/create with
// the schema {approve: boolean, reason?: string}), sent on the tool call's own stream. The
// answer settles the approval unless another side answered first (src/approvals).
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Elicit } from '../approvals';

/** The tool handler's `extra.sendRequest`, narrowed to what is sent here. */
export type ElicitSender = (
  request: { method: 'elicitation/create'; params: Record<string, unknown> },
  schema: typeof ElicitResultSchema,
  options: { signal: AbortSignal; timeout: number },
) => Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }>;

/** The SDK's per-request timeout is set past any approval_timeout (30 days at most; Node timers reach 24.8): the approval's own expiry or answer ends the question. */
const NO_SDK_TIMEOUT_MS = 2_147_483_647;

const REQUESTED_SCHEMA = {
  type: 'object',
  properties: {
    approve: { type: 'boolean', title: 'Approve', description: 'Let this call go through' },
    reason: { type: 'string', title: 'Reason', description: 'Why (a denial\'s reason reaches the program)', maxLength: 1000 },
  },
  required: ['approve'],
} as const;

/** `decline` counts as a denial; `cancel`, a malformed answer or a failed request leave the approval to the other sides. */
export function elicitApproval(send: ElicitSender): Elicit {
  return async ({ message, signal }) => {
    const result = await send({ method: 'elicitation/create', params: { message, requestedSchema: REQUESTED_SCHEMA } }, ElicitResultSchema, { signal, timeout: NO_SDK_TIMEOUT_MS });
    if (result.action === 'decline') return { approve: false, reason: 'declined in the MCP client' };
    if (result.action !== 'accept' || typeof result.content?.approve !== 'boolean') return null;
    return { approve: result.content.approve, ...(typeof result.content.reason === 'string' ? { reason: result.content.reason } : {}) };
  };
}
