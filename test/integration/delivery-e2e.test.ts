import crypto from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeApns, type FakeApns } from '../fakes/apns-fake.js';
import { generateTestServiceAccount, fakeFcmErrors, startFakeFcm, type FakeFcm } from '../fakes/fcm-fake.js';
import { testCertificate } from '../fakes/tls.js';
import { startFakePushService, type FakePushService } from '../fakes/webpush-fake.js';
import { killChildren, pushhub } from '../helpers/cli.js';
import { ADMIN_PASSWORD, seed, startTestHub, tempDataDir, type TestHub } from '../helpers/hub.js';
import { openSse } from '../helpers/sse.js';
import { waitFor } from '../helpers/wait.js';

// The whole path through the real hub: a push over HTTP reaches a fake APNs (HTTP/2 + ES256 JWT),
// a fake FCM (v1 API + OAuth), a fake Web Push service (VAPID + aes128gcm) and an SSE listener,
// and each outcome is recorded where the operator looks (GET /api/notifications/:id).

const TEAM_ID = 'TEAM123456';
const KEY_ID = 'KEY1234567';

let apns: FakeApns;
let fcm: FakeFcm;
let webpush: FakePushService;
let t: TestHub;
let keys: Awaited<ReturnType<typeof seed>>;
let receiverToken: string;
const apnsKey = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const serviceAccount = generateTestServiceAccount('pushhub-e2e');

async function startHubWithFakes(dataDir?: string) {
  return startTestHub({
    ...(dataDir ? { dataDir } : {}),
    config: {
      apnsOrigin: apns.origin,
      fcmOrigin: fcm.origin,
      extraCaFile: testCertificate().certFile,
      delivery: { maxAgeMs: 24 * 3600_000, requestTimeoutMs: 500, concurrency: 16, channelConcurrency: {}, baseBackoffMs: 50, maxBackoffMs: 200, maxOutboxDepth: 1_000_000 },
    },
  });
}

async function receiver(method: string, route: string, body?: unknown) {
  const res = await fetch(`${t.url}/api/receiver${route}`, {
    method,
    headers: { authorization: `Bearer ${receiverToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return (await res.json()) as any;
}

const detail = async (id: string) => (await t.api('GET', `/api/notifications/${id}`)).json;
const byChannel = (d: any, channel: string) => d.deliveries.find((x: { channel: string }) => x.channel === channel);

beforeEach(async () => {
  apns = await startFakeApns({ publicKey: apnsKey.publicKey, keyId: KEY_ID, teamId: TEAM_ID });
  fcm = await startFakeFcm({ serviceAccount });
  webpush = await startFakePushService();
  t = await startHubWithFakes();
  keys = await seed(t, { user: 'alice' });

  const apnsSettings = await t.api('PUT', '/api/settings/apns', {
    teamId: TEAM_ID,
    keyId: KEY_ID,
    privateKey: apnsKey.privateKey.export({ format: 'pem', type: 'pkcs8' }),
    defaultTopic: 'org.pushhub.receiver',
    environment: 'sandbox',
  });
  expect(apnsSettings.status).toBe(200);
  expect((await t.api('PUT', '/api/settings/fcm', { serviceAccount })).status).toBe(200);

  const login = await fetch(`${t.url}/api/receiver/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'alice', password: 'receiver-pass' }),
  });
  receiverToken = ((await login.json()) as { token: string }).token;
});

afterEach(async () => {
  killChildren();
  await t.close();
  await Promise.all([apns.close(), fcm.close(), webpush.close()]);
});

describe('one push, every channel', () => {
  it('reaches APNs, FCM, Web Push and the live stream of the same user with the right content', async () => {
    const vapidKey = (await receiver('GET', '/webpush-key')).publicKey as string;
    const browser = webpush.subscribe(vapidKey);
    await receiver('POST', '/devices', { name: 'iPhone', platform: 'ios', channel: 'apns', token: 'ab'.repeat(32) });
    await receiver('POST', '/devices', {
      name: 'Watch',
      platform: 'watchos',
      channel: 'apns',
      token: 'cd'.repeat(32),
      topic: 'org.pushhub.receiver.watchkitapp',
    });
    await receiver('POST', '/devices', { name: 'Pixel', platform: 'android', channel: 'fcm', token: 'fcm-registration-token-1' });
    await receiver('POST', '/devices', { name: 'Firefox', platform: 'web', channel: 'webpush', subscription: browser.subscription });
    const stream = await openSse(`${t.url}/api/receiver/stream`, { authorization: `Bearer ${receiverToken}` });

    // Exactly what a home-automation script sends.
    const res = await fetch(`${t.url}/v1/push`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiKey: keys.apiKey,
        userKey: keys.userKey,
        title: 'Garage',
        body: 'The garage door is open',
        emoji: '🚗',
        image: 'https://ha.local/snapshot.jpg',
        url: 'https://ha.local/garage',
      }),
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };

    await waitFor(() => apns.requests.length === 2 && fcm.requests.some((r) => r.kind === 'send') && webpush.requests.length === 1, 5000, 'all fakes');
    await waitFor(() => stream.events.length === 1, 1000, 'the SSE event');

    const phone = apns.requests.find((r) => r.token === 'ab'.repeat(32))!;
    expect(phone.jwt?.claims.iss).toBe(TEAM_ID);
    expect(phone.headers).toMatchObject({ 'apns-topic': 'org.pushhub.receiver', 'apns-push-type': 'alert', 'apns-priority': '10' });
    expect(phone.payload).toEqual({
      aps: { alert: { title: '🚗 Garage', body: 'The garage door is open' }, sound: 'default', 'mutable-content': 1 },
      notificationId: id,
      url: 'https://ha.local/garage',
      image: 'https://ha.local/snapshot.jpg',
      emoji: '🚗',
    });
    const watch = apns.requests.find((r) => r.token === 'cd'.repeat(32))!;
    expect(watch.headers['apns-topic']).toBe('org.pushhub.receiver.watchkitapp');

    const fcmSend = fcm.requests.find((r) => r.kind === 'send')!;
    expect(fcmSend.project).toBe('pushhub-e2e');
    expect(fcmSend.message).toMatchObject({
      token: 'fcm-registration-token-1',
      notification: { title: '🚗 Garage', body: 'The garage door is open', image: 'https://ha.local/snapshot.jpg' },
      data: { notificationId: id, url: 'https://ha.local/garage', emoji: '🚗' },
      android: { priority: 'high' },
    });

    expect(webpush.requests[0]!.vapid?.k).toBe(vapidKey);
    expect(webpush.requests[0]!.payload).toEqual({
      id,
      title: 'Garage',
      body: 'The garage door is open',
      emoji: '🚗',
      image: 'https://ha.local/snapshot.jpg',
      url: 'https://ha.local/garage',
    });

    expect(stream.events[0]!.id).toBe(id);
    expect(JSON.parse(stream.events[0]!.data)).toMatchObject({ id, title: 'Garage', emoji: '🚗' });
    await stream.close();

    // The operator sees every delivery done, with the provider's id.
    await waitFor(async () => (await detail(id)).summary.delivered === 4, 5000, 'four delivered rows');
    const d = await detail(id);
    expect(byChannel(d, 'apns').providerId).toMatch(/^[0-9a-f-]{36}$/i);
    expect(byChannel(d, 'fcm').providerId).toMatch(/^projects\/pushhub-e2e\/messages\//);
    expect(byChannel(d, 'webpush').providerId).toContain(webpush.origin);
  });

  it('fans a group push out to every member device once', async () => {
    await t.api('POST', '/api/users', { name: 'Bob', username: 'bob', password: 'bob-password' });
    const users = (await t.api('GET', '/api/users')).json as Array<{ id: string; username: string }>;
    const bob = users.find((u) => u.username === 'bob')!;
    await receiver('POST', '/devices', { name: 'iPhone', platform: 'ios', channel: 'apns', token: '01'.repeat(32) });
    const bobLogin = await fetch(`${t.url}/api/receiver/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bob', password: 'bob-password' }),
    });
    const bobToken = ((await bobLogin.json()) as { token: string }).token;
    await fetch(`${t.url}/api/receiver/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bobToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Pixel', platform: 'android', channel: 'fcm', token: 'bob-fcm' }),
    });
    const group = await t.api('POST', '/api/groups', { name: 'Family', userIds: [keys.userId, bob.id] });

    const res = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, userGroupKey: group.json.groupKey, title: 'Dinner', body: 'Ready' });
    await waitFor(async () => (await detail(res.json.id)).summary.delivered === 2, 5000);
    expect(apns.requests.map((r) => r.token)).toEqual(['01'.repeat(32)]);
    expect(fcm.requests.filter((r) => r.kind === 'send').map((r) => r.message?.token)).toEqual(['bob-fcm']);
  });
});

describe('outcomes', () => {
  it('deactivates devices whose token is dead (APNs 410, FCM UNREGISTERED, Web Push 410) and sends them nothing more', async () => {
    const browser = webpush.subscribe();
    await receiver('POST', '/devices', { name: 'Old iPhone', platform: 'ios', channel: 'apns', token: 'ee'.repeat(32) });
    await receiver('POST', '/devices', { name: 'Old Pixel', platform: 'android', channel: 'fcm', token: 'gone-token' });
    await receiver('POST', '/devices', { name: 'Old Firefox', platform: 'web', channel: 'webpush', subscription: browser.subscription });
    apns.respond(() => ({ status: 410, body: { reason: 'Unregistered', timestamp: Date.now() } }));
    fcm.respond((r) => (r.kind === 'send' ? fakeFcmErrors.unregistered() : undefined));
    webpush.respond(() => ({ status: 410 }));

    const res = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' });
    await waitFor(async () => (await detail(res.json.id)).summary.failed === 3, 5000, 'three failed rows');
    const d = await detail(res.json.id);
    expect(byChannel(d, 'apns').lastError).toBe('invalid_token: Unregistered');
    for (const row of d.deliveries) expect(row.lastError).toMatch(/^invalid_token: /);

    const me = await receiver('GET', '/me');
    expect(me.devices.map((x: { deactivated: boolean }) => x.deactivated)).toEqual([true, true, true]);
    const devices = (await t.api('GET', `/api/users/${keys.userId}/devices`)).json;
    expect(devices.every((x: { deactivatedReason: string }) => x.deactivatedReason)).toBe(true);

    const sentBefore = apns.requests.length + fcm.requests.length + webpush.requests.length;
    const next = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'again', body: 'y' });
    expect((await detail(next.json.id)).summary.total).toBe(0);
    expect(apns.requests.length + fcm.requests.length + webpush.requests.length).toBe(sentBefore);
  });

  it('retries 429 and 5xx and a hung APNs request, then delivers; a 5xx never deactivates a device', async () => {
    await receiver('POST', '/devices', { name: 'iPhone', platform: 'ios', channel: 'apns', token: 'aa'.repeat(32) });
    let calls = 0;
    apns.respond(() => {
      calls++;
      if (calls === 1) return { status: 429, body: { reason: 'TooManyRequests' } };
      if (calls === 2) return { status: 500, body: { reason: 'InternalServerError' } };
      if (calls === 3) return { status: 200, hang: true };
      return undefined;
    });
    const res = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' });
    await waitFor(async () => (await detail(res.json.id)).summary.delivered === 1, 8000, 'delivered after retries');
    const row = (await detail(res.json.id)).deliveries[0];
    expect(row.attempts).toBe(4);
    expect(apns.requests).toHaveLength(4);
    expect((await receiver('GET', '/me')).devices[0].deactivated).toBe(false);
  });

  it('fails deliveries of a channel without credentials at once, visibly', async () => {
    await t.api('DELETE', '/api/settings/fcm');
    await receiver('POST', '/devices', { name: 'Pixel', platform: 'android', channel: 'fcm', token: 'tok' });
    const res = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' });
    await waitFor(async () => (await detail(res.json.id)).summary.failed === 1, 3000);
    expect((await detail(res.json.id)).deliveries[0]).toMatchObject({ status: 'failed', lastError: 'channel_not_configured' });
    expect(fcm.requests.filter((r) => r.kind === 'send')).toHaveLength(0);
  });
});

describe('a push service outage', () => {
  it('retries through 429s with Retry-After, resets and 5xx on every channel, then delivers everything, without a hot loop', async () => {
    const browser = webpush.subscribe();
    await receiver('POST', '/devices', { name: 'iPhone', platform: 'ios', channel: 'apns', token: 'a1'.repeat(32) });
    await receiver('POST', '/devices', { name: 'Pixel', platform: 'android', channel: 'fcm', token: 'outage-fcm' });
    await receiver('POST', '/devices', { name: 'Firefox', platform: 'web', channel: 'webpush', subscription: browser.subscription });

    // Each notification's n-th attempt per channel, with when it arrived.
    const attempts = new Map<string, number[]>();
    const seen = (channel: string, id: string) => {
      const key = `${channel}:${id}`;
      const times = attempts.get(key) ?? [];
      times.push(Date.now());
      attempts.set(key, times);
      return times.length;
    };
    apns.respond((r) => {
      const n = seen('apns', (r.payload as { notificationId: string }).notificationId);
      if (n === 1) return { status: 503, body: { reason: 'ServiceUnavailable' }, headers: { 'retry-after': '1' } };
      if (n === 2) return { status: 0, reset: true };
      if (n === 3) return { status: 500, body: { reason: 'InternalServerError' } };
      return undefined;
    });
    fcm.respond((r) => {
      if (r.kind !== 'send') return undefined;
      const n = seen('fcm', r.message!.data!.notificationId!);
      if (n === 1) return fakeFcmErrors.quotaExceeded(1);
      if (n === 2) return fakeFcmErrors.internal();
      return undefined;
    });
    webpush.respond((r) => {
      const n = seen('webpush', (r.payload as { id: string }).id);
      if (n === 1) return { status: 429, headers: { 'retry-after': '1' } };
      if (n === 2) return { status: 0, reset: true };
      if (n === 3) return { status: 502 };
      return undefined;
    });

    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: `storm ${i}`, body: 'b' })).json.id);
    for (const id of ids) await waitFor(async () => (await detail(id)).summary.delivered === 3, 10_000, `all channels delivered ${id}`);

    const expected = { apns: 4, fcm: 3, webpush: 4 };
    for (const id of ids) {
      const d = await detail(id);
      for (const [channel, n] of Object.entries(expected)) {
        // Nothing retried in a hot loop: exactly one attempt per scripted failure, plus the success.
        expect(byChannel(d, channel).attempts, `${channel} attempts`).toBe(n);
        const times = attempts.get(`${channel}:${id}`)!;
        expect(times).toHaveLength(n);
        // Retry-After: 1 was honoured before the second attempt (allowing the clock's granularity).
        expect(times[1]! - times[0]!, `${channel} waited for Retry-After`).toBeGreaterThanOrEqual(950);
      }
    }
  }, 30_000);
});

describe('restart', () => {
  it('sends after a restart what was accepted but not yet delivered', async () => {
    await receiver('POST', '/devices', { name: 'iPhone', platform: 'ios', channel: 'apns', token: 'bb'.repeat(32) });
    apns.respond(() => ({ status: 200, hang: true }));
    const res = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'survives', body: 'restart' });
    await waitFor(() => apns.requests.length >= 1, 3000);
    await t.close(); // the hung send is abandoned; the delivery stays pending in the outbox

    apns.respond(undefined);
    const before = apns.requests.length;
    t = await startHubWithFakes(t.dataDir);
    await waitFor(async () => (await detail(res.json.id)).summary.delivered === 1, 5000, 'delivery after restart');
    const after = apns.requests.slice(before);
    expect(after.map((r) => (r.payload as { notificationId: string }).notificationId)).toContain(res.json.id);
  });
});

describe('crash', () => {
  it('delivers after a kill -9 between accept and delivery, once the hub is started again', async () => {
    const dataDir = tempDataDir();
    const env = {
      PUSHHUB_ADMIN_PASSWORD: ADMIN_PASSWORD,
      PUSHHUB_APNS_ORIGIN: apns.origin,
      PUSHHUB_EXTRA_CA_FILE: testCertificate().certFile,
    };
    const serve = () => pushhub(['serve', '--port', '0', '--data-dir', dataDir], env);
    const first = serve();
    const url = (await first.waitFor(/listening on (http:\/\/\S+)/))[1]!;
    const call = async (method: string, route: string, body: unknown, token: string) => {
      const res = await fetch(`${url}${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as any;
    };
    const admin = await fetch(`${url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    });
    const adminToken = ((await admin.json()) as { token: string }).token;
    await call('PUT', '/api/settings/apns', {
      teamId: TEAM_ID,
      keyId: KEY_ID,
      privateKey: apnsKey.privateKey.export({ format: 'pem', type: 'pkcs8' }),
      defaultTopic: 'org.pushhub.receiver',
      environment: 'sandbox',
    }, adminToken);
    const app = await call('POST', '/api/apps', { name: 'alarm' }, adminToken);
    const user = await call('POST', '/api/users', { name: 'Carol', username: 'carol', password: 'carol-password' }, adminToken);
    const login = await fetch(`${url}/api/receiver/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'carol', password: 'carol-password' }),
    });
    const carol = ((await login.json()) as { token: string }).token;
    await call('POST', '/api/receiver/devices', { name: 'iPhone', platform: 'ios', channel: 'apns', token: 'fa'.repeat(32) }, carol);

    apns.respond(() => ({ status: 200, hang: true }));
    const res = await fetch(`${url}/v1/push`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: app.apiKey, userKey: user.userKey, title: 'Smoke alarm', body: 'Kitchen' }),
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    await waitFor(() => apns.requests.some((r) => r.token === 'fa'.repeat(32)), 5000, 'the first attempt');
    first.child.kill('SIGKILL');
    await first.exited;

    apns.respond(undefined);
    const second = serve();
    const url2 = (await second.waitFor(/listening on (http:\/\/\S+)/))[1]!;
    await waitFor(
      async () => {
        const d = await fetch(`${url2}/api/notifications/${id}`, { headers: { authorization: `Bearer ${adminToken}` } });
        return ((await d.json()) as { summary: { delivered: number } }).summary.delivered === 1;
      },
      8000,
      'the delivery after the restart',
    );
    const attempts = apns.requests.filter((r) => (r.payload as { notificationId?: string } | null)?.notificationId === id);
    expect(attempts.length).toBeGreaterThanOrEqual(2); // at-least-once: the hung attempt, then the resend
  });
});

describe('settings', () => {
  it('never returns or accepts broken secrets, and keeps the .p8 key when only other fields change', async () => {
    const apnsGet = await t.api('GET', '/api/settings/apns');
    expect(apnsGet.json).toEqual({
      configured: true,
      teamId: TEAM_ID,
      keyId: KEY_ID,
      defaultTopic: 'org.pushhub.receiver',
      environment: 'sandbox',
      privateKeySet: true,
    });
    expect(JSON.stringify(apnsGet.json)).not.toContain('PRIVATE KEY');

    const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' });
    const bad = await t.api('PUT', '/api/settings/apns', { ...apnsGet.json, privateKey: rsa });
    expect(bad.status).toBe(400);
    expect(bad.json.error.field).toBe('privateKey');

    const renamed = await t.api('PUT', '/api/settings/apns', { teamId: TEAM_ID, keyId: KEY_ID, defaultTopic: 'org.pushhub.other', environment: 'production' });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({ defaultTopic: 'org.pushhub.other', environment: 'production', privateKeySet: true });

    const fcmGet = await t.api('GET', '/api/settings/fcm');
    expect(fcmGet.json).toEqual({ configured: true, projectId: 'pushhub-e2e', clientEmail: serviceAccount.client_email });
    const fcmBad = await t.api('PUT', '/api/settings/fcm', { serviceAccount: { project_id: 'x' } });
    expect(fcmBad.status).toBe(400);
    expect(fcmBad.json.error.field).toBe('serviceAccount');

    const wp = await t.api('GET', '/api/settings/webpush');
    expect(wp.json).toMatchObject({ configured: true, subject: 'mailto:pushhub@localhost' });
    expect(wp.json).not.toHaveProperty('privateKey');
    expect((await t.api('PUT', '/api/settings/webpush', { subject: 'ftp://nope' })).status).toBe(400);
    expect((await t.api('PUT', '/api/settings/webpush', { subject: 'mailto:ops@example.net' })).json.subject).toBe('mailto:ops@example.net');
  });
});
