// An approval: one `ask-human` host call put to a person, with its state and answer. The
// JSON shape is the API's (GET /v1/approvals, server-operations reference 4.9).

export const APPROVAL_STATES = ['pending', 'approved', 'denied', 'expired'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

export const APPROVAL_SCOPES = ['call', 'run'] as const;
/** `run`: later calls of the same capability and context in the same run pass without asking. */
export type ApprovalScope = (typeof APPROVAL_SCOPES)[number];

/** The most characters a person's reason may have. */
export const MAX_REASON_CHARS = 1000;

export interface Approval {
  approval_id: string;
  execution_id: string;
  session_id: string;
  blueprint: string;
  /** The token the run belongs to. */
  token_name: string;
  caller: string;
  capability: string;
  /** The call's filter context (as the policy saw it). */
  context: Record<string, unknown>;
  /** The program line of the call, when known (null: the runtime does not report it). */
  line: number | null;
  state: ApprovalState;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  /** Token name of whoever answered (null while pending or when it expired). */
  decided_by: string | null;
  reason: string | null;
  scope: ApprovalScope;
}

/** An answer to a pending approval. */
export interface ApprovalDecision {
  decision: 'approve' | 'deny';
  reason?: string;
  scope?: ApprovalScope;
}

/** What an approval is created from: the run and the call, and how long it waits for an answer (the Blueprint's approval_timeout). */
export type ApprovalRequest = Pick<Approval, 'execution_id' | 'session_id' | 'blueprint' | 'token_name' | 'caller' | 'capability' | 'context'> & { timeoutSecs: number };

/** Which approvals a listing shows. */
export interface ApprovalFilter {
  state?: ApprovalState;
  blueprint?: string;
  session_id?: string;
  execution_id?: string;
  limit?: number;
}
