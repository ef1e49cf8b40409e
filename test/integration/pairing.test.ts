import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PAIRING_TTL_MS } from '../../server/http/routes/pairing.js';
import { createConsoleRoutes, REVALIDATE } from '../../server/http/routes/console.js';
import { startHub, type Hub } from '../../server/index.js';
import { ADMIN_PASSWORD, seed, startTestHub, tempDataDir, testConfig, type TestHub } from '../helpers/hub.js';

// Pairing links (issue "Web receiver app" / "Pairing") and the emoji images for notification
// icons, over real HTTP: the admin makes a one-time link valid 15 minutes; the receiver redeems
// it for a session, once; expired, used and unknown links get their own codes.

const json = { 'content-type': 'application/json' };

/** A hub with a clock the test moves, signed in as admin. */
async function hubWithClock(config: Parameters<typeof testConfig>[1] = {}) {
  let now = Date.UTC(2026, 10, 21, 8, 0, 0);
  const dataDir = tempDataDir();
  const hub: Hub = await startHub(testConfig(dataDir, config), { logger: pino({ level: 'silent' }), clock: { now: () => now } });
  const login = await fetch(`${hub.url}/api/auth/login`, { method: 'POST', headers: json, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) });
  const adminToken = ((await login.json()) as { token: string }).token;
  return {
    hub,
    url: hub.url,
    advance: (ms: number) => void (now += ms),
    now: () => now,
    admin: async (method: string, route: string, body?: unknown) => {
      const res = await fetch(`${hub.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : json) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, json: text ? (JSON.parse(text) as any) : undefined, headers: res.headers };
    },
    close: async () => {
      await hub.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function pair(url: string, token: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/api/receiver/pair`, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify({ token }) });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as any) : undefined, headers: res.headers };
}

const tokenOf = (link: string) => new URL(link).hash.replace(/^#pair=/, '');

describe('pairing links', () => {
  let h: Awaited<ReturnType<typeof hubWithClock>>;
  let user: { id: string; userKey: string; name: string };
  beforeAll(async () => {
    h = await hubWithClock({ rateLimit: { perApp: { burst: 60, refill: 10, intervalMs: 1000 }, authFailures: { burst: 5, refill: 1, intervalMs: 60_000 } } });
    const created = await h.admin('POST', '/api/users', { name: 'Alice', username: 'alice', password: 'alice-password' });
    user = created.json;
  });
  afterAll(() => h.close());

  it('the admin makes a one-time link to the web receiver, valid 15 minutes, with the token in the fragment', async () => {
    const res = await h.admin('POST', `/api/users/${user.id}/pairing`);
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.json.url).toMatch(new RegExp(`^${h.url}/receiver/#pair=[A-Za-z0-9_-]{43}$`));
    expect(res.json.expiresAt).toBe(new Date(h.now() + PAIRING_TTL_MS).toISOString());
    expect(PAIRING_TTL_MS).toBe(15 * 60 * 1000);
    // Only the SHA-256 of the token is stored.
    const token = tokenOf(res.json.url);
    const rows = h.hub.store.db.prepare('SELECT token_hash, user_id FROM pairing_tokens').all() as { token_hash: Buffer; user_id: string }[];
    expect(rows.map((r) => r.token_hash.toString('hex'))).toContain(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('signs a device in once, with the same answer as the password sign-in; the second use is 410 pairing_used', async () => {
    const link = (await h.admin('POST', `/api/users/${user.id}/pairing`)).json.url as string;
    const first = await pair(h.url, tokenOf(link));
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ userKey: user.userKey, token: expect.any(String), user: { id: user.id, name: 'Alice' } });
    const me = await fetch(`${h.url}/api/receiver/me`, { headers: { authorization: `Bearer ${first.json.token}` } });
    expect(((await me.json()) as { userKey: string }).userKey).toBe(user.userKey);
    // A receiver session is not an admin session.
    expect((await fetch(`${h.url}/api/users`, { headers: { authorization: `Bearer ${first.json.token}` } })).status).toBe(401);

    const second = await pair(h.url, tokenOf(link));
    expect(second.status).toBe(410);
    expect(second.json.error.code).toBe('pairing_used');
    expect(second.json.error.message).toMatch(/already used/);
  });

  it('only one of two simultaneous uses of a link signs in', async () => {
    const token = tokenOf((await h.admin('POST', `/api/users/${user.id}/pairing`)).json.url);
    const answers = await Promise.all([pair(h.url, token), pair(h.url, token), pair(h.url, token)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 410, 410]);
  });

  it('a link older than 15 minutes is 410 pairing_expired (and one just inside still works)', async () => {
    const early = tokenOf((await h.admin('POST', `/api/users/${user.id}/pairing`)).json.url);
    const late = tokenOf((await h.admin('POST', `/api/users/${user.id}/pairing`)).json.url);
    h.advance(PAIRING_TTL_MS - 1000);
    expect((await pair(h.url, early)).status).toBe(200);
    h.advance(1000);
    const expired = await pair(h.url, late);
    expect(expired.status).toBe(410);
    expect(expired.json.error.code).toBe('pairing_expired');
    // Still "expired" (not "unknown") a while later; purged a day after expiry.
    h.advance(3600_000);
    expect((await pair(h.url, late)).json.error.code).toBe('pairing_expired');
    h.advance(25 * 3600_000);
    await h.admin('POST', `/api/users/${user.id}/pairing`);
    expect((await pair(h.url, late)).json.error.code).toBe('pairing_invalid');
  });

  it('a link dies with its user; an unknown user gets 404; the admin API needs an admin session', async () => {
    const other = (await h.admin('POST', '/api/users', { name: 'Bob', username: 'bob', password: 'bob-password' })).json;
    const token = tokenOf((await h.admin('POST', `/api/users/${other.id}/pairing`)).json.url);
    expect((await h.admin('DELETE', `/api/users/${other.id}`)).status).toBe(204);
    expect((await pair(h.url, token)).json.error.code).toBe('pairing_invalid');

    expect((await h.admin('POST', '/api/users/nobody/pairing')).status).toBe(404);
    const anonymous = await fetch(`${h.url}/api/users/${user.id}/pairing`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
  });

  it('refuses a pairing request from another origin (CSRF)', async () => {
    const token = tokenOf((await h.admin('POST', `/api/users/${user.id}/pairing`)).json.url);
    const forged = await pair(h.url, token, { origin: 'https://evil.example' });
    expect(forged.status).toBe(403);
    // The link was not used up by the refused request.
    expect((await pair(h.url, token)).status).toBe(200);
  });

  it('refuses a missing or unknown token with 400, and many unknown tokens with 429', async () => {
    const missing = await fetch(`${h.url}/api/receiver/pair`, { method: 'POST', headers: json, body: '{}' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as any).error).toMatchObject({ code: 'missing_field', field: 'token' });
    const unknown = await pair(h.url, 'no-such-token');
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'pairing_invalid', field: 'token' });
    let last = unknown;
    for (let i = 0; i < 6 && last.status !== 429; i++) last = await pair(h.url, `guess-${i}`);
    expect(last.status).toBe(429);
    expect(last.json.error.code).toBe('rate_limited');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('the link address', () => {
  let t: TestHub;
  afterEach(() => t.close());

  it('uses PUSHHUB_PUBLIC_URL when set', async () => {
    t = await startTestHub({ config: { publicUrl: 'https://push.example.net/' } });
    const { userId } = await seed(t);
    const res = await t.api('POST', `/api/users/${userId}/pairing`);
    expect(res.json.url).toMatch(/^https:\/\/push\.example\.net\/receiver\/#pair=[A-Za-z0-9_-]{43}$/);
  });

  it('else the address the console was reached at', async () => {
    t = await startTestHub();
    const { userId } = await seed(t);
    const port = new URL(t.url).port;
    const res = await fetch(`http://localhost:${port}/api/users/${userId}/pairing`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    expect(((await res.json()) as { url: string }).url).toMatch(new RegExp(`^http://localhost:${port}/receiver/#pair=`));
  });
});

describe('emoji images for notification icons', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub();
  });
  afterAll(() => t.close());

  it('GET /emoji/<code points>.svg answers an SVG of the emoji, cacheable for a year', async () => {
    const res = await fetch(`${t.url}/emoji/1f6aa.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    const svg = await res.text();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('>🚪</text>');
    const head = await fetch(`${t.url}/emoji/1f6aa.svg`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('takes sequences of code points (ZWJ families, flags, variation selectors), in either case', async () => {
    for (const [file, emoji] of [
      ['1f468-200d-1f469-200d-1f467.svg', '👨‍👩‍👧'],
      ['1F1E9-1F1EA.svg', '🇩🇪'],
      ['2764-fe0f.svg', '❤️'],
    ]) {
      const res = await fetch(`${t.url}/emoji/${file}`);
      expect(res.status, file).toBe(200);
      expect(await res.text()).toContain(`>${emoji}</text>`);
    }
  });

  it('404 for anything that is not exactly one emoji', async () => {
    for (const file of ['41.svg', '1f6aa-1f6aa.svg', 'd800.svg', '110000.svg', 'zz.svg', '1f6aa.png', '1f6aa', '3c.svg']) {
      const res = await fetch(`${t.url}/emoji/${file}`);
      expect(res.status, file).toBe(404);
    }
    const res = await fetch(`${t.url}/emoji/41.svg`);
    expect(((await res.json()) as any).error.code).toBe('not_found');
  });
});

describe('serving the web receiver’s service worker and manifest', () => {
  let dir: string;
  let url: string;
  let close: () => Promise<unknown>;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pushhub-receiver-'));
    fs.mkdirSync(path.join(dir, 'receiver'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>console</title>');
    fs.writeFileSync(path.join(dir, 'receiver', 'index.html'), '<!doctype html><title>receiver</title>');
    fs.writeFileSync(path.join(dir, 'receiver', 'sw.js'), 'self.addEventListener("push", () => {});');
    fs.writeFileSync(path.join(dir, 'receiver', 'manifest.webmanifest'), '{"name":"Pushhub"}');
    const app = express();
    app.use(createConsoleRoutes({ dir }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((r) => server.close(r));
  });
  afterAll(async () => {
    await close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves /receiver/sw.js unhashed, always revalidated, allowed to control /receiver/', async () => {
    const res = await fetch(`${url}/receiver/sw.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toBe(REVALIDATE);
    expect(res.headers.get('service-worker-allowed')).toBe('/receiver/');
    // Nothing else gets the header.
    expect((await fetch(`${url}/receiver/manifest.webmanifest`)).headers.get('service-worker-allowed')).toBeNull();
  });

  it('serves the manifest as application/manifest+json', async () => {
    const res = await fetch(`${url}/receiver/manifest.webmanifest`);
    expect(res.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
    expect(res.headers.get('cache-control')).toBe(REVALIDATE);
  });

  it('answers the receiver page for its own paths (settings, pairing links)', async () => {
    for (const p of ['/receiver/', '/receiver/settings', '/receiver/pair']) {
      expect(await (await fetch(`${url}${p}`)).text(), p).toContain('<title>receiver</title>');
    }
  });
});

describe('the web receiver’s manifest and icons', () => {
  it('ships a manifest with scope /receiver/, PNG icons (192, 512, maskable) and an unhashed service worker', () => {
    const dist = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'renderer', 'public', 'receiver');
    const manifest = JSON.parse(fs.readFileSync(path.join(dist, 'manifest.webmanifest'), 'utf8')) as {
      scope: string;
      start_url: string;
      display: string;
      icons: { src: string; sizes: string; purpose: string; type: string }[];
    };
    expect(manifest).toMatchObject({ scope: '/receiver/', start_url: '/receiver/', display: 'standalone' });
    const has = (sizes: string, purpose: string) => manifest.icons.some((i) => i.sizes === sizes && i.purpose === purpose && i.type === 'image/png');
    expect(has('192x192', 'any') && has('512x512', 'any') && has('512x512', 'maskable')).toBe(true);
    for (const icon of manifest.icons) {
      const file = path.join(dist, icon.src.replace(/^\/receiver\//, ''));
      const png = fs.readFileSync(file);
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      const [w, h] = [png.readUInt32BE(16), png.readUInt32BE(20)];
      expect(`${w}x${h}`, icon.src).toBe(icon.sizes);
    }
  });
});
