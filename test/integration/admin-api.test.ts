import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { API_KEY_PATTERN, GROUP_KEY_PATTERN, USER_KEY_PATTERN } from '../../server/domain/keys.js';
import { startHub, type Hub } from '../../server/index.js';
import { ADMIN_PASSWORD, addDevice, seed, startTestHub, tempDataDir, testConfig, type TestHub } from '../helpers/hub.js';

// The admin API (issue "Hub core" / "Admin API") over real HTTP.

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('sign-in', () => {
  let t: TestHub;
  beforeEach(async () => {
    t = await startTestHub();
  });
  afterEach(() => t.close());

  it('answers 401 JSON to every admin route without a session', async () => {
    for (const [method, route] of [
      ['GET', '/api/apps'],
      ['POST', '/api/apps'],
      ['GET', '/api/users'],
      ['GET', '/api/groups'],
      ['GET', '/api/notifications'],
      ['DELETE', '/api/apps/x'],
    ] as const) {
      const res = await fetch(`${t.url}${route}`, { method });
      expect(res.status, `${method} ${route}`).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
    const forged = await fetch(`${t.url}/api/apps`, { headers: { authorization: 'Bearer not-a-session' } });
    expect(forged.status).toBe(401);
  });

  it('refuses a wrong password with 401 JSON', async () => {
    const res = await post(`${t.url}/api/auth/login`, { username: 'admin', password: 'wrong password' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });

  it('sets an HttpOnly, SameSite=Strict session cookie that authenticates, until logout', async () => {
    const res = await post(`${t.url}/api/auth/login`, { username: 'admin', password: ADMIN_PASSWORD });
    expect(res.status).toBe(200);
    const { token } = (await res.json()) as { token: string };
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^pushhub_session=/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    const cookie = setCookie.split(';')[0]!;
    expect(cookie).toBe(`pushhub_session=${token}`);

    expect((await fetch(`${t.url}/api/apps`, { headers: { cookie } })).status).toBe(200);
    const out = await fetch(`${t.url}/api/auth/logout`, { method: 'POST', headers: { cookie } });
    expect(out.status).toBe(204);
    expect((await fetch(`${t.url}/api/apps`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${t.url}/api/apps`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });
});

describe('password change', () => {
  it('needs the current password, and then the new one signs in', async () => {
    const t = await startTestHub();
    try {
      const wrong = await t.api('POST', '/api/auth/password', { currentPassword: 'not it', newPassword: 'a new password' });
      expect(wrong.status).toBe(400);
      expect(wrong.json.error.field).toBe('currentPassword');
      const missing = await t.api('POST', '/api/auth/password', { newPassword: 'a new password' });
      expect(missing.status).toBe(400);
      const weak = await t.api('POST', '/api/auth/password', { currentPassword: ADMIN_PASSWORD, newPassword: 'short' });
      expect(weak.json.error.field).toBe('newPassword');
      const ok = await t.api('POST', '/api/auth/password', { currentPassword: ADMIN_PASSWORD, newPassword: 'a new password' });
      expect(ok.status).toBe(204);
      expect((await post(`${t.url}/api/auth/login`, { username: 'admin', password: ADMIN_PASSWORD })).status).toBe(401);
      expect((await post(`${t.url}/api/auth/login`, { username: 'admin', password: 'a new password' })).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('first-run setup', () => {
  let hub: Hub;
  beforeEach(async () => {
    hub = await startHub(testConfig(tempDataDir(), { adminPassword: undefined }), { logger: pino({ level: 'silent' }) });
  });
  afterEach(() => hub.close());

  it('offers a one-time setup URL that creates the admin once', async () => {
    expect(hub.setupUrl).toMatch(/\/setup\?token=[\w-]{43}$/);
    const token = new URL(hub.setupUrl!).searchParams.get('token')!;

    const page = await fetch(hub.setupUrl!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post" action="/setup">');

    const wrong = await post(`${hub.url}/api/setup`, { token: 'x'.repeat(43), username: 'root', password: 'long enough' });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('invalid_setup_token');

    const weak = await post(`${hub.url}/api/setup`, { token, username: 'root', password: 'short' });
    expect(weak.status).toBe(400);
    expect(((await weak.json()) as { error: { field: string } }).error.field).toBe('password');

    const ok = await post(`${hub.url}/api/setup`, { token, username: 'root', password: 'long enough' });
    expect(ok.status).toBe(201);
    const again = await post(`${hub.url}/api/setup`, { token, username: 'other', password: 'long enough' });
    expect(again.status).toBe(409);
    expect((await fetch(hub.setupUrl!)).status).toBe(410);

    const login = await post(`${hub.url}/api/auth/login`, { username: 'root', password: 'long enough' });
    expect(login.status).toBe(200);
  });

  it('works from the plain HTML form too', async () => {
    const token = new URL(hub.setupUrl!).searchParams.get('token')!;
    const res = await fetch(`${hub.url}/setup`, {
      method: 'POST',
      body: new URLSearchParams({ token, username: 'admin', password: 'form password' }),
    });
    expect(res.status).toBe(201);
    expect(await res.text()).toContain('is ready');
    expect((await post(`${hub.url}/api/auth/login`, { username: 'admin', password: 'form password' })).status).toBe(200);
  });
});

describe('apps, users, groups, notifications', () => {
  let t: TestHub;
  beforeEach(async () => {
    t = await startTestHub();
  });
  afterEach(() => t.close());

  it('creates an app with a key shown once, lists it without the key, rotates and deletes it', async () => {
    const created = await t.api('POST', '/api/apps', { name: 'Cron' });
    expect(created.status).toBe(201);
    expect(created.json.apiKey).toMatch(API_KEY_PATTERN);
    expect(created.json).toMatchObject({ name: 'Cron', keyPrefix: created.json.apiKey.slice(0, 7) });

    const list = await t.api('GET', '/api/apps');
    expect(list.json).toEqual([
      { id: created.json.id, name: 'Cron', keyPrefix: created.json.apiKey.slice(0, 7), createdAt: created.json.createdAt, lastUsedAt: null },
    ]);
    expect(JSON.stringify(list.json)).not.toContain(created.json.apiKey);

    const rotated = await t.api('POST', `/api/apps/${created.json.id}/rotate-key`);
    expect(rotated.json.apiKey).toMatch(API_KEY_PATTERN);
    expect(rotated.json.apiKey).not.toBe(created.json.apiKey);
    expect((await t.api('GET', '/api/apps')).json[0].keyPrefix).toBe(rotated.json.apiKey.slice(0, 7));

    expect((await t.api('DELETE', `/api/apps/${created.json.id}`)).status).toBe(204);
    expect((await t.api('GET', '/api/apps')).json).toEqual([]);
  });

  it('answers 404 JSON for unknown ids', async () => {
    for (const [method, route] of [
      ['POST', '/api/apps/nope/rotate-key'],
      ['DELETE', '/api/apps/nope'],
      ['GET', '/api/users/nope'],
      ['PATCH', '/api/users/nope'],
      ['DELETE', '/api/users/nope'],
      ['GET', '/api/groups/nope'],
      ['PUT', '/api/groups/nope/members'],
      ['DELETE', '/api/groups/nope'],
      ['GET', '/api/notifications/nope'],
      ['GET', '/api/no-such-route'],
    ] as const) {
      const body = method === 'PATCH' ? { name: 'x' } : method === 'PUT' ? { userIds: [] } : undefined;
      const res = await t.api(method, route, body);
      expect(res.status, `${method} ${route}`).toBe(404);
      expect(res.json.error.code).toBe('not_found');
    }
  });

  it('validates bodies with 400 and the field at fault', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/api/apps', {}, 'name'],
      ['POST', '/api/apps', { name: '  ' }, 'name'],
      ['POST', '/api/users', { name: 'A', username: 'a b', password: 'long enough' }, 'username'],
      ['POST', '/api/users', { name: 'A', username: 'a', password: 'short' }, 'password'],
      ['POST', '/api/groups', { name: 'G', userIds: 'all' }, 'userIds'],
    ];
    for (const [method, route, body, field] of cases) {
      const res = await t.api(method, route, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.field).toBe(field);
    }
    const broken = await fetch(`${t.url}/api/apps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      body: '{"name":',
    });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { code: string } }).error.code).toBe('malformed_json');
  });

  it('manages receivers: User Key, unique username, rename, password change, delete with devices', async () => {
    const created = await t.api('POST', '/api/users', { name: 'Alice', username: 'alice', password: 'first password' });
    expect(created.status).toBe(201);
    expect(created.json.userKey).toMatch(USER_KEY_PATTERN);
    expect(created.json).not.toHaveProperty('password');
    expect(JSON.stringify(created.json)).not.toContain('argon2');

    const dup = await t.api('POST', '/api/users', { name: 'Other', username: 'ALICE', password: 'other password' });
    expect(dup.status).toBe(409);
    expect(dup.json.error).toMatchObject({ code: 'conflict', field: 'username' });

    const hashBefore = t.hub.store.users.findCredentials('alice')!.passwordHash;
    const patched = await t.api('PATCH', `/api/users/${created.json.id}`, { name: 'Alice B.', password: 'second password' });
    expect(patched.json).toMatchObject({ name: 'Alice B.', userKey: created.json.userKey });
    expect(t.hub.store.users.findCredentials('alice')!.passwordHash).not.toBe(hashBefore);

    addDevice(t, created.json.id, 'apns');
    const detail = await t.api('GET', `/api/users/${created.json.id}`);
    expect(detail.json.devices).toHaveLength(1);
    expect(detail.json.devices[0]).toMatchObject({ platform: 'ios', channel: 'apns', deactivated: false });
    expect(detail.json.devices[0]).not.toHaveProperty('token');

    expect((await t.api('DELETE', `/api/users/${created.json.id}`)).status).toBe(204);
    expect((await t.api('GET', `/api/users/${created.json.id}`)).status).toBe(404);
    expect(t.hub.store.db.prepare('SELECT count(*) FROM devices').pluck().get()).toBe(0);
  });

  it('manages User Groups and their members', async () => {
    const a = await t.api('POST', '/api/users', { name: 'A', username: 'a', password: 'password a' });
    const b = await t.api('POST', '/api/users', { name: 'B', username: 'b', password: 'password b' });
    const g = await t.api('POST', '/api/groups', { name: 'Family', userIds: [a.json.id] });
    expect(g.status).toBe(201);
    expect(g.json.groupKey).toMatch(GROUP_KEY_PATTERN);
    expect(g.json.userIds).toEqual([a.json.id]);

    const unknown = await t.api('PUT', `/api/groups/${g.json.id}/members`, { userIds: [a.json.id, 'ghost'] });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'unknown_user', field: 'userIds.1' });
    expect((await t.api('GET', `/api/groups/${g.json.id}`)).json.userIds).toEqual([a.json.id]);

    const set = await t.api('PUT', `/api/groups/${g.json.id}/members`, { userIds: [b.json.id, a.json.id, b.json.id] });
    expect([...set.json.userIds].sort()).toEqual([a.json.id, b.json.id].sort());

    const badCreate = await t.api('POST', '/api/groups', { name: 'Ghosts', userIds: ['ghost'] });
    expect(badCreate.status).toBe(400);
    expect((await t.api('GET', '/api/groups')).json).toHaveLength(1);

    await t.api('DELETE', `/api/users/${a.json.id}`);
    expect((await t.api('GET', `/api/groups/${g.json.id}`)).json.userIds).toEqual([b.json.id]);
    expect((await t.api('DELETE', `/api/groups/${g.json.id}`)).status).toBe(204);
    expect((await t.api('GET', '/api/groups')).json).toEqual([]);
  });

  it('pages notifications newest first with a keyset cursor, filtered by app and user', async () => {
    const one = await seed(t, { app: 'One', user: 'Ann' });
    const two = await seed(t, { app: 'Two', user: 'Ben' });
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) {
      const k = i % 2 === 0 ? one : two;
      const res = await t.push({ apiKey: k.apiKey, userKey: k.userKey, title: `n${i}`, body: 'b' });
      sent.push(res.json.id);
    }
    const seen: string[] = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const page = await t.api('GET', `/api/notifications?limit=2${next ? `&before=${next}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.json.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.json.items.map((n: { id: string }) => n.id));
      next = page.json.next;
      pages++;
    } while (next && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual([...sent].reverse());

    const byApp = await t.api('GET', `/api/notifications?appId=${two.appId}`);
    expect(byApp.json.items.map((n: { title: string }) => n.title)).toEqual(['n3', 'n1']);
    const byUser = await t.api('GET', `/api/notifications?userId=${one.userId}`);
    expect(byUser.json.items.map((n: { title: string }) => n.title)).toEqual(['n4', 'n2', 'n0']);

    const bad = await t.api('GET', '/api/notifications?limit=0');
    expect(bad.status).toBe(400);
    expect(bad.json.error.field).toBe('limit');
  });

  it('keeps a deleted app\'s notifications in history under its name', async () => {
    const k = await seed(t, { app: 'Gone' });
    const res = await t.push({ apiKey: k.apiKey, userKey: k.userKey, title: 't', body: 'b' });
    await t.api('DELETE', `/api/apps/${k.appId}`);
    const detail = await t.api('GET', `/api/notifications/${res.json.id}`);
    expect(detail.json.app).toEqual({ id: null, name: 'Gone' });
  });
});

describe('health', () => {
  it('answers 200 {"status":"ok"} without a session', async () => {
    const t = await startTestHub();
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    await t.close();
  });
});


describe('desktop local sign-in', () => {
  it('signs the local operator in once with the token the desktop app handed over', async () => {
    const token = 'L'.repeat(43);
    const hub = await startHub(testConfig(tempDataDir(), { adminPassword: undefined, localLoginToken: token }), {
      logger: pino({ level: 'silent' }),
    });
    try {
      expect((await fetch(`${hub.url}/auth/local?token=${'x'.repeat(43)}`, { redirect: 'manual' })).status).toBe(401);
      const ok = await fetch(`${hub.url}/auth/local?token=${token}`, { redirect: 'manual' });
      expect(ok.status).toBe(303);
      expect(ok.headers.get('location')).toBe('/');
      const cookie = (ok.headers.get('set-cookie') ?? '').split(';')[0]!;
      expect((await fetch(`${hub.url}/api/apps`, { headers: { cookie } })).status).toBe(200);
      // A fresh desktop hub needs no setup page: the local operator is the admin.
      expect((await fetch(hub.setupUrl!)).status).toBe(410);
      // The desktop's admin has a random password: the local session may set one without it.
      const set = await fetch(`${hub.url}/api/auth/password`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ newPassword: 'chosen by me' }),
      });
      expect(set.status).toBe(204);
      expect((await post(`${hub.url}/api/auth/login`, { username: 'admin', password: 'chosen by me' })).status).toBe(200);
      expect((await fetch(`${hub.url}/auth/local?token=${token}`, { redirect: 'manual' })).status).toBe(401);
    } finally {
      await hub.close();
    }
  });
});
