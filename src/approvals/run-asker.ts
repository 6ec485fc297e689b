// One run's side of approvals: each `ask-human` call becomes an approval and waits for its
// answer; an approval given with scope `run` lets later calls of the same capability and
// context in the run through without asking. Where the run came through an MCP session whose
// client declared `elicitation`, the person is also asked there; the first answer decides.
import { targetSuffix, type HumanAnswer, type HumanAsker, type HumanQuestion } from '../policy';
import { MAX_REASON_CHARS, type Approval } from './approval';
import type { Approvals } from './service';

/** Asks the MCP client's user (elicitation/create); null when they declined, cancelled or the request failed. */
export type Elicit = (request: { message: string; signal: AbortSignal }) => Promise<{ approve: boolean; reason?: string } | null>;

/** The run an asker serves. */
export interface RunFacts {
  execution_id: string;
  session_id: string;
  blueprint: string;
  token_name: string;
  /** The Blueprint's approval_timeout. */
  timeoutSecs: number;
}

/** The MCP session that started the run, when its client can be asked. */
export interface Elicitation {
  elicit: Elicit;
  /** The token of that session (recorded as the answerer). */
  by: string;
}

function scopeKey(question: HumanQuestion): string {
  return `${question.capability}\u0000${JSON.stringify(question.context)}`;
}

function duration(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400}d`;
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** `http.post to api.example.com/pay`, `fs.write on /notes.txt`: the call as a person reads it. */
function described(question: HumanQuestion): string {
  const { capability, context } = question;
  const target = targetSuffix(capability, context);
  if (target === '' && typeof context.host === 'string') return `${capability} to ${context.host}${typeof context.path === 'string' ? context.path : ''}`;
  return `${capability}${target}`;
}

/** What the program's PermissionDeniedError says, the person's reason included. */
function refusal(question: HumanQuestion, approval: Approval, timeoutSecs: number): string {
  const what = `${described(question)} (caller ${question.caller})`;
  if (approval.state === 'denied') return `a person denied ${what}${approval.reason ? `: ${approval.reason}` : ' (no reason given)'}`;
  return `no one approved ${what} within the approval timeout of ${duration(timeoutSecs)}; the approval ${approval.approval_id} expired`;
}

export class RunApprovals {
  /** Calls approved for the rest of the run (scope `run`), by capability and context. */
  private readonly granted = new Map<string, { approvalId: string; approvedBy: string }>();

  /**
   * The approvals of a run parked before a restart, oldest first: when the resumed run makes
   * a call again, the first one for the same capability and context is its approval once
   * more. An answered one answers it; a pending one is waited on again, its id kept (no new
   * approval is asked for it).
   */
  private readonly earlier: Approval[];

  constructor(
    private readonly approvals: Approvals,
    private readonly run: RunFacts,
    private readonly elicitation?: Elicitation,
    earlier: readonly Approval[] = [],
  ) {
    this.earlier = [...earlier].sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /** The asker for one waiting call; `signal` ends the wait (the call or the run ended). */
  asker(signal: AbortSignal): HumanAsker {
    return (question) => this.ask(question, signal);
  }

  private async ask(question: HumanQuestion, signal: AbortSignal): Promise<HumanAnswer> {
    const key = scopeKey(question);
    const grant = this.granted.get(key);
    if (grant) return { approved: true, ...grant };
    signal.throwIfAborted();
    const index = this.earlier.findIndex((approval) => approval.capability === question.capability && JSON.stringify(approval.context) === JSON.stringify(question.context));
    const earlier = index === -1 ? null : this.earlier.splice(index, 1)[0];
    if (earlier && earlier.state !== 'pending') return this.answer(question, key, earlier);
    const { approval, settled } = (earlier && this.approvals.adopt(earlier.approval_id)) ?? this.approvals.create({ ...this.run, caller: question.caller, capability: question.capability, context: question.context });
    const id = approval.approval_id;
    const stopAsking = new AbortController();
    if (this.elicitation) void this.askOverMcp(approval, question, stopAsking.signal);
    let onAbort: (() => void) | undefined;
    const abandoned = new Promise<never>((_, reject) => {
      onAbort = () => {
        this.approvals.abandon(id);
        reject(signal.reason ?? new Error('the run ended while the call waited for approval'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
    abandoned.catch(() => {});
    try {
      return this.answer(question, key, await Promise.race([settled, abandoned]));
    } finally {
      signal.removeEventListener('abort', onAbort!);
      // Answered elsewhere (or over): the client's question is withdrawn, a late answer ignored.
      stopAsking.abort();
    }
  }

  /** What a final approval means for the call. */
  private answer(question: HumanQuestion, key: string, final: Approval): HumanAnswer {
    const id = final.approval_id;
    if (final.state === 'approved') {
      const by = final.decided_by ?? 'unknown';
      if (final.scope === 'run') this.granted.set(key, { approvalId: id, approvedBy: by });
      return { approved: true, approvalId: id, approvedBy: by };
    }
    return { approved: false, approvalId: id, state: final.state === 'denied' ? 'denied' : 'expired', reason: refusal(question, final, this.run.timeoutSecs) };
  }

  private async askOverMcp(approval: Approval, question: HumanQuestion, signal: AbortSignal): Promise<void> {
    const { elicit, by } = this.elicitation!;
    const what = described(question);
    const message = `The program running in this session (caller ${question.caller}) asks to do ${what}, which its Blueprint "${this.run.blueprint}" lets through only with a person's approval (approval ${approval.approval_id}, expires ${approval.expires_at}). Context: ${JSON.stringify(question.context).slice(0, 2000)}`;
    let answer: { approve: boolean; reason?: string } | null;
    try {
      answer = await elicit({ message, signal });
    } catch {
      return;
    }
    if (!answer || signal.aborted) return;
    const reason = typeof answer.reason === 'string' ? answer.reason.slice(0, MAX_REASON_CHARS) : undefined;
    this.approvals.decide(approval.approval_id, { decision: answer.approve ? 'approve' : 'deny', ...(reason !== undefined ? { reason } : {}) }, { name: by, via: 'mcp' });
  }
}
