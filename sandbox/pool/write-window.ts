// A bound on bytes handed to channels and not yet written, kept in order: once one write
// waits for room, every later one waits behind it. A smaller later write that fitted would
// otherwise overtake it, and a body's pieces would reach the runner out of order.

export class WriteWindow {
  private unwritten = 0;
  private readonly waiting: Array<{ size: number; start: () => void }> = [];

  constructor(private readonly maxBytes: number) {}

  /** Starts `write` once `size` more bytes fit, in arrival order; `write` settles when its bytes are written. */
  write<T>(size: number, write: () => Promise<T>): Promise<T> {
    if (this.waiting.length === 0 && this.fits(size)) return this.start(size, write);
    return new Promise<T>((resolve, reject) => this.waiting.push({ size, start: () => void this.start(size, write).then(resolve, reject) }));
  }

  /** Bytes started and not yet written. */
  get bytesUnwritten(): number {
    return this.unwritten;
  }

  private fits(size: number): boolean {
    // One write larger than the whole window still goes, alone.
    return this.unwritten === 0 || this.unwritten + size <= this.maxBytes;
  }

  private start<T>(size: number, write: () => Promise<T>): Promise<T> {
    this.unwritten += size;
    let written: Promise<T>;
    try {
      written = write();
    } catch (error) {
      written = Promise.reject(error);
    }
    return written.finally(() => {
      this.unwritten -= size;
      // Started synchronously, first come first started, while they fit.
      while (this.waiting.length > 0 && this.fits(this.waiting[0].size)) this.waiting.shift()!.start();
    });
  }
}
