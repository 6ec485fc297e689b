// The messages between a WorkerPool and its workers: one task in, one reply out.
export interface TaskRequest {
  id: number;
  kind: string;
  input: unknown;
}

export type TaskReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: { name: string; message: string } };
