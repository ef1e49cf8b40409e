import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import type { Clock } from '../../domain/clock.js';
import { HubError } from '../../domain/errors.js';
import { verifyPassword } from '../../domain/passwords.js';
import { parseBody, wellFormedString } from '../../domain/validation.js';
import { parsePushSubscription } from '../../delivery/senders/webpush-sender.js';
import { notificationEventData, type StreamHub } from '../../delivery/stream-hub.js';
import type { NotificationContent } from '../../delivery/types.js';
import { channels, platforms, type NewDevice } from '../../store/device-store.js';
import type { Store } from '../../store/index.js';
import type { KeyedLimiter } from '../middleware/rate-limit.js';
import { deviceJson } from './admin.js';

/** How long a receiver stays signed in on a device (ms, one year). */
export const RECEIVER_SESSION_TTL_MS = 365 * 24 * 3600 * 1000;
/** Most notifications replayed on one reconnect. */
const REPLAY_LIMIT = 1000;

const loginBody = z.object({ username: z.string().min(1), password: z.string().min(1) });
const deviceBody = z.object({
  name: wellFormedString().trim().min(1).max(100),
  platform: z.enum(platforms),
  channel: z.enum(channels),
  token: wellFormedString().min(1).max(4096).optional(),
  topic: z
    .string()
    .regex(/^[A-Za-z0-9.-]+$/, 'a bundle id such as com.example.app')
    .max(255)
    .optional(),
  subscription: z.unknown().optional(),
});
const historyQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: z.string().min(1).optional(),
});

/**
 * Checks a device registration per channel (issue "Delivery" / "Receiver API"): apns needs the
 * hex device token and may carry a topic; fcm needs the registration token; webpush needs the
 * PushSubscription JSON (its endpoint becomes the token); stream needs nothing, and a token it
 * sends is a stable client id (scoped to the account) that makes re-registering update the same device.
 */
function toNewDevice(userId: string, body: z.infer<typeof deviceBody>): NewDevice {
  const base = { userId, name: body.name, platform: body.platform, channel: body.channel };
  switch (body.channel) {
    case 'apns':
      if (!body.token) throw new HubError('missing_field', 'token: the APNs device token is required', { field: 'token' });
      if (!/^[0-9a-fA-F]{64,200}$/.test(body.token)) {
        throw new HubError('invalid_field', 'token: an APNs device token is hexadecimal (64 characters)', { field: 'token' });
      }
      return { ...base, token: body.token.toLowerCase(), ...(body.topic ? { topic: body.topic } : {}) };
    case 'fcm':
      if (!body.token) throw new HubError('missing_field', 'token: the FCM registration token is required', { field: 'token' });
      return { ...base, token: body.token };
    case 'webpush': {
      if (body.subscription === undefined) {
        throw new HubError('missing_field', 'subscription: the PushSubscription JSON is required', { field: 'subscription' });
      }
      const subscription = parsePushSubscription(body.subscription);
      return { ...base, token: subscription.endpoint, subscription };
    }
    case 'stream':
      // A stream client id is chosen by the client, not a secret like a push token: it is kept
      // per account, so one receiver cannot take over another's device by reusing its id.
      return { ...base, ...(body.token ? { token: `${userId}:${body.token}` } : {}) };
  }
}

/** Formats one Server-Sent Event (WHATWG HTML "Server-sent events"). */
function sseEvent(n: NotificationContent): string {
  return `id: ${n.id}\nevent: notification\ndata: ${JSON.stringify(notificationEventData(n))}\n\n`;
}

/**
 * The receiver API (issue "Delivery" / "Receiver API"): what the web receiver and native apps
 * call. A receiver session reaches only its own account; it is refused by the admin API.
 */
export function createReceiverRoutes(deps: {
  store: Store;
  clock: Clock;
  streamHub: StreamHub;
  loginFailures: KeyedLimiter;
  /** Makes the dispatcher look at the outbox now. */
  wakeDispatcher: () => void;
  /** The VAPID public key (base64url), or null when Web Push has no keys. */
  vapidPublicKey: () => string | null;
  /** Milliseconds between SSE heartbeat comments (default 15 000). */
  heartbeatMs?: number;
}): Router {
  const { store, clock, streamHub } = deps;
  const router = Router();

  router.post('/login', async (req, res) => {
    const body = parseBody(loginBody, req.body);
    const found = store.users.findCredentials(body.username);
    const ok = found ? await verifyPassword(found.passwordHash, body.password) : false;
    if (!found || !ok) {
      const limited = deps.loginFailures.take(req.ip ?? 'unknown');
      if (!limited.ok) {
        throw new HubError('rate_limited', 'too many failed sign-ins from this address', {
          retryAfterSeconds: limited.retryAfterSeconds,
        });
      }
      throw new HubError('unauthorized', 'wrong username or password');
    }
    const token = store.auth.createSession('receiver', found.user.id, RECEIVER_SESSION_TTL_MS);
    res.json({ userKey: found.user.userKey, token, user: { id: found.user.id, name: found.user.name } });
  });

  // Everything below needs a receiver session: Bearer header, or ?token= for EventSource.
  const requireReceiver: RequestHandler = (req, res, next) => {
    const header = req.get('authorization');
    const token = header ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : typeof req.query.token === 'string' ? req.query.token : undefined;
    const userId = token ? store.auth.findSession(token, 'receiver') : undefined;
    const user = userId ? store.users.get(userId) : undefined;
    if (!user) throw new HubError('unauthorized', 'sign in first (Authorization: Bearer <receiver token>)');
    res.locals.user = user;
    res.locals.sessionToken = token;
    next();
  };
  router.use(requireReceiver);
  const userOf = (res: { locals: Record<string, unknown> }) => res.locals.user as { id: string; name: string; userKey: string; username: string };

  router.post('/logout', (_req, res) => {
    store.auth.endSession(res.locals.sessionToken as string);
    res.status(204).end();
  });

  router.get('/me', (_req, res) => {
    const user = userOf(res);
    res.json({
      userKey: user.userKey,
      name: user.name,
      username: user.username,
      devices: store.devices.listForUser(user.id).map(deviceJson),
    });
  });

  router.post('/devices', (req, res) => {
    const user = userOf(res);
    const device = store.devices.register(toNewDevice(user.id, parseBody(deviceBody, req.body)));
    res.status(201).json({ id: device.id });
  });

  router.delete('/devices/:id', (req, res) => {
    if (!store.devices.delete(req.params.id, userOf(res).id)) {
      throw new HubError('not_found', `you have no device with the id "${req.params.id}"`);
    }
    res.status(204).end();
  });

  router.get('/notifications', (req, res) => {
    const q = parseBody(historyQuery, req.query);
    const page = store.notifications.history(userOf(res).id, q);
    res.json({ items: page.items.map(notificationEventData), next: page.next });
  });

  router.get('/webpush-key', (_req, res) => {
    const publicKey = deps.vapidPublicKey();
    if (!publicKey) throw new HubError('unavailable', 'Web Push has no VAPID keys yet');
    res.json({ publicKey });
  });

  router.get('/stream', (req, res) => {
    const user = userOf(res);
    const deviceId = typeof req.query.deviceId === 'string' ? req.query.deviceId : null;
    if (deviceId) {
      const device = store.devices.get(deviceId);
      if (!device || device.userId !== user.id || device.channel !== 'stream') {
        throw new HubError('not_found', 'deviceId: not one of your stream devices', { field: 'deviceId' });
      }
    }
    const lastEventId = req.get('last-event-id') ?? (typeof req.query.lastEventId === 'string' ? req.query.lastEventId : undefined);

    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 3000\n\n');

    // Register before replaying so nothing accepted in between is lost; skip what was replayed.
    const sent = new Set<string>();
    let replaying = true;
    const queued: NotificationContent[] = [];
    const write = (n: NotificationContent) => {
      if (sent.has(n.id)) return;
      sent.add(n.id);
      res.write(sseEvent(n));
    };
    const remove = streamHub.add({
      userId: user.id,
      deviceId,
      send: (n) => (replaying ? queued.push(n) : write(n)),
      close: () => res.end(),
    });

    if (lastEventId) {
      const missed = store.notifications.since(user.id, lastEventId, REPLAY_LIMIT);
      missed.forEach(write);
      const last = missed.at(-1);
      if (deviceId && last) store.outbox.deliveredUpTo(deviceId, last.id, clock.now());
    }
    replaying = false;
    queued.forEach(write);
    if (deviceId && store.outbox.rescheduleDevice(deviceId, clock.now()) > 0) deps.wakeDispatcher();

    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), deps.heartbeatMs ?? 15_000);
    const cleanup = () => {
      clearInterval(heartbeat);
      remove();
    };
    req.on('close', cleanup);
    res.on('error', cleanup);
  });

  return router;
}
