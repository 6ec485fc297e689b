// Decision records of one run (server-operations §7.4–7.5): denials are written at once,
// one by one; allows per `logging.audit.allows`: `all` one each, `none` nothing,
// `summary` grouped per (caller, capability, rule) and written when the run finishes.
import { auditRecordFits, sanitizeContextText, type AuditWriter, type DecisionRecord } from '../audit';
import { AUDIT_REASONS, decide, PermissionDeniedError, type Decision, type DecisionSource } from './decide';
import type { PermissionPolicy } from './rules';

export type AllowsMode = 'summary' | 'all' | 'none';

export interface DecisionScope {
  execution_id?: string;
  session_id?: string;
  blueprint: string;
  blueprint_hash: string;
  principal: string;
  cwd: string;
  variables: Record<string, string>;
  policy: PermissionPolicy;
}

const QUICK_FIELDS = [
  'host', 'path', 'url_path', 'vfs_path', 'from', 'to', 'method', 'tool', 'tool_name', 'name', 'secret', 'model', 'key', 'prefix',
  'body_size', 'timeout_ms', 'max_bytes', 'overwrite', 'decompress', 'prompt_count', 'op', 'length', 'recursive', 'remote', 'remoteName', 'branch', 'transport',
];
const MAX_GROUPS = 1024;
const MAX_CONTEXTS_PER_GROUP = 10;
const MAX_RETAINED_CONTEXT_BYTES = 1024 * 1024;

/** `payload_json` plus the quick-search fields (text sanitised, only scalars). */
export function auditContext(context: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { payload_json: JSON.stringify(context) };
  for (const field of QUICK_FIELDS) {
    const value = context[field];
    if (typeof value === 'string') out[field] = sanitizeContextText(value);
    else if (typeof value === 'number' || typeof value === 'boolean') out[field] = value;
  }
  return out;
}

interface Group {
  caller: string;
  capability: string;
  rule?: number | 'default';
  ruleName?: string;
  count: number;
  contexts: Array<Record<string, unknown>>;
  seen: Set<string>;
  overflow: boolean;
}

export class RunDecisions {
  private readonly groups = new Map<string, Group>();
  private retainedBytes = 0;

  constructor(
    private readonly scope: DecisionScope,
    private readonly audit: AuditWriter,
    private readonly allows: AllowsMode,
  ) {}

  /** Asks the policy; records the decision; throws the PermissionDeniedError on a refusal. */
  gate(caller: string, capability: string, context: Record<string, unknown>, options: { skipMainInvariant?: boolean } = {}): Decision {
    const decision = decide({ policy: this.scope.policy, caller, capability, context, cwd: this.scope.cwd, variables: this.scope.variables, skipMainInvariant: options.skipMainInvariant });
    if (decision.decision === 'allow') {
      this.recordAllow(caller, capability, decision);
      return decision;
    }
    this.writeDenial(caller, capability, decision.context, decision.source, decision);
    throw new PermissionDeniedError(caller, capability, decision.reason ?? 'denied', decision.source === 'invariant' ? 'invariant' : 'policy');
  }

  /** A check whose refusal is silent (filtered listings): no record, no throw. */
  probe(caller: string, capability: string, context: Record<string, unknown>): boolean {
    return decide({ policy: this.scope.policy, caller, capability, context, cwd: this.scope.cwd, variables: this.scope.variables }).decision === 'allow';
  }

  /** A further refusal after an allow: read_only, quota or egress_guard. */
  record(caller: string, capability: string, context: Record<string, unknown>, outcome: { decision: 'deny'; source: Exclude<DecisionSource, 'policy'> }): void {
    this.writeDenial(caller, capability, context, outcome.source);
  }

  /** Writes the summary groups (run end). Safe to call more than once. */
  flush(): void {
    for (const group of this.groups.values()) {
      let record: DecisionRecord = {
        ...this.base(group.caller, group.capability),
        decision: 'allow',
        source: 'policy',
        ...(group.rule !== undefined ? { rule: group.rule } : {}),
        ...(group.ruleName !== undefined ? { rule_name: group.ruleName } : {}),
        count: group.count,
        ...(group.contexts.length > 0 ? { contexts: group.contexts } : {}),
        ...(group.overflow ? { summary_overflow: true } : {}),
      };
      while (!auditRecordFits(record) && (record.contexts?.length ?? 0) > 0) {
        record = { ...record, contexts: record.contexts!.slice(0, -1), summary_overflow: true };
      }
      this.audit.write(record);
    }
    this.groups.clear();
  }

  private base(caller: string, capability: string) {
    const s = this.scope;
    return {
      type: 'decision' as const,
      ...(s.execution_id !== undefined ? { execution_id: s.execution_id } : {}),
      ...(s.session_id !== undefined ? { session_id: s.session_id } : {}),
      blueprint: s.blueprint,
      blueprint_hash: s.blueprint_hash,
      principal: s.principal,
      caller,
      capability,
    };
  }

  private writeDenial(caller: string, capability: string, context: Record<string, unknown>, source: DecisionSource, decision?: Decision): void {
    const reason = source === 'policy' ? (decision?.reason?.startsWith('policy requires human approval') ? AUDIT_REASONS.askHuman : AUDIT_REASONS.policy) : AUDIT_REASONS[source];
    this.audit.write({
      ...this.base(caller, capability),
      context: auditContext(context),
      decision: 'deny',
      source,
      ...(decision?.rule !== undefined ? { rule: decision.rule } : {}),
      ...(decision?.ruleName !== undefined ? { rule_name: decision.ruleName } : {}),
      reason,
    });
  }

  private recordAllow(caller: string, capability: string, decision: Decision): void {
    if (this.allows === 'none') return;
    const ruleFields = { rule: decision.rule, ...(decision.ruleName !== undefined ? { rule_name: decision.ruleName } : {}) };
    if (this.allows === 'all') {
      this.audit.write({ ...this.base(caller, capability), context: auditContext(decision.context), decision: 'allow', source: 'policy', ...ruleFields });
      return;
    }
    const key = `${caller}\u0000${capability}\u0000${String(decision.rule)}`;
    let group = this.groups.get(key);
    if (!group) {
      if (this.groups.size >= MAX_GROUPS) {
        this.audit.write({ ...this.base(caller, capability), context: auditContext(decision.context), decision: 'allow', source: 'policy', ...ruleFields, summary_overflow: true });
        return;
      }
      group = { caller, capability, rule: decision.rule, ruleName: decision.ruleName, count: 0, contexts: [], seen: new Set(), overflow: false };
      this.groups.set(key, group);
    }
    group.count++;
    if (group.contexts.length >= MAX_CONTEXTS_PER_GROUP && group.overflow) return;
    const payload = JSON.stringify(decision.context);
    if (group.seen.has(payload)) return;
    if (group.contexts.length >= MAX_CONTEXTS_PER_GROUP || this.retainedBytes + payload.length > MAX_RETAINED_CONTEXT_BYTES) {
      group.overflow = true;
      return;
    }
    group.seen.add(payload);
    this.retainedBytes += payload.length;
    group.contexts.push(auditContext(decision.context));
  }
}
