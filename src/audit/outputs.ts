// The server log and the audit writer over their destinations. Both write one line per
// record synchronously, so records from concurrent requests never interleave, and never
// throw into the caller: failures are reported on standard error.
import { randomUUID } from 'node:crypto';
import { LineDestination } from './destination';
import { LevelFilter, type LogLevel } from './filter';
import { encodeLogfmt, LogfmtError } from './logfmt';
import type { AuditRecord } from './records';

export interface ServerLog {
  error(target: string, msg: string, fields?: Record<string, unknown>): void;
  warn(target: string, msg: string, fields?: Record<string, unknown>): void;
  info(target: string, msg: string, fields?: Record<string, unknown>): void;
  debug(target: string, msg: string, fields?: Record<string, unknown>): void;
  trace(target: string, msg: string, fields?: Record<string, unknown>): void;
  enabled(target: string, level: LogLevel): boolean;
}

export interface AuditWriter {
  write(record: AuditRecord): void;
}

export interface LogOutputs {
  log: ServerLog;
  audit: AuditWriter;
  /** SIGHUP: reopen the log and audit files. */
  reopen(): void;
  close(): void;
}

export interface LogOutputOptions {
  logFile: string | null;
  filter: string | null;
  audit: { enabled: boolean; file: string | null };
  clock?: () => Date;
  newId?: () => string;
  stderr?: (line: string) => void;
  stdout?: NodeJS.WritableStream;
}

export function openLogOutputs(options: LogOutputOptions): LogOutputs {
  const clock = options.clock ?? (() => new Date());
  const newId = options.newId ?? randomUUID;
  const stderr = options.stderr ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logDestination = new LineDestination(options.logFile, stderr, options.stdout ?? null);
  const auditDestination = options.audit.file !== null ? new LineDestination(options.audit.file, stderr, null, true) : logDestination;
  const filter = LevelFilter.parse(options.filter, stderr);

  const emit = (destination: LineDestination, build: () => string) => {
    let line: string;
    try {
      line = build();
    } catch (error) {
      if (error instanceof LogfmtError) {
        stderr(`cannot format server log: invalid field, timestamp, or record exceeds 1 MiB (${error.message})`);
        return;
      }
      throw error;
    }
    destination.write(line);
  };

  const at =
    (level: LogLevel) =>
    (target: string, msg: string, fields: Record<string, unknown> = {}) => {
      if (!filter.enabled(target, level)) return;
      emit(logDestination, () => encodeLogfmt({ ts: clock(), level, stream: 'log', target, msg }, fields, { sorted: false }));
    };

  const log: ServerLog = {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    trace: at('trace'),
    enabled: (target, level) => filter.enabled(target, level),
  };

  const audit: AuditWriter = {
    write(record) {
      if (!options.audit.enabled) return;
      const fields: Record<string, unknown> = { ...record, event_id: newId(), schema: 'svc.audit/1' };
      emit(auditDestination, () =>
        encodeLogfmt({ ts: clock(), level: 'info', stream: 'audit', target: 'svc_server::audit', msg: record.type }, fields, { sorted: true }),
      );
    },
  };

  return {
    log,
    audit,
    reopen() {
      logDestination.reopen();
      if (auditDestination !== logDestination) auditDestination.reopen();
    },
    close() {
      logDestination.close();
      if (auditDestination !== logDestination) auditDestination.close();
    },
  };
}
