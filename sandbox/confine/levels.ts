// The runner sandbox's features and levels, as /v1/status, the metrics and the start-up
// warning report them (README "How a run is contained" describes each).
import type { Wrapper } from './wrappers';

/**
 * - environment: an allow-listed environment (always)
 * - user: not root (the server switches to an unprivileged user when it runs as root)
 * - no_new_privs: no privileges gained through exec (set-uid files, file capabilities)
 * - capabilities: none held
 * - network: its own network namespace (no interface up)
 * - processes: its own PID namespace (no other process to see or signal)
 * - filesystem: sees only Node, /usr and the runner's code, not the server's home
 * - seccomp: a filter refusing sockets, ptrace, mounts, namespaces and kernel keyrings
 */
export const SANDBOX_FEATURES = ['environment', 'user', 'no_new_privs', 'capabilities', 'network', 'processes', 'filesystem', 'seccomp'] as const;
export type SandboxFeature = (typeof SANDBOX_FEATURES)[number];

/** full: every feature; partial: some beyond the environment; env-only: the environment alone. */
export type SandboxLevel = 'full' | 'partial' | 'env-only';
export const SANDBOX_LEVELS: readonly SandboxLevel[] = ['full', 'partial', 'env-only'];

export interface RunnerConfinement {
  level: SandboxLevel;
  features: SandboxFeature[];
  missing: SandboxFeature[];
  /** How runners are started (null: Node directly, with the allow-listed environment). */
  wrapper: Wrapper | null;
  /** Why each stronger wrapper failed on this host (for the start-up warning). */
  failures: string[];
}

export function levelOf(present: readonly SandboxFeature[]): { level: SandboxLevel; missing: SandboxFeature[] } {
  const missing = SANDBOX_FEATURES.filter((feature) => !present.includes(feature));
  const level: SandboxLevel = missing.length === 0 ? 'full' : present.length <= 1 ? 'env-only' : 'partial';
  return { level, missing };
}

/** No wrapper: what a pool started without a probe (tools, tests of stand-in runners) uses. */
export const ENVIRONMENT_ONLY: RunnerConfinement = { level: 'env-only', features: ['environment'], missing: SANDBOX_FEATURES.filter((f) => f !== 'environment'), wrapper: null, failures: [] };
