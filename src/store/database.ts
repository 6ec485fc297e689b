// The server's one SQLite connection (server-operations §5.2): WAL, synchronous=FULL,
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
 * In order; a migration's version is its 1-based position. Never edit a shipped one.
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

export class DatabaseError extends Error {}

/** Opens (creating the parent directory), locks and migrates the database. */
export function openDatabase(file: string): Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let db: Database;
  try {
    db = new BetterSqlite3(file, { timeout: 5000 });
  } catch (error) {
    throw new DatabaseError(`cannot open database ${file}: ${(error as Error).message}`);
  }
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('locking_mode = EXCLUSIVE');
    // Take the lock now: a write transaction holds it for the life of the connection.
    db.exec('BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS svc_lock (id INTEGER PRIMARY KEY); COMMIT;');
  } catch (error) {
    db.close();
    if (/locked|busy/i.test((error as Error).message)) throw new DatabaseError(`database ${file} is already in use by another server`);
    throw new DatabaseError(`cannot open database ${file}: ${(error as Error).message}`);
  }
  migrate(db);
  return db;
}

function migrate(db: Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let version = current + 1; version <= migrations.length; version++) {
    const migration = migrations[version - 1];
    try {
      db.transaction(() => {
        db.exec(migration.sql);
        db.pragma(`user_version = ${version}`);
      }).immediate();
    } catch (error) {
      throw new DatabaseError(`database migration ${version} (${migration.name}) failed: ${(error as Error).message}`);
    }
  }
}

/** Checkpoints the WAL and closes (shutdown). */
export function closeDatabase(db: Database): void {
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
