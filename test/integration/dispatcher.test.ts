import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createDispatcher, retryDelay, type Dispatcher } from '../../server/delivery/dispatcher.js';
import type { DeliveryJob, PushSender, SendOutcome } from '../../server/delivery/types.js';
import { createPushService, type PushService } from '../../server/domain/push-service.js';
import { openDatabase } from '../../server/store/db.js';
import type { Channel } from '../../server/store/device-store.js';
import { createStore, type Store } from '../../server/store/index.js';
import { LAST_SUCCESS_RESOLUTION_MS } from '../../server/store/outbox-store.js';
import { waitFor } from '../helpers/wait.js';

// The outbox loop against a real SQLite database, with a scripted sender standing in for a
// push service and a clock the test moves.

const HOUR = 3600_000;
const options = { concurrency: 4, maxAgeMs: 24 * HOUR, baseBackoffMs: 1000, maxBackoffMs: HOUR, pollMs: 20 };

/** A sender whose answers the test scripts; it records every job it is given. */
function scriptedSender(channel: Channel) {
  const jobs: DeliveryJob[] = [];
  let answer: (job: DeliveryJob) => SendOutcome | Promise<SendOutcome> = () => ({ kind: 'delivered', providerId: 'p-1' });
  const sender: PushSender = {
    channel,
    async send(job) {
      jobs.push(job);
      return answer(job);
    },
    async close() {},
  };
  return { sender, jobs, answer: (fn: typeof answer) => (answer = fn) };
}

let store: Store;
let push: PushService;
let dispatcher: Dispatcher;
let now: number;
const clock = { now: () => now };
let apns: ReturnType<typeof scriptedSender>;
let senders: Partial<Record<Channel, PushSender>>;
let app: ReturnType<Store['apps']['create']>['app'];
let user: ReturnType<Store['users']['create']>;

const delivery = (id: string) =>
  store.db.prepare('SELECT status, attempts, provider_id, last_error, next_attempt_at FROM deliveries WHERE notification_id = ?').get(id) as {
    status: string;
    attempts: number;
    provider_id: string | null;
    last_error: string | null;
    next_attempt_at: number;
  };

beforeEach(() => {
  now = Date.UTC(2026, 10, 22, 12);
  store = createStore(openDatabase(fs.mkdtempSync(path.join(os.tmpdir(), 'pushhub-dispatcher-'))), clock);
  apns = scriptedSender('apns');
  senders = { apns: apns.sender };
  dispatcher = createDispatcher({
    outbox: store.outbox,
    senderFor: (c) => senders[c] ?? null,
    clock,
    logger: pino({ level: 'silent' }),
    options,
    random: () => 1,
  });
  push = createPushService({ store, clock, onAccepted: () => dispatcher.wake() });
  app = store.apps.create('test').app;
  user = store.users.create({ name: 'Ann', username: 'ann', passwordHash: 'x' });
});
afterEach(async () => {
  await dispatcher.stop();
  store.db.close();
});

const addApnsDevice = (token = 'a'.repeat(64)) =>
  store.devices.register({ userId: user.id, name: 'phone', platform: 'ios', channel: 'apns', token, topic: 'com.example.app' });
const send = (title = 'Hello') => push.accept(app, { userKey: user.userKey, title, body: 'World', emoji: '👋' });

describe('dispatcher', () => {
  it('sends each pending delivery with its content and records delivered with the provider id', async () => {
    const device = addApnsDevice();
    dispatcher.start();
    const { id } = send();
    await waitFor(() => delivery(id).status === 'delivered');
    expect(delivery(id)).toMatchObject({ attempts: 1, provider_id: 'p-1', last_error: null });
    expect(apns.jobs).toHaveLength(1);
    expect(apns.jobs[0]).toMatchObject({
      attempts: 0,
      notification: { id, title: 'Hello', body: 'World', emoji: '👋', image: null, url: null },
      device: { id: device.id, token: 'a'.repeat(64), topic: 'com.example.app', channel: 'apns' },
    });
    expect(store.devices.get(device.id)?.lastSuccessAt).toBe(now);
  });

  it("keeps a device's last success to the minute without rewriting it on every delivery of a burst", async () => {
    const device = addApnsDevice();
    dispatcher.start();
    const first = now;
    const one = send('one').id;
    await waitFor(() => delivery(one).status === 'delivered');
    now += LAST_SUCCESS_RESOLUTION_MS - 1000;
    const second = send('two').id;
    await waitFor(() => delivery(second).status === 'delivered');
    expect(store.devices.get(device.id)?.lastSuccessAt).toBe(first);
    now += 1000;
    const third = send('three').id;
    await waitFor(() => delivery(third).status === 'delivered');
    expect(store.devices.get(device.id)?.lastSuccessAt).toBe(now);
  });

  it('retries a temporary failure after the backoff, honouring Retry-After, then delivers', async () => {
    addApnsDevice();
    apns.answer(() => ({ kind: 'retry', reason: 'apns 503 ServiceUnavailable', retryAfterMs: 30_000 }));
    dispatcher.start();
    const { id } = send();
    await waitFor(() => delivery(id).attempts === 1);
    expect(delivery(id)).toMatchObject({ status: 'pending', last_error: 'apns 503 ServiceUnavailable', next_attempt_at: now + 30_000 });

    // Not before its time: nothing is sent in a hot loop.
    await new Promise((r) => setTimeout(r, 100));
    expect(apns.jobs).toHaveLength(1);

    apns.answer(() => ({ kind: 'delivered', providerId: 'p-2' }));
    now += 30_000;
    dispatcher.wake();
    await waitFor(() => delivery(id).status === 'delivered');
    expect(delivery(id)).toMatchObject({ attempts: 2, provider_id: 'p-2', last_error: null });
    expect(apns.jobs[1]!.attempts).toBe(1);
  });

  it('deactivates a device whose token is dead, fails its other pending deliveries, and skips it afterwards', async () => {
    const device = addApnsDevice();
    apns.answer(() => ({ kind: 'invalid_token', reason: 'Unregistered' }));
    const first = send('one');
    const second = send('two');
    dispatcher.start();
    await waitFor(() => delivery(first.id).status === 'failed' && delivery(second.id).status === 'failed');
    expect(delivery(first.id).last_error).toBe('invalid_token: Unregistered');
    expect(store.devices.get(device.id)).toMatchObject({ deactivatedReason: 'Unregistered' });
    expect(store.devices.get(device.id)?.deactivatedAt).toBe(now);
    const later = send('three');
    expect(later.deliveries).toBe(0);
  });

  it('marks a delivery failed with the reason when retrying cannot help', async () => {
    addApnsDevice();
    apns.answer(() => ({ kind: 'failed', reason: 'apns 403 InvalidProviderToken' }));
    dispatcher.start();
    const { id } = send();
    await waitFor(() => delivery(id).status === 'failed');
    expect(delivery(id)).toMatchObject({ attempts: 1, last_error: 'apns 403 InvalidProviderToken' });
    expect(store.devices.get(store.devices.listForUser(user.id)[0]!.id)?.deactivatedAt).toBeNull();
  });

  it('fails deliveries of a channel without credentials at once with channel_not_configured', async () => {
    store.devices.register({ userId: user.id, name: 'pixel', platform: 'android', channel: 'fcm', token: 'fcm-token' });
    dispatcher.start();
    const { id } = send();
    await waitFor(() => delivery(id).status === 'failed');
    expect(delivery(id)).toMatchObject({ attempts: 0, last_error: 'channel_not_configured' });
  });

  it('gives up with expired once the next try would pass the age limit', async () => {
    addApnsDevice();
    apns.answer(() => ({ kind: 'retry', reason: 'network: ECONNRESET' }));
    dispatcher.start();
    const { id } = send();
    await waitFor(() => delivery(id).attempts === 1);
    now += 24 * HOUR - 500; // the next backoff (2 s) would land past 24 h
    dispatcher.wake();
    await waitFor(() => delivery(id).status === 'expired');
    expect(delivery(id).last_error).toBe('gave up after 2 attempts: network: ECONNRESET');
  });

  it('turns a sender that throws into a retry instead of losing the delivery', async () => {
    addApnsDevice();
    apns.answer(() => {
      throw new Error('boom');
    });
    dispatcher.start();
    const { id } = send();
    await waitFor(() => delivery(id).attempts === 1);
    expect(delivery(id)).toMatchObject({ status: 'pending', last_error: 'sender error: boom' });
  });

  it('keeps at most `concurrency` sends in flight per channel', async () => {
    for (let i = 0; i < 10; i++) addApnsDevice(i.toString(16).repeat(64));
    let flying = 0;
    let peak = 0;
    const release: Array<() => void> = [];
    apns.answer(async () => {
      flying++;
      peak = Math.max(peak, flying);
      await new Promise<void>((r) => release.push(r));
      flying--;
      return { kind: 'delivered' };
    });
    dispatcher.start();
    const { id } = send();
    await waitFor(() => release.length === options.concurrency);
    await new Promise((r) => setTimeout(r, 50));
    expect(dispatcher.inFlight().apns).toBe(options.concurrency);
    while (apns.jobs.length < 10 || release.length) {
      release.splice(0).forEach((r) => r());
      await new Promise((r) => setTimeout(r, 10));
    }
    await waitFor(
      () => (store.db.prepare("SELECT count(*) FROM deliveries WHERE notification_id = ? AND status = 'delivered'").pluck().get(id) as number) === 10,
    );
    expect(peak).toBe(options.concurrency);
  });

  it('reads on past the deliveries in flight, and a channel may have its own concurrency', async () => {
    await dispatcher.stop();
    dispatcher = createDispatcher({
      outbox: store.outbox,
      senderFor: (c) => senders[c] ?? null,
      clock,
      logger: pino({ level: 'silent' }),
      options: { ...options, channelConcurrency: { apns: 2 } },
      random: () => 1,
    });
    for (let i = 0; i < 6; i++) addApnsDevice((i + 1).toString(16).repeat(64));
    const release: Array<() => void> = [];
    apns.answer(() => new Promise<SendOutcome>((r) => release.push(() => r({ kind: 'delivered' }))));
    dispatcher.start();
    const { id } = send();
    await waitFor(() => release.length === 2);
    await new Promise((r) => setTimeout(r, 60)); // several pumps: still only 2 in flight, no job sent twice
    expect(apns.jobs).toHaveLength(2);
    while (apns.jobs.length < 6 || release.length) {
      release.splice(0).forEach((r) => r());
      await new Promise((r) => setTimeout(r, 10));
    }
    await waitFor(
      () => (store.db.prepare("SELECT count(*) FROM deliveries WHERE notification_id = ? AND status = 'delivered'").pluck().get(id) as number) === 6,
    );
    expect(new Set(apns.jobs.map((j) => j.deliveryId)).size).toBe(6);
  });

  it('sends what was pending before it started (restart: at-least-once)', async () => {
    addApnsDevice();
    const { id } = send();
    expect(delivery(id).status).toBe('pending');
    dispatcher.start();
    await waitFor(() => delivery(id).status === 'delivered');
  });

  it('waits for sends in flight on stop, and leaves unfinished ones pending', async () => {
    addApnsDevice();
    let finish!: () => void;
    apns.answer(() => new Promise<SendOutcome>((r) => (finish = () => r({ kind: 'delivered' }))));
    dispatcher.start();
    const { id } = send();
    await waitFor(() => apns.jobs.length === 1);
    const stopped = dispatcher.stop(50);
    await stopped;
    expect(delivery(id).status).toBe('pending');
    finish();
  });
});

describe('retryDelay', () => {
  const o = { baseBackoffMs: 1000, maxBackoffMs: 60_000 };
  it('doubles per attempt with 50–100% jitter, capped, and never sooner than Retry-After', () => {
    expect(retryDelay(0, undefined, o, () => 1)).toBe(1000);
    expect(retryDelay(3, undefined, o, () => 1)).toBe(8000);
    expect(retryDelay(3, undefined, o, () => 0)).toBe(4000);
    expect(retryDelay(20, undefined, o, () => 1)).toBe(60_000);
    expect(retryDelay(0, 120_000, o, () => 1)).toBe(120_000);
  });
});
