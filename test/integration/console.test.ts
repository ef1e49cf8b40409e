import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleRoutes, IMMUTABLE, REVALIDATE } from '../../server/http/routes/console.js';
import { addDevice, seed, startTestHub, type TestHub } from '../helpers/hub.js';
import { waitFor } from '../helpers/wait.js';

// The console's server side (issue "Admin UI"): static serving of the built renderer with its
// caching headers and SPA fallback, the console's status/info, the test push and the stats.

/** A fake dist/renderer and an Express app serving it (404 "fell through" for what it leaves). */
async function serveFake(dir: string | null) {
  const app = express();
  app.use(createConsoleRoutes({ dir }));
  app.use((_req, res) => res.status(404).type('text').send('fell through'));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((r) => server.close(r)) };
}

describe('serving the built renderer', () => {
  let dir: string;
  let site: Awaited<ReturnType<typeof serveFake>>;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pushhub-renderer-'));
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.mkdirSync(path.join(dir, 'receiver'));
    fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>console</title>');
    fs.writeFileSync(path.join(dir, 'receiver', 'index.html'), '<!doctype html><title>receiver</title>');
    fs.writeFileSync(path.join(dir, 'assets', 'console-AbC123.js'), 'console.log(1)');
    fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg/>');
    site = await serveFake(dir);
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves hashed assets as immutable and pages as always revalidated', async () => {
    const asset = await fetch(`${site.url}/assets/console-AbC123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe(IMMUTABLE);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);

    const page = await fetch(`${site.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>console</title>');
    expect(page.headers.get('cache-control')).toBe(REVALIDATE);
    const etag = page.headers.get('etag');
    expect(etag).toBeTruthy();
    // fetch() adds Cache-Control: no-cache to conditional requests; a browser revalidating does not.
    const again = await new Promise<number>((resolve, reject) =>
      http.get(`${site.url}/`, { headers: { 'if-none-match': etag! } }, (res) => resolve(res.statusCode ?? 0)).on('error', reject),
    );
    expect(again).toBe(304);

    expect((await fetch(`${site.url}/favicon.svg`)).headers.get('cache-control')).toBe(REVALIDATE);
  });

  it('answers index.html for every console page (a reload or a shared link works)', async () => {
    for (const p of ['/login', '/apps', '/apps/01J9', '/users/abc', '/groups/x_y', '/notifications', '/notifications/01JABC', '/send', '/settings']) {
      const res = await fetch(`${site.url}${p}`);
      expect(res.status, p).toBe(200);
      expect(await res.text()).toContain('<title>console</title>');
    }
  });

  it('answers other page paths with index.html and 404 (the console says "not found"), but not missing files', async () => {
    const unknown = await fetch(`${site.url}/no/such/page`, { headers: { accept: 'text/html' } });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('<title>console</title>');
    const missing = await fetch(`${site.url}/assets/console-gone.js`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('fell through');
    expect(await (await fetch(`${site.url}/api/apps`)).text()).toBe('fell through');
    expect(await (await fetch(`${site.url}/v1/push`)).text()).toBe('fell through');
  });

  it('takes over /setup for browsers only: other clients get the script-free form', async () => {
    const browser = await fetch(`${site.url}/setup?token=abc`, { headers: { 'sec-fetch-dest': 'document' } });
    expect(await browser.text()).toContain('<title>console</title>');
    expect(browser.headers.get('vary')).toMatch(/Sec-Fetch-Dest/i);
    expect(await (await fetch(`${site.url}/setup?token=abc`)).text()).toBe('fell through');
  });

  it('serves the web receiver under /receiver/', async () => {
    const redirect = await fetch(`${site.url}/receiver`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/receiver/');
    for (const p of ['/receiver/', '/receiver/pair/xyz']) {
      const res = await fetch(`${site.url}${p}`);
      expect(await res.text(), p).toContain('<title>receiver</title>');
      expect(res.headers.get('cache-control')).toBe(REVALIDATE);
    }
  });

  it('says how to build the console when it is not built', async () => {
    const bare = await serveFake(null);
    try {
      const res = await fetch(`${bare.url}/`);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('npm run build');
      expect(await (await fetch(`${bare.url}/api/apps`)).text()).toBe('fell through');
      expect(await (await fetch(`${bare.url}/setup`)).text()).toBe('fell through');
    } finally {
      await bare.close();
    }
  });
});

describe('console API: status, info, test push, stats', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub({ config: { rateLimit: { perApp: { burst: 3, refill: 1, intervalMs: 60_000 }, authFailures: { burst: 30, refill: 1, intervalMs: 60_000 } } } });
  });
  afterAll(() => t.close());

  it('tells the console about the hub: no public URL means the page’s own origin', async () => {
    const info = await t.api('GET', '/api/console/info');
    expect(info.status).toBe(200);
    expect(info.json).toMatchObject({
      publicUrl: null,
      listen: { host: '127.0.0.1', port: 0 },
      limits: { bodyBytes: 16 * 1024, titleChars: 250, notificationBodyBytes: 4096, perApp: { burst: 3 } },
      delivery: { maxAgeMs: 24 * 3600 * 1000 },
      retention: { notificationsMaxAgeMs: null },
    });
    const status = await t.api('GET', '/api/console/status');
    expect(status.json).toEqual({ setupRequired: false, signedIn: true });
  });

  it('test push runs the /v1/push pipeline on the app’s behalf, with the app’s rate limit', async () => {
    const { appId, userId, userKey } = await seed(t);
    addDevice(t, userId, 'stream');
    const sent = await t.api('POST', `/api/apps/${appId}/test-push`, { userKey, title: 'Test', body: 'From the console', emoji: '🧪', apiKey: 'ignored' });
    expect(sent.status).toBe(200);
    expect(sent.json).toEqual({ id: expect.any(String), deliveries: 1 });

    const detail = await t.api('GET', `/api/notifications/${sent.json.id}`);
    expect(detail.json).toMatchObject({ app: { id: appId, name: 'Home Assistant' }, title: 'Test', emoji: '🧪', target: { userId } });
    expect(detail.json.deliveries).toHaveLength(1);
    expect((await t.api('GET', '/api/apps')).json.find((a: { id: string }) => a.id === appId).lastUsedAt).not.toBeNull();

    // The same field rules as /v1/push.
    const bad = await t.api('POST', `/api/apps/${appId}/test-push`, { userKey, title: 'x', body: 'y', emoji: 'no' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'invalid_field', field: 'emoji' });
    const nobody = await t.api('POST', `/api/apps/${appId}/test-push`, { userKey: 'uk_nobody', title: 'x', body: 'y' });
    expect(nobody.json.error).toMatchObject({ code: 'unknown_user_key', field: 'userKey' });
    expect((await t.api('POST', '/api/apps/nope/test-push', { userKey, title: 'x', body: 'y' })).status).toBe(404);

    // Burst 3: the three requests above spent it (one accepted, two refused by validation).
    const limited = await t.api('POST', `/api/apps/${appId}/test-push`, { userKey, title: 'x', body: 'y' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('stats count apps, users, groups and devices and chart notifications per local day', async () => {
    const { appId, userId, userKey } = await seed(t, { app: 'Stats app', user: 'Sam' });
    addDevice(t, userId, 'apns');
    addDevice(t, userId, 'fcm');
    await t.api('POST', '/api/groups', { name: 'Everyone', userIds: [userId] });
    const before = (await t.api('GET', '/api/stats?days=7')).json;
    const sent = await t.api('POST', `/api/apps/${appId}/test-push`, { userKey, title: 'Count me', body: 'once' });
    // APNs and FCM are not configured here: both deliveries end failed.
    await waitFor(async () => (await t.api('GET', `/api/notifications/${sent.json.id}`)).json.summary.failed === 2, 5000, 'deliveries to fail');

    const stats = await t.api('GET', `/api/stats?days=7&tzOffset=${new Date().getTimezoneOffset()}`);
    expect(stats.status).toBe(200);
    const s = stats.json;
    expect(s.apps).toBeGreaterThanOrEqual(2);
    expect(s.groups).toBe(1);
    expect(s.devices.byPlatform.ios.total).toBeGreaterThanOrEqual(1);
    expect(s.devices.byPlatform.android).toEqual({ total: 1, active: 1 });
    expect(s.devices.byPlatform.watchos).toEqual({ total: 0, active: 0 });
    expect(s.notifications.total).toBe(before.notifications.total + 1);
    expect(s.days).toHaveLength(7);
    const today = s.days.at(-1);
    const local = new Date();
    const ymd = `${local.getFullYear()}-${String(local.getMonth() + 1).padStart(2, '0')}-${String(local.getDate()).padStart(2, '0')}`;
    expect(today.date).toBe(ymd);
    expect(today.notifications).toBe(s.notifications.last24h);
    expect(today.failed).toBeGreaterThanOrEqual(2);
    expect(today.successRate).toBe(today.delivered / (today.delivered + today.failed + today.expired));
    expect(s.days[0]).toMatchObject({ notifications: 0, successRate: null });

    expect((await t.api('GET', '/api/stats?days=0')).status).toBe(400);
    expect((await t.api('GET', '/api/stats?days=91')).status).toBe(400);
  });
});
