import crypto from 'node:crypto';
import https from 'node:https';
import tls from 'node:tls';
import type { Logger } from 'pino';
import webpush from 'web-push';
import { systemClock, type Clock } from '../../domain/clock.js';
import { HubError } from '../../domain/errors.js';
import { truncateUtf8 } from '../../domain/text.js';
import type { DeliveryJob, PushSender, SendOutcome, TransportOptions } from '../types.js';

/**
 * The hub's VAPID identity (RFC 8292): a P-256 key pair and a contact.
 * - `publicKey`: the uncompressed P-256 point (65 bytes), base64url without padding — the
 *   `applicationServerKey` a browser subscribes with, and the `k=` of every push request.
 * - `privateKey`: the 32-byte private scalar, base64url without padding. A secret: never log it.
 * - `subject`: a `mailto:` or `https:` URL the push service can contact (the JWT's `sub`).
 */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  subject: string;
}

/** A validated browser PushSubscription (W3C Push API `PushSubscription.toJSON()`, RFC 8030/8291). */
export interface WebPushSubscription {
  /** The push resource, an https URL. Its path is a capability: log only its origin. */
  endpoint: string;
  keys: {
    /** The user agent's P-256 ECDH public key, uncompressed (65 bytes), base64url without padding. */
    p256dh: string;
    /** The 16-byte authentication secret, base64url without padding. */
    auth: string;
  };
}

/** Options of {@link createWebPushSender}. */
export interface WebPushSenderOptions {
  /** The VAPID identity the subscriptions were made with (RFC 8292). */
  vapid: VapidKeys;
  /** Extra CAs and the request timeout (default 10 000 ms). */
  transport?: TransportOptions;
  logger: Logger;
  /** How long the push service keeps an undelivered message (RFC 8030 §5.2 `TTL`), seconds; default 86 400 (24 h). */
  ttlSeconds?: number;
  /** The clock used to read an HTTP-date `Retry-After`; default the system clock. */
  clock?: Clock;
}

/**
 * The most plaintext bytes that fit one aes128gcm message of at most 4096 bytes (RFC 8291 §4:
 * push services need only accept 4096 bytes of body): 4096 − 86 (header: salt 16, rs 4,
 * idlen 1, keyid 65) − 16 (AEAD tag) − 1 (padding delimiter) = 3993.
 */
export const WEBPUSH_MAX_PLAINTEXT_BYTES = 3993;

const DEFAULT_TTL_SECONDS = 24 * 60 * 60;
const DEFAULT_TIMEOUT_MS = 10_000;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
const MAX_ENDPOINT_LENGTH = 4096;

/**
 * Makes a new VAPID key pair with web-push's `generateVAPIDKeys()` (P-256, base64url) for
 * `subject`. Throws HubError `invalid_field` (field `subject`) when the subject is not a
 * `mailto:` or `https:` URL (RFC 8292 §2.1).
 */
export function generateVapidKeys(subject: string): VapidKeys {
  const checked = parseVapidSubject(subject);
  const { publicKey, privateKey } = webpush.generateVAPIDKeys();
  return { publicKey, privateKey, subject: checked };
}

/**
 * Validates a VAPID contact (RFC 8292 §2.1 `sub`): a `mailto:` URL with an address or an
 * `https:` URL. Returns it trimmed. Throws HubError `invalid_field` with field `subject`.
 */
export function parseVapidSubject(raw: unknown): string {
  const fail = (why: string): never => {
    throw new HubError('invalid_field', `VAPID subject ${why}`, { field: 'subject' });
  };
  if (typeof raw !== 'string' || raw.trim() === '') return fail('must be a mailto: or https: URL');
  const subject = raw.trim();
  let url: URL;
  try {
    url = new URL(subject);
  } catch {
    return fail('is not a URL (expected mailto:you@example.com or https://…)');
  }
  if (url.protocol === 'mailto:') {
    let address: string;
    try {
      address = decodeURIComponent(url.pathname);
    } catch {
      return fail('mailto: needs an email address');
    }
    if (!/^[^@\s]+@[^@\s]+$/.test(address)) fail('mailto: needs an email address');
  } else if (url.protocol === 'https:') {
    if (!url.hostname) fail('https: URL needs a host');
  } else {
    fail(`must be a mailto: or https: URL, not ${url.protocol}`);
  }
  return subject;
}

/**
 * Validates a browser PushSubscription as JSON (an object, or a string of JSON):
 * `{ endpoint: "https://…", keys: { p256dh, auth } }` with `p256dh` a base64url uncompressed
 * P-256 point (65 bytes, on the curve; RFC 8291 §3.1) and `auth` a 16-byte base64url secret
 * (RFC 8291 §3.2). Other fields (`expirationTime`) are ignored. Returns the subscription with
 * unpadded base64url keys. Throws HubError `invalid_field` (field `subscription`) saying what
 * is wrong.
 */
export function parsePushSubscription(raw: unknown): WebPushSubscription {
  const fail = (why: string): never => {
    throw new HubError('invalid_field', `invalid Web Push subscription: ${why}`, { field: 'subscription' });
  };
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      fail('not JSON');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('expected an object {endpoint, keys}');
  const { endpoint, keys } = value as { endpoint?: unknown; keys?: unknown };

  if (typeof endpoint !== 'string' || endpoint === '') return fail('endpoint is missing');
  if (endpoint.length > MAX_ENDPOINT_LENGTH) fail(`endpoint is longer than ${MAX_ENDPOINT_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return fail('endpoint is not a URL');
  }
  if (url.protocol !== 'https:') fail('endpoint must be an https: URL');
  if (url.username || url.password) fail('endpoint must not carry credentials');

  if (typeof keys !== 'object' || keys === null) return fail('keys are missing (expected keys.p256dh and keys.auth)');
  const { p256dh, auth } = keys as { p256dh?: unknown; auth?: unknown };
  if (typeof p256dh !== 'string' || p256dh === '') return fail('keys.p256dh is missing');
  if (typeof auth !== 'string' || auth === '') return fail('keys.auth is missing');
  if (!BASE64URL.test(p256dh)) fail('keys.p256dh is not base64url');
  if (!BASE64URL.test(auth)) fail('keys.auth is not base64url');

  const point = Buffer.from(p256dh, 'base64url');
  if (point.length !== 65 || point[0] !== 0x04) {
    fail(`keys.p256dh must be an uncompressed P-256 point of 65 bytes (got ${point.length} bytes)`);
  }
  try {
    crypto.ECDH.convertKey(point, 'prime256v1');
  } catch {
    fail('keys.p256dh is not a point on the P-256 curve');
  }
  const secret = Buffer.from(auth, 'base64url');
  if (secret.length !== 16) fail(`keys.auth must be 16 bytes (got ${secret.length})`);

  return { endpoint, keys: { p256dh: point.toString('base64url'), auth: secret.toString('base64url') } };
}

/**
 * The JSON the web receiver's service worker shows: `{ id, title, body, emoji, image, url }`
 * of the notification, at most {@link WEBPUSH_MAX_PLAINTEXT_BYTES} bytes of UTF-8. A body that
 * does not fit is cut at a grapheme boundary and ends with "…"; if even an empty body does not
 * fit, the image is dropped. Returns null when nothing makes it fit.
 */
export function webPushPayload(notification: DeliveryJob['notification']): string | null {
  const { id, title, body, emoji, image, url } = notification;
  const encode = (b: string, img: string | null) => JSON.stringify({ id, title, body: b, emoji, image: img, url });
  const fits = (json: string) => Buffer.byteLength(json, 'utf8') <= WEBPUSH_MAX_PLAINTEXT_BYTES;

  const full = encode(body, image);
  if (fits(full)) return full;
  for (const img of image === null ? [null] : [image, null]) {
    if (!fits(encode('', img))) continue;
    // Largest body byte budget whose JSON (escapes included) fits: binary search.
    let lo = 0;
    let hi = Buffer.byteLength(body, 'utf8');
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(encode(truncateUtf8(body, mid), img))) lo = mid;
      else hi = mid - 1;
    }
    return encode(truncateUtf8(body, lo), img);
  }
  return null;
}

/**
 * Milliseconds to wait from a `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an
 * HTTP-date, relative to `now` (ms). Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return undefined;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** The origin of an endpoint, the only part of it that may be logged (its path is a capability). */
function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return 'invalid-url';
  }
}

/** One line, at most 200 characters, of a push service's error body. */
function excerpt(body: unknown): string {
  if (typeof body !== 'string') return '';
  const line = body.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** A header value as one string (web-push types say string; Node may give string[]). */
function header(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const value = (headers as Record<string, unknown>)[name];
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

/**
 * The outcome for a push service's HTTP answer (RFC 8030 §5, §6.2; RFC 8292 §4):
 * 2xx → delivered (providerId = `Location`); 404/410 → invalid_token; 429/5xx → retry
 * (honouring `Retry-After`); 413 → failed "payload too large"; anything else → failed with
 * `webpush <status> <body excerpt>`.
 */
export function webPushOutcome(status: number, headers: unknown, body: unknown, now: number): SendOutcome {
  if (status >= 200 && status <= 299) {
    const location = header(headers, 'location');
    return location ? { kind: 'delivered', providerId: location } : { kind: 'delivered' };
  }
  if (status === 404 || status === 410) {
    return { kind: 'invalid_token', reason: `webpush ${status}: subscription ${status === 410 ? 'gone' : 'not found'}` };
  }
  if (status === 429 || (status >= 500 && status <= 599)) {
    const retryAfterMs = parseRetryAfter(header(headers, 'retry-after'), now);
    const reason = `webpush ${status}${excerpt(body) ? ` ${excerpt(body)}` : ''}`;
    return retryAfterMs === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, retryAfterMs };
  }
  if (status === 413) return { kind: 'failed', reason: 'webpush 413 payload too large' };
  return { kind: 'failed', reason: `webpush ${status}${excerpt(body) ? ` ${excerpt(body)}` : ''}` };
}

/**
 * The Web Push channel (DESIGN.md "Delivery channels"): sends each job's notification as an
 * encrypted (RFC 8291 aes128gcm) JSON payload `{ id, title, body, emoji, image, url }` to the
 * device's subscription endpoint (RFC 8030), authenticated with VAPID (RFC 8292), `Urgency: high`
 * and `TTL: ttlSeconds`, through web-push's `sendNotification`. Requests go through one
 * keep-alive https.Agent that trusts the system roots plus `transport.extraCa`; a request with
 * no answer for `transport.requestTimeoutMs` (default 10 000 ms) ends as `retry`.
 * Outcomes: see {@link webPushOutcome}; network errors and timeouts → retry; a missing or
 * malformed subscription or a payload that cannot fit → failed. `send()` never rejects.
 * Throws HubError `invalid_field` (field `vapid` or `subject`) when the VAPID keys are unusable.
 */
export function createWebPushSender(options: WebPushSenderOptions): PushSender {
  const subject = parseVapidSubject(options.vapid.subject);
  const vapidDetails = { subject, publicKey: options.vapid.publicKey, privateKey: options.vapid.privateKey };
  try {
    // Validates both keys exactly as sending will (RFC 8292 §3.2: 65-byte public, 32-byte private).
    webpush.getVapidHeaders('https://push.example', subject, vapidDetails.publicKey, vapidDetails.privateKey, 'aes128gcm');
  } catch (err) {
    throw new HubError('invalid_field', `unusable VAPID keys: ${(err as Error).message}`, { field: 'vapid' });
  }
  const ttl = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  if (!Number.isInteger(ttl) || ttl < 0) throw new HubError('invalid_field', 'ttlSeconds must be a whole number ≥ 0', { field: 'ttlSeconds' });
  const timeoutMs = options.transport?.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const clock = options.clock ?? systemClock;
  const log = options.logger.child({ component: 'webpush-sender' });
  const agent = new https.Agent({
    keepAlive: true,
    ca: [...tls.rootCertificates, ...(options.transport?.extraCa ?? [])],
  });
  let closed = false;

  async function attempt(job: DeliveryJob): Promise<SendOutcome> {
    if (closed) return { kind: 'retry', reason: 'webpush sender closed' };
    let subscription: WebPushSubscription;
    try {
      subscription = parsePushSubscription(job.device.subscription);
    } catch (err) {
      return { kind: 'failed', reason: (err as Error).message };
    }
    const payload = webPushPayload(job.notification);
    if (payload === null) return { kind: 'failed', reason: 'payload too large for Web Push (4096 bytes)' };

    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<SendOutcome>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'retry', reason: `webpush timeout after ${timeoutMs} ms` }), timeoutMs);
    });
    const request = webpush
      .sendNotification(subscription, payload, {
        vapidDetails,
        contentEncoding: 'aes128gcm',
        TTL: ttl,
        urgency: 'high',
        timeout: timeoutMs,
        agent,
      })
      .then(
        (res): SendOutcome => webPushOutcome(res.statusCode, res.headers, res.body, clock.now()),
        (err: unknown): SendOutcome => {
          const e = err as { statusCode?: unknown; headers?: unknown; body?: unknown; code?: unknown; message?: unknown };
          if (typeof e?.statusCode === 'number') return webPushOutcome(e.statusCode, e.headers, e.body, clock.now());
          // No HTTP answer: connection refused/reset, TLS failure, DNS, socket timeout.
          const what = typeof e?.code === 'string' ? e.code : typeof e?.message === 'string' ? e.message : String(err);
          return { kind: 'retry', reason: `webpush network error: ${what}` };
        },
      );
    try {
      return await Promise.race([request, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    channel: 'webpush',
    async send(job) {
      const started = Date.now();
      let outcome: SendOutcome;
      try {
        outcome = await attempt(job);
      } catch (err) {
        outcome = { kind: 'failed', reason: `webpush internal error: ${(err as Error)?.message ?? String(err)}` };
      }
      const fields = {
        deliveryId: job.deliveryId,
        deviceId: job.device.id,
        notificationId: job.notification.id,
        attempt: job.attempts + 1,
        origin: originOf(job.device.subscription?.endpoint ?? ''),
        outcome: outcome.kind,
        ...(outcome.kind === 'delivered' ? {} : { reason: outcome.reason }),
        ms: Date.now() - started,
      };
      if (outcome.kind === 'delivered' || outcome.kind === 'retry') log.debug(fields, 'webpush send');
      else log.warn(fields, 'webpush send');
      return outcome;
    },
    async close() {
      closed = true;
      agent.destroy();
    },
  };
}
