// TLS files: both or neither; each readable, at most 1 MiB, valid PEM; the key must match
// the certificate.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import { invalid } from './errors';

const MAX_PEM_BYTES = 1024 * 1024;

function readPem(file: string, what: string): Buffer {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (error) {
    throw invalid(`cannot read TLS ${what} ${file}: ${(error as Error).message}`);
  }
  if (size > MAX_PEM_BYTES) throw invalid(`TLS ${what} ${file} is larger than 1 MiB`);
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw invalid(`cannot read TLS ${what} ${file}: ${(error as Error).message}`);
  }
}

export function loadTls(certFile: string | null, keyFile: string | null): { certFile: string; keyFile: string; cert: Buffer; key: Buffer } | null {
  if (certFile === null && keyFile === null) return null;
  if (certFile === null || keyFile === null) {
    throw invalid('HTTPS requires both tls.cert_file and tls.key_file (or --tls-cert-file and --tls-key-file); only one is set');
  }
  const cert = readPem(certFile, 'certificate');
  const key = readPem(keyFile, 'key');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw invalid(`TLS certificate ${certFile} is not a valid PEM certificate`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw invalid(`TLS key ${keyFile} is not a valid PEM private key`);
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw invalid(`TLS key ${keyFile} does not match the certificate ${certFile}`);
  }
  return { certFile, keyFile, cert, key };
}

/** Health check: only the certificate's public key is needed. */
export function readCertificateForProbe(certFile: string): Buffer {
  const cert = readPem(certFile, 'certificate');
  try {
    new X509Certificate(cert);
  } catch {
    throw invalid(`TLS certificate ${certFile} is not a valid PEM certificate`);
  }
  return cert;
}
