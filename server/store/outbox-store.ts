import type { Db } from './db.js';
import { channels, type Channel, type Platform } from './device-store.js';
import type { DeliveryJob } from '../delivery/types.js';

/**
 * A due row as an array (better-sqlite3 `raw()` mode: no object with 12 named properties per
 * row), in the order of the SELECT in `dueSql`.
 */
type DueRow = [
  id: number,
  attempts: number,
  dueAt: number,
  notificationId: string,
  deviceId: string,
  userId: string,
  platform: Platform,
  channel: Channel,
  token: string | null,
  topic: string | null,
  subscription: string | null,
  deactivatedAt: number | null,
];

interface ContentRow {
  title: string;
  body: string;
  emoji: string | null;
  image: string | null;
  url: string | null;
  created_at: number;
}

/** How stale a device's recorded last success may get before a delivery rewrites it (ms). */
export const LAST_SUCCESS_RESOLUTION_MS = 60_000;

/** Notification contents kept for the next reads (a fan-out's deliveries share one). */
const CONTENT_CACHE_SIZE = 64;

/** A position in the outbox's due order (next_attempt_at, id): where the last read stopped. */
export interface DueCursor {
  at: number;
  id: number;
}

/** A due delivery with what the dispatcher needs besides the job itself. */
export interface DueDelivery {
  job: DeliveryJob;
  /** Its place in the due order, to continue reading after it. */
  cursor: DueCursor;
  /** When its notification was accepted (ms): the age limit counts from here. */
  acceptedAt: number;
  /** The device was deactivated after this delivery was queued. */
  deviceDeactivated: boolean;
}

/**
 * The outbox as the dispatcher sees it: due deliveries, and the writes that record each send's
 * outcome. Every write is one statement or one transaction, so a crash leaves each delivery
 * either as it was (and it is sent again: at-least-once) or with its outcome recorded.
 */
export type OutboxStore = ReturnType<typeof createOutboxStore>;

/** Builds the outbox store over an open database. */
export function createOutboxStore(db: Db) {
  // The deliveries with their device; the notification's content comes from `content()`, read
  // once for all the deliveries of a fan-out instead of joined into every row.
  const dueSql = (afterCursor: boolean) =>
    `SELECT d.id, d.attempts, d.next_attempt_at, d.notification_id, v.id, v.user_id, v.platform, v.channel,
            v.token, v.topic, v.subscription, v.deactivated_at
       FROM deliveries d
       JOIN devices v ON v.id = d.device_id
      WHERE d.status = 'pending' AND d.channel = @channel AND d.next_attempt_at <= @now
            ${afterCursor ? 'AND (d.next_attempt_at, d.id) > (@afterAt, @afterId)' : ''}
      ORDER BY d.next_attempt_at, d.id
      LIMIT @limit`;
  const selectDue = db.prepare<[Record<string, unknown>], DueRow>(dueSql(false)).raw(true);
  const selectDueAfter = db.prepare<[Record<string, unknown>], DueRow>(dueSql(true)).raw(true);
  const selectContent = db.prepare<[string], ContentRow>(
    'SELECT title, body, emoji, image, url, created_at FROM notifications WHERE id = ?',
  );
  // A notification's content never changes once accepted (a deleted one takes its deliveries with it).
  const contents = new Map<string, DeliveryJob['notification']>();
  const content = (id: string): DeliveryJob['notification'] | undefined => {
    let n = contents.get(id);
    if (n) return n;
    const r = selectContent.get(id);
    if (!r) return undefined;
    n = { id, title: r.title, body: r.body, emoji: r.emoji, image: r.image, url: r.url, createdAt: r.created_at };
    if (contents.size >= CONTENT_CACHE_SIZE) contents.delete(contents.keys().next().value!);
    contents.set(id, n);
    return n;
  };
  const countPending = db.prepare<[], number>("SELECT count(*) FROM deliveries WHERE status = 'pending'").pluck();
  // Per channel, so it is one seek in the (channel, next_attempt_at) index (migration 0003).
  const selectNextDue = db
    .prepare<[Channel], number | null>("SELECT min(next_attempt_at) FROM deliveries WHERE status = 'pending' AND channel = ?")
    .pluck();
  const setDelivered = db.prepare(
    `UPDATE deliveries SET status = 'delivered', attempts = attempts + 1, provider_id = ?, last_error = NULL, updated_at = ?
      WHERE id = ? AND status = 'pending'`,
  );
  // A fan-out updates many devices, each on its own page: write a device's last success only when
  // the stored one is older than LAST_SUCCESS_RESOLUTION_MS, so bursts do not rewrite the same rows.
  const setDeviceSuccess = db.prepare(
    'UPDATE devices SET last_success_at = @now WHERE id = @id AND (last_success_at IS NULL OR last_success_at <= @now - @resolution)',
  );
  const setRetry = db.prepare(
    `UPDATE deliveries SET attempts = attempts + 1, next_attempt_at = ?, last_error = ?, updated_at = ?
      WHERE id = ? AND status = 'pending'`,
  );
  const setEnded = db.prepare(
    `UPDATE deliveries SET status = ?, attempts = attempts + ?, last_error = ?, updated_at = ?
      WHERE id = ? AND status = 'pending'`,
  );
  const deactivate = db.prepare(
    'UPDATE devices SET deactivated_at = ?, deactivated_reason = ? WHERE id = ? AND deactivated_at IS NULL',
  );
  const failPendingOfDevice = db.prepare(
    `UPDATE deliveries SET status = 'failed', last_error = ?, updated_at = ?
      WHERE device_id = ? AND status = 'pending'`,
  );
  const rescheduleDevice = db.prepare(
    `UPDATE deliveries SET next_attempt_at = ? WHERE device_id = ? AND status = 'pending' AND next_attempt_at > ?`,
  );
  const deliverDeviceUpTo = db.prepare(
    `UPDATE deliveries SET status = 'delivered', attempts = attempts + 1, last_error = NULL, updated_at = ?
      WHERE device_id = ? AND status = 'pending' AND notification_id <= ?`,
  );

  return {
    /** Runs `fn` in one transaction (nested calls become savepoints). */
    transaction(fn: () => void): void {
      db.transaction(fn)();
    },
    /**
     * Up to `limit` pending deliveries of `channel` due at `now` (ms), oldest due first; with
     * `after`, only those past that cursor (so rows already handed out are not read again).
     */
    due(channel: Channel, now: number, limit: number, after?: DueCursor): DueDelivery[] {
      const rows = after
        ? selectDueAfter.all({ channel, now, limit, afterAt: after.at, afterId: after.id })
        : selectDue.all({ channel, now, limit });
      const due: DueDelivery[] = [];
      for (const [id, attempts, dueAt, notificationId, deviceId, userId, platform, ch, token, topic, subscription, deactivatedAt] of rows) {
        const notification = content(notificationId);
        if (!notification) continue; // deleted since the read began: its deliveries went with it
        due.push({
          cursor: { at: dueAt, id },
          acceptedAt: notification.createdAt,
          deviceDeactivated: deactivatedAt !== null,
          job: {
            deliveryId: id,
            attempts,
            notification,
            device: {
              id: deviceId,
              userId,
              platform,
              channel: ch,
              token,
              topic,
              subscription: subscription === null ? null : JSON.parse(subscription),
            },
          },
        });
      }
      return due;
    },
    /** Pending deliveries in the outbox (counts the partial index: O(depth)). */
    depth(): number {
      return countPending.get() ?? 0;
    },
    /** The earliest `next_attempt_at` of any pending delivery (ms), or null when none is pending. */
    nextDueAt(): number | null {
      let next: number | null = null;
      for (const channel of channels) {
        const at = selectNextDue.get(channel) ?? null;
        if (at !== null && (next === null || at < next)) next = at;
      }
      return next;
    },
    /**
     * Records a successful send and the device's last success (to within
     * {@link LAST_SUCCESS_RESOLUTION_MS}: the console shows it as "n minutes ago"). Two statements: call it inside
     * {@link transaction} (the dispatcher records each batch of outcomes in one), so both or
     * neither are written.
     */
    delivered(deliveryId: number, deviceId: string, providerId: string | null, now: number): void {
      setDelivered.run(providerId, now, deliveryId);
      setDeviceSuccess.run({ now, id: deviceId, resolution: LAST_SUCCESS_RESOLUTION_MS });
    },
    /** Counts the attempt and schedules the next one at `at` (ms). */
    retry(deliveryId: number, at: number, reason: string, now: number): void {
      setRetry.run(at, reason, now, deliveryId);
    },
    /** Ends a delivery as `failed` or `expired`; `countAttempt` when a send was actually made. */
    end(deliveryId: number, status: 'failed' | 'expired', reason: string, now: number, countAttempt = true): void {
      setEnded.run(status, countAttempt ? 1 : 0, reason, now, deliveryId);
    },
    /**
     * The push service says the device's token is dead: deactivate the device (it stays listed,
     * marked, so the operator sees why) and fail its pending deliveries, this one included.
     */
    deactivateDevice(deviceId: string, reason: string, now: number): void {
      db.transaction(() => {
        deactivate.run(now, reason, deviceId);
        failPendingOfDevice.run(`invalid_token: ${reason}`, now, deviceId);
      })();
    },
    /** Makes a device's waiting deliveries due now (its stream connection just opened). */
    rescheduleDevice(deviceId: string, now: number): number {
      return rescheduleDevice.run(now, deviceId, now).changes;
    },
    /** Marks a device's pending deliveries of notifications up to `notificationId` delivered (replayed on reconnect). */
    deliveredUpTo(deviceId: string, notificationId: string, now: number): number {
      return deliverDeviceUpTo.run(now, deviceId, notificationId).changes;
    },
  };
}
