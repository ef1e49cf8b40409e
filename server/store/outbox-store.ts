import type { Db } from './db.js';
import type { Channel, Platform } from './device-store.js';
import type { DeliveryJob } from '../delivery/types.js';

interface DueRow {
  id: number;
  attempts: number;
  due_at: number;
  n_id: string;
  title: string;
  body: string;
  emoji: string | null;
  image: string | null;
  url: string | null;
  n_created_at: number;
  device_id: string;
  user_id: string;
  platform: Platform;
  channel: Channel;
  token: string | null;
  topic: string | null;
  subscription: string | null;
  deactivated_at: number | null;
}

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
  const dueSql = (afterCursor: boolean) =>
    `SELECT d.id, d.attempts, d.next_attempt_at AS due_at, n.id AS n_id, n.title, n.body, n.emoji, n.image, n.url,
            n.created_at AS n_created_at, v.id AS device_id, v.user_id, v.platform, v.channel, v.token, v.topic,
            v.subscription, v.deactivated_at
       FROM deliveries d
       JOIN notifications n ON n.id = d.notification_id
       JOIN devices v ON v.id = d.device_id
      WHERE d.status = 'pending' AND d.channel = @channel AND d.next_attempt_at <= @now
            ${afterCursor ? 'AND (d.next_attempt_at, d.id) > (@afterAt, @afterId)' : ''}
      ORDER BY d.next_attempt_at, d.id
      LIMIT @limit`;
  const selectDue = db.prepare<[Record<string, unknown>], DueRow>(dueSql(false));
  const selectDueAfter = db.prepare<[Record<string, unknown>], DueRow>(dueSql(true));
  const countPending = db.prepare<[], number>("SELECT count(*) FROM deliveries WHERE status = 'pending'").pluck();
  const selectNextDue = db
    .prepare<[], number | null>("SELECT min(next_attempt_at) FROM deliveries WHERE status = 'pending'")
    .pluck();
  const setDelivered = db.prepare(
    `UPDATE deliveries SET status = 'delivered', attempts = attempts + 1, provider_id = ?, last_error = NULL, updated_at = ?
      WHERE id = ? AND status = 'pending'`,
  );
  const setDeviceSuccess = db.prepare('UPDATE devices SET last_success_at = ? WHERE id = ?');
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
      return rows.map((r) => ({
        cursor: { at: r.due_at, id: r.id },
        acceptedAt: r.n_created_at,
        deviceDeactivated: r.deactivated_at !== null,
        job: {
          deliveryId: r.id,
          attempts: r.attempts,
          notification: {
            id: r.n_id,
            title: r.title,
            body: r.body,
            emoji: r.emoji,
            image: r.image,
            url: r.url,
            createdAt: r.n_created_at,
          },
          device: {
            id: r.device_id,
            userId: r.user_id,
            platform: r.platform,
            channel: r.channel,
            token: r.token,
            topic: r.topic,
            subscription: r.subscription === null ? null : JSON.parse(r.subscription),
          },
        },
      }));
    },
    /** Pending deliveries in the outbox (counts the partial index: O(depth)). */
    depth(): number {
      return countPending.get() ?? 0;
    },
    /** The earliest `next_attempt_at` of any pending delivery (ms), or null when none is pending. */
    nextDueAt(): number | null {
      return selectNextDue.get() ?? null;
    },
    /** Records a successful send and the device's last success. */
    delivered(deliveryId: number, deviceId: string, providerId: string | null, now: number): void {
      db.transaction(() => {
        setDelivered.run(providerId, now, deliveryId);
        setDeviceSuccess.run(now, deviceId);
      })();
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
