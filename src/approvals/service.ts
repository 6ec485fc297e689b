// The approvals of the server: created when a run's host call meets `ask-human`, answered
// over REST/CLI or an MCP elicitation (first answer wins), or expired by their timer. Each
// step writes an `approval` audit record. A waiting call holds a promise here and nothing
// else: its run is parked (no CPU slot, time limit stopped) until the answer.
import { randomUUID } from 'node:crypto';
import type { ApprovalAuditRecord, AuditWriter } from '../audit';
import { auditContext } from '../policy';
import type { Database } from '../store';
import { MAX_REASON_CHARS, type Approval, type ApprovalDecision, type ApprovalFilter, type ApprovalRequest, type ApprovalScope } from './approval';
import { APPROVAL_RETENTION_MS, ApprovalStore } from './store';

/** The longest a Node timer waits; a later expiry is reached in steps. */
const MAX_TIMER_MS = 2_147_483_647;
const SWEEP_EVERY_MS = 3_600_000;

export interface ApprovalsOptions {
  db: Database;
  audit: AuditWriter;
  /** The server's cancellation: a run ended by the shutdown leaves its approval pending (it survives the restart). */
  shutdown: AbortSignal;
  /**
   * A run has a call waiting for a person (true) or no longer (false). Boot wires it to the
   * run records (`waiting_for_approval`).
   */
  onWaiting?: (executionId: string, waiting: boolean) => void;
  /**
   * An approval answered or expired while no run of this process waits on it (it was pending
   * across a restart, or its call was given up). Hook for resuming a run parked before the
   * restart from its journal; without it the answer is only recorded.
   */
  onAnsweredWithoutRun?: (approval: Approval) => void;
  now?: () => number;
}

export type DecideOutcome = { ok: true; approval: Approval } | { ok: false; error: 'unknown_approval' } | { ok: false; error: 'approval_decided'; state: Approval['state'] };

/** Who answered and how (the audit's `decided_by` and `via`). */
export interface Answerer {
  name: string;
  via: 'rest' | 'mcp';
}

export class Approvals {
  private readonly store: ApprovalStore;
  private readonly now: () => number;
  /** Calls waiting on an approval, by id: settled with the final approval. */
  private readonly waiters = new Map<string, (approval: Approval) => void>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Calls waiting per run (for onWaiting). */
  private readonly waitingRuns = new Map<string, number>();
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly options: ApprovalsOptions) {
    this.store = new ApprovalStore(options.db);
    this.now = options.now ?? Date.now;
  }

  /** Arms the expiry of approvals left pending by an earlier server, and the retention sweep. */
  start(): void {
    for (const row of this.store.pending()) this.armExpiry(row.approval_id, row.expires_at_ms);
    this.store.sweep(this.now() - APPROVAL_RETENTION_MS);
    this.sweeper = setInterval(() => this.store.sweep(this.now() - APPROVAL_RETENTION_MS), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /** A new pending approval and the promise of its final state. */
  create(request: ApprovalRequest): { approval: Approval; settled: Promise<Approval> } {
    const created = this.now();
    const approval = this.store.insert({
      approval_id: randomUUID(),
      execution_id: request.execution_id,
      session_id: request.session_id,
      blueprint: request.blueprint,
      token_name: request.token_name,
      caller: request.caller,
      capability: request.capability,
      context_json: JSON.stringify(request.context),
      created_at_ms: created,
      expires_at_ms: created + request.timeoutSecs * 1000,
    });
    const settled = new Promise<Approval>((resolve) => this.waiters.set(approval.approval_id, resolve));
    this.countWaiting(approval.execution_id, +1);
    this.armExpiry(approval.approval_id, created + request.timeoutSecs * 1000);
    this.record('created', approval);
    return { approval, settled };
  }

  /**
   * A resumed run's call waits again on the approval an earlier server created for it (it
   * was pending across the restart): the same approval and id, with its expiry already armed
   * (start). Null for an unknown id; an approval answered meanwhile settles at once.
   */
  adopt(id: string): { approval: Approval; settled: Promise<Approval> } | null {
    const approval = this.store.get(id);
    if (!approval) return null;
    if (approval.state !== 'pending') return { approval, settled: Promise.resolve(approval) };
    const settled = new Promise<Approval>((resolve) => this.waiters.set(id, resolve));
    this.countWaiting(approval.execution_id, +1);
    return { approval, settled };
  }

  get(id: string): Approval | null {
    return this.store.get(id);
  }

  list(filter: ApprovalFilter): Approval[] {
    return this.store.list(filter);
  }

  /** A person's answer: the first one settles the approval; later ones find it decided. */
  decide(id: string, answer: ApprovalDecision, by: Answerer): DecideOutcome {
    const reason = answer.reason === undefined ? null : answer.reason.slice(0, MAX_REASON_CHARS);
    const scope: ApprovalScope = answer.scope ?? 'call';
    const settled = this.store.settle(id, answer.decision === 'approve' ? 'approved' : 'denied', this.now(), by.name, reason, scope);
    if (!settled) {
      const existing = this.store.get(id);
      return existing ? { ok: false, error: 'approval_decided', state: existing.state } : { ok: false, error: 'unknown_approval' };
    }
    this.finish(settled, by.via);
    return { ok: true, approval: settled };
  }

  /**
   * The call stopped waiting (the program aborted it; its run ended: limit, cancel, client gone). Its approval expires, so
   * nobody approves a call that no longer exists; a run ended by the shutdown leaves it pending.
   */
  abandon(id: string): void {
    const resolve = this.waiters.get(id);
    if (!resolve) return;
    this.waiters.delete(id);
    // Ended by the shutdown: the approval stays pending and its run's record stays waiting (a parked run resumes after the restart).
    if (this.options.shutdown.aborted) return;
    const approval = this.store.get(id);
    if (approval) this.countWaiting(approval.execution_id, -1);
    const expired = this.store.settle(id, 'expired', this.now(), null, 'the call was given up before anyone answered (the program aborted it, or its run ended)', 'call');
    if (expired) this.finish(expired);
  }

  private expire(id: string): void {
    const expired = this.store.settle(id, 'expired', this.now(), null, null, 'call');
    if (expired) this.finish(expired);
  }

  private finish(approval: Approval, via?: Answerer['via']): void {
    const timer = this.timers.get(approval.approval_id);
    if (timer) clearTimeout(timer);
    this.timers.delete(approval.approval_id);
    this.record(approval.state as ApprovalAuditRecord['event'], approval, via);
    const resolve = this.waiters.get(approval.approval_id);
    if (!resolve) {
      this.options.onAnsweredWithoutRun?.(approval);
      return;
    }
    this.waiters.delete(approval.approval_id);
    this.countWaiting(approval.execution_id, -1);
    resolve(approval);
  }

  private armExpiry(id: string, expiresAt: number): void {
    const left = expiresAt - this.now();
    const timer = setTimeout(() => (left > MAX_TIMER_MS ? this.armExpiry(id, expiresAt) : this.expire(id)), Math.max(0, Math.min(left, MAX_TIMER_MS)));
    timer.unref();
    this.timers.set(id, timer);
  }

  private countWaiting(executionId: string, change: 1 | -1): void {
    const before = this.waitingRuns.get(executionId) ?? 0;
    const after = Math.max(0, before + change);
    if (after === 0) this.waitingRuns.delete(executionId);
    else this.waitingRuns.set(executionId, after);
    if ((before === 0) !== (after === 0)) this.options.onWaiting?.(executionId, after > 0);
  }

  private record(event: ApprovalAuditRecord['event'], approval: Approval, via?: Answerer['via']): void {
    this.options.audit.write({
      type: 'approval',
      event,
      approval_id: approval.approval_id,
      execution_id: approval.execution_id,
      session_id: approval.session_id,
      blueprint: approval.blueprint,
      principal: approval.token_name,
      caller: approval.caller,
      capability: approval.capability,
      context: auditContext(approval.context),
      expires_at: approval.expires_at,
      ...(approval.decided_by !== null ? { decided_by: approval.decided_by } : {}),
      ...(via ? { via } : {}),
      ...(event === 'approved' ? { scope: approval.scope } : {}),
      ...(approval.reason !== null ? { reason: approval.reason } : {}),
    });
  }
}
