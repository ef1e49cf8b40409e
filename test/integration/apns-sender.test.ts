import crypto from 'node:crypto';
import net from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApnsSender, parseApnsSettings, type ApnsSettings } from '../../server/delivery/senders/apns-sender.js';
import type { DeliveryJob, PushSender, TransportOptions } from '../../server/delivery/types.js';
import { HubError } from '../../server/domain/errors.js';
import { startFakeApns, type FakeApns } from '../fakes/apns-fake.js';
import { testCertificate } from '../fakes/tls.js';

// The APNs sender against a fake APNs speaking HTTP/2 + TLS on 127.0.0.1 (DESIGN.md "Facts for
// testing the senders"; Apple, "Sending notification requests to APNs" and "Handling error
// responses from APNs").

function p256Pem(): { privateKey: string; publicKey: crypto.KeyObject } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey };
}

const appKey = p256Pem();
const TEAM_ID = 'TEAM123456';
const KEY_ID = 'KEY9876543';
const TOKEN = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
const CREATED_AT = Date.UTC(2025, 0, 15, 12, 0, 0);

const settings: ApnsSettings = parseApnsSettings({
  teamId: TEAM_ID,
  keyId: KEY_ID,
  privateKey: appKey.privateKey,
  defaultTopic: 'com.example.pushhub',
  environment: 'sandbox',
});

function job(overrides: { notification?: Partial<DeliveryJob['notification']>; device?: Partial<DeliveryJob['device']> } = {}): DeliveryJob {
  return {
    deliveryId: 42,
    attempts: 0,
    notification: {
      id: '01JHQ0000000000000000000AB',
      title: 'Front door',
      body: 'The front door opened',
      emoji: null,
      image: null,
      url: null,
      createdAt: CREATED_AT,
      ...overrides.notification,
    },
    device: {
      id: 'dev_1',
      userId: 'usr_1',
      platform: 'ios',
      channel: 'apns',
      token: TOKEN,
      topic: null,
      subscription: null,
      ...overrides.device,
    },
  };
}

let fake: FakeApns;
let logLines: string[];
const senders: PushSender[] = [];

function sender(opts: { settings?: ApnsSettings; origin?: string; transport?: TransportOptions } = {}): PushSender {
  const logger = pino(
    { level: 'trace' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    }),
  );
  const s = createApnsSender({
    settings: opts.settings ?? settings,
    origin: opts.origin ?? fake.origin,
    transport: opts.transport ?? { extraCa: [testCertificate().cert], requestTimeoutMs: 5_000 },
    logger,
  });
  senders.push(s);
  return s;
}

beforeEach(async () => {
  logLines = [];
  fake = await startFakeApns({ publicKey: appKey.publicKey, keyId: KEY_ID, teamId: TEAM_ID });
});

afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
  await fake.close();
  // Device tokens and the signing key are secrets (DESIGN.md convention 7).
  const logs = logLines.join('');
  expect(logs).not.toContain(TOKEN);
  expect(logs).not.toContain('PRIVATE KEY');
});

describe('delivered notifications', () => {
  it('POSTs /3/device/<token> with the alert headers and payload, and reports the apns-id', async () => {
    const outcome = await sender().send(job());

    expect(fake.requests).toHaveLength(1);
    const [req] = fake.requests;
    expect(outcome).toEqual({ kind: 'delivered', providerId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(req?.token).toBe(TOKEN);
    expect(req?.headers).toMatchObject({
      'apns-push-type': 'alert',
      'apns-topic': 'com.example.pushhub',
      'apns-priority': '10',
      'apns-expiration': String((CREATED_AT + 24 * 3600 * 1000) / 1000),
    });
    expect(req?.payload).toEqual({
      aps: { alert: { title: 'Front door', body: 'The front door opened' }, sound: 'default' },
      notificationId: '01JHQ0000000000000000000AB',
    });
  });

  it('signs with an ES256 provider token carrying the Key ID and Team ID, reused across requests', async () => {
    const s = sender();
    await s.send(job());
    await s.send(job());
    expect(fake.requests[1]?.headers.authorization).toBe(fake.requests[0]?.headers.authorization);
    const jwt = fake.requests[0]?.jwt;
    expect(jwt).not.toBeNull();
    expect(jwt?.header).toMatchObject({ alg: 'ES256', kid: KEY_ID });
    expect(jwt?.claims).toMatchObject({ iss: TEAM_ID, iat: expect.any(Number) });
    expect(fake.requests[0]?.headers.authorization).toMatch(/^bearer /);
  });

  it("uses the device's own topic over the default, e.g. a watchOS app's bundle id", async () => {
    const s = sender();
    await s.send(job({ device: { platform: 'watchos', topic: 'com.example.pushhub.watchkitapp' } }));
    await s.send(job({ device: { topic: null } }));
    expect(fake.requests.map((r) => r.headers['apns-topic'])).toEqual([
      'com.example.pushhub.watchkitapp',
      'com.example.pushhub',
    ]);
  });

  it('puts the emoji in front of the title and sends url, image, emoji with mutable-content for the image', async () => {
    const outcome = await sender().send(
      job({
        notification: {
          emoji: '🚪',
          image: 'https://example.org/door.jpg',
          url: 'https://ha.local/lovelace/doors',
        },
      }),
    );
    expect(outcome.kind).toBe('delivered');
    expect(fake.requests[0]?.payload).toEqual({
      aps: {
        alert: { title: '🚪 Front door', body: 'The front door opened' },
        sound: 'default',
        'mutable-content': 1,
      },
      notificationId: '01JHQ0000000000000000000AB',
      url: 'https://ha.local/lovelace/doors',
      image: 'https://example.org/door.jpg',
      emoji: '🚪',
    });
  });

  it('leaves mutable-content out when there is no image', async () => {
    await sender().send(job({ notification: { url: 'https://ha.local/' } }));
    const payload = fake.requests[0]?.payload as { aps: Record<string, unknown>; image?: string };
    expect(payload.aps).not.toHaveProperty('mutable-content');
    expect(payload).not.toHaveProperty('image');
  });

  it('shortens a long body so the whole payload fits 4096 bytes, keeping the title', async () => {
    const body = 'Ünïcödé ✓ '.repeat(400); // ~5 KB of UTF-8
    const outcome = await sender().send(
      job({ notification: { body, emoji: '🔥', image: 'https://example.org/' + 'x'.repeat(200) + '.jpg' } }),
    );
    expect(outcome.kind).toBe('delivered');
    const req = fake.requests[0];
    const payload = req?.payload as { aps: { alert: { title: string; body: string } } };
    expect(req?.bytes).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThanOrEqual(4096);
    expect(payload.aps.alert.title).toBe('🔥 Front door');
    expect(payload.aps.alert.body.endsWith('…')).toBe(true);
    expect(body.startsWith(payload.aps.alert.body.slice(0, -1))).toBe(true);
    expect(Buffer.byteLength(payload.aps.alert.body)).toBeGreaterThan(3500);
  });

  it('leaves the image out when url and image alone would pass 4096 bytes, so the alert still arrives', async () => {
    const url = 'https://ha.local/' + 'u'.repeat(2000);
    const image = 'https://example.org/' + 'i'.repeat(2000) + '.jpg';
    const outcome = await sender().send(job({ notification: { url, image } }));
    expect(outcome.kind).toBe('delivered');
    const payload = fake.requests[0]?.payload as { aps: Record<string, unknown>; url?: string; image?: string };
    expect(fake.requests[0]?.bytes).toBeLessThanOrEqual(4096);
    expect(payload.url).toBe(url);
    expect(payload).not.toHaveProperty('image');
    expect(payload.aps).not.toHaveProperty('mutable-content');
  });

  it('multiplexes concurrent notifications as streams of one open HTTP/2 connection', async () => {
    const s = sender();
    expect((await s.send(job())).kind).toBe('delivered');
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => s.send({ ...job(), deliveryId: i })));
    expect(outcomes.every((o) => o.kind === 'delivered')).toBe(true);
    expect(new Set(outcomes.map((o) => (o.kind === 'delivered' ? o.providerId : ''))).size).toBe(30);
    expect(fake.sessionCount()).toBe(1);
  });
});

describe('the HTTP/2 connection', () => {
  async function restartFake(maxConcurrentStreams: number) {
    await fake.close();
    fake = await startFakeApns({ publicKey: appKey.publicKey, keyId: KEY_ID, teamId: TEAM_ID, maxConcurrentStreams });
  }

  it('keeps to the stream limit the server advertises, the rest waiting for a free stream', async () => {
    await restartFake(3);
    fake.respond(() => ({ status: 200, delayMs: 20 }));
    const s = sender();
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => s.send({ ...job(), deliveryId: i })));
    expect(outcomes.map((o) => o.kind)).toEqual(Array(20).fill('delivered'));
    expect(fake.maxStreamsInFlight()).toBe(3);
    expect(fake.sessionCount()).toBe(1);
  });

  it('finishes the requests in flight when APNs sends GOAWAY, then sends on a new connection', async () => {
    fake.respond(() => ({ status: 200, delayMs: 100 }));
    const s = sender();
    const inFlight = Array.from({ length: 5 }, (_, i) => s.send({ ...job(), deliveryId: i }));
    await waitFor(() => fake.requests.length === 5);
    fake.goaway();
    expect((await Promise.all(inFlight)).map((o) => o.kind)).toEqual(Array(5).fill('delivered'));
    fake.respond(undefined);
    expect((await s.send(job())).kind).toBe('delivered');
    expect(fake.sessionCount()).toBe(2);
  });

  it('sends again, once, the requests a GOAWAY refused unprocessed', async () => {
    fake.respond(() => ({ status: 200, delayMs: 300 }));
    const s = sender();
    const inFlight = Array.from({ length: 3 }, (_, i) => s.send({ ...job(), deliveryId: i }));
    await waitFor(() => fake.requests.length === 3);
    fake.goaway(Math.min(...fake.streamIds)); // only the first stream was processed
    expect((await Promise.all(inFlight)).map((o) => o.kind)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(fake.requests).toHaveLength(5);
    expect(fake.sessionCount()).toBe(2);
  });

  it('treats an answer cut off mid-body as a network error to retry, not as what the status says', async () => {
    fake.respond(() => ({ status: 400, body: { reason: 'BadDeviceToken' }, truncate: true }));
    expect(await sender().send(job())).toMatchObject({ kind: 'retry', reason: expect.stringContaining('network error') });
  });

  it('replaces a connection that went silent (cut by a NAT or firewall) instead of timing out on it for ever', async () => {
    const proxy = await startSilenceableProxy(new URL(fake.origin).port);
    try {
      const s = sender({ origin: `https://127.0.0.1:${proxy.port}`, transport: { extraCa: [testCertificate().cert], requestTimeoutMs: 400 } });
      expect((await s.send(job())).kind).toBe('delivered');
      proxy.silence(); // the open connection stops passing bytes, with no FIN or RST
      expect(await s.send(job())).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/timed out/) });
      await new Promise((r) => setTimeout(r, 1000)); // the PING after the timeout goes unanswered
      expect((await s.send(job())).kind).toBe('delivered');
      expect(fake.sessionCount()).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it('fails every waiting request with the connection error instead of dialling again for each', async () => {
    // A server that accepts TCP connections and drops them: the TLS handshake never completes.
    let connections = 0;
    const dropper = net.createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = dropper.address() as net.AddressInfo;
      const s = sender({ origin: `https://127.0.0.1:${port}` });
      const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => s.send({ ...job(), deliveryId: i })));
      expect(outcomes.every((o) => o.kind === 'retry' && /network error/.test(o.reason))).toBe(true);
      expect(connections).toBe(1);
    } finally {
      await new Promise((resolve) => dropper.close(resolve));
    }
  });
});

describe('outcomes of APNs errors', () => {
  it('reports 410 Unregistered as an invalid token', async () => {
    fake.respond(() => ({ status: 410, body: { reason: 'Unregistered', timestamp: Date.now() } }));
    expect(await sender().send(job())).toEqual({ kind: 'invalid_token', reason: 'Unregistered' });
  });

  it.each(['BadDeviceToken', 'DeviceTokenNotForTopic'])('reports 400 %s as an invalid token', async (reason) => {
    fake.respond(() => ({ status: 400, body: { reason } }));
    expect(await sender().send(job())).toEqual({ kind: 'invalid_token', reason });
  });

  it('retries after 429 at the time Retry-After gives', async () => {
    fake.respond(() => ({ status: 429, body: { reason: 'TooManyRequests' }, headers: { 'retry-after': '120' } }));
    expect(await sender().send(job())).toEqual({
      kind: 'retry',
      reason: 'apns 429 TooManyRequests',
      retryAfterMs: 120_000,
    });
  });

  it('retries after a 500 and a 503', async () => {
    const s = sender();
    fake.respond(() => ({ status: 500, body: { reason: 'InternalServerError' } }));
    expect(await s.send(job())).toEqual({ kind: 'retry', reason: 'apns 500 InternalServerError' });
    fake.respond(() => ({ status: 503, body: { reason: 'ServiceUnavailable' }, headers: { 'retry-after': '5' } }));
    expect(await s.send(job())).toEqual({ kind: 'retry', reason: 'apns 503 ServiceUnavailable', retryAfterMs: 5000 });
  });

  it('ends a request APNs never answers as a retry within requestTimeoutMs', async () => {
    fake.respond(() => ({ status: 0, hang: true }));
    const s = sender({ transport: { extraCa: [testCertificate().cert], requestTimeoutMs: 300 } });
    const started = Date.now();
    const outcome = await s.send(job());
    const elapsed = Date.now() - started;
    expect(outcome).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/timed out|timeout/i) });
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1500);
    expect(fake.requests).toHaveLength(1);
  });

  it('fails with the reason when APNs rejects the provider token (a key APNs does not know)', async () => {
    const otherKey = p256Pem();
    const s = sender({ settings: { ...settings, privateKey: otherKey.privateKey } });
    expect(await s.send(job())).toEqual({ kind: 'failed', reason: 'apns 403 InvalidProviderToken' });
  });

  it('fails on any other 4xx, naming status and reason', async () => {
    fake.respond(() => ({ status: 400, body: { reason: 'TopicDisallowed' } }));
    expect(await sender().send(job())).toEqual({ kind: 'failed', reason: 'apns 400 TopicDisallowed' });
  });

  it('retries after 403 ExpiredProviderToken and signs a fresh token for the next attempt', async () => {
    const s = sender();
    fake.respond(() => ({ status: 403, body: { reason: 'ExpiredProviderToken' } }));
    expect(await s.send(job())).toEqual({ kind: 'retry', reason: 'apns 403 ExpiredProviderToken' });
    fake.respond(undefined);
    expect((await s.send(job())).kind).toBe('delivered');
    const [expired, fresh] = fake.requests.map((r) => r.headers.authorization);
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(expired);
  });

  it('retries when APNs cannot be reached', async () => {
    const port = await freePort();
    const outcome = await sender({ origin: `https://127.0.0.1:${port}` }).send(job());
    expect(outcome).toMatchObject({ kind: 'retry', reason: expect.stringContaining('ECONNREFUSED') });
  });

  it('does not trust a certificate outside the system roots and extraCa', async () => {
    const outcome = await sender({ transport: { requestTimeoutMs: 2_000 } }).send(job());
    expect(outcome).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/CERT|certificate/i) });
    expect(fake.requests).toHaveLength(0);
  });

  it('close() returns promptly with a request still hanging, which resolves as a retry', async () => {
    fake.respond(() => ({ status: 0, hang: true }));
    const s = sender({ transport: { extraCa: [testCertificate().cert], requestTimeoutMs: 10_000 } });
    const pending = s.send(job());
    await waitFor(() => fake.requests.length === 1);
    const started = Date.now();
    await s.close();
    expect(Date.now() - started).toBeLessThan(3000);
    expect((await pending).kind).toBe('retry');
  });
});

describe('parseApnsSettings', () => {
  const valid = {
    teamId: TEAM_ID,
    keyId: KEY_ID,
    privateKey: appKey.privateKey,
    defaultTopic: 'com.example.pushhub',
    environment: 'production',
  };

  function rejection(raw: unknown): HubError {
    try {
      parseApnsSettings(raw);
    } catch (err) {
      expect(err).toBeInstanceOf(HubError);
      return err as HubError;
    }
    throw new Error('expected parseApnsSettings to throw');
  }

  it('accepts a generated P-256 .p8 key, also pasted with literal \\n', () => {
    expect(parseApnsSettings(valid)).toEqual({ ...valid, privateKey: appKey.privateKey });
    const oneLine = appKey.privateKey.trim().replaceAll('\n', '\\n');
    expect(parseApnsSettings({ ...valid, privateKey: oneLine }).privateKey).toBe(appKey.privateKey);
  });

  it('rejects an RSA key, naming privateKey', () => {
    const rsa = crypto
      .generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const err = rejection({ ...valid, privateKey: rsa });
    expect(err.code).toBe('invalid_field');
    expect(err.field).toBe('privateKey');
    expect(err.message).toMatch(/^privateKey: not a P-256 private key in PEM \(\.p8\) form/);
    expect(err.message).not.toContain('PRIVATE KEY');
  });

  it('rejects a key on another curve and garbage', () => {
    const p384 = crypto
      .generateKeyPairSync('ec', { namedCurve: 'P-384' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    expect(rejection({ ...valid, privateKey: p384 }).field).toBe('privateKey');
    expect(rejection({ ...valid, privateKey: 'not a key at all' }).field).toBe('privateKey');
    const broken = '-----BEGIN PRIVATE KEY-----\nAAAAAAAA\n-----END PRIVATE KEY-----';
    expect(rejection({ ...valid, privateKey: broken }).message).toMatch(/^privateKey: /);
  });

  it('rejects a bad teamId, keyId, topic or environment, naming the field', () => {
    expect(rejection({ ...valid, teamId: 'team123' })).toMatchObject({ code: 'invalid_field', field: 'teamId', message: expect.stringMatching(/^teamId: /) });
    expect(rejection({ ...valid, keyId: 'abcdefghij' }).field).toBe('keyId');
    expect(rejection({ ...valid, defaultTopic: 'not a bundle id' }).field).toBe('defaultTopic');
    expect(rejection({ ...valid, environment: 'development' }).field).toBe('environment');
    const { teamId: _omitted, ...withoutTeam } = valid;
    expect(rejection(withoutTeam).field).toBe('teamId');
    expect(rejection('nope').code).toBe('invalid_field');
  });
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A TCP proxy to 127.0.0.1:`targetPort`; `silence()` makes the connections open at that moment
 * stop passing bytes both ways without closing them (as a NAT that dropped its mapping does).
 * Connections made later pass bytes again.
 */
async function startSilenceableProxy(targetPort: string): Promise<{ port: number; silence(): void; close(): Promise<void> }> {
  const open = new Set<{ client: net.Socket; upstream: net.Socket; silent: boolean }>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(targetPort), '127.0.0.1');
    const pair = { client, upstream, silent: false };
    open.add(pair);
    client.on('data', (d) => pair.silent || upstream.write(d));
    upstream.on('data', (d) => pair.silent || client.write(d));
    const end = () => {
      open.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    silence: () => open.forEach((p) => (p.silent = true)),
    close: () =>
      new Promise<void>((resolve) => {
        open.forEach((p) => (p.client.destroy(), p.upstream.destroy()));
        server.close(() => resolve());
      }),
  };
}
