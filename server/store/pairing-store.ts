import type { Clock } from '../domain/clock.js';
import { hashSecret, newSessionToken } from '../domain/keys.js';
import type { Db } from './db.js';

/** How long an expired or used pairing token is kept so a late second use still reads "used"/"expired" (ms, one day). */
const KEEP_AFTER_EXPIRY_MS = 24 * 3600 * 1000;

/**
 * What redeeming a pairing token found:
 * - `ok`: it was live and is now used; `userId` is the account to sign in;
 * - `used`: it was redeemed before (links work once);
 * - `expired`: it is past its `expiresAt`;
 * - `unknown`: the hub never issued it, it was purged, or its user was deleted.
 */
export type RedeemResult = { status: 'ok'; userId: string } | { status: 'used' | 'expired' | 'unknown' };

/** One-time pairing tokens (migration 0002): only their SHA-256 is stored. */
export type PairingStore = ReturnType<typeof createPairingStore>;

/** Builds the pairing store over an open, migrated database. */
export function createPairingStore(db: Db, clock: Clock) {
  const insert = db.prepare('INSERT INTO pairing_tokens (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)');
  const purge = db.prepare('DELETE FROM pairing_tokens WHERE expires_at <= ?');
  const select = db.prepare<[Buffer], { user_id: string; expires_at: number; used_at: number | null }>(
    'SELECT user_id, expires_at, used_at FROM pairing_tokens WHERE token_hash = ?',
  );
  const markUsed = db.prepare('UPDATE pairing_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL');

  return {
    /**
     * Issues a token for `userId` valid for `ttlMs` milliseconds and returns it (shown once, in
     * the link) with its expiry (ms since the epoch). Purges tokens expired for over a day.
     */
    create(userId: string, ttlMs: number): { token: string; expiresAt: number } {
      const token = newSessionToken();
      const now = clock.now();
      purge.run(now - KEEP_AFTER_EXPIRY_MS);
      insert.run(hashSecret(token), userId, now, now + ttlMs);
      return { token, expiresAt: now + ttlMs };
    },
    /**
     * Uses up a token: at most one caller ever gets `ok` for it (the check and the update are
     * one write transaction). See {@link RedeemResult}.
     */
    redeem(token: string): RedeemResult {
      const hash = hashSecret(token);
      return db.transaction((): RedeemResult => {
        const row = select.get(hash);
        if (!row) return { status: 'unknown' };
        if (row.used_at !== null) return { status: 'used' };
        const now = clock.now();
        if (row.expires_at <= now) return { status: 'expired' };
        markUsed.run(now, hash);
        return { status: 'ok', userId: row.user_id };
      }).immediate();
    },
  };
}
