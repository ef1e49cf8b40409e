import type { Db } from './db.js';

/** Names of the operator settings kept in the `settings` table. */
export type SettingKey = 'apns' | 'fcm' | 'webpush';

/** Operator settings (push service credentials), one JSON value per key. Values may hold secrets: never log them. */
export type SettingsStore = ReturnType<typeof createSettingsStore>;

/** Builds the settings store over an open database. */
export function createSettingsStore(db: Db) {
  const select = db.prepare<[string], string>('SELECT value FROM settings WHERE key = ?').pluck();
  const upsert = db.prepare(
    'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  );
  const remove = db.prepare('DELETE FROM settings WHERE key = ?');
  return {
    /** The stored value, or undefined. The caller validates its shape. */
    get<T>(key: SettingKey): T | undefined {
      const raw = select.get(key);
      return raw === undefined ? undefined : (JSON.parse(raw) as T);
    },
    set(key: SettingKey, value: unknown): void {
      upsert.run(key, JSON.stringify(value));
    },
    delete(key: SettingKey): boolean {
      return remove.run(key).changes > 0;
    },
  };
}
