// Generates a throw-away self-signed certificate for TLS tests (openssl at test time).
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export function selfSignedCertificate(dir: string, name = 'server'): { certFile: string; keyFile: string } {
  const certFile = path.join(dir, `${name}.crt`);
  const keyFile = path.join(dir, `${name}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', keyFile, '-out', certFile], {
    stdio: 'ignore',
  });
  return { certFile, keyFile };
}
