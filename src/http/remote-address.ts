// Formats a socket's peer as `ip:port` (`[v6]:port`; IPv4-mapped IPv6 shown as IPv4) for
// audit records.
import type { Socket } from 'node:net';

export function remoteAddress(socket: Socket | undefined | null): string {
  const address = socket?.remoteAddress ?? '';
  const port = socket?.remotePort ?? 0;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return `${mapped[1]}:${port}`;
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}
