// What parseCommand returns: the process's next step (help, version, health check or
// serve with frozen Settings) and the input it is computed from.
import type { Settings } from './settings';

/** Where --health-check probes: a wildcard bind is replaced by loopback of its family. */
export interface HealthCheckTarget {
  host: string;
  port: number;
  tls: { certPem: Buffer } | null;
}

export interface StartupWarning {
  target: string;
  msg: string;
  fields?: Record<string, unknown>;
}

export type Command =
  | { kind: 'help'; text: string }
  | { kind: 'version'; text: string }
  | { kind: 'health-check'; target: HealthCheckTarget }
  | { kind: 'serve'; settings: Settings; warnings: StartupWarning[] };

export interface CommandInput {
  argv: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  homeDir: string | null;
  tmpDir: string;
  version: string;
}
