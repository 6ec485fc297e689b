// Typed audit records, one shape per `type`/`event` pair. Capabilities hand the writer one
// of these; the writer adds the header, `event_id` and `schema`, sorts, flattens and writes it.
// Also the two redaction helpers the record producers share.
import type { RunOutcomeKind } from '../../sandbox/contract';
import { compareByteOrder } from './logfmt';

/** Token name on the request, or `unauthenticated` in that mode. */
export type PrincipalName = string;

export interface VariableEntry {
  name: string;
  value: string;
}

/** Where a decision came from; the policy module decides with this one list (`human`: an answered `ask-human` approval). */
export type DecisionSource = 'policy' | 'invariant' | 'read_only' | 'egress_guard' | 'quota' | 'human';

export interface DecisionRecord {
  type: 'decision';
  execution_id?: string;
  session_id?: string;
  blueprint: string;
  blueprint_hash: string;
  principal: PrincipalName;
  caller: string;
  capability: string;
  context?: Record<string, unknown>;
  contexts?: Array<Record<string, unknown>>;
  count?: number;
  summary_overflow?: boolean;
  decision: 'allow' | 'deny';
  source: DecisionSource;
  rule?: number | 'default';
  rule_name?: string;
  reason?: string;
  /** Denials, for the operator: the rule (policy) or server setting (egress_guard) that would allow it; a person's approval: `approval <id>`. */
  allowed_by?: string;
  /** Source `human`: the approval that decided. */
  approval_id?: string;
  /** Source `human`, allowed: the token name that approved. */
  approved_by?: string;
  /** Source `human`, denied: whether a person denied it or the approval expired. */
  approval_state?: 'denied' | 'expired';
}

/** An `ask-human` approval created, answered, or expired (src/approvals). */
export interface ApprovalAuditRecord {
  type: 'approval';
  event: 'created' | 'approved' | 'denied' | 'expired';
  approval_id: string;
  execution_id: string;
  session_id: string;
  blueprint: string;
  /** The token the run belongs to. */
  principal: PrincipalName;
  caller: string;
  capability: string;
  context?: Record<string, unknown>;
  expires_at: string;
  /** Answered: the token name that answered (REST/CLI), or the MCP session's token (elicitation). */
  decided_by?: string;
  /** Answered over REST/CLI or MCP elicitation. */
  via?: 'rest' | 'mcp';
  scope?: 'call' | 'run';
  reason?: string;
}


export interface ExecutionRecord {
  type: 'execution';
  event: 'started' | 'finished';
  execution_id: string;
  entry_point: 'http' | 'session' | 'mcp';
  session_id?: string;
  principal: PrincipalName;
  blueprint: string;
  blueprint_hash?: string;
  vars: VariableEntry[];
  source_hash: string;
  source_size: number;
  /** How the run ended (the sandbox owns this vocabulary). */
  outcome?: RunOutcomeKind;
  error_class?: string;
  fuel?: number;
  wasm_fuel?: number;
  host_fuel?: number;
  memory_peak?: number;
  model_tokens?: number;
  embedding_tokens?: number;
  wall_ms?: number;
}

export interface SessionAuditRecord {
  type: 'session';
  event: 'created' | 'rebound' | 'deleted' | 'evicted' | 'expired' | 'found' | 'lost';
  session_id: string;
  principal: PrincipalName;
  blueprint?: string;
  vars?: VariableEntry[];
  old_vars?: VariableEntry[];
  file_area_mode?: string;
  reason?: string;
}

export interface AdminRecord {
  type: 'admin';
  event: string;
  principal: PrincipalName;
  route: string;
  status: number;
  outcome: 'ok' | 'error' | 'cancelled';
  [field: string]: unknown;
}

export interface AuthRecord {
  type: 'auth';
  event: 'refused';
  reason: 'missing_token' | 'unknown_token' | 'admin_required';
  route: string;
  remote_address: string;
  /** A summary: this many further refusals of this reason from this address in the window (the last one's route and address shown). */
  count?: number;
}

export type ServerRecord =
  | { type: 'server'; event: 'started'; version: string; settings_hash: string; allow_unauthenticated: boolean; egress_grants?: string[] }
  | { type: 'server'; event: 'stopped' };

export type AuditRecord = DecisionRecord | ExecutionRecord | SessionAuditRecord | AdminRecord | AuthRecord | ServerRecord | ApprovalAuditRecord;

const SECRET_LOOKING = ['secret', 'token', 'password', 'credential', 'authorization', 'api_key'];
const MAX_VARIABLES = 128;

/** Bound variables for audit records: sorted by name, at most 128, secret-looking values redacted. */
export function auditVariables(vars: Record<string, string>): VariableEntry[] {
  return Object.keys(vars)
    .sort(compareByteOrder)
    .slice(0, MAX_VARIABLES)
    .map((name) => {
      const lower = name.toLowerCase();
      return { name, value: SECRET_LOOKING.some((word) => lower.includes(word)) ? '[redacted]' : String(vars[name]) };
    });
}

const MAX_CONTEXT_TEXT = 512;
/** A longer URL is not parsed (it counts as unparseable): the work stays small whatever the guest sends. */
const MAX_PARSED_URL = 8192;

/**
 * Quick-search context text: a URL loses user, password, query
 * and fragment (unparseable or over 8,192 characters: `[redacted]`); other text is cut at
 * its first `?` or `#`; then at most 512 code points.
 */
export function sanitizeContextText(value: string): string {
  let text: string;
  if (value.includes('://')) {
    if (value.length > MAX_PARSED_URL) return '[redacted]';
    try {
      const url = new URL(value);
      url.username = '';
      url.password = '';
      url.search = '';
      url.hash = '';
      text = url.toString();
    } catch {
      text = '[redacted]';
    }
  } else {
    const cut = value.search(/[?#]/);
    text = cut === -1 ? value : value.slice(0, cut);
  }
  if (text.length <= MAX_CONTEXT_TEXT) return text;
  // 512 code points fit in 1,024 UTF-16 units: only that much is split into code points.
  const points = Array.from(text.slice(0, MAX_CONTEXT_TEXT * 2));
  return points.length > MAX_CONTEXT_TEXT ? points.slice(0, MAX_CONTEXT_TEXT).join('') : text.slice(0, MAX_CONTEXT_TEXT * 2);
}
