// The heavy attacks' far ends (./heavy-attacks.ts) in a process of their own, in a session of
// its own below the server's priority. In a deployment the services a program calls are other
// machines; on this 2-core machine a far end in the bench's process (sending 16 x 50 MiB, or
// holding 9,600 sockets) took turns with the server's main thread, and its share showed up in
// the server's `/healthz` (bench/PROFILE.md, round 54). BENCH_FAR_END_NICE=0: at the server's
// priority. The parent asks over IPC: { listen: FarEndKind, bytes?, notifyAt? } -> { url },
// { close: true } -> { arrived }; a `never` far end sends { open } when `notifyAt` requests
// have arrived (BENCH_RETAINED measures the server's heap then).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FarEndKind = 'bytes' | 'text' | 'never';

export interface FarEndListen {
  listen: FarEndKind;
  /** `bytes` and `text`: the length of every answer. */
  bytes?: number;
  /** `never`: send { open } when this many requests have arrived. */
  notifyAt?: number;
}

function serve(ask: FarEndListen): { server: http.Server; arrived: () => number } {
  let arrived = 0;
  let open = 0;
  const answer = Buffer.alloc(ask.bytes ?? 0, 0x61);
  const contentType = ask.listen === 'text' ? 'text/plain' : 'application/octet-stream';
  const server = http.createServer((req, res) => {
    arrived++;
    if (ask.listen !== 'never') {
      res.writeHead(200, { 'content-type': contentType, 'content-length': String(answer.length) });
      res.end(answer);
      return;
    }
    // Never answers: the request stays open until the client gives up.
    open++;
    req.socket.once('close', () => open--);
    if (arrived === ask.notifyAt) process.send!({ open });
  });
  return { server, arrived: () => arrived };
}

if (process.send) {
  let current: ReturnType<typeof serve> | null = null;
  process.on('message', (message: FarEndListen | { close: true }) => {
    if ('listen' in message) {
      current = serve(message);
      current.server.listen(0, '127.0.0.1', () => process.send!({ url: `http://127.0.0.1:${(current!.server.address() as AddressInfo).port}` }));
      return;
    }
    const ending = current;
    current = null;
    if (!ending) return void process.send!({ arrived: 0 });
    ending.server.closeAllConnections();
    ending.server.close(() => process.send!({ arrived: ending.arrived() }));
  });
  process.on('disconnect', () => process.exit(0));
}
