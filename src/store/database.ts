// The server's one SQLite connection: WAL, synchronous=FULL,
// exclusive locking so a second server on the same file fails at once, and migrations
// versioned with PRAGMA user_version. Capabilities add their tables as migrations here.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';

export interface Migration {
  /** What the migration creates, for errors. */
  name: string;
  sql: string;
}

/**
 * The schema, in order; a migration's version is its 1-based position. To add tables,
 * append one entry (never edit or reorder a shipped one: databases already at that
 * version would never see the change). Each runs in its own write transaction.
 * (The idempotency ledger creates its own table: src/sessions/ledger.ts.)
 */
export const migrations: readonly Migration[] = [
  {
    name: 'blueprints and their revisions',
    sql: `
      CREATE TABLE blueprint_revisions (
        name     TEXT    NOT NULL,
        revision INTEGER NOT NULL,
        yaml     TEXT    NOT NULL,
        created_at_ms INTEGER NOT NULL,
        PRIMARY KEY (name, revision)
      );
      CREATE TABLE blueprints (
        name             TEXT    PRIMARY KEY,
        current_revision INTEGER NOT NULL,
        FOREIGN KEY (name, current_revision) REFERENCES blueprint_revisions (name, revision)
      );`,
  },
];

export type DatabaseErrorCode = 'database_in_use' | 'database_unavailable' | 'migration_failed' | 'database_too_new';

export class DatabaseError extends Error {
  constructor(
    readonly code: DatabaseErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DatabaseError';
  }
}

const BUSY_TIMEOUT_MS = 5000;

/**
 * Default of `database_cache_size`, in megabytes: SQLite's page cache. better-sqlite3 builds
 * SQLite with 16 MB; a server's page cache grew with its run records (random ids in their
 * index) to that, +14 MiB of the server's memory over 20,000 runs (bench/PROFILE.md, round 78),
 * where a page past the cache costs one read the operating system's file cache answers.
 */
export const DEFAULT_DATABASE_CACHE_MEGABYTES = 4;

/** Opens (creating the parent directory), locks and migrates the database; its page cache is `cacheMegabytes`. */
export function openDatabase(file: string, schema: readonly Migration[] = migrations, cacheMegabytes = DEFAULT_DATABASE_CACHE_MEGABYTES): Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
  let db: Database;
  try {
    // No busy wait while taking the lock: a second server must fail at once, not after 5 s.
    db = new BetterSqlite3(file, { timeout: 0 });
  } catch (error) {
    throw new DatabaseError('database_unavailable', `cannot open database ${file}: ${(error as Error).message}`);
  }
  try {
    takeExclusiveLock(db);
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Negative: a size in KiB, not pages.
    db.pragma(`cache_size = ${-Math.round(cacheMegabytes * 1024)}`);
  } catch (error) {
    db.close();
    if (isBusy(error)) throw new DatabaseError('database_in_use', `database ${file} is already in use by another server`);
    throw new DatabaseError('database_unavailable', `cannot open database ${file}: ${(error as Error).message}`);
  }
  try {
    applyMigrations(db, schema);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Exclusive locking mode is set before WAL so the WAL index lives in process memory; the
 * write transaction right after takes the lock, which the connection then keeps until it
 * closes.
 */
function takeExclusiveLock(db: Database): void {
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('journal_mode = WAL');
  db.exec('BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS svc_lock (id INTEGER PRIMARY KEY); COMMIT;');
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || /database is locked/i.test((error as Error).message);
}

/** Brings the schema to `schema.length`, one transaction per step; refuses a newer database. */
export function applyMigrations(db: Database, schema: readonly Migration[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > schema.length) {
    throw new DatabaseError('database_too_new', `the database is at schema version ${current}, newer than this server knows (${schema.length}); use the newer server or a fresh database_path`);
  }
  for (let version = current + 1; version <= schema.length; version++) {
    const migration = schema[version - 1];
    try {
      db.transaction(() => {
        db.exec(migration.sql);
        db.pragma(`user_version = ${version}`);
      }).immediate();
    } catch (error) {
      throw new DatabaseError('migration_failed', `database migration ${version} (${migration.name}) failed: ${(error as Error).message}`);
    }
  }
}

/**
 * Runs `work` as one immediate transaction committed with synchronous=NORMAL: in WAL mode
 * the commit skips the fsync (milliseconds on the event loop on a busy disk) but stays
 * durable across a crash or restart of the process; a power loss may lose the newest
 * commits, never corrupt the file, and the next FULL commit makes them durable too. For
 * writes that are already behind what they record (write-behind, group commits).
 */
export function commitWithoutFsync<T>(db: Database, work: () => T): T {
  const commit = fsyncFreeCommitOf(db);
  const restore = commit.readSynchronous.get() as number;
  try {
    commit.setNormal.run();
    return commit.transaction.immediate(work) as T;
  } finally {
    commit.setSynchronous(restore).run();
  }
}

/**
 * What commitWithoutFsync reuses on a connection: group commits run once per event-loop
 * turn, and `db.pragma` prepares its statement on every call and `db.transaction` builds
 * a new wrapper, which cost more than the commit's own small writes.
 */
interface FsyncFreeCommit {
  readSynchronous: BetterSqlite3.Statement;
  setNormal: BetterSqlite3.Statement;
  setSynchronous(level: number): BetterSqlite3.Statement;
  transaction: BetterSqlite3.Transaction<(work: () => unknown) => unknown>;
}
const fsyncFreeCommits = new WeakMap<Database, FsyncFreeCommit>();

function fsyncFreeCommitOf(db: Database): FsyncFreeCommit {
  let commit = fsyncFreeCommits.get(db);
  if (commit) return commit;
  const levels = new Map<number, BetterSqlite3.Statement>();
  commit = {
    readSynchronous: db.prepare('PRAGMA synchronous').pluck(),
    setNormal: db.prepare('PRAGMA synchronous = NORMAL'),
    // The level read back is SQLite's own number (0-3): one statement per level seen.
    setSynchronous(level) {
      let statement = levels.get(level);
      if (!statement) {
        statement = db.prepare(`PRAGMA synchronous = ${Math.trunc(level)}`);
        levels.set(level, statement);
      }
      return statement;
    },
    transaction: db.transaction((work: () => unknown) => work()),
  };
  fsyncFreeCommits.set(db, commit);
  return commit;
}

/** The schema version the database is at. */
export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Checkpoints the WAL into the database file and closes (shutdown). */
export function closeDatabase(db: Database): void {
  if (!db.open) return;
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
