// Benchmark 5 (issue 7): memory and the console's list under a full outbox. 1,000,000 pending
// deliveries (500,000 notifications × an APNs and a stream device of their receiver, due in an
// hour so the dispatcher holds them) are written straight into a hub database; then the hub
// starts (core 0) and we measure its RSS (target < 200 MB) and the latency of the console's
// `GET /api/notifications?limit=50` (target < 100 ms), also with `?userId=` and `?appId=`
// filters, a `before` cursor deep in the list, and for a receiver and an app with only a few
// old notifications (the worst case for a filter walking the list newest first). Each query's
// plan (EXPLAIN QUERY PLAN of the very SQL the hub runs) is printed next to its latency.
//
// Usage: npx tsx bench/memory.ts [seconds] [--deliveries=N]
//   seconds (default 10): how long the queries are repeated (in turns over all of them).
import Database from 'better-sqlite3';
import { ulid } from 'ulid';
import { systemClock } from '../server/domain/clock.js';
import { hashPassword } from '../server/domain/passwords.js';
import { databasePath, openDatabase, type Db } from '../server/store/db.js';
import { createStore } from '../server/store/index.js';
import { createNotificationStore, type ListNotificationsQuery } from '../server/store/notification-store.js';
import {
  adminLogin,
  apnsToken,
  hubArgs,
  hubCores,
  hubEnv,
  isMain,
  peakRss,
  pinSelf,
  printChecks,
  removeDir,
  rssMiB,
  secondsArg,
  startProcess,
  table,
  tempDir,
  writeResult,
  type Check,
} from './lib.js';

/** Receivers who get the notifications, round-robin: a household. */
const BUSY_USERS = 4;
/** Notifications for the rare receiver and from the rare app: the oldest ones. */
const RARE = 20;

interface Seed {
  apps: { busy: string; other: string; rare: string };
  users: { busy: string; rare: string };
  deepBefore: string;
  notifications: number;
  deliveries: number;
  seedSeconds: number;
}

/**
 * Writes the data set: receivers and devices through the store modules, then notifications,
 * recipients and deliveries with plain SQL in one transaction (synchronous=OFF while seeding,
 * the secondary indexes dropped during the bulk insert and created again from their own DDL,
 * so the schema stays exactly what the migrations made). Notification i (oldest first) has
 * created_at = start + i·step and a ULID of that time, so id order is time order as in the hub.
 */
async function seed(dataDir: string, deliveries: number): Promise<Seed> {
  const t0 = performance.now();
  const notifications = Math.ceil(deliveries / 2);
  const db = openDatabase(dataDir);
  try {
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144'); // 256 MiB for the seeding connection only
    const store = createStore(db, systemClock);
    const passwordHash = await hashPassword('bench-password');
    const now = Date.now();
    const result = store.transaction(() => {
      const apps = { busy: store.apps.create('busy').app.id, other: store.apps.create('other').app.id, rare: store.apps.create('rare').app.id };
      const users = Array.from({ length: BUSY_USERS + 1 }, (_, i) => store.users.create({ name: `u${i}`, username: `u${i}`, passwordHash }).id);
      users.forEach((userId, i) => {
        store.devices.register({ userId, name: `phone ${i}`, platform: 'ios', channel: 'apns', token: apnsToken(i) });
        store.devices.register({ userId, name: `desktop ${i}`, platform: 'desktop', channel: 'stream', token: `desktop-${i}` });
      });
      const rareUser = users[BUSY_USERS]!;

      const indexes = db
        .prepare<[], { name: string; sql: string }>(
          "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('notifications', 'notification_recipients', 'deliveries')",
        )
        .all();
      for (const { name } of indexes) db.exec(`DROP INDEX "${name}"`);
      const insertNotification = db.prepare(
        `INSERT INTO notifications (id, app_id, app_name, target_user_id, target_group_id, target_label, title, body, emoji, image, url, created_at)
         VALUES (?, ?, ?, ?, NULL, ?, ?, ?, NULL, NULL, NULL, ?)`,
      );
      const insertRecipient = db.prepare('INSERT INTO notification_recipients (user_id, notification_id) VALUES (?, ?)');
      // Spread over the last 12 hours; every delivery waits for a retry in an hour.
      const start = now - 12 * 3600 * 1000;
      const step = (12 * 3600 * 1000) / notifications;
      let deepBefore = '';
      for (let i = 0; i < notifications; i++) {
        const createdAt = Math.floor(start + i * step);
        const id = ulid(createdAt, Math.random); // ulid's default PRNG makes 16 crypto calls per id: far too slow for 500,000
        const rare = i < RARE;
        const appId = rare ? apps.rare : i % 2 ? apps.other : apps.busy;
        const userId = rare ? rareUser : users[i % BUSY_USERS]!;
        insertNotification.run(id, appId, 'bench', userId, `u${i % BUSY_USERS}`, `Sensor ${i % 97}`, `Reading ${i}: the garage door is open`, createdAt);
        insertRecipient.run(userId, id);
        // The cursor "deep in the list": 90% of the way down from the newest.
        if (i === Math.floor(notifications / 10)) deepBefore = id;
      }
      db.prepare(
        `INSERT INTO deliveries (notification_id, device_id, channel, status, attempts, next_attempt_at, last_error, created_at, updated_at)
         SELECT n.id, d.id, d.channel, 'pending', 1, ?, 'receiver not connected', n.created_at, n.created_at
           FROM notifications n JOIN devices d ON d.user_id = n.target_user_id
          ORDER BY n.id, d.id`,
      ).run(now + 3600 * 1000);
      for (const { sql } of indexes) db.exec(sql);
      return { apps, users: { busy: users[0]!, rare: rareUser }, deepBefore };
    });
    const count = db.prepare("SELECT count(*) FROM deliveries WHERE status = 'pending'").pluck().get() as number;
    db.pragma('wal_checkpoint(TRUNCATE)');
    return { ...result, notifications, deliveries: count, seedSeconds: Math.round((performance.now() - t0) / 100) / 10 };
  } finally {
    db.close();
  }
}

/**
 * The SQL the hub runs for a list query and its plan: the hub's own notification store over a
 * read-only connection whose prepare() is watched.
 */
function planOf(dataDir: string) {
  const db = new Database(databasePath(dataDir), { readonly: true });
  let lastSql = '';
  const watched = new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare') {
        return (sql: string) => {
          lastSql = sql;
          return target.prepare(sql);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as Db;
  const store = createNotificationStore(watched);
  return {
    /** The plan's lines (indented by depth) and the time of the query alone in SQLite (ms). */
    explain(q: ListNotificationsQuery): { plan: string[]; sqlMs: number } {
      const t = performance.now();
      store.list(q);
      const sqlMs = performance.now() - t;
      const params: Record<string, unknown> = { limit: q.limit + 1 };
      if (q.before !== undefined) params.before = q.before;
      if (q.appId !== undefined) params.appId = q.appId;
      if (q.userId !== undefined) params.userId = q.userId;
      const rows = db.prepare(`EXPLAIN QUERY PLAN ${lastSql}`).all(params) as Array<{ id: number; parent: number; detail: string }>;
      const depth = new Map<number, number>([[0, -1]]);
      const plan = rows.map((r) => {
        const d = (depth.get(r.parent) ?? -1) + 1;
        depth.set(r.id, d);
        return `${'  '.repeat(d)}${r.detail}`;
      });
      return { plan, sqlMs };
    },
    /** ms to count the pending deliveries as the push handler's backpressure check does (once a second, on the request path). */
    depthCountMs(): number {
      const count = db.prepare("SELECT count(*) FROM deliveries WHERE status = 'pending'").pluck();
      count.get();
      const t = performance.now();
      count.get();
      return performance.now() - t;
    },
    close: () => db.close(),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round1 = (x: number) => Math.round(x * 10) / 10;

/** Runs benchmark 5 and returns its checks (RSS < 200 MB, every list query < 100 ms). */
export async function runMemory(seconds = 10, options: { deliveries?: number } = {}): Promise<Check[]> {
  pinSelf(); // the load generator (and this orchestrator) on core 1, away from the hub
  const wanted = options.deliveries ?? 1_000_000;
  console.log(`\n== memory: ${wanted} pending deliveries in the outbox; console list latency, ${seconds} s of queries ==`);
  const dataDir = tempDir('memory');
  const s = await seed(dataDir, wanted);
  console.log(`seeded ${s.notifications} notifications and ${s.deliveries} pending deliveries in ${s.seedSeconds} s`);

  const server = await startProcess(hubArgs(dataDir), hubEnv, hubCores);
  const pid = server.child.pid!;
  const queries: Array<{ name: string; q: ListNotificationsQuery }> = [
    { name: 'newest 50', q: { limit: 50 } },
    { name: 'userId (busy)', q: { limit: 50, userId: s.users.busy } },
    { name: 'appId (busy)', q: { limit: 50, appId: s.apps.busy } },
    { name: 'before deep', q: { limit: 50, before: s.deepBefore } },
    { name: 'userId + before deep', q: { limit: 50, userId: s.users.busy, before: s.deepBefore } },
    { name: 'appId + before deep', q: { limit: 50, appId: s.apps.busy, before: s.deepBefore } },
    { name: `userId (rare: ${RARE} oldest)`, q: { limit: 50, userId: s.users.rare } },
    { name: `appId (rare: ${RARE} oldest)`, q: { limit: 50, appId: s.apps.rare } },
  ];
  const times = new Map<string, number[]>(queries.map((x) => [x.name, []]));
  const counts = new Map<string, number>();
  let idleRss = 0;
  let peak = 0;
  try {
    await new Promise((r) => setTimeout(r, 1000)); // the dispatcher's first looks at the outbox
    idleRss = rssMiB(pid);
    const token = await adminLogin(server.url);
    const get = async (q: ListNotificationsQuery) => {
      const params = new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)]));
      const t = performance.now();
      const res = await fetch(`${server.url}/api/notifications?${params}`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { items?: unknown[] };
      const ms = performance.now() - t;
      if (!res.ok) throw new Error(`GET /api/notifications?${params}: ${res.status} ${JSON.stringify(body)}`);
      return { ms, items: body.items?.length ?? 0 };
    };
    const measured = peakRss(
      pid,
      (async () => {
        const until = performance.now() + seconds * 1000;
        let turns = 0;
        while (turns < 3 || (performance.now() < until && turns < 200)) {
          for (const { name, q } of queries) {
            const r = await get(q);
            times.get(name)!.push(r.ms);
            counts.set(name, r.items);
          }
          turns++;
        }
      })(),
    );
    peak = (await measured).rssMiB;
  } finally {
    await server.stop();
  }

  const plans = planOf(dataDir);
  const rows = queries.map(({ name, q }) => {
    const ts = times.get(name)!;
    const { plan, sqlMs } = plans.explain(q);
    return { name, items: counts.get(name) ?? 0, firstMs: round1(ts[0]!), p50Ms: round1(median(ts)), maxMs: round1(Math.max(...ts)), sqlMs: round1(sqlMs), runs: ts.length, plan };
  });
  const depthMs = round1(plans.depthCountMs());
  plans.close();
  removeDir(dataDir);
  table(rows.map(({ plan: _plan, ...r }) => r));
  console.log('\nquery plans (EXPLAIN QUERY PLAN of the SQL the hub runs):');
  for (const r of rows) console.log(`- ${r.name}:\n    ${r.plan.join('\n    ')}`);
  console.log(`\nhub RSS: ${idleRss} MiB idle after start, ${peak} MiB peak while answering`);

  const slowest = rows.reduce((a, b) => (b.maxMs > a.maxMs ? b : a));
  const checks: Check[] = [
    { benchmark: 'memory', metric: `hub RSS (peak, ${s.deliveries} pending)`, value: `${peak} MiB`, target: '< 200 MB', pass: peak > 0 && peak < 200 },
    {
      benchmark: 'memory',
      metric: 'outbox depth count (backpressure check, once a second on the request path)',
      value: `${depthMs} ms`,
      target: '(info)',
      pass: null,
    },
    ...rows.map((r) => ({
      benchmark: 'memory',
      metric: `list ${r.name}`,
      value: `p50 ${r.p50Ms} ms, max ${r.maxMs} ms`,
      target: '< 100 ms',
      pass: r.maxMs < 100 && r.items > 0,
    })),
  ];
  printChecks(checks);
  console.log(`slowest: ${slowest.name} (max ${slowest.maxMs} ms)`);
  console.log('written to', writeResult('memory', { seconds, seed: s, idleRssMiB: idleRss, peakRssMiB: peak, depthCountMs: depthMs, queries: rows }));
  return checks;
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const deliveries = args.find((a) => a.startsWith('--deliveries='))?.split('=')[1];
  await runMemory(secondsArg(args.find((a) => !a.startsWith('--'))), deliveries ? { deliveries: Number(deliveries) } : {});
}
