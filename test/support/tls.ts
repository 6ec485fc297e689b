// Test certificates made with openssl at test time: a self-signed one, or a throw-away CA
// and server certificates it signs (for stand-ins under real host names).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

export function selfSignedCertificate(dir: string, name = 'server'): { certFile: string; keyFile: string } {
  const certFile = path.join(dir, `${name}.crt`);
  const keyFile = path.join(dir, `${name}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', keyFile, '-out', certFile], {
    stdio: 'ignore',
  });
  return { certFile, keyFile };
}

export interface TestCa {
  /** PEM file of the CA certificate: give it to the server under test as NODE_EXTRA_CA_CERTS. */
  certFile: string;
  keyFile: string;
  dir: string;
}

/** A throw-away certificate authority (P-256, one day) in `dir`. */
export function testCertificateAuthority(dir: string): TestCa {
  const certFile = path.join(dir, 'test-ca.crt');
  const keyFile = path.join(dir, 'test-ca.key');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=svc test CA', '-days', '1', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-keyout', keyFile, '-out', certFile],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile, dir };
}

/** A server certificate for `hosts` (DNS names or IP literals) signed by `ca`. */
export function certificateFor(ca: TestCa, hosts: string[], name = 'leaf'): { certFile: string; keyFile: string } {
  const base = path.join(ca.dir, `${name}-${Math.random().toString(36).slice(2, 10)}`);
  const [certFile, keyFile, csrFile, extFile] = ['.crt', '.key', '.csr', '.ext'].map((ext) => base + ext);
  const san = hosts.map((h) => (/^[0-9.]+$|:/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
  writeFileSync(extFile, `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`);
  execFileSync('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', `/CN=${hosts[0]}`, '-keyout', keyFile, '-out', csrFile], { stdio: 'ignore' });
  execFileSync('openssl', ['x509', '-req', '-in', csrFile, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-CAcreateserial', '-days', '1', '-extfile', extFile, '-out', certFile], { stdio: 'ignore' });
  return { certFile, keyFile };
}
