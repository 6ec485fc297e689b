// Public API of the SQLite store: open (lock + migrate), close, and the migration list
// later capabilities append to.
export { openDatabase, closeDatabase, applyMigrations, schemaVersion, migrations, commitWithoutFsync, DatabaseError, type Migration, type DatabaseErrorCode } from './database';
export type { Database } from 'better-sqlite3';
