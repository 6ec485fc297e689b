// The sealed secret store: one file per secret, AES-256-GCM with
// the 32-byte store key, a fresh nonce per write and the key name as associated data (a
// file renamed to another key fails to open). Values go in and never come back out
// through the API; only the server reads them (`get`).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const FORMAT_VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_CHECK_FILE = '.key-check';
const KEY_CHECK_NAME = '.key-check';
const KEY_CHECK_VALUE = 'svc secret store key check';
/** Keys under this prefix hold MCP OAuth credentials: written by the server, never by the API. */
export const RESERVED_PREFIX = 'mcp_oauth/';
const SEALED_FILE = /^[0-9a-f]+$/;

export const KEY_MISMATCH_MESSAGE = 'the secret store key does not match the stored secrets; restore the original key';
export const NO_STORE_MESSAGE = 'no secret store is configured on this server (set secret_store.key_file, or the variable named by secret_store.key_env, default SVC_SECRET_KEY)';

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

/** Server-internal access to the reserved `mcp_oauth/` keys. */
export interface KeyAccess {
  allowReserved?: boolean;
}

/** Why a store key is not acceptable, or null (1–256 bytes of A–Z a–z 0–9 _ - . /, no empty/./.. segment, no reserved prefix). */
export function storeKeyProblem(key: string, options: KeyAccess = {}): string | null {
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes < 1 || bytes > 256) return 'a secret key is 1 to 256 bytes long';
  if (!/^[A-Za-z0-9_./-]+$/.test(key)) return 'a secret key uses only letters, digits, `_`, `-`, `.` and `/`';
  if (key.startsWith('/') || key.endsWith('/')) return 'a secret key must not start or end with `/`';
  if (key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) return 'a secret key must not have an empty, `.` or `..` segment';
  if (!options.allowReserved && key.startsWith(RESERVED_PREFIX)) return `the prefix \`${RESERVED_PREFIX}\` is reserved for MCP OAuth credentials`;
  return null;
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export class SecretStore {
  /**
   * @param directory `secret_store.dir`; created (0700) on first write.
   * @param key the 32-byte store key, or null when the store is off.
   */
  constructor(
    private readonly directory: string,
    private readonly key: Buffer | null,
  ) {
    if (key !== null && key.length !== 32) throw new SecretStoreError('internal_error', 'the secret store key must be exactly 32 bytes');
  }

  get enabled(): boolean {
    return this.key !== null;
  }

  /**
   * At boot: the key must open the key-check entry written by the first use. Leftover
   * temporary files of an interrupted write are removed.
   */
  verifyKey(): void {
    if (!this.key || !fs.existsSync(this.directory)) return;
    this.removeInterruptedWrites();
    const file = path.join(this.directory, KEY_CHECK_FILE);
    if (!fs.existsSync(file)) return;
    let opened: string | null = null;
    try {
      opened = this.open(KEY_CHECK_NAME, fs.readFileSync(file));
    } catch {
      opened = null;
    }
    if (opened !== KEY_CHECK_VALUE) throw new SecretStoreError('key_mismatch', KEY_MISMATCH_MESSAGE);
  }

  /** Creates or overwrites a value. */
  put(name: string, value: string, access: KeyAccess = {}): void {
    this.requireKey();
    this.checkName(name, access);
    if (value === '') throw new SecretStoreError('invalid_value', `the value for secret '${name}' is empty; send a non-empty value`);
    this.ensureDirectory();
    this.writeAtomically(this.fileOf(name), this.seal(name, value));
  }

  delete(name: string, access: KeyAccess = {}): void {
    this.requireKey();
    this.checkName(name, access);
    try {
      fs.rmSync(this.fileOf(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SecretStoreError('not_found', `secret '${name}' is not stored`);
      throw error;
    }
  }

  /** Whether a value is stored for `name`; false when the store is off or the name is not a valid key. */
  has(name: string, access: KeyAccess = {}): boolean {
    if (this.key === null || storeKeyProblem(name, access) !== null) return false;
    return fs.existsSync(this.fileOf(name));
  }

  /** Keys only, byte-sorted; reserved OAuth entries are not listed. */
  list(prefix = ''): string[] {
    this.requireKey();
    if (!fs.existsSync(this.directory)) return [];
    return fs
      .readdirSync(this.directory)
      .filter((file) => SEALED_FILE.test(file) && file.length % 2 === 0)
      .map((file) => Buffer.from(file, 'hex').toString('utf8'))
      .filter((name) => storeKeyProblem(name) === null && name.startsWith(prefix))
      .sort(byteOrder);
  }

  /**
   * The value, for the server's own use (auth proxy, packages, MCP, models); undefined when
   * none is stored or the store is off. Never sent to a client.
   */
  get(name: string, access: KeyAccess = {}): string | undefined {
    if (!this.has(name, access)) return undefined;
    let sealed: Buffer;
    try {
      sealed = fs.readFileSync(this.fileOf(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      return this.open(name, sealed);
    } catch (error) {
      if (error instanceof SecretStoreError) throw error;
      throw new SecretStoreError('internal_error', `sealed secret '${name}' cannot be opened: the file was altered, renamed or sealed with another key`);
    }
  }

  /** @deprecated use `get`; kept while callers move over. */
  reveal(name: string): string | undefined {
    return this.get(name);
  }

  private requireKey(): Buffer {
    if (!this.key) throw new SecretStoreError('no_secret_store', NO_STORE_MESSAGE);
    return this.key;
  }

  private checkName(name: string, access: KeyAccess): void {
    const problem = storeKeyProblem(name, access);
    if (problem) throw new SecretStoreError('invalid_key', `invalid secret key '${name}': ${problem}`);
  }

  private fileOf(name: string): string {
    return path.join(this.directory, Buffer.from(name, 'utf8').toString('hex'));
  }

  private ensureDirectory(): void {
    if (!fs.existsSync(this.directory)) {
      fs.mkdirSync(this.directory, { recursive: true, mode: 0o700 });
      fs.chmodSync(this.directory, 0o700);
    }
    const check = path.join(this.directory, KEY_CHECK_FILE);
    if (!fs.existsSync(check)) this.writeAtomically(check, this.seal(KEY_CHECK_NAME, KEY_CHECK_VALUE));
  }

  private removeInterruptedWrites(): void {
    for (const file of fs.readdirSync(this.directory)) {
      if (file.endsWith('.tmp')) fs.rmSync(path.join(this.directory, file), { force: true });
    }
  }

  private seal(name: string, value: string): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.requireKey(), nonce);
    cipher.setAAD(Buffer.from(name, 'utf8'));
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([FORMAT_VERSION]), nonce, body, cipher.getAuthTag()]);
  }

  private open(name: string, sealed: Buffer): string {
    if (sealed.length < 1 + NONCE_BYTES + TAG_BYTES || sealed[0] !== FORMAT_VERSION) {
      throw new SecretStoreError('internal_error', `sealed secret '${name}' has an unknown format (expected version ${FORMAT_VERSION})`);
    }
    const decipher = createDecipheriv('aes-256-gcm', this.requireKey(), sealed.subarray(1, 1 + NONCE_BYTES));
    decipher.setAAD(Buffer.from(name, 'utf8'));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(1 + NONCE_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  }

  /** Temp file, fsync, rename, then fsync the directory so the rename itself is durable. */
  private writeAtomically(target: string, content: Buffer): void {
    const temporary = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const fd = fs.openSync(temporary, 'wx', 0o600);
    try {
      fs.writeSync(fd, content);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.renameSync(temporary, target);
    } catch (error) {
      fs.rmSync(temporary, { force: true });
      throw error;
    }
    this.syncDirectory();
  }

  private syncDirectory(): void {
    let fd: number | null = null;
    try {
      fd = fs.openSync(this.directory, 'r');
      fs.fsyncSync(fd);
    } catch (error) {
      // Some file systems refuse fsync on a directory; the rename has still happened.
      if (!['EISDIR', 'EINVAL', 'EPERM', 'EBADF'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    } finally {
      if (fd !== null) fs.closeSync(fd);
    }
  }
}
