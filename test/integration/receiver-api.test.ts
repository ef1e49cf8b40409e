import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSubscription } from '../fakes/webpush-fake.js';
import { seed, startTestHub, type TestHub } from '../helpers/hub.js';
import { openSse } from '../helpers/sse.js';
import { waitFor } from '../helpers/wait.js';

// The receiver API (issue "Delivery" / "Receiver API"): what the web receiver and native apps call.

let t: TestHub;
let keys: Awaited<ReturnType<typeof seed>>;
const USERNAME = 'alice';
const PASSWORD = 'receiver-pass';

beforeEach(async () => {
  t = await startTestHub();
  keys = await seed(t, { user: USERNAME });
});
afterEach(() => t.close());

async function login(username = USERNAME, password = PASSWORD) {
  const res = await fetch(`${t.url}/api/receiver/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  return { status: res.status, json: (await res.json()) as any };
}

function receiver(token: string) {
  return async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${t.url}/api/receiver${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? (JSON.parse(text) as any) : undefined };
  };
}

const hex64 = (c: string) => c.repeat(64);

describe('sign-in', () => {
  it('gives the account User Key and a receiver token; the same key on every device', async () => {
    const first = await login();
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ userKey: keys.userKey, user: { id: keys.userId, name: 'alice' } });
    expect(typeof first.json.token).toBe('string');
    const second = await login();
    expect(second.json.userKey).toBe(keys.userKey);
    expect(second.json.token).not.toBe(first.json.token);
  });

  it('refuses wrong credentials with 401 JSON', async () => {
    const res = await login(USERNAME, 'wrong');
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('unauthorized');
    expect((await login('nobody', PASSWORD)).status).toBe(401);
  });

  it('rate-limits failed sign-ins per address with 429 and Retry-After', async () => {
    await t.close();
    t = await startTestHub({
      dataDir: t.dataDir,
      config: {
        rateLimit: {
          perApp: { burst: 60, refill: 10, intervalMs: 1000 },
          authFailures: { burst: 2, refill: 1, intervalMs: 60_000 },
        },
      },
    });
    expect((await login(USERNAME, 'wrong')).status).toBe(401);
    expect((await login(USERNAME, 'wrong')).status).toBe(401);
    const res = await fetch(`${t.url}/api/receiver/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: USERNAME, password: 'wrong' }),
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await login()).status).toBe(200);
  });

  it('keeps receiver and admin sessions apart', async () => {
    const { token } = (await login()).json;
    const asReceiver = await fetch(`${t.url}/api/apps`, { headers: { authorization: `Bearer ${token}` } });
    expect(asReceiver.status).toBe(401);
    const asAdmin = await fetch(`${t.url}/api/receiver/me`, { headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(asAdmin.status).toBe(401);
    const none = await fetch(`${t.url}/api/receiver/me`);
    expect(none.status).toBe(401);
  });
});

describe('devices', () => {
  let call: ReturnType<typeof receiver>;
  beforeEach(async () => {
    call = receiver((await login()).json.token);
  });

  it('registers one device per channel and shows them on /me', async () => {
    const sub = createTestSubscription('https://push.example.net').subscription;
    const regs = [
      { name: 'iPhone', platform: 'ios', channel: 'apns', token: hex64('a'), topic: 'org.pushhub.receiver' },
      { name: 'Watch', platform: 'watchos', channel: 'apns', token: hex64('b'), topic: 'org.pushhub.receiver.watchkitapp' },
      { name: 'Pixel', platform: 'android', channel: 'fcm', token: 'fcm:registration-token' },
      { name: 'Firefox', platform: 'web', channel: 'webpush', subscription: sub },
      { name: 'Laptop', platform: 'desktop', channel: 'stream' },
    ];
    for (const r of regs) {
      const res = await call('POST', '/devices', r);
      expect(res.status, r.name).toBe(201);
      expect(typeof res.json.id).toBe('string');
    }
    const me = await call('GET', '/me');
    expect(me.json.userKey).toBe(keys.userKey);
    expect(me.json.devices.map((d: { name: string }) => d.name)).toEqual(regs.map((r) => r.name));
    expect(JSON.stringify(me.json)).not.toContain(hex64('a'));
  });

  it('updates a device registered again with the same token instead of duplicating it', async () => {
    const a = await call('POST', '/devices', { name: 'iPhone', platform: 'ios', channel: 'apns', token: hex64('c') });
    const b = await call('POST', '/devices', { name: 'iPhone 16', platform: 'ios', channel: 'apns', token: hex64('C') });
    expect(b.json.id).toBe(a.json.id);
    const me = await call('GET', '/me');
    expect(me.json.devices).toHaveLength(1);
    expect(me.json.devices[0].name).toBe('iPhone 16');
  });

  it('says what is missing or wrong for each channel', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: 'x', platform: 'ios', channel: 'apns' }, 'token'],
      [{ name: 'x', platform: 'ios', channel: 'apns', token: 'not-hex' }, 'token'],
      [{ name: 'x', platform: 'android', channel: 'fcm' }, 'token'],
      [{ name: 'x', platform: 'web', channel: 'webpush' }, 'subscription'],
      [{ name: 'x', platform: 'web', channel: 'webpush', subscription: { endpoint: 'http://insecure.example/x', keys: {} } }, 'subscription'],
      [{ name: 'x', platform: 'blackberry', channel: 'stream' }, 'platform'],
      [{ name: 'x', platform: 'ios', channel: 'pager' }, 'channel'],
      [{ platform: 'ios', channel: 'stream' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', '/devices', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.field).toBe(field);
    }
    expect((await call('GET', '/me')).json.devices).toEqual([]);
  });

  it('removes only the receiver\'s own devices', async () => {
    const mine = await call('POST', '/devices', { name: 'Laptop', platform: 'desktop', channel: 'stream' });
    await t.api('POST', '/api/users', { name: 'Bob', username: 'bob', password: 'bob-password' });
    const bob = receiver((await login('bob', 'bob-password')).json.token);
    expect((await bob('DELETE', `/devices/${mine.json.id}`)).status).toBe(404);
    expect((await call('DELETE', `/devices/${mine.json.id}`)).status).toBe(204);
    expect((await call('GET', '/me')).json.devices).toEqual([]);
  });
});

describe('history and the VAPID key', () => {
  it('lists what was sent to the user before a device registered, newest first, paged', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: `n${i}`, body: 'b', emoji: '🔔' })).json.id);
    }
    const call = receiver((await login()).json.token);
    const page1 = await call('GET', '/notifications?limit=2');
    expect(page1.json.items.map((n: { id: string }) => n.id)).toEqual([ids[2], ids[1]]);
    expect(page1.json.items[0]).toMatchObject({ title: 'n2', body: 'b', emoji: '🔔', image: null, url: null });
    expect(page1.json.items[0].createdAt).toMatch(/Z$/);
    const page2 = await call('GET', `/notifications?limit=2&before=${page1.json.next}`);
    expect(page2.json.items.map((n: { id: string }) => n.id)).toEqual([ids[0]]);
    expect(page2.json.next).toBeNull();
  });

  it('serves the VAPID public key the admin settings show', async () => {
    const call = receiver((await login()).json.token);
    const key = await call('GET', '/webpush-key');
    expect(key.json.publicKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
    expect((await t.api('GET', '/api/settings/webpush')).json.publicKey).toBe(key.json.publicKey);
  });
});

describe('live stream (SSE)', () => {
  it('delivers each notification as an event within a second, and replays what was missed after Last-Event-ID', async () => {
    const { token } = (await login()).json;
    const stream = await openSse(`${t.url}/api/receiver/stream`, { authorization: `Bearer ${token}` });
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);

    const sentAt = Date.now();
    const first = await t.push({
      apiKey: keys.apiKey,
      userKey: keys.userKey,
      title: 'Door',
      body: 'opened',
      emoji: '🚪',
      url: 'https://ha.local/door',
    });
    await waitFor(() => stream.events.length === 1, 1000, 'the live event');
    expect(Date.now() - sentAt).toBeLessThan(1000);
    expect(stream.events[0]).toMatchObject({ id: first.json.id, event: 'notification' });
    expect(JSON.parse(stream.events[0]!.data)).toMatchObject({
      id: first.json.id,
      title: 'Door',
      body: 'opened',
      emoji: '🚪',
      image: null,
      url: 'https://ha.local/door',
    });
    await stream.close();

    const missed = [];
    for (const title of ['while away 1', 'while away 2']) {
      missed.push((await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title, body: 'b' })).json.id);
    }
    // EventSource puts the token in the query and resends the last id it saw.
    const again = await openSse(`${t.url}/api/receiver/stream?token=${encodeURIComponent(token)}`, { 'last-event-id': first.json.id });
    await waitFor(() => again.events.length === 2, 1000, 'the replay');
    expect(again.events.map((e) => e.id)).toEqual(missed);
    const live = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'live again', body: 'b' });
    await waitFor(() => again.events.length === 3, 1000);
    expect(again.events[2]!.id).toBe(live.json.id);
    await again.close();
  });

  it('sends heartbeat comments so proxies keep the stream open', async () => {
    await t.close();
    t = await startTestHub({ dataDir: t.dataDir, config: { streamHeartbeatMs: 50 } });
    const { token } = (await login()).json;
    const stream = await openSse(`${t.url}/api/receiver/stream`, { authorization: `Bearer ${token}` });
    await waitFor(() => stream.comments.filter((c) => c === 'heartbeat').length >= 2, 2000, 'two heartbeats');
    await stream.close();
  });

  it('delivers to a stream device through the outbox, and holds its deliveries while it is offline', async () => {
    const { token } = (await login()).json;
    const call = receiver(token);
    const device = await call('POST', '/devices', { name: 'Laptop', platform: 'desktop', channel: 'stream', token: 'laptop-1' });

    // Accepted while the device is not connected: the delivery waits, without a send attempt,
    // and the console says why.
    const offline = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'offline', body: 'b' });
    const pending = (await t.api('GET', `/api/notifications/${offline.json.id}`)).json.deliveries[0];
    expect(pending).toMatchObject({ status: 'pending', channel: 'stream', attempts: 0, lastError: 'receiver not connected' });
    expect(Date.parse(pending.nextAttemptAt) - Date.parse(pending.updatedAt)).toBe(60_000);
    await new Promise((r) => setTimeout(r, 100)); // the dispatcher, woken by the push, leaves it alone
    expect((await t.api('GET', `/api/notifications/${offline.json.id}`)).json.deliveries[0].attempts).toBe(0);

    // The device connects: what waited for it is delivered at once.
    const stream = await openSse(`${t.url}/api/receiver/stream?deviceId=${device.json.id}`, { authorization: `Bearer ${token}` });
    await waitFor(() => stream.events.length === 1, 2000, 'the held delivery');
    expect(stream.events[0]!.id).toBe(offline.json.id);
    await waitFor(async () => (await t.api('GET', `/api/notifications/${offline.json.id}`)).json.deliveries[0].status === 'delivered');

    const online = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'online', body: 'b' });
    await waitFor(() => stream.events.length === 2, 1000);
    await waitFor(async () => (await t.api('GET', `/api/notifications/${online.json.id}`)).json.deliveries[0].status === 'delivered');
    await stream.close();
  });
});

describe('stream devices of different accounts', () => {
  it('keeps a stream client id per account: another receiver reusing it gets a device of its own', async () => {
    const alice = receiver((await login()).json.token);
    const mine = await alice('POST', '/devices', { name: 'Laptop', platform: 'desktop', channel: 'stream', token: 'my-laptop' });
    await t.api('POST', '/api/users', { name: 'Mallory', username: 'mallory', password: 'mallory-password' });
    const mallory = receiver((await login('mallory', 'mallory-password')).json.token);
    const theirs = await mallory('POST', '/devices', { name: 'Stolen?', platform: 'desktop', channel: 'stream', token: 'my-laptop' });
    expect(theirs.json.id).not.toBe(mine.json.id);
    const me = await alice('GET', '/me');
    expect(me.json.devices.map((d: { id: string; name: string }) => [d.id, d.name])).toEqual([[mine.json.id, 'Laptop']]);
    // The same account registering the same id again updates its device.
    const again = await alice('POST', '/devices', { name: 'Laptop 2', platform: 'desktop', channel: 'stream', token: 'my-laptop' });
    expect(again.json.id).toBe(mine.json.id);
  });
});
