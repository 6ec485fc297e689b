// Decisions: the invariant refusals no rule can change,
// context normalisation, then the caller's rules (exact capability, first match wins,
// else the default; an absent default denies). Pure: recording is the recorder's job.
import type { DecisionSource } from '../audit';
import { evaluateFilter } from './filter-eval';
import { ContextError, normalizeContext } from './normalize';
import type { Action, PermissionPolicy } from './rules';

export interface Decision {
  decision: 'allow' | 'deny';
  source: DecisionSource;
  /** Index in the caller's list, or 'default'; policy decisions only. */
  rule?: number | 'default';
  /** The deciding rule's label, when it has one. */
  ruleName?: string;
  /** The action that decided (policy decisions only); `ask-human` denies with its own reason unless a person can be asked (RunDecisions.gateAsking). */
  action?: Action;
  /** The normalised context the policy saw (the context as given for an invariant refusal). */
  context: Record<string, unknown>;
  /** Program-facing reason; denials only. */
  reason?: string;
}

export interface DecideInput {
  policy: PermissionPolicy;
  /** `main` or a package name; undefined or '' when attribution failed. */
  caller: string | undefined;
  capability: string;
  context: Record<string, unknown>;
  /** The session's working directory in the VFS, for relative paths. */
  cwd: string;
  variables: Readonly<Record<string, string>>;
  /** svc:security.check() skips the main-only invariant (its attribution prevents that abuse). */
  skipMainInvariant?: boolean;
}

/** Capabilities refused to `main` whatever the policy says, with the reason the program sees. */
export const MAIN_REFUSALS: ReadonlyMap<string, string> = new Map([
  [
    'secrets.get',
    'programs may never read secret values and no policy can grant secrets.get to main; pass the secret name to a Package API that uses it for you',
  ],
]);

export const UNIDENTIFIED_CALLER_REASON = 'the code asking for this operation could not be attributed to the program or a package';

/** ` on <path>`, ` from <a> to <b>` or ''. */
export function targetSuffix(capability: string, context: Record<string, unknown>): string {
  if ((capability === 'fs.copy' || capability === 'fs.move') && typeof context.from === 'string' && typeof context.to === 'string') {
    return ` from ${context.from} to ${context.to}`;
  }
  if (capability === 'http.download') return typeof context.vfs_path === 'string' ? ` on ${context.vfs_path}` : '';
  if ((capability.startsWith('fs.') || capability.startsWith('git.')) && typeof context.path === 'string') return ` on ${context.path}`;
  return '';
}

export function invariantRefusal(context: Record<string, unknown>, reason: string): Decision {
  return { decision: 'deny', source: 'invariant', context, reason };
}

/** The decision for a gated operation: invariants, normalisation, then the caller's rules. */
export function decide(input: DecideInput): Decision {
  const { caller, capability } = input;
  if (caller === undefined || caller === '') return invariantRefusal(input.context, UNIDENTIFIED_CALLER_REASON);
  const mainRefusal = caller === 'main' && !input.skipMainInvariant ? MAIN_REFUSALS.get(capability) : undefined;
  if (mainRefusal !== undefined) return invariantRefusal(input.context, mainRefusal);
  let context: Record<string, unknown>;
  try {
    context = normalizeContext(capability, input.context, input.cwd);
  } catch (error) {
    if (error instanceof ContextError) return invariantRefusal(input.context, error.message);
    throw error;
  }
  return resolveRules(input.policy, caller, capability, context, input.variables);
}

/** The `svc:security.check()` variant: no main-only invariant, normalisation still applies. */
export function decideCheck(input: Omit<DecideInput, 'skipMainInvariant'>): Decision {
  return decide({ ...input, skipMainInvariant: true });
}

function resolveRules(policy: PermissionPolicy, caller: string, capability: string, context: Record<string, unknown>, variables: Readonly<Record<string, string>>): Decision {
  const rules = policy.callers.get(caller) ?? [];
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index];
    if (rule.capability !== capability) continue;
    if (rule.filter && !evaluateFilter(rule.filter, context, variables)) continue;
    return policyOutcome(rule.action, index, rule.name, caller, capability, context);
  }
  return policyOutcome(policy.default ?? 'deny', 'default', undefined, caller, capability, context);
}

function policyOutcome(action: Action, rule: number | 'default', ruleName: string | undefined, caller: string, capability: string, context: Record<string, unknown>): Decision {
  const base: Decision = { decision: 'allow', source: 'policy', rule, action, context, ...(ruleName !== undefined ? { ruleName } : {}) };
  if (action === 'allow') return base;
  const target = targetSuffix(capability, context);
  const reason =
    action === 'ask-human'
      ? `policy requires human approval for ${capability}${target} (caller ${caller}); a person can be asked only for a run's own calls (not outside a run, nor for a check inside an operation such as a redirect), so here it counts as a denial`
      : `policy denied ${capability}${target} for ${caller}`;
  return { ...base, decision: 'deny', reason };
}
