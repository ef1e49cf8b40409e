import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { databasePath } from '../../server/store/db.js';
import { addDevice, seed, startTestHub, type TestHub } from '../helpers/hub.js';

// What /v1/push does when the database cannot take a write (issue 7, "Crash safety and faults"):
// 503 with a JSON error and Retry-After, nothing half-written, and it works again once the
// condition clears. Also backpressure when the outbox is deeper than configured.

let t: TestHub;
afterEach(() => t.close());

const count = (table: string) => t.hub.store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
const rows = () => ({ notifications: count('notifications'), recipients: count('notification_recipients'), deliveries: count('deliveries') });

async function expect503(keys: Awaited<ReturnType<typeof seed>>, body = 'y') {
  const before = rows();
  const res = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body });
  expect(res.status).toBe(503);
  expect(res.json.error.code).toBe('unavailable');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(rows()).toEqual(before);
}

async function expect200(keys: Awaited<ReturnType<typeof seed>>) {
  const res = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' });
  expect(res.status).toBe(200);
}

describe('the database cannot take a write', () => {
  it('disk full: 503, no partial rows, then recovers', async () => {
    t = await startTestHub();
    const keys = await seed(t);
    addDevice(t, keys.userId, 'stream');
    await expect200(keys);
    // SQLite's view of a full disk: no page may be added to the file (SQLITE_FULL).
    const pages = t.hub.store.db.pragma('page_count', { simple: true }) as number;
    t.hub.store.db.pragma(`max_page_count = ${pages}`);
    const big = 'x'.repeat(4000);
    let accepted = 0;
    while (accepted < 50 && (await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'fill', body: big })).status === 200) accepted++;
    expect(accepted).toBeLessThan(50); // the free space ran out
    await expect503(keys, big);
    t.hub.store.db.pragma('max_page_count = 1073741823');
    await expect200(keys);
    expect(t.hub.store.db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('read-only: 503, no partial rows, then recovers', async () => {
    t = await startTestHub();
    const keys = await seed(t);
    t.hub.store.db.pragma('query_only = 1');
    await expect503(keys);
    t.hub.store.db.pragma('query_only = 0');
    await expect200(keys);
  });

  it('locked by another writer: 503 after the busy timeout, then recovers', async () => {
    t = await startTestHub({ config: { busyTimeoutMs: 100 } });
    const keys = await seed(t);
    const other = new Database(databasePath(t.dataDir));
    other.exec('BEGIN IMMEDIATE');
    try {
      await expect503(keys);
    } finally {
      other.exec('COMMIT');
      other.close();
    }
    await expect200(keys);
  });
});

describe('backpressure', () => {
  it('refuses pushes with 503 and Retry-After while the outbox is deeper than configured, and accepts them once it drains', async () => {
    t = await startTestHub({
      config: {
        delivery: { maxAgeMs: 86_400_000, requestTimeoutMs: 1000, concurrency: 8, channelConcurrency: {}, baseBackoffMs: 1000, maxBackoffMs: 60_000, maxOutboxDepth: 3 },
      },
    });
    const keys = await seed(t);
    const device = addDevice(t, keys.userId, 'stream'); // not connected: its deliveries wait in the outbox
    for (let i = 0; i < 3; i++) await expect200(keys);
    await new Promise((r) => setTimeout(r, 1100)); // the depth is recounted at most once a second
    await expect503(keys);

    // The outbox drains (here: the device is removed with its deliveries), and pushes are accepted again.
    t.hub.store.devices.delete(device.id, keys.userId);
    await new Promise((r) => setTimeout(r, 1100));
    await expect200(keys);
  });
});
