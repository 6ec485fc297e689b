// The SQLite store: pragmas, the single-server lock (in this process and from another
// process), migrations by user_version, and the checkpoint on close.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { applyMigrations, closeDatabase, commitWithoutFsync, DatabaseError, migrations, openDatabase, schemaVersion } from '../../../src/store';
import { tempDir } from '../../support/temp-dirs';

function tempDatabase(): string {
  const dir = tempDir('svc-');
  return path.join(dir, 'nested', 'state', 'svc.sqlite');
}

test('opening creates the parent directory and sets WAL, synchronous=FULL, foreign keys and a busy timeout', () => {
  const file = tempDatabase();
  const db = openDatabase(file);
  try {
    assert.ok(fs.existsSync(path.dirname(file)));
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(db.pragma('synchronous', { simple: true }), 2);
    assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
    assert.equal(db.pragma('busy_timeout', { simple: true }), 5000);
    assert.equal(db.pragma('locking_mode', { simple: true }), 'exclusive');
    assert.equal(db.pragma('cache_size', { simple: true }), -4096, 'a page cache of 4 MiB (database_cache_size), not better-sqlite3\'s 16');
    assert.equal(schemaVersion(db), migrations.length);
  } finally {
    closeDatabase(db);
  }
});

test('database_cache_size sets the page cache in KiB', () => {
  const db = openDatabase(tempDatabase(), migrations, 1.5);
  try {
    assert.equal(db.pragma('cache_size', { simple: true }), -1536);
  } finally {
    closeDatabase(db);
  }
});

test('a second open of the same file fails naming the path; after close it opens again (bench/latencies.ts times the refusal)', () => {
  const file = tempDatabase();
  const first = openDatabase(file);
  assert.throws(
    () => openDatabase(file),
    (error: unknown) => error instanceof DatabaseError && error.code === 'database_in_use' && error.message === `database ${file} is already in use by another server`,
  );
  closeDatabase(first);
  closeDatabase(openDatabase(file));
});

test('another process cannot open a database this process holds', () => {
  const file = tempDatabase();
  const db = openDatabase(file);
  try {
    const script = `import('better-sqlite3').then(({ default: D }) => { const db = new D(${JSON.stringify(file)}, { timeout: 0 }); try { db.prepare('SELECT count(*) FROM blueprints').get(); console.log('read'); } catch (e) { console.log(e.code); } })`;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: process.cwd() });
    assert.match(child.stdout, /SQLITE_BUSY/, child.stderr);
  } finally {
    closeDatabase(db);
  }
});

test('migrations run once, in order, each bumping user_version; reopening applies only new ones', () => {
  const file = tempDatabase();
  const first = [{ name: 'one', sql: 'CREATE TABLE one (id INTEGER PRIMARY KEY);' }];
  const db = openDatabase(file, first);
  assert.equal(schemaVersion(db), 1);
  closeDatabase(db);
  const second = [...first, { name: 'two', sql: 'CREATE TABLE two (id INTEGER PRIMARY KEY); INSERT INTO two VALUES (7);' }];
  const again = openDatabase(file, second);
  try {
    assert.equal(schemaVersion(again), 2);
    assert.deepEqual(again.prepare('SELECT id FROM two').all(), [{ id: 7 }]);
    applyMigrations(again, second);
    assert.equal((again.prepare('SELECT count(*) AS n FROM two').get() as { n: number }).n, 1);
  } finally {
    closeDatabase(again);
  }
});

test('a failing migration names itself and leaves the version where it was', () => {
  const db = openDatabase(':memory:', []);
  try {
    assert.throws(() => applyMigrations(db, [{ name: 'broken table', sql: 'CREATE TABLE x (;' }]), (error: unknown) => error instanceof DatabaseError && error.code === 'migration_failed' && /migration 1 \(broken table\)/.test(error.message));
    assert.equal(schemaVersion(db), 0);
  } finally {
    closeDatabase(db);
  }
});

test('a database from a newer server is refused', () => {
  const file = tempDatabase();
  const db = openDatabase(file);
  db.pragma(`user_version = ${migrations.length + 5}`);
  closeDatabase(db);
  assert.throws(() => openDatabase(file), (error: unknown) => error instanceof DatabaseError && error.code === 'database_too_new');
});

test(':memory: is accepted and holds the Blueprint tables with the revision foreign key', () => {
  const db = openDatabase(':memory:');
  try {
    assert.throws(() => db.prepare('INSERT INTO blueprints (name, current_revision) VALUES (?, ?)').run('x', 1), /FOREIGN KEY/);
  } finally {
    closeDatabase(db);
  }
});

test('close checkpoints the WAL into the database file', () => {
  const file = tempDatabase();
  const db = openDatabase(file);
  db.prepare('INSERT INTO blueprint_revisions (name, revision, yaml, created_at_ms) VALUES (?, ?, ?, ?)').run('a', 1, 'name: a\n', 0);
  closeDatabase(db);
  const wal = `${file}-wal`;
  assert.ok(!fs.existsSync(wal) || fs.statSync(wal).size === 0, 'the WAL still holds pages');
  closeDatabase(db);
});

test('commitWithoutFsync commits one transaction with synchronous=NORMAL and puts FULL back, also when the work throws (rolled back)', () => {
  const db = openDatabase(tempDatabase());
  try {
    db.exec('CREATE TABLE t (n INTEGER)');
    const seen = commitWithoutFsync(db, () => {
      db.prepare('INSERT INTO t (n) VALUES (1)').run();
      return { inTransaction: db.inTransaction, synchronous: db.pragma('synchronous', { simple: true }) };
    });
    assert.deepEqual(seen, { inTransaction: true, synchronous: 1 });
    assert.equal(db.pragma('synchronous', { simple: true }), 2);
    assert.throws(() =>
      commitWithoutFsync(db, () => {
        db.prepare('INSERT INTO t (n) VALUES (2)').run();
        throw new Error('no');
      }),
    );
    assert.equal(db.pragma('synchronous', { simple: true }), 2);
    assert.deepEqual(db.prepare('SELECT n FROM t').all(), [{ n: 1 }]);
    // Whatever level the connection was at comes back (the statements are kept per connection).
    db.pragma('synchronous = OFF');
    assert.equal(commitWithoutFsync(db, () => db.pragma('synchronous', { simple: true })), 1);
    assert.equal(db.pragma('synchronous', { simple: true }), 0);
  } finally {
    closeDatabase(db);
  }
});
