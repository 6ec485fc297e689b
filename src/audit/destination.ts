// Line destinations for the server log and the audit trail: standard output or a file
// opened for appending, written through pino's SonicBoom in sync mode (one write per line,
// so records never interleave) and reopened on SIGHUP. Writing never throws into the
// caller: failures are reported on standard error and the server keeps serving.
import fs from 'node:fs';
import pino from 'pino';

type SonicBoom = ReturnType<typeof pino.destination>;

/** Bytes a failing destination may hold for retry before further lines are dropped. */
const MAX_PENDING_BYTES = 16 * 1_048_576;

export class LogOpenError extends Error {
  readonly code = 'log_open_failed';
}

export interface LineDestination {
  /** Writes one line (the newline is added here). */
  write(line: string): void;
  /** SIGHUP: reopen the path after external rotation; on failure keep the old file. */
  reopen(): void;
  close(): void;
}

type Report = (line: string) => void;

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The reference allows only a regular file (or none yet): a FIFO would block the open. */
function assertRegularOrAbsent(file: string): void {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat && !stat.isFile()) throw new Error('not a regular file');
}

/**
 * Wraps one SonicBoom. SonicBoom reports sync write failures as 'error' events (thrown when
 * nobody listens, and emitted later for async closes), so a listener captures them while a
 * write is in progress and ignores late ones, which concern descriptors already replaced.
 */
class BoomWriter {
  private captured: unknown = null;
  private capturing = false;
  private failure: string | null = null;

  constructor(
    readonly boom: SonicBoom,
    private readonly label: string,
    private readonly report: Report,
  ) {
    boom.on('error', (error: unknown) => this.capture(error));
    boom.on('drop', () => this.capture(new Error('output is failing and the pending backlog is full; line dropped')));
  }

  private capture(error: unknown): void {
    if (this.capturing && this.captured === null) this.captured = error;
  }

  write(text: string): void {
    this.captured = null;
    this.capturing = true;
    try {
      this.boom.write(text);
    } catch (error) {
      this.captured ??= error;
    } finally {
      this.capturing = false;
    }
    if (this.captured === null) this.failure = null;
    else this.reportFailure(reasonOf(this.captured));
  }

  /** One report per failure streak and reason: a full disk must not flood standard error. */
  private reportFailure(reason: string): void {
    if (this.failure === reason) return;
    this.failure = reason;
    this.report(`cannot write server log to ${this.label}: ${reason}`);
  }

  close(): void {
    try {
      this.boom.flushSync();
    } catch (error) {
      this.reportFailure(reasonOf(error));
    }
    try {
      this.boom.end();
    } catch (error) {
      this.report(`cannot close server log ${this.label}: ${reasonOf(error)}`);
    }
  }
}

function openFileWriter(file: string, report: Report): BoomWriter {
  assertRegularOrAbsent(file);
  // Sync mode opens at once and throws on failure, so errors surface to the caller here.
  const boom = pino.destination({ dest: file, sync: true, append: true, maxLength: MAX_PENDING_BYTES });
  return new BoomWriter(boom, file, report);
}

/** `logging.file`, or `logging.audit.file` when `retryOpen` (an open failure is not fatal). */
export class FileDestination implements LineDestination {
  private writer: BoomWriter | null = null;
  private closed = false;

  private constructor(
    private readonly file: string,
    private readonly report: Report,
  ) {}

  /** Opens the server log file; a failure stops startup. */
  static open(file: string, report: Report): FileDestination {
    const destination = new FileDestination(file, report);
    try {
      destination.writer = openFileWriter(file, report);
    } catch (error) {
      throw new LogOpenError(`cannot open server log ${file}: ${reasonOf(error)}`);
    }
    return destination;
  }

  /** Opens the audit file if it can; otherwise every later write retries the open. */
  static openLenient(file: string, report: Report): FileDestination {
    const destination = new FileDestination(file, report);
    destination.tryOpen();
    return destination;
  }

  private tryOpen(): boolean {
    try {
      this.writer = openFileWriter(this.file, this.report);
      return true;
    } catch (error) {
      this.report(`cannot open server log ${this.file}: ${reasonOf(error)}`);
      return false;
    }
  }

  write(line: string): void {
    if (this.closed) return;
    if (this.writer === null && !this.tryOpen()) return;
    this.writer!.write(`${line}\n`);
  }

  reopen(): void {
    if (this.closed) return;
    if (this.writer === null) {
      this.tryOpen();
      return;
    }
    try {
      assertRegularOrAbsent(this.file);
      // Throws on failure, leaving the old descriptor in place; on success the old one closes.
      this.writer.boom.reopen();
    } catch (error) {
      this.report(`cannot reopen server log ${this.file}: ${reasonOf(error)}; still writing to the previously opened file`);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.writer?.close();
    this.writer = null;
  }
}

/** Standard output through SonicBoom on descriptor 1 (it retries EAGAIN on pipes). */
export class StdoutDestination implements LineDestination {
  private readonly writer: BoomWriter;
  private closed = false;

  constructor(report: Report) {
    this.writer = new BoomWriter(pino.destination({ dest: 1, sync: true, maxLength: MAX_PENDING_BYTES }), 'stdout', report);
  }

  write(line: string): void {
    if (!this.closed) this.writer.write(`${line}\n`);
  }

  reopen(): void {
    // Nothing to reopen: standard output is not rotated by path.
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.writer.close();
  }
}

/** Open batches, flushed by one process 'exit' listener (one listener per batch would pile up in tests). */
const flushedAtExit = new Set<TurnBatchedDestination>();
let exitListening = false;

/** Bytes of lines one turn may hold before they are written at once (a record is at most 1 MiB). */
const MAX_BATCH_BYTES = 1_048_576;

/**
 * Holds the lines written during one event-loop turn and writes them together when the turn
 * ends: one write (one system call) per turn instead of one per line, in the order they were
 * written, each line exactly as it would have been written alone. Lines past 1 MiB are written
 * at once. Held lines are written before a reopen or close, and when the process exits
 * (`exit` is emitted on process.exit, at the end of the event loop and after an uncaught
 * exception); a process killed outright loses at most the lines of the turn it was in.
 */
export class TurnBatchedDestination implements LineDestination {
  private held: string[] = [];
  private heldBytes = 0;
  private scheduled = false;
  private closed = false;

  constructor(private readonly inner: LineDestination) {
    flushedAtExit.add(this);
    if (!exitListening) {
      exitListening = true;
      process.on('exit', () => flushedAtExit.forEach((batch) => batch.flush()));
    }
  }

  write(line: string): void {
    if (this.closed) return;
    this.held.push(line);
    this.heldBytes += line.length;
    if (this.heldBytes >= MAX_BATCH_BYTES) {
      this.flush();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Writes the held lines now, as one write (the inner destination adds the last newline). */
  flush(): void {
    if (this.held.length === 0) return;
    const text = this.held.length === 1 ? this.held[0] : this.held.join('\n');
    this.held = [];
    this.heldBytes = 0;
    this.inner.write(text);
  }

  reopen(): void {
    this.flush();
    this.inner.reopen();
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    flushedAtExit.delete(this);
    this.inner.close();
  }
}

/** A caller-supplied stream standing in for standard output (tests, embedding). */
export class StreamDestination implements LineDestination {
  private closed = false;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly report: Report,
  ) {}

  write(line: string): void {
    if (this.closed) return;
    try {
      this.stream.write(`${line}\n`);
    } catch (error) {
      this.report(`cannot write server log to stdout: ${reasonOf(error)}`);
    }
  }

  reopen(): void {
    // A stream has no path to reopen.
  }

  close(): void {
    this.closed = true;
  }
}
