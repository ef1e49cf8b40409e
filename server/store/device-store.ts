import { ulid } from 'ulid';
import type { Db } from './db.js';
import type { Clock } from '../domain/clock.js';

/** Receiver platforms (issue "Delivery": ios | ipados | watchos | android | wearos | web | desktop). */
export const platforms = ['ios', 'ipados', 'watchos', 'android', 'wearos', 'web', 'desktop'] as const;
/** Delivery channels (DESIGN.md "Delivery channels"). */
export const channels = ['apns', 'fcm', 'webpush', 'stream'] as const;

export type Platform = (typeof platforms)[number];
export type Channel = (typeof channels)[number];

/** A receiver's device and how it is reached. `token` is secret-ish: never log it. */
export interface DeviceRecord {
  id: string;
  userId: string;
  name: string;
  platform: Platform;
  channel: Channel;
  /** APNs device token (hex), FCM registration token or Web Push endpoint; null for stream. */
  token: string | null;
  /** APNs topic (bundle id). */
  topic: string | null;
  /** Web Push subscription `{endpoint, keys:{p256dh, auth}}` (W3C Push API). */
  subscription: unknown;
  createdAt: number;
  updatedAt: number;
  lastSuccessAt: number | null;
  deactivatedAt: number | null;
  deactivatedReason: string | null;
}

interface DeviceRow {
  id: string;
  user_id: string;
  name: string;
  platform: Platform;
  channel: Channel;
  token: string | null;
  topic: string | null;
  subscription: string | null;
  created_at: number;
  updated_at: number;
  last_success_at: number | null;
  deactivated_at: number | null;
  deactivated_reason: string | null;
}

const toRecord = (r: DeviceRow): DeviceRecord => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  platform: r.platform,
  channel: r.channel,
  token: r.token,
  topic: r.topic,
  subscription: r.subscription === null ? null : JSON.parse(r.subscription),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  lastSuccessAt: r.last_success_at,
  deactivatedAt: r.deactivated_at,
  deactivatedReason: r.deactivated_reason,
});

/** What a receiver registers (validated by the receiver API). */
export interface NewDevice {
  userId: string;
  name: string;
  platform: Platform;
  channel: Channel;
  token?: string;
  topic?: string;
  subscription?: unknown;
}

/** Receivers' devices. */
export type DeviceStore = ReturnType<typeof createDeviceStore>;

/** Builds the device store over an open database. */
export function createDeviceStore(db: Db, clock: Clock) {
  const insert = db.prepare(
    `INSERT INTO devices (id, user_id, name, platform, channel, token, topic, subscription, created_at, updated_at)
     VALUES (@id, @user_id, @name, @platform, @channel, @token, @topic, @subscription, @now, @now)
     ON CONFLICT (channel, token) WHERE token IS NOT NULL DO UPDATE SET
       user_id = excluded.user_id, name = excluded.name, platform = excluded.platform, topic = excluded.topic,
       subscription = excluded.subscription, updated_at = excluded.updated_at,
       deactivated_at = NULL, deactivated_reason = NULL
     RETURNING *`,
  );
  const selectForUser = db.prepare<[string], DeviceRow>('SELECT * FROM devices WHERE user_id = ? ORDER BY created_at, id');
  const selectById = db.prepare<[string], DeviceRow>('SELECT * FROM devices WHERE id = ?');
  const remove = db.prepare('DELETE FROM devices WHERE id = ? AND user_id = ?');

  return {
    /**
     * Registers a device; registering the same channel + token again updates that device
     * (and reactivates it) instead of adding a second one.
     */
    register(d: NewDevice): DeviceRecord {
      const token =
        d.token ?? (d.channel === 'webpush' ? (d.subscription as { endpoint?: string } | undefined)?.endpoint : undefined);
      const row = insert.get({
        id: ulid(),
        user_id: d.userId,
        name: d.name,
        platform: d.platform,
        channel: d.channel,
        token: token ?? null,
        topic: d.topic ?? null,
        subscription: d.subscription === undefined ? null : JSON.stringify(d.subscription),
        now: clock.now(),
      }) as DeviceRow;
      return toRecord(row);
    },
    listForUser(userId: string): DeviceRecord[] {
      return selectForUser.all(userId).map(toRecord);
    },
    get(id: string): DeviceRecord | undefined {
      const row = selectById.get(id);
      return row && toRecord(row);
    },
    /** Removes one of the user's devices (its pending deliveries go with it); false if not theirs. */
    delete(id: string, userId: string): boolean {
      return remove.run(id, userId).changes > 0;
    },
  };
}
