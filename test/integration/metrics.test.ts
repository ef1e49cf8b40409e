import { afterEach, describe, expect, it } from 'vitest';
import { addDevice, seed, startTestHub, type TestHub } from '../helpers/hub.js';
import { waitFor } from '../helpers/wait.js';

// GET /metrics in the Prometheus text format (issue 7, "Metrics").

let t: TestHub;
afterEach(() => t.close());

const METRICS_TOKEN = 'metrics-token-0123456789';

async function scrape(auth = `Bearer ${t.adminToken}`) {
  const res = await fetch(`${t.url}/metrics`, { headers: { authorization: auth } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** The value of one sample line, e.g. `pushhub_pushes_total{status="200"}`; 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return 0;
}

describe('GET /metrics', () => {
  it('is guarded: admin session or the metrics token', async () => {
    t = await startTestHub({ config: { metricsToken: METRICS_TOKEN } });
    expect((await scrape('')).status).toBe(401);
    expect((await scrape('Bearer wrong-token-000000000000')).status).toBe(401);
    const admin = await scrape();
    expect(admin.status).toBe(200);
    expect(admin.type).toMatch(/^text\/plain/);
    expect((await scrape(`Bearer ${METRICS_TOKEN}`)).status).toBe(200);
  });

  it('counts pushes by answer, deliveries by channel and outcome, rate-limit hits, and shows the outbox depth', async () => {
    t = await startTestHub({
      config: {
        rateLimit: { perApp: { burst: 3, refill: 1, intervalMs: 60_000 }, authFailures: { burst: 30, refill: 1, intervalMs: 60_000 } },
      },
    });
    const keys = await seed(t);
    addDevice(t, keys.userId, 'stream'); // not connected: its delivery waits in the outbox, unsent
    addDevice(t, keys.userId, 'fcm'); // no FCM credentials: channel_not_configured
    expect((await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' })).status).toBe(200);
    expect((await t.push({ apiKey: 'pk_nope', userKey: keys.userKey, title: 'x', body: 'y' })).status).toBe(401);
    expect((await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: '', body: 'y' })).status).toBe(400);
    expect((await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' })).status).toBe(200);
    expect((await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' })).status).toBe(429);

    await waitFor(async () => sample((await scrape()).text, 'pushhub_deliveries_total', { channel: 'fcm', outcome: 'not_configured' }) === 2);
    const { text } = await scrape();
    expect(sample(text, 'pushhub_deliveries_total', { channel: 'stream', outcome: 'retry' })).toBe(0);
    expect(sample(text, 'pushhub_pushes_total', { status: '200' })).toBe(2);
    expect(sample(text, 'pushhub_pushes_total', { status: '401' })).toBe(1);
    expect(sample(text, 'pushhub_pushes_total', { status: '400' })).toBe(1);
    expect(sample(text, 'pushhub_pushes_total', { status: '429' })).toBe(1);
    expect(sample(text, 'pushhub_rate_limited_total', { limiter: 'app' })).toBe(1);
    expect(sample(text, 'pushhub_outbox_depth')).toBe(2);
    expect(sample(text, 'pushhub_http_request_duration_seconds_count', { route: '/v1/push', method: 'POST', status: '200' })).toBe(2);
    expect(text).toContain('pushhub_process_resident_memory_bytes');
  });

  it('observes the delivery latency of delivered notifications', async () => {
    t = await startTestHub();
    const keys = await seed(t, { user: 'lat' });
    const login = await fetch(`${t.url}/api/receiver/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'lat', password: 'receiver-pass' }),
    });
    const { token } = (await login.json()) as { token: string };
    const dev = await fetch(`${t.url}/api/receiver/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Laptop', platform: 'desktop', channel: 'stream' }),
    });
    const { id } = (await dev.json()) as { id: string };
    const controller = new AbortController();
    const stream = await fetch(`${t.url}/api/receiver/stream?deviceId=${id}`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
    expect(stream.status).toBe(200);
    await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' });
    await waitFor(async () => sample((await scrape()).text, 'pushhub_delivery_latency_seconds_count', { channel: 'stream' }) === 1);
    expect(sample((await scrape()).text, 'pushhub_deliveries_total', { channel: 'stream', outcome: 'delivered' })).toBe(1);
    controller.abort();
  });
});
