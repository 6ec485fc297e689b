// A worker for the WorkerPool tests: echoes, throws, spins forever or exits.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', ({ id, kind, input }) => {
  const reply = (message) => parentPort.postMessage({ id, ...message });
  if (kind === 'echo') return reply({ ok: true, result: input });
  if (kind === 'throw') return reply({ ok: false, error: { name: 'RangeError', message: `refused ${input}` } });
  if (kind === 'spin') for (;;);
  if (kind === 'exit') process.exit(3);
  reply({ ok: false, error: { name: 'Error', message: `no task named ${kind}` } });
});
