// TLS files: both or neither; each readable, at most 1 MiB, PEM text; the private key's
// public half must equal the certificate's public key.
import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import { invalid } from './errors';

const MAX_PEM_BYTES = 1024 * 1024;

export const PARTIAL_TLS_MESSAGE = 'HTTPS requires both tls.cert_file and tls.key_file (or --tls-cert-file and --tls-key-file); only one is set';

function readPem(file: string, what: string): Buffer {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw invalid(`cannot read TLS ${what} ${file}: ${(error as Error).message}`);
  }
  if (!stat.isFile()) throw invalid(`cannot read TLS ${what} ${file}: not a regular file`);
  if (stat.size > MAX_PEM_BYTES) throw invalid(`TLS ${what} ${file} is larger than 1 MiB`);
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw invalid(`cannot read TLS ${what} ${file}: ${(error as Error).message}`);
  }
}

/** Node also accepts DER; the setting is documented as PEM, so insist on the armour. */
function parseCertificate(pem: Buffer, certFile: string): X509Certificate {
  const fail = () => invalid(`TLS certificate ${certFile} is not a valid PEM certificate (expected -----BEGIN CERTIFICATE-----)`);
  if (!pem.toString('latin1').includes('-----BEGIN CERTIFICATE-----')) throw fail();
  try {
    return new X509Certificate(pem);
  } catch {
    throw fail();
  }
}

function parsePrivateKey(pem: Buffer, keyFile: string): KeyObject {
  const text = pem.toString('latin1');
  if (text.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----') || /Proc-Type: 4,ENCRYPTED/.test(text)) {
    throw invalid(`TLS key ${keyFile} is encrypted; svc-server needs an unencrypted PEM private key`);
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) throw invalid(`TLS key ${keyFile} is not a valid PEM private key (expected -----BEGIN PRIVATE KEY-----)`);
  try {
    return createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw invalid(`TLS key ${keyFile} is not a valid PEM private key`);
  }
}

const spki = (key: KeyObject) => key.export({ type: 'spki', format: 'der' });

export function loadTls(certFile: string | null, keyFile: string | null): { certFile: string; keyFile: string; cert: Buffer; key: Buffer } | null {
  if (certFile === null && keyFile === null) return null;
  if (certFile === null || keyFile === null) throw invalid(PARTIAL_TLS_MESSAGE);
  const cert = readPem(certFile, 'certificate');
  const key = readPem(keyFile, 'key');
  const certificate = parseCertificate(cert, certFile);
  const privateKey = parsePrivateKey(key, keyFile);
  if (!spki(certificate.publicKey).equals(spki(createPublicKey(privateKey)))) {
    throw invalid(`TLS key ${keyFile} does not match the certificate ${certFile} (their public keys differ)`);
  }
  return { certFile, keyFile, cert, key };
}

/** Health check: only the certificate (its public key) is needed; the key file is never read. */
export function readCertificateForProbe(certFile: string): Buffer {
  const cert = readPem(certFile, 'certificate');
  parseCertificate(cert, certFile);
  return cert;
}
