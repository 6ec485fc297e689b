// Decisions (blueprints-and-policy §4.3, §6.2, §6.4): identify the invariant refusals,
// normalise the context, resolve the caller's rules (first match wins, else the default,
// absent default = deny) and build the PermissionDeniedError the program sees.
import { evaluateFilter } from './filter-eval';
import { ContextError, normalizeContext } from './normalize';
import type { Action, PermissionPolicy } from './rules';

export type DecisionSource = 'policy' | 'invariant' | 'read_only' | 'egress_guard' | 'quota';

export interface Decision {
  decision: 'allow' | 'deny';
  source: DecisionSource;
  /** Rule index in the caller's list, or 'default'; policy decisions only. */
  rule?: number | 'default';
  ruleName?: string;
  /** The normalised context the policy saw. */
  context: Record<string, unknown>;
  /** Why it was refused (the program-facing reason); denials only. */
  reason?: string;
}

/** Fixed audit `reason` texts per source (server-operations §7.4). */
export const AUDIT_REASONS = {
  policy: 'denied by policy',
  askHuman: 'human approval required; treated as deny',
  invariant: 'refused by runtime invariant',
  read_only: 'destination volume is read-only',
  quota: 'budget or size limit exceeded',
  egress_guard: 'outbound destination blocked',
} as const;

const CLOSING: Record<'policy' | 'invariant' | 'read_only', string> = {
  policy: "The operation is forbidden by the operator's policy; do not work around it (another package, raw HTTP or changed arguments): report it and stop.",
  invariant: 'No policy can grant this; do not work around it (not through another package, not by asking a package to hand the value back, not through raw HTTP): report it and stop.',
  read_only: 'This volume cannot be written from this Blueprint; write under a writable path instead (fs.info() lists mounts and their access).',
};

export class PermissionDeniedError extends Error {
  readonly code = 'permission_denied';
  constructor(
    readonly caller: string,
    readonly capability: string,
    readonly reason: string,
    readonly source: 'policy' | 'invariant' | 'read_only',
  ) {
    super(`permission denied: caller=${caller} capability=${capability}: ${reason}. ${CLOSING[source]}`);
    this.name = 'PermissionDeniedError';
  }
}

export class QuotaExceededError extends Error {
  readonly code = 'quota_exceeded';
  constructor(message: string) {
    super(message);
    this.name = 'QuotaExceededError';
  }
}

/** ` on <path>` / ` from <a> to <b>` per §6.4. */
export function targetSuffix(capability: string, context: Record<string, unknown>): string {
  if ((capability === 'fs.copy' || capability === 'fs.move') && typeof context.from === 'string' && typeof context.to === 'string') return ` from ${context.from} to ${context.to}`;
  if (capability === 'http.download' && typeof context.vfs_path === 'string') return ` on ${context.vfs_path}`;
  if ((capability.startsWith('fs.') || capability.startsWith('git.')) && typeof context.path === 'string') return ` on ${context.path}`;
  return '';
}

const SECRET_INVARIANT =
  'secret values never reach program code and no policy can grant secrets.get to main; pass the secret name to a Package API that reads it for you';

export interface DecideInput {
  policy: PermissionPolicy;
  caller: string;
  capability: string;
  context: Record<string, unknown>;
  cwd: string;
  variables: Record<string, string>;
  /** svc:security.check() skips the main/secrets.get invariant. */
  skipMainInvariant?: boolean;
}

export function decide(input: DecideInput): Decision {
  const { policy, caller, capability } = input;
  if (caller === '') return { decision: 'deny', source: 'invariant', context: input.context, reason: 'the calling code could not be identified' };
  if (caller === 'main' && capability === 'secrets.get' && !input.skipMainInvariant) {
    return { decision: 'deny', source: 'invariant', context: input.context, reason: SECRET_INVARIANT };
  }
  let context: Record<string, unknown>;
  try {
    context = normalizeContext(capability, input.context, input.cwd);
  } catch (error) {
    if (error instanceof ContextError) return { decision: 'deny', source: 'invariant', context: input.context, reason: error.message };
    throw error;
  }
  const rules = policy.callers.get(caller) ?? [];
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index];
    if (rule.capability !== capability) continue;
    if (rule.filter && !evaluateFilter(rule.filter, context, input.variables)) continue;
    return outcome(rule.action, index, rule.name, caller, capability, context);
  }
  return outcome(policy.default ?? 'deny', 'default', undefined, caller, capability, context);
}

function outcome(action: Action, rule: number | 'default', ruleName: string | undefined, caller: string, capability: string, context: Record<string, unknown>): Decision {
  const base = { source: 'policy' as const, rule, context, ...(ruleName !== undefined ? { ruleName } : {}) };
  if (action === 'allow') return { ...base, decision: 'allow' };
  const target = targetSuffix(capability, context);
  const reason =
    action === 'ask-human'
      ? `policy requires human approval for ${capability}${target} (caller ${caller}); ask-human is not supported and counts as a denial`
      : `policy denied ${capability}${target} for ${caller}`;
  return { ...base, decision: 'deny', reason };
}
