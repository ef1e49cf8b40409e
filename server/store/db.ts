import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrate.js';

/** An open better-sqlite3 connection. */
export type Db = Database.Database;

/** Options for {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** `PRAGMA synchronous`; FULL (the default) survives power loss after every commit. */
  synchronous?: 'FULL' | 'NORMAL';
  /** Milliseconds a writer waits for a lock before SQLITE_BUSY (default 5000). */
  busyTimeoutMs?: number;
}

/** The database file inside a data directory. */
export function databasePath(dataDir: string): string {
  return path.join(dataDir, 'pushhub.db');
}

/**
 * Opens (creating if needed) the hub's database in `dataDir`, sets the pragmas in one place
 * (WAL, foreign keys, busy timeout, synchronous) and migrates it to the current schema.
 *
 * @throws Error when the database was written by a newer Pushhub (see {@link migrate}).
 */
export function openDatabase(dataDir: string, options: OpenDatabaseOptions = {}): Db {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(databasePath(dataDir));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
    db.pragma(`synchronous = ${options.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
    migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
