// The errors a program sees when a gated operation is refused, and the fixed audit
// `reason` texts per decision source.
import type { DecisionSource } from '../audit';
import type { DenialSource } from '../../sandbox';

/** The sources whose refusal the program sees as a PermissionDeniedError (the list is the sandbox contract's). */
export type DeniedSource = Extract<DecisionSource, DenialSource>;

/** Audit `reason` texts: fixed per source, never carrying operation values. */
export const AUDIT_REASONS = {
  policy: 'denied by policy',
  askHuman: 'human approval required; treated as deny',
  /** A person denied the approval, or it expired unanswered (the state is in `approval_state`). */
  human: 'denied by a person or approval expired',
  invariant: 'refused by runtime invariant',
  read_only: 'destination volume is read-only',
  quota: 'budget or size limit exceeded',
  egress_guard: 'outbound destination blocked',
} as const;

const CLOSING: Record<DeniedSource, string> = {
  policy:
    "This operation is forbidden by the operator's policy; do not work around it (not through another package, raw HTTP or altered arguments): report it and stop.",
  invariant:
    'No policy can grant this; do not work around it (not through another package, not by asking a package to fetch the value and hand it back, not through raw HTTP): report it and stop.',
  read_only: 'This volume cannot be written from this Blueprint; write under a writable path (fs.info() lists mounts and their access).',
  human:
    'A person was asked to approve this call and did not (denied, or no answer in time); do not retry it or work around it (not through another package, raw HTTP or altered arguments): report it and stop.',
};

/**
 * A refusal the program can catch. Message shape (fixed):
 * `permission denied: caller=<caller> capability=<capability>: <reason>. <closing sentence>`
 */
export class PermissionDeniedError extends Error {
  readonly code = 'permission_denied';

  constructor(
    readonly caller: string,
    readonly capability: string,
    readonly reason: string,
    readonly source: DeniedSource,
  ) {
    super(`permission denied: caller=${caller} capability=${capability}: ${reason}. ${CLOSING[source]}`);
    this.name = 'PermissionDeniedError';
  }
}

/** A size limit or budget; not a permission error, so programs can tell them apart. */
export class QuotaExceededError extends Error {
  readonly code = 'quota_exceeded';

  constructor(message: string) {
    super(message);
    this.name = 'QuotaExceededError';
  }
}
