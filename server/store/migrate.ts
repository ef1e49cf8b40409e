import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';

/** The folder of `NNNN-name.sql` files, next to this module in both src and dist. */
export const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** One forward-only migration: `version` is its NNNN prefix. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Reads the migrations from `dir`, ordered by version; versions must be 1, 2, 3 … without gaps. */
export function loadMigrations(dir: string = migrationsDir): Migration[] {
  const files = fs.readdirSync(dir).filter((f) => /^\d{4}-[a-z0-9-]+\.sql$/.test(f)).sort();
  return files.map((file, i) => {
    const version = Number(file.slice(0, 4));
    if (version !== i + 1) throw new Error(`migration ${file}: expected version ${i + 1}`);
    return { version, name: file.slice(5, -4), sql: fs.readFileSync(path.join(dir, file), 'utf8') };
  });
}

/** Thrown when the database was written by a newer Pushhub than this one. */
export class DatabaseTooNewError extends Error {
  override readonly name = 'DatabaseTooNewError';
}

/**
 * Brings the database to the newest schema, one transaction per migration, recording the
 * version in `PRAGMA user_version`. Migrations only go forward.
 *
 * @returns the schema version after migrating.
 * @throws DatabaseTooNewError when `user_version` is above the newest known migration: this
 *   code would misread the data, so it refuses to touch it.
 */
export function migrate(db: Database.Database, migrations: Migration[] = loadMigrations()): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.length;
  if (current > latest) {
    throw new DatabaseTooNewError(
      `the database is at schema version ${current}, but this Pushhub knows only up to ${latest}; ` +
        'upgrade Pushhub or point it at another data directory',
    );
  }
  for (const m of migrations.slice(current)) {
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return latest;
}
