import { Router } from 'express';
import { z } from 'zod';
import type { Clock } from '../../domain/clock.js';
import { parseBody } from '../../domain/validation.js';
import { platforms } from '../../store/device-store.js';
import type { Store } from '../../store/index.js';

const DAY_MS = 24 * 3600 * 1000;

const statsQuery = z.object({
  days: z.coerce.number().int().min(1).max(90).default(14),
  /** The browser's `Date.prototype.getTimezoneOffset()`: minutes to add to local time to get UTC. */
  tzOffset: z.coerce.number().int().min(-14 * 60).max(14 * 60).default(0),
});

/** One day of the Overview chart. `successRate` = delivered / finished (0..1), null when nothing finished. */
export interface DayStats {
  /** Local calendar day, `YYYY-MM-DD`. */
  date: string;
  notifications: number;
  deliveries: number;
  delivered: number;
  failed: number;
  expired: number;
  pending: number;
  successRate: number | null;
}

const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * `GET /api/stats?days=14&tzOffset=-60` (issue "Admin UI" / "Overview"): counts of apps, users,
 * groups and devices (by platform, active and deactivated), notifications and deliveries, and
 * per local day for the last `days` days (1–90, today included) the notifications accepted and
 * their deliveries by status with the delivery success rate. Days are the browser's calendar
 * days: `tzOffset` is its `getTimezoneOffset()` in minutes. Mount behind an admin session.
 */
export function createStatsRoutes({ store, clock }: { store: Store; clock: Clock }): Router {
  const router = Router();
  const { db } = store;
  const count = (table: 'apps' | 'users' | 'groups') => (db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number) ?? 0;
  const devicesByPlatform = db.prepare<[], { platform: string; total: number; active: number }>(
    `SELECT platform, count(*) AS total, coalesce(sum(deactivated_at IS NULL), 0) AS active FROM devices GROUP BY platform`,
  );
  const devicesByChannel = db.prepare<[], { channel: string; total: number }>(
    `SELECT channel, count(*) AS total FROM devices WHERE deactivated_at IS NULL GROUP BY channel`,
  );
  const notificationsSince = db.prepare<[number], number>('SELECT count(*) FROM notifications WHERE created_at >= ?').pluck();
  const notificationCount = db.prepare<[], number>('SELECT count(*) FROM notifications').pluck();
  const deliveryTotals = db.prepare<[], { status: string; total: number }>(
    'SELECT status, count(*) AS total FROM deliveries GROUP BY status',
  );
  const notificationsPerDay = db.prepare<[{ since: number; offset: number }], { day: string; total: number }>(
    `SELECT date((created_at - @offset) / 1000, 'unixepoch') AS day, count(*) AS total
       FROM notifications WHERE created_at >= @since GROUP BY day`,
  );
  const deliveriesPerDay = db.prepare<
    [{ since: number; offset: number }],
    { day: string; total: number; delivered: number; failed: number; expired: number; pending: number }
  >(
    `SELECT date((n.created_at - @offset) / 1000, 'unixepoch') AS day, count(*) AS total,
            sum(d.status = 'delivered') AS delivered, sum(d.status = 'failed') AS failed,
            sum(d.status = 'expired') AS expired, sum(d.status = 'pending') AS pending
       FROM deliveries d JOIN notifications n ON n.id = d.notification_id
      WHERE n.created_at >= @since GROUP BY day`,
  );

  router.get('/stats', (req, res) => {
    const q = parseBody(statsQuery, req.query);
    const now = clock.now();
    const offset = q.tzOffset * 60_000;
    // Midnight of the local day `days - 1` days before today, as UTC ms.
    const localToday = Math.floor((now - offset) / DAY_MS) * DAY_MS;
    const firstDay = localToday - (q.days - 1) * DAY_MS;
    const since = firstDay + offset;

    const byDay = new Map<string, DayStats>();
    for (let t = firstDay; t <= localToday; t += DAY_MS) {
      const date = ymd(t);
      byDay.set(date, { date, notifications: 0, deliveries: 0, delivered: 0, failed: 0, expired: 0, pending: 0, successRate: null });
    }
    for (const row of notificationsPerDay.all({ since, offset })) {
      const day = byDay.get(row.day);
      if (day) day.notifications = row.total;
    }
    for (const row of deliveriesPerDay.all({ since, offset })) {
      const day = byDay.get(row.day);
      if (!day) continue;
      Object.assign(day, { deliveries: row.total, delivered: row.delivered, failed: row.failed, expired: row.expired, pending: row.pending });
      const finished = row.delivered + row.failed + row.expired;
      day.successRate = finished === 0 ? null : row.delivered / finished;
    }

    const devices = Object.fromEntries(platforms.map((p) => [p, { total: 0, active: 0 }]));
    for (const row of devicesByPlatform.all()) devices[row.platform] = { total: row.total, active: row.active };
    const deliveries = { pending: 0, delivered: 0, failed: 0, expired: 0 };
    for (const row of deliveryTotals.all()) {
      if (row.status in deliveries) deliveries[row.status as keyof typeof deliveries] = row.total;
    }
    const finished = deliveries.delivered + deliveries.failed + deliveries.expired;

    res.set('Cache-Control', 'no-store').json({
      apps: count('apps'),
      users: count('users'),
      groups: count('groups'),
      devices: {
        total: Object.values(devices).reduce((n, d) => n + d.total, 0),
        active: Object.values(devices).reduce((n, d) => n + d.active, 0),
        byPlatform: devices,
        byChannel: Object.fromEntries(devicesByChannel.all().map((r) => [r.channel, r.total])),
      },
      notifications: { total: notificationCount.get() ?? 0, last24h: notificationsSince.get(now - DAY_MS) ?? 0 },
      deliveries: { ...deliveries, successRate: finished === 0 ? null : deliveries.delivered / finished },
      days: [...byDay.values()],
    });
  });
  return router;
}
