import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HubError } from '../../server/domain/errors.js';
import { createFcmSender, parseFcmServiceAccount, type FcmServiceAccount } from '../../server/delivery/senders/fcm-sender.js';
import type { DeliveryJob, PushSender } from '../../server/delivery/types.js';
import { fakeFcmErrors, generateTestServiceAccount, startFakeFcm, type FakeFcm, type FakeFcmRequest, type FakeFcmResponse } from '../fakes/fcm-fake.js';
import { testCertificate } from '../fakes/tls.js';

const REGISTRATION_TOKEN = 'fcm-registration-token-dGVzdC1kZXZpY2UtMQ:APA91bHk3x9';

let account: ReturnType<typeof generateTestServiceAccount>;
let otherAccount: ReturnType<typeof generateTestServiceAccount>;
beforeAll(() => {
  account = generateTestServiceAccount('pushhub-test');
  otherAccount = generateTestServiceAccount('pushhub-test');
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** A pino logger at debug level whose lines the test can search (for secrets). */
function capturingLogger() {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  }));
  return { logger, lines };
}

async function setup(options: { requestTimeoutMs?: number; senderAccount?: FcmServiceAccount } = {}) {
  const fake = await startFakeFcm({ serviceAccount: account });
  cleanups.push(() => fake.close());
  const { logger, lines } = capturingLogger();
  const sender = createFcmSender({
    serviceAccount: parseFcmServiceAccount(options.senderAccount ?? account),
    origin: fake.origin,
    transport: { extraCa: [testCertificate().cert], ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}) },
    logger,
  });
  cleanups.push(() => sender.close());
  return { fake, sender, lines };
}

let deliveryId = 0;
function job(overrides: Partial<DeliveryJob['notification']> = {}): DeliveryJob {
  deliveryId += 1;
  return {
    deliveryId,
    attempts: 0,
    notification: {
      id: '01JZ8Q4W3M5N6P7Q8R9S0T1V2W',
      title: 'Backup finished',
      body: 'Nightly backup of /srv completed in 4 min.',
      emoji: '💾',
      image: 'https://example.com/backup.png',
      url: 'https://nas.local/backups',
      createdAt: 1_700_000_000_000,
      ...overrides,
    },
    device: {
      id: 'dev_1',
      userId: 'usr_1',
      platform: 'android',
      channel: 'fcm',
      token: REGISTRATION_TOKEN,
      topic: null,
      subscription: null,
    },
  };
}

/** A script answering FCM sends with `response` (the token endpoint keeps its default). */
const onSend = (response: FakeFcmResponse) => (request: FakeFcmRequest) => (request.kind === 'send' ? response : undefined);
const sends = (fake: FakeFcm) => fake.requests.filter((r) => r.kind === 'send');
const tokenRequests = (fake: FakeFcm) => fake.requests.filter((r) => r.kind === 'token');

function expectNoSecrets(lines: string[], fake: FakeFcm) {
  const all = lines.join('');
  expect(all).not.toContain(REGISTRATION_TOKEN);
  expect(all).not.toContain('PRIVATE KEY');
  for (const token of fake.issuedTokens) expect(all).not.toContain(token);
}

describe('FCM sender against a fake FCM', () => {
  it('delivers the message a phone shows: title with emoji, body, image, data, high priority', async () => {
    const { fake, sender, lines } = await setup();
    expect(sender.channel).toBe('fcm');

    const outcome = await sender.send(job());

    expect(outcome.kind).toBe('delivered');
    const [sent] = sends(fake);
    expect(sent?.project).toBe('pushhub-test');
    expect(outcome).toEqual({ kind: 'delivered', providerId: expect.stringMatching(/^projects\/pushhub-test\/messages\/.+/) });
    expect(sent?.message).toEqual({
      token: REGISTRATION_TOKEN,
      notification: { title: '💾 Backup finished', body: 'Nightly backup of /srv completed in 4 min.', image: 'https://example.com/backup.png' },
      data: { notificationId: '01JZ8Q4W3M5N6P7Q8R9S0T1V2W', url: 'https://nas.local/backups', emoji: '💾' },
      android: { priority: 'high' },
    });
    expect(sent?.headers.authorization).toBe(`Bearer ${fake.issuedTokens[0]}`);
    expectNoSecrets(lines, fake);
  });

  it('sends a plain notification without emoji, image or url', async () => {
    const { fake, sender } = await setup();
    const outcome = await sender.send(job({ emoji: null, image: null, url: null, title: 'Door opened' }));
    expect(outcome.kind).toBe('delivered');
    expect(sends(fake)[0]?.message).toEqual({
      token: REGISTRATION_TOKEN,
      notification: { title: 'Door opened', body: 'Nightly backup of /srv completed in 4 min.' },
      data: { notificationId: '01JZ8Q4W3M5N6P7Q8R9S0T1V2W' },
      android: { priority: 'high' },
    });
  });

  it('shortens a 4096-byte body so the message fits FCM’s 4096-byte cap', async () => {
    const { fake, sender } = await setup();
    const body = 'ä'.repeat(2048); // 4096 bytes of UTF-8
    const outcome = await sender.send(job({ body }));
    expect(outcome.kind).toBe('delivered');
    const message = sends(fake)[0]?.message;
    expect(message?.notification?.body?.endsWith('…')).toBe(true);
    expect(body.startsWith(message?.notification?.body?.slice(0, -1) ?? 'x')).toBe(true);
    expect(Buffer.byteLength(JSON.stringify({ notification: message?.notification, data: message?.data }))).toBeLessThanOrEqual(4096);
  });

  it('signs a JWT-bearer assertion the token endpoint verifies, and reuses the access token', async () => {
    const { fake, sender } = await setup();

    const outcomes = await Promise.all([sender.send(job()), sender.send(job()), sender.send(job())]);
    outcomes.push(await sender.send(job()));

    expect(outcomes.map((o) => o.kind)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
    expect(tokenRequests(fake)).toHaveLength(1);
    const [tokenRequest] = tokenRequests(fake);
    expect(tokenRequest?.body).toMatchObject({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer' });
    const claims = tokenRequest?.claims ?? {};
    expect(claims).toMatchObject({
      iss: account.client_email,
      scope: 'https://www.googleapis.com/auth/firebase.messaging',
      aud: `${fake.origin}/token`,
    });
    expect((claims.exp as number) - (claims.iat as number)).toBeLessThanOrEqual(3600);
    expect(new Set(sends(fake).map((s) => s.headers.authorization))).toEqual(new Set([`Bearer ${fake.issuedTokens[0]}`]));
  });

  it('fails when the token endpoint refuses the service account (a key FCM does not know)', async () => {
    const { fake, sender, lines } = await setup({ senderAccount: { ...account, private_key: otherAccount.private_key } });

    const outcome = await sender.send(job());

    expect(outcome.kind).toBe('failed');
    expect(outcome.kind === 'failed' && outcome.reason).toMatch(/token endpoint refused.*invalid_grant/);
    expect(sends(fake)).toHaveLength(0);
    expectNoSecrets(lines, fake);
  });

  it('marks the token dead on UNREGISTERED and on INVALID_ARGUMENT about the token', async () => {
    const { fake, sender, lines } = await setup();

    fake.respond(onSend(fakeFcmErrors.unregistered()));
    const unregistered = await sender.send(job());
    fake.respond(onSend(fakeFcmErrors.invalidToken()));
    const invalid = await sender.send(job());

    expect(unregistered).toEqual({ kind: 'invalid_token', reason: expect.stringContaining('registration-token-not-registered') });
    expect(invalid).toEqual({ kind: 'invalid_token', reason: expect.stringContaining('not a valid FCM registration token') });
    expectNoSecrets(lines, fake);
  });

  it('fails (keeps the token) on INVALID_ARGUMENT about the message, SENDER_ID_MISMATCH and THIRD_PARTY_AUTH_ERROR', async () => {
    const { fake, sender } = await setup();

    fake.respond(onSend(fakeFcmErrors.invalidField()));
    const badField = await sender.send(job());
    fake.respond(onSend(fakeFcmErrors.senderIdMismatch()));
    const mismatch = await sender.send(job());
    fake.respond(onSend(fakeFcmErrors.thirdPartyAuth()));
    const thirdParty = await sender.send(job());

    expect(badField).toEqual({ kind: 'failed', reason: expect.stringContaining("message.data[0].value") });
    expect(mismatch).toEqual({ kind: 'failed', reason: expect.stringMatching(/credentials.*mismatched-credential/) });
    expect(thirdParty).toEqual({ kind: 'failed', reason: expect.stringMatching(/credentials.*third-party-auth-error/) });
  });

  it('retries on QUOTA_EXCEEDED (honouring Retry-After) and INTERNAL', async () => {
    const { fake, sender } = await setup();

    fake.respond(onSend(fakeFcmErrors.quotaExceeded(30)));
    const quota = await sender.send(job());
    fake.respond(onSend(fakeFcmErrors.internal()));
    const internal = await sender.send(job());

    expect(quota).toEqual({ kind: 'retry', reason: expect.stringContaining('message-rate-exceeded'), retryAfterMs: 30_000 });
    expect(internal).toEqual({ kind: 'retry', reason: expect.stringContaining('internal-error') });
    expect(sends(fake)).toHaveLength(2); // neither is retried inside firebase-admin
  });

  it('retries on UNAVAILABLE once firebase-admin’s own retries are spent (about 7 s)', async () => {
    const { fake, sender } = await setup();
    fake.respond(onSend(fakeFcmErrors.unavailable()));

    const outcome = await sender.send(job());

    expect(outcome).toEqual({ kind: 'retry', reason: expect.stringContaining('server-unavailable') });
    expect(sends(fake)).toHaveLength(5); // 1 + firebase-admin's 4 retries (0, 1, 2, 4 s)
  }, 15_000);

  it('gives up on a hanging FCM within requestTimeoutMs and answers retry; the sender keeps working', async () => {
    const { fake, sender } = await setup({ requestTimeoutMs: 400 });
    expect((await sender.send(job())).kind).toBe('delivered'); // token fetched, connection warm

    fake.respond(onSend(fakeFcmErrors.hang()));
    const started = Date.now();
    const outcome = await sender.send(job());
    const elapsed = Date.now() - started;

    expect(outcome).toEqual({ kind: 'retry', reason: 'FCM did not answer within 400 ms' });
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(2000);
    // The request was really abandoned (not left to firebase-admin's 15 s timeout and retries).
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sends(fake)).toHaveLength(2);
    expect(sends(fake)[1]?.abandonedByClient).toBe(true);

    fake.respond(() => undefined);
    expect((await sender.send(job())).kind).toBe('delivered');
  });

  it('gives up on a hanging token endpoint within requestTimeoutMs and answers retry', async () => {
    const { fake, sender } = await setup({ requestTimeoutMs: 400 });
    fake.respond((r) => (r.kind === 'token' ? fakeFcmErrors.hang() : undefined));

    const started = Date.now();
    const outcome = await sender.send(job());

    expect(outcome.kind).toBe('retry');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(sends(fake)).toHaveLength(0);
  });

  it('retries when the token endpoint is unavailable (503), and fails when it refuses (400)', async () => {
    const { fake, sender } = await setup();

    fake.respond((r) => (r.kind === 'token' ? { status: 503, body: { error: 'backend_error' } } : undefined));
    const unavailable = await sender.send(job());
    fake.respond((r) => (r.kind === 'token' ? { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } } : undefined));
    const refused = await sender.send(job());

    expect(unavailable).toEqual({ kind: 'retry', reason: expect.stringContaining('503: backend_error') });
    expect(refused).toEqual({ kind: 'failed', reason: expect.stringContaining('400: invalid_grant: Invalid JWT Signature.') });
  });

  it('close() abandons an in-flight send (retry) and later sends are retried, not lost', async () => {
    const { fake, sender } = await setup();
    expect((await sender.send(job())).kind).toBe('delivered');
    fake.respond(onSend(fakeFcmErrors.hang()));

    const inFlight = sender.send(job());
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await sender.close();
    const outcome = await inFlight;

    expect(outcome.kind).toBe('retry');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await sender.send(job())).toEqual({ kind: 'retry', reason: 'the FCM sender was closed' });
  });

  it('retries when FCM cannot be reached', async () => {
    const fake = await startFakeFcm({ serviceAccount: account });
    const origin = fake.origin;
    await fake.close();
    const sender = createFcmSender({ serviceAccount: account, origin, transport: { extraCa: [testCertificate().cert] }, logger: pino({ level: 'silent' }) });
    cleanups.push(() => sender.close());

    const outcome = await sender.send(job());

    expect(outcome).toEqual({ kind: 'retry', reason: expect.stringContaining('ECONNREFUSED') });
  });

  it('does not trust the fake’s self-signed certificate unless it is an extra CA', async () => {
    const fake = await startFakeFcm({ serviceAccount: account });
    cleanups.push(() => fake.close());
    const sender: PushSender = createFcmSender({ serviceAccount: account, origin: fake.origin, logger: pino({ level: 'silent' }) });
    cleanups.push(() => sender.close());

    const outcome = await sender.send(job());

    expect(outcome.kind).toBe('retry');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('parseFcmServiceAccount', () => {
  it('accepts the key file as downloaded, as an object and as its JSON text', () => {
    const expected = {
      project_id: 'pushhub-test',
      client_email: account.client_email,
      private_key: account.private_key,
      token_uri: 'https://oauth2.googleapis.com/token',
    };
    expect(parseFcmServiceAccount(account)).toEqual(expected);
    expect(parseFcmServiceAccount(JSON.stringify(account))).toEqual(expected);
  });

  it('accepts a key pasted with literal \\n sequences', () => {
    const flattened = { ...account, private_key: account.private_key.trim().replace(/\n/g, '\\n') };
    expect(parseFcmServiceAccount(flattened).private_key).toBe(account.private_key);
  });

  it.each(['project_id', 'client_email', 'private_key'])('rejects an account without %s', (field) => {
    const { [field]: _dropped, ...rest } = account;
    expect(() => parseFcmServiceAccount(rest)).toThrow(`serviceAccount: missing ${field}`);
    try {
      parseFcmServiceAccount(rest);
    } catch (err) {
      expect(err).toBeInstanceOf(HubError);
      expect((err as HubError).field).toBe('serviceAccount');
      expect((err as HubError).status).toBe(400);
    }
  });

  it('rejects a key that is not RSA, a broken key, a wrong type and text that is not JSON', () => {
    const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => parseFcmServiceAccount({ ...account, private_key: ec })).toThrow(/serviceAccount: private_key is an ec key; FCM needs an RSA key/);
    expect(() => parseFcmServiceAccount({ ...account, private_key: '-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----' })).toThrow(
      /serviceAccount: private_key is not an unencrypted private key in PEM/,
    );
    expect(() => parseFcmServiceAccount({ ...account, type: 'authorized_user' })).toThrow(/serviceAccount: type is "authorized_user"/);
    expect(() => parseFcmServiceAccount('{"project_id":')).toThrow(/serviceAccount: not valid JSON/);
    expect(() => parseFcmServiceAccount({ ...account, client_email: 'nobody' })).toThrow(/serviceAccount: client_email is not an email address/);
  });

  it('never puts the key in an error message', () => {
    const broken = account.private_key.replace('MII', 'XXX');
    try {
      parseFcmServiceAccount({ ...account, private_key: broken });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).not.toContain(broken.slice(40, 80));
    }
  });
});
