// The sealed secret store (server-operations §2.7): one file per secret, AES-256-GCM with
// the 32-byte store key, a fresh nonce per write and the key name as associated data (a
// file renamed to another key fails to open). Values go in and never come back out
// through the API; only the server reads them (`reveal`).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const VERSION = 1;
const KEY_CHECK = '.key-check';
const KEY_CHECK_VALUE = 'svc secret store key check';
const RESERVED_PREFIX = 'mcp_oauth/';

export type SecretStoreErrorCode = 'no_secret_store' | 'invalid_key' | 'invalid_value' | 'not_found' | 'key_mismatch' | 'internal_error';

export class SecretStoreError extends Error {
  constructor(
    readonly code: SecretStoreErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SecretStoreError';
  }
}

/** Why a store key is not acceptable, or null (1–256 bytes of A–Z a–z 0–9 _ - . /, no empty/./.. segment, no reserved prefix). */
export function storeKeyProblem(key: string, options: { allowReserved?: boolean } = {}): string | null {
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes < 1 || bytes > 256) return 'a secret key is 1 to 256 bytes long';
  if (!/^[A-Za-z0-9_.\/-]+$/.test(key)) return 'a secret key uses only letters, digits, `_`, `-`, `.` and `/`';
  if (key.startsWith('/') || key.endsWith('/')) return 'a secret key must not start or end with `/`';
  if (key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) return 'a secret key must not have an empty, `.` or `..` segment';
  if (!options.allowReserved && key.startsWith(RESERVED_PREFIX)) return `the prefix \`${RESERVED_PREFIX}\` is reserved for MCP OAuth credentials`;
  return null;
}

export class SecretStore {
  constructor(
    private readonly directory: string,
    private readonly key: Buffer | null,
  ) {}

  get enabled(): boolean {
    return this.key !== null;
  }

  private requireKey(): Buffer {
    if (!this.key) throw new SecretStoreError('no_secret_store', 'no secret store is configured on this server (set secret_store.key_file or SVC_SECRET_KEY)');
    return this.key;
  }

  private fileOf(name: string): string {
    return path.join(this.directory, Buffer.from(name, 'utf8').toString('hex'));
  }

  /** At boot: the key must open the key-check entry written by the first use. */
  verifyKey(): void {
    if (!this.key) return;
    const file = path.join(this.directory, KEY_CHECK);
    if (!fs.existsSync(file)) return;
    try {
      if (this.open(KEY_CHECK, fs.readFileSync(file)) !== KEY_CHECK_VALUE) throw new Error('mismatch');
    } catch {
      throw new SecretStoreError('key_mismatch', 'the secret store key does not match the stored secrets; restore the original key');
    }
  }

  put(name: string, value: string): void {
    this.requireKey();
    const problem = storeKeyProblem(name);
    if (problem) throw new SecretStoreError('invalid_key', `invalid secret key '${name}': ${problem}`);
    if (value === '') throw new SecretStoreError('invalid_value', 'a secret value must not be empty');
    this.ensureDirectory();
    this.writeAtomically(this.fileOf(name), this.seal(name, value));
  }

  delete(name: string): void {
    this.requireKey();
    const problem = storeKeyProblem(name);
    if (problem) throw new SecretStoreError('invalid_key', `invalid secret key '${name}': ${problem}`);
    const file = this.fileOf(name);
    if (!fs.existsSync(file)) throw new SecretStoreError('not_found', `secret '${name}' is not stored`);
    fs.rmSync(file);
  }

  has(name: string): boolean {
    return this.key !== null && fs.existsSync(this.fileOf(name));
  }

  /** Keys only, byte-sorted; reserved OAuth entries are not listed. */
  list(prefix = ''): string[] {
    this.requireKey();
    if (!fs.existsSync(this.directory)) return [];
    return fs
      .readdirSync(this.directory)
      .filter((file) => /^[0-9a-f]+$/.test(file))
      .map((file) => Buffer.from(file, 'hex').toString('utf8'))
      .filter((name) => !name.startsWith(RESERVED_PREFIX) && name.startsWith(prefix))
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  }

  /** The value, for the server's own use (auth proxy, packages). Never sent to a client. */
  reveal(name: string): string | undefined {
    if (!this.key || !this.has(name)) return undefined;
    return this.open(name, fs.readFileSync(this.fileOf(name)));
  }

  private ensureDirectory(): void {
    fs.mkdirSync(this.directory, { recursive: true, mode: 0o700 });
    const check = path.join(this.directory, KEY_CHECK);
    if (!fs.existsSync(check)) this.writeAtomically(check, this.seal(KEY_CHECK, KEY_CHECK_VALUE));
  }

  private seal(name: string, value: string): Buffer {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.requireKey(), nonce);
    cipher.setAAD(Buffer.from(name, 'utf8'));
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), nonce, body, cipher.getAuthTag()]);
  }

  private open(name: string, sealed: Buffer): string {
    if (sealed.length < 1 + 12 + 16 || sealed[0] !== VERSION) throw new SecretStoreError('internal_error', `sealed secret '${name}' has an unknown format`);
    const decipher = createDecipheriv('aes-256-gcm', this.requireKey(), sealed.subarray(1, 13));
    decipher.setAAD(Buffer.from(name, 'utf8'));
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    return Buffer.concat([decipher.update(sealed.subarray(13, sealed.length - 16)), decipher.final()]).toString('utf8');
  }

  private writeAtomically(target: string, content: Buffer): void {
    const temporary = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const fd = fs.openSync(temporary, 'w', 0o600);
    try {
      fs.writeSync(fd, content);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, target);
  }
}
