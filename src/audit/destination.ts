// A line destination: standard output or a file opened for appending, written with one
// synchronous write per record (pino's SonicBoom destination), reopened on SIGHUP. A
// write failure is reported on standard error and never thrown into the caller.
import fs from 'node:fs';
import pino from 'pino';

type SonicBoom = ReturnType<typeof pino.destination>;

export class LineDestination {
  private boom: SonicBoom | null = null;
  private failedOpen = false;

  constructor(
    private readonly file: string | null,
    private readonly stderr: (line: string) => void,
    private readonly stdout: NodeJS.WritableStream | null = null,
    /** When true a failed open is retried at every write (audit file); else it is final. */
    private readonly retryOpen = false,
  ) {
    this.open();
  }

  private label(): string {
    return this.file ?? 'stdout';
  }

  private open(): void {
    if (this.file === null) return;
    try {
      // Open eagerly so errors surface now; SonicBoom takes over the descriptor.
      const fd = fs.openSync(this.file, 'a');
      this.boom = pino.destination({ fd, sync: true });
      this.failedOpen = false;
    } catch (error) {
      this.boom = null;
      if (!this.failedOpen) this.stderr(`cannot write server log to ${this.label()}: ${(error as Error).message}`);
      this.failedOpen = true;
    }
  }

  write(line: string): void {
    try {
      if (this.file === null) {
        if (this.stdout) this.stdout.write(`${line}\n`);
        else fs.writeSync(1, `${line}\n`);
        return;
      }
      if (!this.boom && this.retryOpen) this.open();
      if (!this.boom) return;
      this.boom.write(`${line}\n`);
    } catch (error) {
      this.stderr(`cannot write server log to ${this.label()}: ${(error as Error).message}`);
    }
  }

  /** SIGHUP: reopen the path after external rotation; keep the old file on failure. */
  reopen(): void {
    if (this.file === null) return;
    try {
      const fd = fs.openSync(this.file, 'a');
      const previous = this.boom;
      this.boom = pino.destination({ fd, sync: true });
      previous?.end();
    } catch (error) {
      this.stderr(`cannot reopen ${this.file}: ${(error as Error).message}; still writing to the previous file`);
    }
  }

  close(): void {
    try {
      this.boom?.flushSync();
      this.boom?.end();
    } catch {
      // Closing after a failed write: nothing more can be reported usefully.
    }
    this.boom = null;
  }
}
