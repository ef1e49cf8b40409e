import type { Db } from './db.js';
import type { NotificationContent } from '../delivery/types.js';
import type { NotificationInput } from '../domain/notification.js';
import { NOT_CONNECTED_REASON, NOT_CONNECTED_RETRY_MS } from '../delivery/senders/stream-sender.js';

/** Delivery statuses (DESIGN.md "Data flow"): every delivery ends delivered, failed or expired. */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'expired';

/** Counts of a notification's deliveries by status. */
export interface DeliverySummary {
  total: number;
  pending: number;
  delivered: number;
  failed: number;
  expired: number;
}

/** A stored notification as the admin API lists it. Times in ms. */
export interface NotificationRecord {
  id: string;
  appId: string | null;
  appName: string;
  target: { userId: string | null; groupId: string | null; label: string };
  title: string;
  body: string;
  emoji: string | null;
  image: string | null;
  url: string | null;
  createdAt: number;
  recipients: number;
  deliveries: DeliverySummary;
}

/** One row of the outbox as the admin API shows it. */
export interface DeliveryRecord {
  id: number;
  deviceId: string;
  deviceName: string | null;
  userId: string | null;
  channel: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
  providerId: string | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

/** What the push pipeline hands to {@link NotificationStore.insert}. */
export interface NewNotification {
  id: string;
  app: { id: string; name: string };
  target: { userId: string | null; groupId: string | null; label: string };
  content: NotificationInput;
  createdAt: number;
  /**
   * The `stream` devices with an open stream, as a JSON array of device ids. Deliveries to the
   * recipients' other `stream` devices are written waiting (due at `createdAt +
   * NOT_CONNECTED_RETRY_MS`, last error "receiver not connected") instead of due at once: the
   * dispatcher would only find them offline, and the stream route makes them due when the device
   * connects. Absent: every delivery is due at once.
   */
  onlineStreamDevices?: string;
}

/** Filters and keyset cursor for {@link NotificationStore.list}; `before` is a notification id. */
export interface ListNotificationsQuery {
  limit: number;
  before?: string;
  appId?: string;
  userId?: string;
}

interface NotificationRow {
  id: string;
  app_id: string | null;
  app_name: string;
  target_user_id: string | null;
  target_group_id: string | null;
  target_label: string;
  title: string;
  body: string;
  emoji: string | null;
  image: string | null;
  url: string | null;
  created_at: number;
  recipients: number;
  summary: string;
}

interface ContentRow {
  id: string;
  title: string;
  body: string;
  emoji: string | null;
  image: string | null;
  url: string | null;
  created_at: number;
}

const toContent = (r: ContentRow): NotificationContent => ({
  id: r.id,
  title: r.title,
  body: r.body,
  emoji: r.emoji,
  image: r.image,
  url: r.url,
  createdAt: r.created_at,
});

const SUMMARY_COLUMNS = `
  (SELECT count(*) FROM notification_recipients r WHERE r.notification_id = n.id) AS recipients,
  (SELECT json_object('total', count(*),
                      'pending', coalesce(sum(status = 'pending'), 0),
                      'delivered', coalesce(sum(status = 'delivered'), 0),
                      'failed', coalesce(sum(status = 'failed'), 0),
                      'expired', coalesce(sum(status = 'expired'), 0))
     FROM deliveries d WHERE d.notification_id = n.id) AS summary`;

const toRecord = (r: NotificationRow): NotificationRecord => ({
  id: r.id,
  appId: r.app_id,
  appName: r.app_name,
  target: { userId: r.target_user_id, groupId: r.target_group_id, label: r.target_label },
  title: r.title,
  body: r.body,
  emoji: r.emoji,
  image: r.image,
  url: r.url,
  createdAt: r.created_at,
  recipients: r.recipients,
  deliveries: JSON.parse(r.summary) as DeliverySummary,
});

/** SQL: device `d` is a `stream` device without an open stream (`@online`: JSON array of ids, or null = unknown). */
const OFFLINE_STREAM_DEVICE = `d.channel = 'stream' AND @online IS NOT NULL AND d.id NOT IN (SELECT value FROM json_each(@online))`;

/** Notifications, their recipients and the delivery outbox. */
export type NotificationStore = ReturnType<typeof createNotificationStore>;

/** Builds the notification store over an open database. */
export function createNotificationStore(db: Db) {
  const insertNotification = db.prepare(
    `INSERT INTO notifications (id, app_id, app_name, target_user_id, target_group_id, target_label,
                                title, body, emoji, image, url, created_at)
     VALUES (@id, @app_id, @app_name, @target_user_id, @target_group_id, @target_label,
             @title, @body, @emoji, @image, @url, @created_at)`,
  );
  const insertUserRecipient = db.prepare(
    'INSERT OR IGNORE INTO notification_recipients (user_id, notification_id) VALUES (?, ?)',
  );
  const insertGroupRecipients = db.prepare(
    `INSERT OR IGNORE INTO notification_recipients (user_id, notification_id)
     SELECT user_id, ? FROM group_members WHERE group_id = ?`,
  );
  // The outbox: one pending delivery per active device of every recipient, in one statement;
  // a stream device that is not connected gets its delivery waiting (see NewNotification).
  const insertDeliveries = db.prepare(
    `INSERT INTO deliveries (notification_id, device_id, channel, status, attempts, next_attempt_at, last_error, created_at, updated_at)
     SELECT r.notification_id, d.id, d.channel, 'pending', 0,
            CASE WHEN ${OFFLINE_STREAM_DEVICE} THEN @parkedUntil ELSE @now END,
            CASE WHEN ${OFFLINE_STREAM_DEVICE} THEN @parkedReason END,
            @now, @now
       FROM notification_recipients r JOIN devices d ON d.user_id = r.user_id
      WHERE r.notification_id = @id AND d.deactivated_at IS NULL`,
  );
  const selectRecipients = db
    .prepare<[string], string>('SELECT user_id FROM notification_recipients WHERE notification_id = ?')
    .pluck();
  const selectHistory = db.prepare<[string, string, number], ContentRow>(
    `SELECT n.id, n.title, n.body, n.emoji, n.image, n.url, n.created_at
       FROM notification_recipients r JOIN notifications n ON n.id = r.notification_id
      WHERE r.user_id = ? AND r.notification_id < ? ORDER BY r.notification_id DESC LIMIT ?`,
  );
  const selectSince = db.prepare<[string, string, number], ContentRow>(
    `SELECT n.id, n.title, n.body, n.emoji, n.image, n.url, n.created_at
       FROM notification_recipients r JOIN notifications n ON n.id = r.notification_id
      WHERE r.user_id = ? AND r.notification_id > ? ORDER BY r.notification_id LIMIT ?`,
  );
  const touchApp = db.prepare('UPDATE apps SET last_used_at = ? WHERE id = ?');
  const lastTouched = new Map<string, number>();
  const selectOne = db.prepare<[string], NotificationRow>(`SELECT n.*, ${SUMMARY_COLUMNS} FROM notifications n WHERE n.id = ?`);
  const selectDeliveries = db.prepare<[string], Record<string, unknown>>(
    `SELECT d.id, d.device_id, v.name AS device_name, v.user_id, d.channel, d.status, d.attempts, d.next_attempt_at,
            d.provider_id, d.last_error, d.created_at, d.updated_at
       FROM deliveries d LEFT JOIN devices v ON v.id = d.device_id
      WHERE d.notification_id = ? ORDER BY d.id`,
  );

  return {
    /**
     * Writes a notification, its recipients (each user once: the union of the user and the
     * group's members) and one pending delivery per active device, and marks the app used.
     * Call inside a transaction with the target lookup so the answer and the rows agree.
     *
     * @returns the number of deliveries written to the outbox.
     */
    insert(n: NewNotification): { deliveries: number; userIds: string[] } {
      insertNotification.run({
        id: n.id,
        app_id: n.app.id,
        app_name: n.app.name,
        target_user_id: n.target.userId,
        target_group_id: n.target.groupId,
        target_label: n.target.label,
        title: n.content.title,
        body: n.content.body,
        emoji: n.content.emoji ?? null,
        image: n.content.image ?? null,
        url: n.content.url ?? null,
        created_at: n.createdAt,
      });
      if (n.target.userId) insertUserRecipient.run(n.target.userId, n.id);
      if (n.target.groupId) insertGroupRecipients.run(n.id, n.target.groupId);
      const deliveries = insertDeliveries.run({
        id: n.id,
        now: n.createdAt,
        online: n.onlineStreamDevices ?? null,
        parkedUntil: n.createdAt + NOT_CONNECTED_RETRY_MS,
        parkedReason: NOT_CONNECTED_REASON,
      }).changes;
      // last_used_at is shown to the second: skip the write for an app that just sent.
      if (n.createdAt - (lastTouched.get(n.app.id) ?? 0) >= 1000) {
        touchApp.run(n.createdAt, n.app.id);
        lastTouched.set(n.app.id, n.createdAt);
      }
      const userIds = n.target.groupId ? selectRecipients.all(n.id) : n.target.userId ? [n.target.userId] : [];
      return { deliveries, userIds };
    },

    /**
     * Newest first, keyset-paged by id (ids are ULIDs, so id order is time order).
     * @returns the page and `next`, the cursor for the following page (null at the end).
     */
    list(q: ListNotificationsQuery): { items: NotificationRecord[]; next: string | null } {
      const where: string[] = [];
      const params: Record<string, unknown> = { limit: q.limit + 1 };
      // Filtered by user, the query walks that user's recipient rows (primary key user_id,
      // notification_id) newest first, instead of collecting all of them on every page.
      const byUser = q.userId !== undefined;
      const idColumn = byUser ? 'r.notification_id' : 'n.id';
      if (byUser) {
        where.push('r.user_id = @userId');
        params.userId = q.userId;
      }
      if (q.before !== undefined) {
        where.push(`${idColumn} < @before`);
        params.before = q.before;
      }
      if (q.appId !== undefined) {
        where.push('n.app_id = @appId');
        params.appId = q.appId;
      }
      const from = byUser
        ? 'notification_recipients r JOIN notifications n ON n.id = r.notification_id'
        : 'notifications n';
      const sql = `SELECT n.*, ${SUMMARY_COLUMNS} FROM ${from}
                   ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
                   ORDER BY ${idColumn} DESC LIMIT @limit`;
      const rows = db.prepare<[Record<string, unknown>], NotificationRow>(sql).all(params);
      const more = rows.length > q.limit;
      const items = rows.slice(0, q.limit).map(toRecord);
      return { items, next: more ? (items.at(-1)?.id ?? null) : null };
    },

    /** A receiver's history, newest first, before the id `before` (keyset paging). */
    history(userId: string, q: { before?: string | undefined; limit: number }): { items: NotificationContent[]; next: string | null } {
      const rows = selectHistory.all(userId, q.before ?? '\uffff', q.limit + 1);
      const items = rows.slice(0, q.limit).map(toContent);
      return { items, next: rows.length > q.limit ? (items.at(-1)?.id ?? null) : null };
    },

    /** What a receiver missed after the notification `afterId`, oldest first (SSE replay). */
    since(userId: string, afterId: string, limit: number): NotificationContent[] {
      return selectSince.all(userId, afterId, limit).map(toContent);
    },

    get(id: string): NotificationRecord | undefined {
      const row = selectOne.get(id);
      return row && toRecord(row);
    },

    /** The notification's outbox rows, oldest first. */
    deliveries(id: string): DeliveryRecord[] {
      return selectDeliveries.all(id).map((r) => ({
        id: r.id as number,
        deviceId: r.device_id as string,
        deviceName: r.device_name as string | null,
        userId: r.user_id as string | null,
        channel: r.channel as string,
        status: r.status as DeliveryStatus,
        attempts: r.attempts as number,
        nextAttemptAt: r.next_attempt_at as number,
        providerId: r.provider_id as string | null,
        lastError: r.last_error as string | null,
        createdAt: r.created_at as number,
        updatedAt: r.updated_at as number,
      }));
    },
  };
}
