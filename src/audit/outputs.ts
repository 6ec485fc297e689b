// Opens the server log and the audit writer over their destinations from the logging
// settings: the log goes to standard output or `logging.file`; audit records to the same
// destination or to `logging.audit.file`, opened separately so its failure is not fatal.
import { randomUUID } from 'node:crypto';
import { createAuditWriter, type AuditWriter } from './audit';
import { FileDestination, StdoutDestination, StreamDestination, TurnBatchedDestination, type LineDestination } from './destination';
import { LevelFilter } from './filter';
import { createServerLog, type ServerLog } from './log';

export interface LogOutputs {
  log: ServerLog;
  audit: AuditWriter;
  /**
   * SIGHUP: reopen the log and audit files after external rotation. Returns false when
   * there is no file to reopen (standard output only), so the caller can skip its log line.
   */
  reopen(): boolean;
  /**
   * Writes the records held for the end of this event-loop turn now. The server calls it
   * before it answers a request, so a request's records are written before its answer.
   */
  flush(): void;
  /** Flushes and closes the files; later records are discarded. */
  close(): void;
}

export interface LogOutputOptions {
  /** null = standard output. */
  logFile: string | null;
  /** The RUST_LOG value; null = default `info`. */
  filter: string | null;
  audit: { enabled: boolean; file: string | null };
  clock?: () => Date;
  newId?: () => string;
  /** Receives one line (no newline) per problem report; default: process standard error. */
  stderr?: (line: string) => void;
  /** Replaces standard output (tests). */
  stdout?: NodeJS.WritableStream;
  /** Called for each audit record that could not be written (the server counts them in its metrics). */
  onAuditWriteFailure?: () => void;
}

function writeStderr(line: string): void {
  try {
    process.stderr.write(`${line}\n`);
  } catch {
    // Standard error is the last resort; there is nowhere left to report its failure.
  }
}

/** Throws LogOpenError ("cannot open server log <path>: <reason>") when `logFile` cannot be opened. */
export function openLogOutputs(options: LogOutputOptions): LogOutputs {
  const report = options.stderr ?? writeStderr;
  const clock = options.clock ?? (() => new Date());
  const logDestination = openLogDestination(options, report);
  const auditReport = (line: string) => {
    options.onAuditWriteFailure?.();
    report(line);
  };
  const auditFile = options.audit.enabled && options.audit.file !== null ? FileDestination.openLenient(options.audit.file, auditReport) : null;
  // Audit records (two per run) are written once per event-loop turn. When they share the
  // log's destination the log's lines go through the same batch, so the two keep their order.
  const batched = !options.audit.enabled ? null : new TurnBatchedDestination(auditFile ?? logDestination);
  const logOut = batched !== null && auditFile === null ? batched : logDestination;
  const auditOut = batched ?? logDestination;
  const destinations: LineDestination[] = logOut === auditOut ? [logOut] : [logOut, auditOut];
  const hasFile = logDestination instanceof FileDestination || auditFile !== null;

  return {
    log: createServerLog({ filter: LevelFilter.parse(options.filter, report), destination: logOut, clock, report }),
    audit: createAuditWriter({ enabled: options.audit.enabled, destination: auditOut, clock, newId: options.newId ?? randomUUID, report: auditReport }),
    reopen: () => {
      destinations.forEach((destination) => destination.reopen());
      return hasFile;
    },
    flush: () => batched?.flush(),
    close: () => destinations.forEach((destination) => destination.close()),
  };
}

function openLogDestination(options: LogOutputOptions, report: (line: string) => void): LineDestination {
  if (options.logFile !== null) return FileDestination.open(options.logFile, report);
  if (options.stdout) return new StreamDestination(options.stdout, report);
  return new StdoutDestination(report);
}
