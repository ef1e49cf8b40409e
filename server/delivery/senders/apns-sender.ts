import crypto from 'node:crypto';
import tls from 'node:tls';
import { ApnsClient, ApnsError, Errors, Notification } from 'apns2';
import type { Logger } from 'pino';
import { z } from 'zod';
import { HubError } from '../../domain/errors.js';
import { titleWithEmoji, truncateUtf8 } from '../../domain/text.js';
import type { DeliveryJob, PushSender, SendOutcome, TransportOptions } from '../types.js';
import { ApnsHttp2Transport, ApnsTimeoutError, type ApnsRequestScope } from './apns-transport.js';

/**
 * What the hub needs to send through APNs with token-based authentication (Apple,
 * "Establishing a token-based connection to APNs").
 * - `teamId`: the 10-character Team ID of the Apple Developer account (the JWT `iss` claim).
 * - `keyId`: the 10-character Key ID of the APNs authentication key (the JWT `kid` header).
 * - `privateKey`: that key's `.p8` file, a PKCS#8 PEM holding a P-256 EC private key. A secret: never log it.
 * - `defaultTopic`: the app's bundle id, the `apns-topic` when a device registered none.
 * - `environment`: `production` (App Store, TestFlight) or `sandbox` (builds run from Xcode);
 *   a token from one environment is a BadDeviceToken in the other.
 */
export interface ApnsSettings {
  teamId: string;
  keyId: string;
  privateKey: string;
  defaultTopic: string;
  environment: 'production' | 'sandbox';
}

/** APNs origins per environment (Apple, "Sending notification requests to APNs"). */
const defaultOrigins = {
  production: 'https://api.push.apple.com',
  sandbox: 'https://api.sandbox.push.apple.com',
} as const;

/** The largest payload APNs accepts for a regular remote notification, in bytes (Apple, "Generating a remote notification"). */
export const APNS_MAX_PAYLOAD_BYTES = 4096;

/** How long APNs keeps trying to deliver a notification: 24 h after it was created, in ms. */
const EXPIRATION_MS = 24 * 60 * 60 * 1000;

const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

const appleId = (what: string) =>
  z.string().trim().regex(/^[A-Z0-9]{10}$/, `${what} must be 10 uppercase letters or digits`);

const settingsSchema = z.object({
  teamId: appleId('the Team ID'),
  keyId: appleId('the Key ID'),
  privateKey: z.string().min(1, 'the .p8 key is required'),
  defaultTopic: z
    .string()
    .trim()
    .max(255)
    .regex(/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/, 'must be a bundle id such as com.example.app'),
  environment: z.enum(['production', 'sandbox'], 'must be "production" or "sandbox"'),
});

/**
 * Validates APNs settings from a config file, the environment or the admin UI.
 *
 * `raw` must be an object `{teamId, keyId, privateKey, defaultTopic, environment}` (see
 * {@link ApnsSettings}). The private key must be the PKCS#8 PEM of a P-256 EC key (the `.p8`
 * file Apple hands out, "-----BEGIN PRIVATE KEY-----"), and it must produce an ES256 signature
 * that its public half verifies. A key pasted with literal `\n` sequences (as in an environment
 * variable) is accepted and returned with real line breaks.
 *
 * @returns the settings, trimmed.
 * @throws HubError `invalid_field` whose `field` names the first bad field and whose message
 *   starts with it, e.g. "privateKey: not a P-256 private key in PEM (.p8) form". The key itself
 *   never appears in a message.
 */
export function parseApnsSettings(raw: unknown): ApnsSettings {
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = typeof issue?.path[0] === 'string' ? issue.path[0] : undefined;
    const message = issue?.message ?? 'invalid APNs settings';
    throw new HubError(
      'invalid_field',
      field ? `${field}: ${message}` : `APNs settings: ${message}`,
      field ? { field } : {},
    );
  }
  return { ...parsed.data, privateKey: checkSigningKey(parsed.data.privateKey) };
}

/** Returns the normalised PEM of a usable APNs signing key, or throws `invalid_field` on `privateKey`. */
function checkSigningKey(input: string): string {
  let pem = input.trim();
  if (!pem.includes('\n') && pem.includes('\\n')) pem = pem.replaceAll('\\n', '\n');
  const fail = (why: string): never => {
    throw new HubError('invalid_field', `privateKey: ${why}`, { field: 'privateKey' });
  };
  if (!/^-----BEGIN PRIVATE KEY-----\r?\n[\s\S]+\r?\n-----END PRIVATE KEY-----$/.test(pem)) {
    fail('not a P-256 private key in PEM (.p8) form');
  }
  let key: crypto.KeyObject;
  try {
    key = crypto.createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    return fail('not a P-256 private key in PEM (.p8) form');
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    fail(`not a P-256 private key in PEM (.p8) form (found ${describeKey(key)})`);
  }
  try {
    const data = Buffer.from('pushhub apns key check');
    const signature = crypto.sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
    const ok = crypto.verify('sha256', data, { key: crypto.createPublicKey(key), dsaEncoding: 'ieee-p1363' }, signature);
    if (!ok) fail('the key does not produce a valid ES256 signature');
  } catch (err) {
    if (err instanceof HubError) throw err;
    fail('the key cannot make an ES256 signature');
  }
  return `${pem}\n`;
}

function describeKey(key: crypto.KeyObject): string {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return curve ? `${key.asymmetricKeyType} ${curve}` : `${key.asymmetricKeyType ?? 'unknown'} key`;
}

/**
 * The APNs channel's {@link PushSender} (DESIGN.md "Delivery channels"), built on apns2's
 * `ApnsClient` (ES256 provider token cached 55 min and renewed after ExpiredProviderToken,
 * request headers, error parsing) with its undici pool replaced by an {@link ApnsHttp2Transport}:
 * one HTTP/2 session to `origin` multiplexing up to the server's stream limit, trusting the
 * system roots plus `transport.extraCa`, every request ended within `transport.requestTimeoutMs`
 * (default 10 000 ms). Why the pool was replaced: docs/decisions/0004-apns-transport.md.
 *
 * - `origin`: default https://api.push.apple.com (production) or https://api.sandbox.push.apple.com
 *   (sandbox); PUSHHUB_APNS_ORIGIN overrides it, e.g. `https://127.0.0.1:8443` for a fake.
 * - Each job becomes `POST /3/device/<token>` with `apns-push-type: alert`, `apns-topic` (the
 *   device's topic, else `settings.defaultTopic`), `apns-priority: 10`, `apns-expiration`
 *   (createdAt + 24 h, epoch seconds) and the payload
 *   `{aps:{alert:{title,body}, sound:"default", "mutable-content"?:1}, notificationId, url?, image?, emoji?}`
 *   whose body is shortened to keep the JSON within 4096 bytes (Apple, "Sending notification
 *   requests to APNs", "Generating a remote notification").
 * - Outcomes (Apple, "Handling error responses from APNs"): 200 → `delivered` (providerId =
 *   apns-id); 410, 400 BadDeviceToken, 400 DeviceTokenNotForTopic → `invalid_token`; 429, 5xx,
 *   403 ExpiredProviderToken, network errors and timeouts → `retry` (with Retry-After when
 *   given); any other status → `failed` with reason `apns <status> <reason>`.
 *
 * `send()` never rejects. Logs carry the delivery and notification ids, never a device token or the key.
 */
export function createApnsSender(options: {
  settings: ApnsSettings;
  origin?: string;
  transport?: TransportOptions;
  logger: Logger;
}): PushSender {
  const { settings, transport = {} } = options;
  const log = options.logger.child({ component: 'apns-sender' });
  const origin = new URL(options.origin ?? defaultOrigins[settings.environment]).origin;
  const timeoutMs = transport.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;

  const apns = new ApnsClient({
    team: settings.teamId,
    keyId: settings.keyId,
    signingKey: settings.privateKey,
    defaultTopic: settings.defaultTopic,
    host: new URL(origin).hostname,
  });
  // apns2 builds an undici pool for https://<host>:443 with no CA or timeout options. It has not
  // connected yet (undici connects on the first request); swap in ours and close it.
  const stockPool = apns.client;
  const http2Transport = new ApnsHttp2Transport(origin, {
    ca: [...tls.rootCertificates, ...(transport.extraCa ?? [])],
    timeoutMs,
  });
  (apns as unknown as { client: ApnsHttp2Transport }).client = http2Transport;
  void stockPool.close().catch(() => undefined);

  // A notification fans out to many devices one after another: build its payload once.
  let lastPayload: { id: string; parts: ApnsPayloadParts | null } | undefined;

  async function attempt(job: DeliveryJob): Promise<SendOutcome> {
    const { notification: n, device } = job;
    if (!device.token) return { kind: 'failed', reason: 'apns device has no token' };
    const topic = device.topic ?? settings.defaultTopic;
    if (lastPayload?.id !== n.id) lastPayload = { id: n.id, parts: buildApnsPayload(n) };
    const payload = lastPayload.parts;
    if (!payload) return { kind: 'failed', reason: `apns payload over ${APNS_MAX_PAYLOAD_BYTES} bytes even without a body` };
    if (payload.shortened) log.info({ deliveryId: job.deliveryId, notificationId: n.id, ...payload.shortened }, 'apns payload shortened to fit 4096 bytes');

    const note = new Notification(device.token, {
      type: 'alert',
      topic,
      expiration: Math.floor((n.createdAt + EXPIRATION_MS) / 1000),
      alert: payload.alert,
      sound: 'default',
      ...(payload.mutableContent ? { mutableContent: true } : {}),
      data: payload.data,
    });
    const scope: ApnsRequestScope = {};
    try {
      await http2Transport.within(scope, () => apns.send(note));
      const apnsId = header(scope.responseHeaders, 'apns-id');
      if (log.isLevelEnabled('debug')) log.debug({ deliveryId: job.deliveryId, notificationId: n.id, topic, attempts: job.attempts, apnsId }, 'apns delivered');
      return apnsId ? { kind: 'delivered', providerId: apnsId } : { kind: 'delivered' };
    } catch (err) {
      const outcome = outcomeForError(err, scope.responseHeaders);
      const status = err instanceof ApnsError ? err.statusCode : undefined;
      const level = outcome.kind === 'failed' ? 'error' : 'warn';
      log[level](
        { deliveryId: job.deliveryId, notificationId: n.id, topic, attempts: job.attempts, status, outcome: outcome.kind, reason: outcome.reason },
        'apns not delivered',
      );
      return outcome;
    }
  }

  let closing: Promise<void> | undefined;

  return {
    channel: 'apns',

    send(job) {
      return attempt(job).catch((err: unknown) => ({ kind: 'retry' as const, reason: `apns send error: ${errorText(err)}` }));
    },

    close() {
      closing ??= (async () => {
        // Let in-flight requests finish for a moment, then abandon them (they are retried later).
        let timer: NodeJS.Timeout | undefined;
        const graceful = apns.close().then(() => true, () => false);
        const grace = new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), 1000);
        });
        const closed = await Promise.race([graceful, grace]);
        clearTimeout(timer);
        if (!closed) await apns.destroy().catch(() => undefined);
      })();
      return closing;
    },
  };
}

/** The parts of the APNs payload that depend on the notification, with the body shortened to fit. */
interface ApnsPayloadParts {
  alert: { title: string; body: string };
  mutableContent: boolean;
  data: Record<string, string>;
  /** Present when something was cut to fit: the original and the sent body size in bytes, and fields left out. */
  shortened?: { bodyBytes: number; sentBodyBytes: number; dropped: string[] };
}

/**
 * Builds the alert payload for `n` (Apple, "Generating a remote notification"): title with the
 * emoji in front, `mutable-content` only with an image (so a notification service extension can
 * attach it), and the custom keys notificationId, url, image, emoji (null ones left out). The
 * body is shortened with {@link truncateUtf8} until the JSON fits 4096 bytes; if even an empty
 * body does not fit, `image` and then `url` are left out. Returns null if nothing fits.
 */
function buildApnsPayload(n: DeliveryJob['notification']): ApnsPayloadParts | null {
  const title = titleWithEmoji(n.title, n.emoji);
  const bodyBytes = Buffer.byteLength(n.body, 'utf8');
  const variants: { dropped: string[]; image: string | null; url: string | null }[] = [
    { dropped: [], image: n.image, url: n.url },
    { dropped: ['image'], image: null, url: n.url },
    { dropped: ['image', 'url'], image: null, url: null },
  ];
  for (const variant of variants) {
    if (variant.dropped.length > 0 && variant.dropped.every((key) => n[key as 'image' | 'url'] === null)) continue;
    const data: Record<string, string> = { notificationId: n.id };
    if (variant.url !== null) data.url = variant.url;
    if (variant.image !== null) data.image = variant.image;
    if (n.emoji !== null) data.emoji = n.emoji;
    const mutableContent = variant.image !== null;
    const size = (body: string) =>
      Buffer.byteLength(
        JSON.stringify({
          aps: { alert: { title, body }, sound: 'default', ...(mutableContent ? { 'mutable-content': 1 } : {}) },
          ...data,
        }),
        'utf8',
      );
    let budget = bodyBytes;
    let body = n.body;
    for (;;) {
      const over = size(body) - APNS_MAX_PAYLOAD_BYTES;
      if (over <= 0) {
        const cut = body !== n.body || variant.dropped.length > 0;
        return {
          alert: { title, body },
          mutableContent,
          data,
          ...(cut ? { shortened: { bodyBytes, sentBodyBytes: Buffer.byteLength(body, 'utf8'), dropped: variant.dropped } } : {}),
        };
      }
      if (body === '') break;
      budget = Math.max(0, budget - over);
      body = truncateUtf8(n.body, budget);
    }
  }
  return null;
}

/** Maps an apns2 or transport error to an outcome (DESIGN.md channel table; Apple, "Handling error responses from APNs"). */
function outcomeForError(err: unknown, headers: ApnsRequestScope['responseHeaders']): Exclude<SendOutcome, { kind: 'delivered' }> {
  if (err instanceof ApnsError) {
    const status = err.statusCode;
    const reason = typeof err.reason === 'string' && err.reason ? err.reason : Errors.unknownError;
    if (status === 410 || (status === 400 && (reason === Errors.badDeviceToken || reason === Errors.deviceTokenNotForTopic))) {
      return { kind: 'invalid_token', reason };
    }
    // apns2 drops its cached provider token on ExpiredProviderToken: the next attempt signs a new one.
    if (status === 429 || status >= 500 || (status === 403 && reason === Errors.expiredProviderToken)) {
      const retryAfterMs = parseRetryAfter(header(headers, 'retry-after'));
      return retryAfterMs === undefined
        ? { kind: 'retry', reason: `apns ${status} ${reason}` }
        : { kind: 'retry', reason: `apns ${status} ${reason}`, retryAfterMs };
    }
    return { kind: 'failed', reason: `apns ${status} ${reason}` };
  }
  if (err instanceof ApnsTimeoutError) return { kind: 'retry', reason: `apns request timed out after ${err.timeoutMs} ms` };
  return { kind: 'retry', reason: `apns network error: ${errorText(err)}` };
}

function header(headers: ApnsRequestScope['responseHeaders'], name: string): string | undefined {
  const value = headers?.[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `Retry-After` as delay-seconds or an HTTP-date (RFC 9110 §10.2.3), in ms from now; undefined if absent or unreadable. */
function parseRetryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** A short description of an error: its code or name and message (node:http2 and TLS messages carry no paths or tokens). */
function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  const cause = err.cause instanceof Error ? ` (${errorText(err.cause)})` : '';
  return `${typeof code === 'string' ? code : err.name}: ${err.message}${cause}`;
}
