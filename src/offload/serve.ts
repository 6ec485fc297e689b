// The worker side of a WorkerPool: answers each task with the handler of its kind.
import { parentPort } from 'node:worker_threads';
import { collectWhenBloated } from '../../sandbox/thread-heap';
import { Transferring, type TaskReply, type TaskRequest } from './protocol';

export type TaskHandlers = Record<string, (input: never) => unknown>;

/** Answers tasks from the pool (call once, in a worker entry). */
export function serveTasks(handlers: TaskHandlers): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs in a worker thread');
  port.on('message', (request: TaskRequest) => {
    const reply = (message: TaskReply, transfer: ArrayBuffer[] = []) => {
      port.postMessage(message, transfer);
      // The answer is out: a task's garbage (a scan's matches, a diff) is collected if it piled up.
      setImmediate(collectWhenBloated);
    };
    const handler = Object.hasOwn(handlers, request.kind) ? handlers[request.kind] : undefined;
    if (!handler) return reply({ id: request.id, ok: false, error: { name: 'Error', message: `no task named ${request.kind}` } });
    Promise.resolve()
      .then(() => handler(request.input as never))
      .then(
        (result) =>
          result instanceof Transferring ? reply({ id: request.id, ok: true, result: result.value }, result.transfer) : reply({ id: request.id, ok: true, result }),
        (error: unknown) => reply({ id: request.id, ok: false, error: { name: (error as Error)?.name ?? 'Error', message: (error as Error)?.message ?? String(error) } }),
      );
  });
}
