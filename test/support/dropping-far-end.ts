// A loopback HTTP far end that drops every connection's second request unanswered: what a
// client sees when a server closed an idle kept-alive connection just before a request
// arrived on it. Each answered request's body is kept, so a test can tell a retry from a
// request handled twice.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface DroppingFarEnd {
  origin: string;
  /** Bodies of the requests answered, in order. */
  bodies: string[];
  /** Connections seen. */
  connections(): number;
  close(): Promise<void>;
}

/** `answer` writes the reply to the n-th answered request (n from 1). */
export async function startDroppingFarEnd(answer: (res: http.ServerResponse, n: number) => void): Promise<DroppingFarEnd> {
  const seen = new Map<Socket, number>();
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const count = (seen.get(req.socket) ?? 0) + 1;
    seen.set(req.socket, count);
    if (count === 2) return void req.socket.destroy();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      answer(res, bodies.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    connections: () => seen.size,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
