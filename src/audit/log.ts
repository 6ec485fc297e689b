// The server log (stream=log): level-filtered logfmt records with fields in call-site
// order. Never throws into the caller; a record that cannot be encoded is dropped whole
// and reported on standard error.
import type { LineDestination } from './destination';
import type { LevelFilter, LogLevel } from './filter';
import { encodeLogfmt } from './logfmt';

export type LogFields = Record<string, unknown>;

export interface ServerLog {
  /** `target` is a module path such as `svc_server::serve`. */
  error(target: string, msg: string, fields?: LogFields): void;
  warn(target: string, msg: string, fields?: LogFields): void;
  info(target: string, msg: string, fields?: LogFields): void;
  debug(target: string, msg: string, fields?: LogFields): void;
  trace(target: string, msg: string, fields?: LogFields): void;
  /** Lets a caller skip building expensive fields for a record the filter drops. */
  enabled(target: string, level: LogLevel): boolean;
}

export const FORMAT_FAILURE = 'cannot format server log: invalid field, timestamp, or record exceeds 1 MiB';

export interface ServerLogDeps {
  filter: LevelFilter;
  destination: LineDestination;
  clock: () => Date;
  report: (line: string) => void;
}

export function createServerLog(deps: ServerLogDeps): ServerLog {
  const at =
    (level: LogLevel) =>
    (target: string, msg: string, fields: LogFields = {}): void => {
      if (!deps.filter.enabled(target, level)) return;
      let line: string;
      try {
        line = encodeLogfmt({ ts: deps.clock(), level, stream: 'log', target, msg }, fields, { sorted: false });
      } catch {
        // Whatever failed (a LogfmtError, a throwing clock or getter), logging must not.
        deps.report(FORMAT_FAILURE);
        return;
      }
      deps.destination.write(line);
    };
  return {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    trace: at('trace'),
    enabled: (target, level) => deps.filter.enabled(target, level),
  };
}

/** A log that writes nothing, for tests and tools that need a ServerLog. */
export const silentLog: ServerLog = {
  error() {},
  warn() {},
  info() {},
  debug() {},
  trace() {},
  enabled: () => false,
};
