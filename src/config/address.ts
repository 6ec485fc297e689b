// Listen address and port, including the tolerated HOST/PORT variables, and the target
// that --health-check probes.
import ipaddr from 'ipaddr.js';
import { invalid } from './errors';
import type { Resolver } from './sources';
import { PARTIAL_TLS_MESSAGE, readCertificateForProbe } from './tls';
import type { HealthCheckTarget } from './types';
import { parseIp, parsePort } from './values';

export function resolveBindAndPort(resolver: Resolver, env: Map<string, string>): { bind: string; port: number } {
  let bind = resolver.text('bind');
  let port = resolver.number('port');
  const hostRaw = env.get('HOST');
  const portRaw = env.get('PORT');
  // HOST and PORT rank below the file and are tolerated: garbage is ignored.
  const ambientHost = hostRaw !== undefined && /^[0-9a-fA-F.:]+$/.test(hostRaw) ? safe(() => parseIp(hostRaw, 'HOST')) : undefined;
  const ambientPort = portRaw !== undefined ? safe(() => parsePort(portRaw, 'PORT')) : undefined;
  if (bind === undefined) bind = ambientHost ?? (portRaw !== undefined ? '0.0.0.0' : '127.0.0.1');
  if (port === undefined) port = ambientPort ?? 8128;
  return { bind, port };
}

/**
 * Health-check mode reads only what the probe needs: the address and the certificate. It
 * never touches token files or the store key and writes nothing.
 */
export function healthCheckTarget(resolver: Resolver, env: Map<string, string>): HealthCheckTarget {
  resolver.resolveAll(['bind', 'port', 'tls.cert_file', 'tls.key_file']);
  const { bind, port } = resolveBindAndPort(resolver, env);
  const certFile = resolver.path('tls.cert_file') ?? null;
  const keyFile = resolver.path('tls.key_file') ?? null;
  if ((certFile === null) !== (keyFile === null)) throw invalid(PARTIAL_TLS_MESSAGE);
  return { host: probeHost(bind), port, tls: certFile !== null ? { certPem: readCertificateForProbe(certFile) } : null };
}

/** A wildcard bind is probed on the loopback address of its family. */
function probeHost(bind: string): string {
  const address = ipaddr.parse(bind.split('%')[0]);
  if (address.range() !== 'unspecified') return bind;
  return address.kind() === 'ipv4' ? '127.0.0.1' : '::1';
}

function safe<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}
