// Public API of the SQLite store.
export { openDatabase, closeDatabase, migrations, DatabaseError, type Migration } from './database';
export type { Database } from 'better-sqlite3';
