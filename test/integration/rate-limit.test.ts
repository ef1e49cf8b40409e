import { afterEach, describe, expect, it } from 'vitest';
import { seed, startTestHub, type TestHub } from '../helpers/hub.js';

// Rate limits on /v1/push (issue "Hub core"): per app, and per client IP for failed
// authentication. A limited request is answered 429 with Retry-After and stores nothing.

let t: TestHub;
afterEach(() => t.close());

const notifications = () => (t.hub.store.db.prepare('SELECT count(*) AS n FROM notifications').get() as { n: number }).n;

describe('per-app limit (token bucket)', () => {
  it('answers 429 with Retry-After and a JSON error past the burst, and stores nothing', async () => {
    t = await startTestHub({
      config: {
        rateLimit: {
          perApp: { burst: 3, refill: 1, intervalMs: 60_000 },
          authFailures: { burst: 30, refill: 1, intervalMs: 60_000 },
        },
      },
    });
    const keys = await seed(t);
    const push = () => t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' });
    for (let i = 0; i < 3; i++) expect((await push()).status).toBe(200);
    const limited = await push();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(limited.json.error.code).toBe('rate_limited');
    expect(notifications()).toBe(3);

    // Another app has its own bucket.
    const other = await t.api('POST', '/api/apps', { name: 'Node-RED' });
    expect((await t.push({ apiKey: other.json.apiKey, userKey: keys.userKey, title: 'x', body: 'y' })).status).toBe(200);
  });

  it('refills: after the interval the app may send again', async () => {
    t = await startTestHub({
      config: {
        rateLimit: {
          perApp: { burst: 1, refill: 1, intervalMs: 200 },
          authFailures: { burst: 30, refill: 1, intervalMs: 60_000 },
        },
      },
    });
    const keys = await seed(t);
    const push = () => t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' });
    expect((await push()).status).toBe(200);
    expect((await push()).status).toBe(429);
    await new Promise((r) => setTimeout(r, 300));
    expect((await push()).status).toBe(200);
  });
});

describe('per-IP limit on failed authentication', () => {
  it('turns 401s into 429 after the burst, while a valid key from the same address still works', async () => {
    t = await startTestHub({
      config: {
        rateLimit: {
          perApp: { burst: 60, refill: 10, intervalMs: 1000 },
          authFailures: { burst: 3, refill: 1, intervalMs: 60_000 },
        },
      },
    });
    const keys = await seed(t);
    const wrong = () => t.push({ apiKey: 'pk_' + 'Z'.repeat(32), userKey: keys.userKey, title: 'x', body: 'y' });
    for (let i = 0; i < 3; i++) {
      const res = await wrong();
      expect(res.status).toBe(401);
      expect(res.text).toBe('');
    }
    const limited = await wrong();
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);

    const ok = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' });
    expect(ok.status).toBe(200);
    expect(notifications()).toBe(1);
  });
});

describe('shared bucket', () => {
  it('counts the console test push and /v1/push against the same per-app limit', async () => {
    t = await startTestHub({
      config: {
        rateLimit: {
          perApp: { burst: 2, refill: 1, intervalMs: 60_000 },
          authFailures: { burst: 30, refill: 1, intervalMs: 60_000 },
        },
      },
    });
    const keys = await seed(t);
    for (let i = 0; i < 2; i++) {
      expect((await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' })).status).toBe(200);
    }
    const test = await t.api('POST', `/api/apps/${keys.appId}/test-push`, { userKey: keys.userKey, title: 'x', body: 'y' });
    expect(test.status).toBe(429);
    expect(test.json.error.code).toBe('rate_limited');
  });
});

describe('behind a reverse proxy', () => {
  const wrongKey = (from: string) =>
    fetch(`${t.url}/v1/push`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify({ apiKey: 'pk_' + 'Q'.repeat(32), userKey: 'uk_x', title: 'x', body: 'y' }),
    });
  const wrongLogin = (from: string) =>
    fetch(`${t.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify({ username: 'admin', password: 'wrong' }),
    });
  const limits = {
    perApp: { burst: 60, refill: 10, intervalMs: 1000 },
    authFailures: { burst: 2, refill: 1, intervalMs: 60_000 },
  };

  it('counts failures per forwarded client address when the proxy is trusted', async () => {
    t = await startTestHub({ config: { rateLimit: limits, trustProxy: 'loopback' } });
    for (const send of [wrongKey, wrongLogin]) {
      expect((await send('203.0.113.1')).status).toBe(401);
      expect((await send('203.0.113.1')).status).toBe(401);
      expect((await send('203.0.113.1')).status).toBe(429);
      // Another client behind the same proxy is not locked out by the first one.
      expect((await send('203.0.113.2')).status).toBe(401);
    }
  });

  it('ignores X-Forwarded-For unless told to trust the proxy', async () => {
    t = await startTestHub({ config: { rateLimit: limits } });
    expect((await wrongKey('203.0.113.1')).status).toBe(401);
    expect((await wrongKey('203.0.113.2')).status).toBe(401);
    expect((await wrongKey('203.0.113.3')).status).toBe(429);
  });
});
