import { ulid } from 'ulid';
import type { Db } from './db.js';
import type { Clock } from '../domain/clock.js';
import { apiKeyPrefix, hashApiKey, newApiKey } from '../domain/keys.js';

/** A sender app. The API key itself is never stored; `keyPrefix` tells keys apart. */
export interface AppRecord {
  id: string;
  name: string;
  keyPrefix: string;
  createdAt: number;
  lastUsedAt: number | null;
}

interface AppRow {
  id: string;
  name: string;
  key_prefix: string;
  created_at: number;
  last_used_at: number | null;
}

const toRecord = (r: AppRow): AppRecord => ({
  id: r.id,
  name: r.name,
  keyPrefix: r.key_prefix,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});

/** Apps and their API keys (stored as SHA-256 hashes only). */
export type AppStore = ReturnType<typeof createAppStore>;

/** Builds the app store over an open database. */
export function createAppStore(db: Db, clock: Clock) {
  const insert = db.prepare(
    'INSERT INTO apps (id, name, key_hash, key_prefix, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const selectAll = db.prepare<[], AppRow>('SELECT * FROM apps ORDER BY created_at, id');
  const selectById = db.prepare<[string], AppRow>('SELECT * FROM apps WHERE id = ?');
  const selectByHash = db.prepare<[Buffer], AppRow>('SELECT * FROM apps WHERE key_hash = ?');
  const updateKey = db.prepare('UPDATE apps SET key_hash = ?, key_prefix = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM apps WHERE id = ?');
  const touch = db.prepare('UPDATE apps SET last_used_at = ? WHERE id = ?');

  // POST /v1/push looks the key up on every request: remember the answers (the hash is the
  // costly part). Every change of keys goes through this store, which forgets them all.
  const byKey = new Map<string, AppRecord>();
  const KEY_CACHE_SIZE = 1000;

  return {
    /** Creates an app and its first API key; the key is returned here and never again. */
    create(name: string): { app: AppRecord; apiKey: string } {
      const apiKey = newApiKey();
      const row: AppRow = { id: ulid(), name, key_prefix: apiKeyPrefix(apiKey), created_at: clock.now(), last_used_at: null };
      insert.run(row.id, row.name, hashApiKey(apiKey), row.key_prefix, row.created_at);
      return { app: toRecord(row), apiKey };
    },
    list(): AppRecord[] {
      return selectAll.all().map(toRecord);
    },
    get(id: string): AppRecord | undefined {
      const row = selectById.get(id);
      return row && toRecord(row);
    },
    /** The app whose API key this is, or undefined (unknown, rotated away or deleted). */
    findByApiKey(apiKey: string): AppRecord | undefined {
      const known = byKey.get(apiKey);
      if (known) return known;
      const row = selectByHash.get(hashApiKey(apiKey));
      if (!row) return undefined;
      if (byKey.size >= KEY_CACHE_SIZE) byKey.clear();
      const app = toRecord(row);
      byKey.set(apiKey, app);
      return app;
    },
    /** Replaces the app's key; the old key stops working at once. Undefined if no such app. */
    rotateKey(id: string): string | undefined {
      const apiKey = newApiKey();
      const changed = updateKey.run(hashApiKey(apiKey), apiKeyPrefix(apiKey), id).changes;
      byKey.clear(); // the old key stops working at once
      return changed ? apiKey : undefined;
    },
    /** Deletes the app (revoking its key); its notifications stay in history. */
    delete(id: string): boolean {
      byKey.clear(); // the key is revoked at once
      return remove.run(id).changes > 0;
    },
    /** Records that the app just sent (ms). */
    touch(id: string, at: number): void {
      touch.run(at, id);
    },
  };
}
