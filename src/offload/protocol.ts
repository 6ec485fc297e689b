// The messages between a WorkerPool and its workers: one task in, one reply out.
export interface TaskRequest {
  id: number;
  kind: string;
  input: unknown;
}

export type TaskReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: { name: string; message: string } };

/**
 * A handler's result whose buffers move to the pool's thread instead of being copied: a
 * worker's decoding of 16 MiB hands back its bytes without a 16 MiB copy on the server's
 * event loop. Each buffer must be the handler's own (never a pooled Buffer's).
 */
export class Transferring<T> {
  constructor(
    readonly value: T,
    readonly transfer: ArrayBuffer[],
  ) {}
}

/** What a handler's result arrives as on the pool's side. */
export type Delivered<T> = T extends Transferring<infer V> ? V : T;

/** The value a handler's result carries (the same result when it runs on the calling thread). */
export function delivered<T>(result: T): Delivered<T> {
  return (result instanceof Transferring ? result.value : result) as Delivered<T>;
}
