// Durable session lifecycle records: one JSON file per open session in
// `session_store_dir`, written atomically (temp file, fsync, rename, fsync directory) so
// a crash never leaves a torn record. Harness secrets are never written here.
import fs from 'node:fs';
import path from 'node:path';

export interface SessionRecord {
  version: 1;
  session_id: string;
  blueprint: string;
  principal: string;
  /**
   * Name of the API token that opened the session and alone (with admin tokens) may use
   * it; never the token value. Absent in records written before sessions had owners:
   * those sessions answer only admin tokens.
   */
  owner?: string;
  variables: Record<string, string>;
  /** The filled `vfs` at session open (fixed for the session's life); opaque here. */
  file_area: unknown;
  created_at_ms: number;
  last_activity_ms: number;
  idle_timeout_secs: number | null;
  /** Sanitised MCP initialize parameters (no secrets) for MCP sessions. */
  mcp: unknown;
}

export type LoadedRecord = { ok: true; record: SessionRecord; file: string } | { ok: false; file: string; reason: string };

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class SessionRecordStore {
  constructor(private readonly directory: string) {}

  /** Creates the directory (at boot, after preflight). */
  prepare(): void {
    fs.mkdirSync(this.directory, { recursive: true, mode: 0o700 });
  }

  private fileFor(sessionId: string): string {
    if (!SESSION_ID.test(sessionId)) throw new Error(`not a session id: ${sessionId}`);
    return path.join(this.directory, `${sessionId}.json`);
  }

  write(record: SessionRecord): void {
    const target = this.fileFor(record.session_id);
    const temporary = path.join(this.directory, `.${record.session_id}.${process.pid}.tmp`);
    const fd = fs.openSync(temporary, 'w', 0o600);
    try {
      fs.writeSync(fd, JSON.stringify(record));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, target);
    syncDirectory(this.directory);
  }

  remove(sessionId: string): void {
    fs.rmSync(this.fileFor(sessionId), { force: true });
  }

  /** Every record file; malformed ones are reported, never thrown. */
  loadAll(): LoadedRecord[] {
    if (!fs.existsSync(this.directory)) return [];
    const out: LoadedRecord[] = [];
    for (const name of fs.readdirSync(this.directory).sort()) {
      if (name.startsWith('.') || !name.endsWith('.json')) continue;
      const file = path.join(this.directory, name);
      try {
        const record = JSON.parse(fs.readFileSync(file, 'utf8')) as SessionRecord;
        if (record.version !== 1 || typeof record.session_id !== 'string' || `${record.session_id}.json` !== name || typeof record.blueprint !== 'string') {
          out.push({ ok: false, file: name, reason: 'unexpected record shape' });
          continue;
        }
        // An owner that is not a name counts as none: the session answers admin tokens only.
        if (record.owner !== undefined && typeof record.owner !== 'string') delete record.owner;
        out.push({ ok: true, record, file: name });
      } catch (error) {
        out.push({ ok: false, file: name, reason: (error as Error).message });
      }
    }
    return out;
  }
}

function syncDirectory(directory: string): void {
  let fd: number | null = null;
  try {
    fd = fs.openSync(directory, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on directories; the rename is still atomic there.
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}
