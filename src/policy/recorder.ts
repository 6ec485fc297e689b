// Decision records of one run and the gate every gated
// operation calls: denials are written at once, one by one, until the same refusal
// (caller, capability, source, rule) has been written DENIALS_WRITTEN_EACH times in the
// run or the run's refusals written so far reach SINGLE_RECORD_BYTES_EACH_RUN; further
// ones are counted and written as one record per kind when the run finishes (kinds past
// SUMMARY_LIMITS.groups are counted together per caller and source). Allows
// per `logging.audit.allows`: `all` one each, `none` nothing, `summary` grouped per
// (caller, capability, rule) and written in first-seen order when the run finishes.
// Every record is bounded: long context values are cut with a marker and their size.
import { auditRecordFits, sanitizeContextText, type AuditWriter, type DecisionRecord, type DecisionSource } from '../audit';
import { decide, invariantRefusal, type Decision } from './decide';
import { metrics } from '../metrics';
import { AUDIT_REASONS, PermissionDeniedError } from './errors';
import { allowingRule } from './hints';
import type { PermissionPolicy } from './rules';

export type AllowsMode = 'summary' | 'all' | 'none';

/** Who is deciding for whom: fixed for one run (or one MCP file-tool call outside a run). */
export interface DecisionScope {
  execution_id?: string;
  session_id?: string;
  blueprint: string;
  blueprint_hash: string;
  principal: string;
  cwd: string;
  variables: Readonly<Record<string, string>>;
  policy: PermissionPolicy;
}

/** Sources other modules record after a policy allow, plus late invariant refusals. */
export type FurtherSource = Exclude<DecisionSource, 'policy' | 'human'>;

/** An `ask-human` call as put to a person (src/approvals answers it). */
export interface HumanQuestion {
  caller: string;
  capability: string;
  /** The normalised context the policy saw. */
  context: Record<string, unknown>;
}

/** A person's answer (or the approval's expiry). */
export type HumanAnswer =
  | { approved: true; approvalId: string; approvedBy: string }
  | { approved: false; approvalId: string; state: 'denied' | 'expired'; /** Program-facing, carries the person's reason. */ reason: string };

/** Who answers a run's `ask-human` decisions; without one they count as denials (nobody can be asked). */
export type HumanAsker = (question: HumanQuestion) => Promise<HumanAnswer>;

/** Context fields copied next to payload_json when their value is a string, number or boolean. */
export const QUICK_SEARCH_FIELDS: readonly string[] = [
  'host', 'path', 'url_path', 'vfs_path', 'from', 'to', 'method', 'tool', 'tool_name', 'name', 'secret', 'model', 'key', 'prefix',
  'body_size', 'timeout_ms', 'max_bytes', 'overwrite', 'decompress', 'prompt_count', 'op', 'length', 'recursive', 'remote', 'remoteName', 'branch', 'transport',
];
export const SUMMARY_LIMITS = { groups: 1024, contextsPerGroup: 10, retainedContextBytes: 1024 * 1024 } as const;

/** Identical refusals in one run written one by one before the rest are counted into one record. */
export const DENIALS_WRITTEN_EACH = 5;
/** Refusals written one by one in a run stop once their contexts reach this many characters, and so do allows past the summary limits; the rest are counted. */
export const SINGLE_RECORD_BYTES_EACH_RUN = 1024 * 1024;

/** A context text value longer than this is cut in `payload_json`, with a marker giving its size. */
export const AUDIT_VALUE_CHARS = 1024;
/** A `payload_json` longer than this (after cutting values) is replaced by a note of its size. */
export const AUDIT_PAYLOAD_CHARS = 64 * 1024;

function boundedValue(_key: string, value: unknown): unknown {
  if (typeof value === 'string' && value.length > AUDIT_VALUE_CHARS) return `${value.slice(0, AUDIT_VALUE_CHARS)}…[truncated: ${Buffer.byteLength(value, 'utf8')} bytes]`;
  return value;
}

/** The context as one JSON text, bounded; a context JSON cannot represent still gets a record. */
function payloadJson(context: Record<string, unknown>): string {
  let text: string;
  try {
    text = JSON.stringify(context, boundedValue) ?? '{}';
  } catch {
    return '"[context not representable as JSON]"';
  }
  if (text.length <= AUDIT_PAYLOAD_CHARS) return text;
  return JSON.stringify(`[context of ${Buffer.byteLength(text, 'utf8')} bytes not kept: payload_json keeps at most ${AUDIT_PAYLOAD_CHARS} characters]`);
}

function auditContextWith(payload: string, context: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { payload_json: payload };
  for (const field of QUICK_SEARCH_FIELDS) {
    if (!Object.prototype.hasOwnProperty.call(context, field)) continue;
    const value = context[field];
    if (typeof value === 'string') out[field] = sanitizeContextText(value);
    else if (typeof value === 'number' || typeof value === 'boolean') out[field] = value;
  }
  return out;
}

/** `payload_json` (unchanged) plus the quick-search fields (scalars only, text sanitised). */
export function auditContext(context: Record<string, unknown>): Record<string, unknown> {
  return auditContextWith(payloadJson(context), context);
}

type RecordIdentity = Pick<DecisionScope, 'execution_id' | 'session_id' | 'blueprint' | 'blueprint_hash' | 'principal'>;

function recordBase(scope: RecordIdentity, caller: string, capability: string) {
  return {
    type: 'decision' as const,
    ...(scope.execution_id !== undefined ? { execution_id: scope.execution_id } : {}),
    ...(scope.session_id !== undefined ? { session_id: scope.session_id } : {}),
    blueprint: scope.blueprint,
    blueprint_hash: scope.blueprint_hash,
    principal: scope.principal,
    caller,
    capability,
  };
}

/** An egress refusal with no operation behind it (e.g. MCP discovery): caller `server`, capability `network.egress`. */
export function serverEgressDecision(scope: RecordIdentity, context: Record<string, unknown>): DecisionRecord {
  return { ...recordBase(scope, 'server', 'network.egress'), context: auditContext(context), decision: 'deny', source: 'egress_guard', reason: AUDIT_REASONS.egress_guard };
}

function ruleFields(decision: Decision): { rule?: number | 'default'; rule_name?: string } {
  return { ...(decision.rule !== undefined ? { rule: decision.rule } : {}), ...(decision.ruleName !== undefined ? { rule_name: decision.ruleName } : {}) };
}

function denialReason(source: DecisionSource, decision?: Decision): string {
  if (source !== 'policy') return AUDIT_REASONS[source];
  return decision?.action === 'ask-human' ? AUDIT_REASONS.askHuman : AUDIT_REASONS.policy;
}

interface AllowGroup {
  caller: string;
  capability: string;
  decision: Decision;
  count: number;
  contexts: Array<Record<string, unknown>>;
  seen: Set<string>;
  overflow: boolean;
  /** Allows of many capabilities and rules counted together (no rule fields). */
  mixed?: boolean;
}

/** Refusals of one kind in a run past the first DENIALS_WRITTEN_EACH: counted, a few contexts kept. */
interface DenialGroup {
  caller: string;
  capability: string;
  source: DecisionSource;
  decision?: Decision;
  /** Refusals seen in the run, the ones written one by one included. */
  seen: number;
  /** Of those, written one by one when they happened. */
  written: number;
  contexts: Array<Record<string, unknown>>;
  payloads: Set<string>;
  overflow: boolean;
}

export class RunDecisions {
  private readonly groups = new Map<string, AllowGroup>();
  private readonly denials = new Map<string, DenialGroup>();
  private retainedBytes = 0;
  private deniedBytes = 0;
  private overflowAllowBytes = 0;

  constructor(
    private readonly scope: DecisionScope,
    private readonly audit: AuditWriter,
    private readonly allows: AllowsMode,
  ) {}

  /**
   * Decides a gated operation and records it. Returns the allow (with the normalised
   * context); on a denial writes the record and throws the PermissionDeniedError the
   * program sees.
   */
  gate(caller: string | undefined, capability: string, context: Record<string, unknown>, options: { skipMainInvariant?: boolean } = {}): Decision {
    const decision = decide({ ...this.inputs(caller, capability, context), skipMainInvariant: options.skipMainInvariant });
    return this.settle(caller, capability, decision);
  }

  /**
   * As gate, but an `ask-human` decision waits for `ask` (a person, src/approvals): approved,
   * the call goes on as allowed (its record has source `human` and names the approval);
   * denied or expired, the program gets a PermissionDeniedError with source `human`.
   */
  async gateAsking(caller: string | undefined, capability: string, context: Record<string, unknown>, options: { skipMainInvariant?: boolean; ask?: HumanAsker } = {}): Promise<Decision> {
    const decision = decide({ ...this.inputs(caller, capability, context), skipMainInvariant: options.skipMainInvariant });
    if (decision.action !== 'ask-human' || decision.source !== 'policy' || !options.ask || !caller) return this.settle(caller, capability, decision);
    const answer = await options.ask({ caller, capability, context: decision.context });
    return this.settleHuman(caller, capability, decision, answer);
  }

  /** `svc:security.check()`: as gate, without the main-only invariant. */
  check(caller: string | undefined, capability: string, context: Record<string, unknown>): Decision {
    return this.gate(caller, capability, context, { skipMainInvariant: true });
  }

  /**
   * A per-item check of a filtered listing: no record, and a policy denial just
   * leaves the item out (false). An invariant refusal is never swallowed: recorded and thrown.
   */
  probe(caller: string | undefined, capability: string, context: Record<string, unknown>): boolean {
    const decision = decide(this.inputs(caller, capability, context));
    if (decision.source === 'invariant') this.settle(caller, capability, decision);
    return decision.decision === 'allow';
  }

  /** An invariant refusal found outside decide (e.g. program code speaking for a package in check()). */
  refuseInvariant(caller: string | undefined, capability: string, context: Record<string, unknown>, reason: string): never {
    this.settle(caller, capability, invariantRefusal(context, reason));
    throw new Error('unreachable: settle throws on a denial');
  }

  /** A further refusal after an allow: read_only, quota or egress_guard (fixed reason texts). The caller throws its own error. */
  record(caller: string, capability: string, context: Record<string, unknown>, outcome: { decision: 'deny'; source: FurtherSource }): void {
    this.writeDenial(caller, capability, context, outcome.source);
  }

  /** Writes the summary groups, then the counted refusals, in first-seen order (run end, whatever its outcome). Safe to call twice. */
  flush(): void {
    for (const group of this.groups.values()) this.audit.write(this.groupRecord(group));
    for (const group of this.denials.values()) if (group.seen > group.written) this.audit.write(this.denialGroupRecord(group));
    this.groups.clear();
    this.denials.clear();
    this.retainedBytes = 0;
    this.deniedBytes = 0;
    this.overflowAllowBytes = 0;
  }

  private inputs(caller: string | undefined, capability: string, context: Record<string, unknown>) {
    const { policy, cwd, variables } = this.scope;
    return { policy, caller, capability, context, cwd, variables };
  }

  private settle(caller: string | undefined, capability: string, decision: Decision): Decision {
    const who = caller || 'unknown';
    if (decision.decision === 'allow') {
      this.recordAllow(who, capability, decision);
      return decision;
    }
    this.writeDenial(who, capability, decision.context, decision.source, decision);
    throw new PermissionDeniedError(who, capability, decision.reason ?? AUDIT_REASONS.policy, decision.source === 'invariant' ? 'invariant' : 'policy');
  }

  /** A person's answer to an `ask-human` decision: written at once, one record each (never summarised). */
  private settleHuman(caller: string, capability: string, decision: Decision, answer: HumanAnswer): Decision {
    const base = { ...recordBase(this.scope, caller, capability), context: auditContext(decision.context), ...ruleFields(decision), approval_id: answer.approvalId };
    if (answer.approved) {
      metrics.decisions.inc({ source: 'human', decision: 'allow' });
      this.audit.write({ ...base, decision: 'allow', source: 'human', approved_by: answer.approvedBy, allowed_by: `approval ${answer.approvalId}` });
      return { ...decision, decision: 'allow', source: 'human', reason: undefined };
    }
    metrics.decisions.inc({ source: 'human', decision: 'deny' });
    this.audit.write({ ...base, decision: 'deny', source: 'human', reason: AUDIT_REASONS.human, approval_state: answer.state });
    throw new PermissionDeniedError(caller, capability, answer.reason, 'human');
  }

  private writeDenial(caller: string, capability: string, context: Record<string, unknown>, source: DecisionSource, decision?: Decision): void {
    metrics.decisions.inc({ source, decision: 'deny' });
    if (!this.countDenial(caller, capability, context, source, decision)) return;
    this.audit.write({
      ...recordBase(this.scope, caller, capability),
      context: auditContext(context),
      decision: 'deny',
      source,
      ...(decision && source === 'policy' ? ruleFields(decision) : {}),
      reason: denialReason(source, decision),
      // The operator's view only (never in the program's message).
      ...(source === 'policy' ? { allowed_by: allowingRule(caller, capability, context) } : {}),
    });
  }

  /**
   * True when this refusal is written now: the first DENIALS_WRITTEN_EACH of a kind while
   * the run has written less than SINGLE_RECORD_BYTES_EACH_RUN of refusals. Later ones are
   * counted (a few distinct contexts kept) for the record written at the run's end; kinds
   * past SUMMARY_LIMITS.groups are counted together per caller and source (capability '*'),
   * so neither distinct names nor large contexts can flood the audit.
   */
  private countDenial(caller: string, capability: string, context: Record<string, unknown>, source: DecisionSource, decision?: Decision): boolean {
    const rule = decision && source === 'policy' ? String(decision.rule) : '';
    let key = `${caller}\u0000${capability}\u0000${source}\u0000${rule}`;
    if (!this.denials.has(key) && this.denials.size >= SUMMARY_LIMITS.groups) key = `${caller}\u0000*\u0000${source}\u0000overflow`;
    let group = this.denials.get(key);
    if (!group) {
      const overflowKind = key.endsWith('\u0000overflow');
      group = overflowKind
        ? { caller, capability: '*', source, seen: 0, written: 0, contexts: [], payloads: new Set(), overflow: true }
        : { caller, capability, source, decision, seen: 0, written: 0, contexts: [], payloads: new Set(), overflow: false };
      this.denials.set(key, group);
    }
    group.seen++;
    if (group.written < DENIALS_WRITTEN_EACH && this.deniedBytes < SINGLE_RECORD_BYTES_EACH_RUN) {
      group.written++;
      this.deniedBytes += capability.length + payloadJson(context).length;
      return true;
    }
    if (group.overflow) return false;
    const payload = payloadJson(context);
    if (group.payloads.has(payload)) return false;
    const bytes = Buffer.byteLength(payload, 'utf8');
    if (group.contexts.length >= SUMMARY_LIMITS.contextsPerGroup || this.retainedBytes + bytes > SUMMARY_LIMITS.retainedContextBytes) {
      group.overflow = true;
      return false;
    }
    this.retainedBytes += bytes;
    group.payloads.add(payload);
    group.contexts.push(auditContextWith(payload, context));
    return false;
  }

  private denialGroupRecord(group: DenialGroup): DecisionRecord {
    return this.fitted({
      ...recordBase(this.scope, group.caller, group.capability),
      decision: 'deny',
      source: group.source,
      ...(group.decision && group.source === 'policy' ? ruleFields(group.decision) : {}),
      reason: denialReason(group.source, group.decision),
      count: group.seen - group.written,
      contexts: group.contexts,
      ...(group.overflow ? { summary_overflow: true } : {}),
    });
  }

  private writeAllow(caller: string, capability: string, decision: Decision, overflow: boolean, payload?: string): void {
    const context = payload === undefined ? auditContext(decision.context) : auditContextWith(payload, decision.context);
    this.audit.write({
      ...recordBase(this.scope, caller, capability),
      context,
      decision: 'allow',
      source: 'policy',
      ...ruleFields(decision),
      ...(overflow ? { summary_overflow: true } : {}),
    });
  }

  private recordAllow(caller: string, capability: string, decision: Decision): void {
    metrics.decisions.inc({ source: 'policy', decision: 'allow' });
    if (this.allows === 'none') return;
    if (this.allows === 'all') return this.writeAllow(caller, capability, decision, false);
    const key = `${caller}\u0000${capability}\u0000${String(decision.rule)}`;
    const group = this.groups.get(key);
    if (group) this.addToGroup(group, decision);
    else this.openGroup(key, caller, capability, decision);
  }

  private openGroup(key: string, caller: string, capability: string, decision: Decision): void {
    const payload = payloadJson(decision.context);
    const bytes = Buffer.byteLength(payload, 'utf8');
    if (this.groups.size >= SUMMARY_LIMITS.groups || this.retainedBytes + bytes > SUMMARY_LIMITS.retainedContextBytes) {
      // Beyond a limit the operation is not lost: it is written on its own, flagged, until
      // the run wrote SINGLE_RECORD_BYTES_EACH_RUN of such records; then it is counted
      // per caller under capability '*' (distinct check names cannot flood the audit).
      if (this.overflowAllowBytes < SINGLE_RECORD_BYTES_EACH_RUN) {
        this.overflowAllowBytes += capability.length + payload.length;
        return this.writeAllow(caller, capability, decision, true, payload);
      }
      const overflowKey = `${caller}\u0000*\u0000overflow`;
      const counted = this.groups.get(overflowKey);
      if (counted) counted.count++;
      else this.groups.set(overflowKey, { caller, capability: '*', decision, count: 1, contexts: [], seen: new Set(), overflow: true, mixed: true });
      return;
    }
    this.retainedBytes += bytes;
    this.groups.set(key, { caller, capability, decision, count: 1, contexts: [auditContextWith(payload, decision.context)], seen: new Set([payload]), overflow: false });
  }

  private addToGroup(group: AllowGroup, decision: Decision): void {
    group.count++;
    // Once a group has overflowed, further distinct contexts change nothing: skip the JSON work.
    if (group.overflow) return;
    const payload = payloadJson(decision.context);
    if (group.seen.has(payload)) return;
    const bytes = Buffer.byteLength(payload, 'utf8');
    if (group.contexts.length >= SUMMARY_LIMITS.contextsPerGroup || this.retainedBytes + bytes > SUMMARY_LIMITS.retainedContextBytes) {
      group.overflow = true;
      return;
    }
    this.retainedBytes += bytes;
    group.seen.add(payload);
    group.contexts.push(auditContextWith(payload, decision.context));
  }

  private groupRecord(group: AllowGroup): DecisionRecord {
    return this.fitted({
      ...recordBase(this.scope, group.caller, group.capability),
      decision: 'allow',
      source: 'policy',
      ...(group.mixed ? {} : ruleFields(group.decision)),
      count: group.count,
      contexts: group.contexts,
      ...(group.overflow ? { summary_overflow: true } : {}),
    });
  }

  /** A group record with contexts dropped from the end until it encodes within 1 MiB. */
  private fitted(record: DecisionRecord): DecisionRecord {
    while (!auditRecordFits(record) && record.contexts!.length > 0) {
      record = { ...record, contexts: record.contexts!.slice(0, -1), summary_overflow: true };
    }
    if (record.contexts!.length === 0) delete record.contexts;
    return record;
  }
}
