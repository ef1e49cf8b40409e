import { ulid } from 'ulid';
import type { Db } from './db.js';
import type { Clock } from '../domain/clock.js';
import { HubError } from '../domain/errors.js';
import { newUserKey } from '../domain/keys.js';

/** A receiver account (spec: addressed by its User Key). */
export interface UserRecord {
  id: string;
  name: string;
  username: string;
  userKey: string;
  createdAt: number;
}

interface UserRow {
  id: string;
  name: string;
  username: string;
  password_hash: string;
  user_key: string;
  created_at: number;
}

const toRecord = (r: UserRow): UserRecord => ({
  id: r.id,
  name: r.name,
  username: r.username,
  userKey: r.user_key,
  createdAt: r.created_at,
});

/** Receiver accounts. Passwords arrive already hashed (argon2id, see domain/passwords.ts). */
export type UserStore = ReturnType<typeof createUserStore>;

/** Builds the user store over an open database. */
export function createUserStore(db: Db, clock: Clock) {
  const insert = db.prepare(
    'INSERT INTO users (id, name, username, password_hash, user_key, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const selectAll = db.prepare<[], UserRow>('SELECT * FROM users ORDER BY name COLLATE NOCASE, id');
  const selectById = db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?');
  const selectByKey = db.prepare<[string], UserRow>('SELECT * FROM users WHERE user_key = ?');
  const selectByUsername = db.prepare<[string], UserRow>('SELECT * FROM users WHERE username = ?');
  const updateName = db.prepare('UPDATE users SET name = ? WHERE id = ?');
  const updatePassword = db.prepare('UPDATE users SET password_hash = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM users WHERE id = ?');

  return {
    /** @throws HubError 409 `conflict` when the username is taken (case-insensitive). */
    create(input: { name: string; username: string; passwordHash: string }): UserRecord {
      if (selectByUsername.get(input.username)) {
        throw new HubError('conflict', `the username "${input.username}" is taken`, { field: 'username' });
      }
      const row: UserRow = {
        id: ulid(),
        name: input.name,
        username: input.username,
        password_hash: input.passwordHash,
        user_key: newUserKey(),
        created_at: clock.now(),
      };
      insert.run(row.id, row.name, row.username, row.password_hash, row.user_key, row.created_at);
      return toRecord(row);
    },
    list(): UserRecord[] {
      return selectAll.all().map(toRecord);
    },
    get(id: string): UserRecord | undefined {
      const row = selectById.get(id);
      return row && toRecord(row);
    },
    findByUserKey(userKey: string): UserRecord | undefined {
      const row = selectByKey.get(userKey);
      return row && toRecord(row);
    },
    /** The account and its password hash, for sign-in. */
    findCredentials(username: string): { user: UserRecord; passwordHash: string } | undefined {
      const row = selectByUsername.get(username);
      return row && { user: toRecord(row), passwordHash: row.password_hash };
    },
    /** Applies the given changes; undefined if no such user. */
    update(id: string, changes: { name?: string; passwordHash?: string }): UserRecord | undefined {
      return db.transaction(() => {
        if (!selectById.get(id)) return undefined;
        if (changes.name !== undefined) updateName.run(changes.name, id);
        if (changes.passwordHash !== undefined) updatePassword.run(changes.passwordHash, id);
        const row = selectById.get(id);
        return row && toRecord(row);
      })();
    },
    /** Deletes the user with their devices, memberships and pending deliveries. */
    delete(id: string): boolean {
      return remove.run(id).changes > 0;
    },
  };
}
