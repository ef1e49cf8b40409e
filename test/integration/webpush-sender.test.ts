import net from 'node:net';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createWebPushSender,
  generateVapidKeys,
  parsePushSubscription,
  parseVapidSubject,
  type VapidKeys,
} from '../../server/delivery/senders/webpush-sender.js';
import type { DeliveryJob, NotificationContent, PushSender } from '../../server/delivery/types.js';
import { HubError } from '../../server/domain/errors.js';
import { createTestSubscription, startFakePushService, type FakePushService, type TestPushSubscription } from '../fakes/webpush-fake.js';
import { testCertificate } from '../fakes/tls.js';

const SUBJECT = 'mailto:ops@pushhub.test';

function notification(overrides: Partial<NotificationContent> = {}): NotificationContent {
  return {
    id: '01J9Z8K3Q7M2N4P6R8T0V2X4Y6',
    title: 'Backup finished',
    body: 'Nightly backup of /srv took 4 min',
    emoji: '💾',
    image: 'https://example.com/backup.png',
    url: 'https://nas.local/backups',
    createdAt: 1_700_000_000_000,
    ...overrides,
  };
}

function job(subscription: TestPushSubscription | null, content: NotificationContent = notification()): DeliveryJob {
  return {
    deliveryId: 7,
    attempts: 0,
    notification: content,
    device: { id: 'dev_1', userId: 'usr_1', platform: 'web', channel: 'webpush', token: null, topic: null, subscription },
  };
}

/** The JSON the service worker receives for a notification. */
function expectedPayload(n: NotificationContent) {
  return { id: n.id, title: n.title, body: n.body, emoji: n.emoji, image: n.image, url: n.url };
}

describe('Web Push sender against a fake push service', () => {
  let fake: FakePushService;
  let vapid: VapidKeys;
  let logLines: string[];
  const senders: PushSender[] = [];

  function sender(overrides: { requestTimeoutMs?: number; extraCa?: string[] | null; ttlSeconds?: number; now?: number } = {}) {
    const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
    const s = createWebPushSender({
      vapid,
      logger,
      transport: {
        ...(overrides.extraCa === null ? {} : { extraCa: overrides.extraCa ?? [testCertificate().cert] }),
        ...(overrides.requestTimeoutMs ? { requestTimeoutMs: overrides.requestTimeoutMs } : {}),
      },
      ...(overrides.ttlSeconds !== undefined ? { ttlSeconds: overrides.ttlSeconds } : {}),
      ...(overrides.now !== undefined ? { clock: { now: () => overrides.now! } } : {}),
    });
    senders.push(s);
    return s;
  }

  beforeEach(async () => {
    fake = await startFakePushService();
    vapid = generateVapidKeys(SUBJECT);
    logLines = [];
  });

  afterEach(async () => {
    await Promise.all(senders.splice(0).map((s) => s.close()));
    await fake.close();
  });

  it('delivers the notification encrypted (aes128gcm) with VAPID, TTL 24 h and Urgency high', async () => {
    const { subscription } = fake.subscribe(vapid.publicKey);
    const n = notification();
    const outcome = await sender().send(job(subscription, n));

    expect(outcome.kind).toBe('delivered');
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.error).toBeUndefined();
    expect(req.status).toBe(201);
    expect(outcome).toEqual({ kind: 'delivered', providerId: expect.stringMatching(`^${fake.origin}/message/`) });
    expect(req.payload).toEqual(expectedPayload(n));
    expect(req.vapid).toMatchObject({ sub: SUBJECT, aud: fake.origin, k: vapid.publicKey });
    expect(req.headers['content-encoding']).toBe('aes128gcm');
    expect(req.headers.ttl).toBe('86400');
    expect(req.headers.urgency).toBe('high');
  });

  it('uses the configured TTL', async () => {
    const { subscription } = fake.subscribe();
    await sender({ ttlSeconds: 600 }).send(job(subscription));
    expect(fake.requests[0]!.headers.ttl).toBe('600');
  });

  it('passes emoji, quotes, non-Latin text and null fields through unchanged', async () => {
    const { subscription } = fake.subscribe();
    const n = notification({ title: 'Ünïcødé "quoted" 日本語', body: 'line1\nline2 👩‍👩‍👧 \u0007', emoji: '👨‍👩‍👧‍👦', image: null, url: null });
    const outcome = await sender().send(job(subscription, n));
    expect(outcome.kind).toBe('delivered');
    expect(fake.requests[0]!.payload).toEqual(expectedPayload(n));
  });

  it('shortens a very long body so the push fits 4096 bytes, and it still decrypts', async () => {
    const { subscription } = fake.subscribe();
    // 4096 bytes of UTF-8 (the hub's body limit) of 4-byte emoji with a multi-codepoint family.
    const body = '🎉'.repeat(1000) + '👨‍👩‍👧‍👦'.repeat(4);
    const n = notification({ body, image: 'https://example.com/' + 'i'.repeat(1000) });
    const outcome = await sender().send(job(subscription, n));

    expect(outcome.kind).toBe('delivered');
    const req = fake.requests[0]!;
    expect(req.bodyLength).toBeLessThanOrEqual(4096);
    const payload = req.payload as { body: string; title: string; image: string };
    expect(payload.title).toBe(n.title);
    expect(payload.image).toBe(n.image);
    expect(payload.body.endsWith('…')).toBe(true);
    const kept = payload.body.slice(0, -1);
    expect(body.startsWith(kept)).toBe(true);
    expect(kept.length).toBeGreaterThan(1000); // cut to fit, not emptied
    expect([...kept].every((ch) => ch === '🎉')).toBe(true); // whole emoji, no broken surrogates
  });

  it('a subscription that is gone (410) or unknown (404) is an invalid token', async () => {
    const gone = fake.subscribe();
    fake.respond(() => ({ status: 410, body: 'push subscription has unsubscribed or expired' }));
    expect((await sender().send(job(gone.subscription))).kind).toBe('invalid_token');

    fake.respond(() => undefined);
    const neverRegistered = createTestSubscription(fake.origin); // the fake answers 404 by itself
    const outcome = await sender().send(job(neverRegistered.subscription));
    expect(outcome.kind).toBe('invalid_token');
    expect(fake.requests.map((r) => r.status)).toEqual([410, 404]);
  });

  it('429 with Retry-After in seconds is retried after that delay', async () => {
    const { subscription } = fake.subscribe();
    fake.respond(() => ({ status: 429, headers: { 'retry-after': '120' }, body: 'slow down' }));
    const outcome = await sender().send(job(subscription));
    expect(outcome).toEqual({ kind: 'retry', reason: 'webpush 429 slow down', retryAfterMs: 120_000 });
  });

  it('Retry-After as an HTTP date is turned into a delay from now', async () => {
    const { subscription } = fake.subscribe();
    const now = Date.parse('2025-01-01T12:00:00Z');
    fake.respond(() => ({ status: 503, headers: { 'retry-after': 'Wed, 01 Jan 2025 12:01:30 GMT' } }));
    const outcome = await sender({ now }).send(job(subscription));
    expect(outcome).toMatchObject({ kind: 'retry', retryAfterMs: 90_000 });
  });

  it('500 is retried (without a delay from the service)', async () => {
    const { subscription } = fake.subscribe();
    fake.respond(() => ({ status: 500, body: 'oops' }));
    const outcome = await sender().send(job(subscription));
    expect(outcome.kind).toBe('retry');
    expect(outcome).not.toHaveProperty('retryAfterMs');
  });

  it('a push service that never answers ends as a retry after requestTimeoutMs', async () => {
    const { subscription } = fake.subscribe();
    fake.respond(() => ({ status: 0, hang: true }));
    const started = Date.now();
    const outcome = await sender({ requestTimeoutMs: 300 }).send(job(subscription));
    expect(outcome.kind).toBe('retry');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(fake.requests).toHaveLength(1);
  });

  it('a push service that is down (connection refused) ends as a retry', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const { subscription } = createTestSubscription(`https://127.0.0.1:${port}`);
    const outcome = await sender().send(job(subscription));
    expect(outcome).toMatchObject({ kind: 'retry', reason: expect.stringContaining('ECONNREFUSED') });
  });

  it('does not trust the fake without its CA (system roots only), and trusts it with extraCa', async () => {
    const { subscription } = fake.subscribe();
    const untrusted = await sender({ extraCa: null }).send(job(subscription));
    expect(untrusted.kind).toBe('retry');
    expect(fake.requests).toHaveLength(0);
    expect((await sender().send(job(subscription))).kind).toBe('delivered');
  });

  it('a push signed with other VAPID keys than the subscription was made for is rejected → failed', async () => {
    const other = generateVapidKeys('https://other.example/contact');
    const { subscription } = fake.subscribe(other.publicKey);
    const outcome = await sender().send(job(subscription));
    expect(outcome).toEqual({ kind: 'failed', reason: expect.stringMatching(/^webpush 403 /) });
    expect(fake.requests[0]!.status).toBe(403);
  });

  it('413 from the push service is failed as payload too large', async () => {
    const { subscription } = fake.subscribe();
    fake.respond(() => ({ status: 413 }));
    expect(await sender().send(job(subscription))).toEqual({ kind: 'failed', reason: 'webpush 413 payload too large' });
  });

  it('a device without a valid subscription fails without a request', async () => {
    const outcome = await sender().send(job(null));
    expect(outcome.kind).toBe('failed');
    expect(fake.requests).toHaveLength(0);
  });

  it('never logs the endpoint path or the subscription keys, only the origin', async () => {
    const { subscription } = fake.subscribe();
    const s = sender();
    await s.send(job(subscription));
    fake.respond(() => ({ status: 410 }));
    await s.send(job(subscription));
    const logs = logLines.join('\n');
    expect(logs).toContain(fake.origin);
    expect(logs).toContain('"outcome":"invalid_token"');
    const path = new URL(subscription.endpoint).pathname;
    for (const secret of [path, subscription.keys.p256dh, subscription.keys.auth, vapid.privateKey]) {
      expect(logs).not.toContain(secret);
    }
  });
});

describe('parsePushSubscription', () => {
  const real = createTestSubscription('https://fcm.googleapis.com/fcm/send').subscription;

  function rejectionOf(raw: unknown): HubError {
    try {
      parsePushSubscription(raw);
    } catch (err) {
      expect(err).toBeInstanceOf(HubError);
      return err as HubError;
    }
    throw new Error('expected a rejection');
  }

  it('accepts a browser-shaped subscription (with expirationTime) and as a JSON string', () => {
    const browser = { ...real, expirationTime: null };
    expect(parsePushSubscription(browser)).toEqual(real);
    expect(parsePushSubscription(JSON.stringify(browser))).toEqual(real);
  });

  it('rejects a missing auth', () => {
    const err = rejectionOf({ endpoint: real.endpoint, keys: { p256dh: real.keys.p256dh } });
    expect(err).toMatchObject({ code: 'invalid_field', field: 'subscription', status: 400 });
    expect(err.message).toMatch(/auth/);
  });

  it('rejects an http: endpoint', () => {
    const err = rejectionOf({ ...real, endpoint: real.endpoint.replace('https:', 'http:') });
    expect(err).toMatchObject({ code: 'invalid_field', field: 'subscription' });
    expect(err.message).toMatch(/https/);
  });

  it('rejects a short p256dh, and one that is not a point on the curve', () => {
    const short = rejectionOf({ ...real, keys: { ...real.keys, p256dh: real.keys.p256dh.slice(0, 40) } });
    expect(short.message).toMatch(/p256dh.*65 bytes/);
    const offCurve = Buffer.alloc(65, 1);
    offCurve[0] = 4;
    expect(rejectionOf({ ...real, keys: { ...real.keys, p256dh: offCurve.toString('base64url') } }).message).toMatch(/curve/);
  });

  it('rejects an auth secret that is not 16 bytes', () => {
    expect(rejectionOf({ ...real, keys: { ...real.keys, auth: Buffer.alloc(8).toString('base64url') } }).message).toMatch(/16 bytes/);
  });
});

describe('VAPID keys and subject', () => {
  it('generates a P-256 key pair in base64url (65-byte public, 32-byte private)', () => {
    const keys = generateVapidKeys('https://pushhub.example/contact');
    expect(Buffer.from(keys.publicKey, 'base64url')).toHaveLength(65);
    expect(Buffer.from(keys.privateKey, 'base64url')).toHaveLength(32);
    expect(keys.subject).toBe('https://pushhub.example/contact');
  });

  it('accepts mailto: and https: subjects and rejects others', () => {
    expect(parseVapidSubject('mailto:admin@example.com')).toBe('mailto:admin@example.com');
    expect(parseVapidSubject('https://example.com/')).toBe('https://example.com/');
    for (const bad of ['http://example.com', 'admin@example.com', '', 42, 'mailto:']) {
      expect(() => parseVapidSubject(bad)).toThrow(expect.objectContaining({ code: 'invalid_field', field: 'subject' }));
    }
  });

  it('refuses to create a sender with unusable VAPID keys', () => {
    expect(() =>
      createWebPushSender({ vapid: { publicKey: 'abc', privateKey: 'def', subject: SUBJECT }, logger: pino({ level: 'silent' }) }),
    ).toThrow(expect.objectContaining({ code: 'invalid_field', field: 'vapid' }));
  });
});
