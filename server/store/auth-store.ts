import { ulid } from 'ulid';
import type { Db } from './db.js';
import type { Clock } from '../domain/clock.js';
import { hashSecret, newSessionToken } from '../domain/keys.js';

/** Who a session belongs to: the operator (admin API) or a receiver (receiver API). */
export type SessionKind = 'admin' | 'receiver';

/** An operator account. */
export interface AdminRecord {
  id: string;
  username: string;
  createdAt: number;
}

/** Operator accounts and sign-in sessions (only SHA-256 hashes of session tokens are stored). */
export type AuthStore = ReturnType<typeof createAuthStore>;

/** Builds the auth store over an open database. */
export function createAuthStore(db: Db, clock: Clock) {
  const countAdmins = db.prepare<[], number>('SELECT count(*) FROM admins').pluck();
  const insertAdmin = db.prepare('INSERT INTO admins (id, username, password_hash, created_at) VALUES (?, ?, ?, ?)');
  const selectAdmin = db.prepare<[string], { id: string; username: string; password_hash: string; created_at: number }>(
    'SELECT * FROM admins WHERE username = ?',
  );
  const updateAdminPassword = db.prepare('UPDATE admins SET password_hash = ? WHERE id = ?');
  const selectAdminById = db.prepare<[string], { password_hash: string }>('SELECT password_hash FROM admins WHERE id = ?');
  const selectFirstAdmin = db.prepare<[], { id: string; username: string; created_at: number }>(
    'SELECT id, username, created_at FROM admins ORDER BY created_at, id LIMIT 1',
  );
  const insertSession = db.prepare(
    'INSERT INTO sessions (token_hash, kind, subject_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
  );
  const selectSession = db
    .prepare<[Buffer, SessionKind, number], string>(
      'SELECT subject_id FROM sessions WHERE token_hash = ? AND kind = ? AND expires_at > ?',
    )
    .pluck();
  const deleteSession = db.prepare('DELETE FROM sessions WHERE token_hash = ?');
  const deleteExpired = db.prepare('DELETE FROM sessions WHERE expires_at <= ?');

  return {
    adminCount(): number {
      return countAdmins.get() ?? 0;
    },
    /** Creates the operator account only if none exists yet (first-run setup); false otherwise. */
    createFirstAdmin(username: string, passwordHash: string): boolean {
      return db.transaction(() => {
        if ((countAdmins.get() ?? 0) > 0) return false;
        insertAdmin.run(ulid(), username, passwordHash, clock.now());
        return true;
      }).immediate();
    },
    findAdmin(username: string): { admin: AdminRecord; passwordHash: string } | undefined {
      const row = selectAdmin.get(username);
      return row && { admin: { id: row.id, username: row.username, createdAt: row.created_at }, passwordHash: row.password_hash };
    },
    /** The stored password hash of an operator account, or undefined. */
    adminPasswordHash(id: string): string | undefined {
      return selectAdminById.get(id)?.password_hash;
    },
    /** Replaces an operator's password hash. */
    setAdminPassword(id: string, passwordHash: string): void {
      updateAdminPassword.run(passwordHash, id);
    },
    /** The oldest operator account (the local operator of a desktop hub). */
    firstAdmin(): AdminRecord | undefined {
      const row = selectFirstAdmin.get();
      return row && { id: row.id, username: row.username, createdAt: row.created_at };
    },
    /** Starts a session valid for `ttlMs` and returns its bearer token (shown once). */
    createSession(kind: SessionKind, subjectId: string, ttlMs: number): string {
      const token = newSessionToken();
      const now = clock.now();
      deleteExpired.run(now);
      insertSession.run(hashSecret(token), kind, subjectId, now, now + ttlMs);
      return token;
    },
    /** The subject id of a live session of this kind, or undefined. */
    findSession(token: string, kind: SessionKind): string | undefined {
      return selectSession.get(hashSecret(token), kind, clock.now());
    },
    endSession(token: string): void {
      deleteSession.run(hashSecret(token));
    },
  };
}
