// Public API of approvals: `ask-human` calls parked until a person answers (REST, CLI, MCP
// elicitation) or the approval expires; stored in SQLite so they survive a restart.
export { APPROVAL_STATES, APPROVAL_SCOPES, MAX_REASON_CHARS, type Approval, type ApprovalState, type ApprovalScope, type ApprovalDecision, type ApprovalFilter, type ApprovalRequest } from './approval';
export { Approvals, type ApprovalsOptions, type DecideOutcome, type Answerer } from './service';
export { RunApprovals, type Elicit, type Elicitation, type RunFacts } from './run-asker';
export { APPROVAL_RETENTION_MS, MAX_LISTED } from './store';
