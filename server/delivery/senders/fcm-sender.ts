import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import type { ClientRequest, IncomingMessage } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { deleteApp, initializeApp, type App, type Credential, type GoogleOAuthAccessToken } from 'firebase-admin/app';
import { getMessaging, type Message, type Messaging } from 'firebase-admin/messaging';
import type { Logger } from 'pino';
import { z } from 'zod';
import { HubError } from '../../domain/errors.js';
import { titleWithEmoji, truncateUtf8 } from '../../domain/text.js';
import type { DeliveryJob, NotificationContent, PushSender, SendOutcome, TransportOptions } from '../types.js';

/**
 * The fields of a Google service-account key file the FCM sender uses (the JSON downloaded from
 * the Firebase console, "Project settings › Service accounts › Generate new private key").
 * - `project_id`: the Firebase project; messages go to `projects/{project_id}/messages:send`.
 * - `client_email`: the service account, the `iss` of the OAuth assertion.
 * - `private_key`: its RSA private key, PEM (PKCS#8 "BEGIN PRIVATE KEY" as Google issues it, or
 *   PKCS#1). A secret: never log it.
 * - `token_uri`: Google's OAuth 2.0 token endpoint (default https://oauth2.googleapis.com/token).
 */
export interface FcmServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  token_uri?: string;
}

/** OAuth 2.0 scope for sending with the FCM HTTP v1 API (Firebase, "Authorize send requests"). */
const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** Google's token endpoint, used when the account has no `token_uri`. */
const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
/** RFC 7523 §2.1: the grant type of a JWT bearer assertion. */
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Lifetime of the signed assertion, s (Google accepts at most one hour). */
const ASSERTION_LIFETIME_S = 3600;
/**
 * The payload cap of an FCM message to a device, bytes, keys and values of `notification` and
 * `data` included (Firebase, FCM v1 ErrorCode INVALID_ARGUMENT "Message too big": 4096 bytes).
 */
export const FCM_MAX_PAYLOAD_BYTES = 4096;
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Largest response body read from the token endpoint, bytes. */
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

// ---------------------------------------------------------------------------------------------
// Service account

const requiredString = (name: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `missing ${name}` : `${name} must be a string`) })
    .trim()
    .min(1, `${name} is empty`);

const serviceAccountSchema = z.object({
  type: z.string().optional(),
  project_id: requiredString('project_id').regex(/^[a-z0-9][a-z0-9-]*$/i, 'project_id is not a Firebase project id'),
  client_email: requiredString('client_email').pipe(z.email('client_email is not an email address')),
  private_key: z.string({ error: (issue) => (issue.input === undefined ? 'missing private_key' : 'private_key must be a string') })
    .min(1, 'private_key is empty'),
  token_uri: z.url({ protocol: /^https$/, error: 'token_uri must be an https URL' }).optional(),
});

const invalid = (message: string) => new HubError('invalid_field', `serviceAccount: ${message}`, { field: 'serviceAccount' });

/**
 * Validates a Google service-account key file for FCM (Firebase Admin SDK setup, "Initialize the
 * SDK in non-Google environments").
 *
 * `raw` is the JSON as downloaded from the Firebase console, as an object or as its text. Extra
 * fields (`private_key_id`, `client_id`, `auth_uri`, …) are accepted and dropped; `type`, when
 * present, must be `"service_account"`. `private_key` must be an unencrypted RSA private key in
 * PEM (≥ 2048 bits) that can sign RS256; a key pasted with literal `\n` sequences (as in an
 * environment variable) is accepted and returned with real line breaks.
 *
 * @returns `{project_id, client_email, private_key, token_uri?}`, trimmed.
 * @throws HubError `invalid_field` with `field: 'serviceAccount'` and a message such as
 *   "serviceAccount: missing project_id" or "serviceAccount: private_key is an ec key; FCM needs
 *   an RSA key (RS256)". The key itself never appears in a message.
 */
export function parseFcmServiceAccount(raw: unknown): FcmServiceAccount {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      throw invalid('not valid JSON; paste the service-account key file downloaded from the Firebase console');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('expected the service-account JSON object downloaded from the Firebase console');
  }
  const parsed = serviceAccountSchema.safeParse(value);
  if (!parsed.success) {
    throw invalid(parsed.error.issues[0]?.message ?? 'not a service-account key file');
  }
  const account = parsed.data;
  if (account.type !== undefined && account.type !== 'service_account') {
    throw invalid(`type is "${account.type}", expected "service_account"`);
  }
  let pem = account.private_key.trim();
  if (!pem.includes('\n') && pem.includes('\\n')) pem = pem.replace(/\\n/g, '\n');
  loadRsaSigningKey(pem);
  return {
    project_id: account.project_id,
    client_email: account.client_email,
    private_key: `${pem}\n`,
    ...(account.token_uri !== undefined ? { token_uri: account.token_uri } : {}),
  };
}

/** Loads and checks an RS256 signing key; throws HubError `invalid_field` (never echoing the key). */
function loadRsaSigningKey(pem: string): crypto.KeyObject {
  let key: crypto.KeyObject;
  try {
    key = crypto.createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw invalid('private_key is not an unencrypted private key in PEM form ("-----BEGIN PRIVATE KEY-----")');
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw invalid(`private_key is an ${key.asymmetricKeyType ?? 'unknown'} key; FCM needs an RSA key (RS256)`);
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 2048) throw invalid(`private_key is a ${bits}-bit RSA key; RS256 needs at least 2048 bits`);
  try {
    crypto.sign('sha256', Buffer.from('pushhub'), key);
  } catch {
    throw invalid('private_key cannot sign RS256');
  }
  return key;
}

// ---------------------------------------------------------------------------------------------
// Transport: one https.Agent per sender

/** What one send() knows about the HTTP requests firebase-admin makes on its behalf. */
interface SendContext {
  /** Set when the send is abandoned: requests are destroyed with it, new ones at once. */
  aborted: Error | null;
  requests: Set<ClientRequest>;
  /** Status and Retry-After of the last response FCM gave (firebase-admin's errors drop them). */
  lastStatus?: number;
  retryAfter?: string;
}

/** An error whose `code` firebase-admin does not retry on (its list: ECONNRESET, ETIMEDOUT). */
class AbandonedRequestError extends Error {
  readonly code = 'ERR_PUSHHUB_ABANDONED';
}

interface AgentInternals {
  addRequest(req: ClientRequest, options: unknown): void;
}

/**
 * The agent firebase-admin uses for every REST call of this sender's app (AppOptions.httpAgent)
 * and that the token request uses too. With a `target` origin it dials that origin whatever host
 * the request names (fcm.googleapis.com, oauth2.googleapis.com), verifying the target's
 * certificate; trust is the system roots plus the extra CAs. It also ties each request to the
 * send() that caused it (AsyncLocalStorage), so an abandoned send can destroy its requests.
 */
class FcmAgent extends https.Agent {
  private readonly target: URL | undefined;
  private readonly contexts: AsyncLocalStorage<SendContext>;

  constructor(settings: { target: URL | undefined; ca: string[] | undefined; contexts: AsyncLocalStorage<SendContext> }) {
    super({ keepAlive: true, ...(settings.ca ? { ca: settings.ca } : {}) });
    this.target = settings.target;
    this.contexts = settings.contexts;
  }

  override createConnection(options: https.RequestOptions, callback?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    const target = this.target;
    if (!target) return super.createConnection(options, callback);
    const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
    if (target.protocol === 'http:') return net.connect({ host, port: Number(target.port || 80) });
    const redirected: https.RequestOptions = { ...options, host, hostname: host, port: Number(target.port || 443) };
    if (net.isIP(host)) delete redirected.servername;
    else redirected.servername = host;
    return super.createConnection(redirected, callback);
  }

  /** Node's (untyped) Agent#addRequest, called synchronously from `https.request()`. */
  addRequest(req: ClientRequest, options: unknown): void {
    (https.Agent.prototype as unknown as AgentInternals).addRequest.call(this, req, options);
    const ctx = this.contexts.getStore();
    if (!ctx) return;
    if (ctx.aborted) {
      req.destroy(ctx.aborted);
      return;
    }
    ctx.requests.add(req);
    req.once('close', () => ctx.requests.delete(req));
    req.once('response', (res: IncomingMessage) => {
      ctx.lastStatus = res.statusCode;
      const retryAfter = res.headers['retry-after'];
      if (retryAfter !== undefined) ctx.retryAfter = retryAfter;
      else delete ctx.retryAfter;
    });
  }
}

// ---------------------------------------------------------------------------------------------
// OAuth 2.0: JWT bearer grant (RFC 7523) for the service account

/** Why the token endpoint gave no access token; `retryable` for network errors, timeouts, 429 and 5xx. */
class TokenRequestError extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message);
  }
}

const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/**
 * A firebase-admin Credential that gets access tokens with the JWT bearer grant (RFC 7523 §2.1,
 * Google "Using OAuth 2.0 for Server to Server Applications"): an RS256 assertion
 * `{iss: client_email, scope: firebase.messaging, aud: token endpoint, iat, exp ≤ iat + 1 h}` is
 * POSTed form-encoded to the token endpoint through this sender's agent (firebase-admin's own
 * `cert()` goes through google-auth-library, which ignores AppOptions.httpAgent). The token is
 * cached until shortly before it expires; concurrent callers share one request.
 */
class JwtBearerCredential implements Credential {
  private cached: { token: string; expiresAt: number; refreshAt: number } | undefined;
  private pending: Promise<GoogleOAuthAccessToken> | undefined;

  constructor(private readonly settings: {
    clientEmail: string;
    key: crypto.KeyObject;
    tokenUrl: string;
    agent: https.Agent;
    contexts: AsyncLocalStorage<SendContext>;
    timeoutMs: number;
    logger: Logger;
  }) {}

  /** Resolves `{access_token, expires_in}` (seconds left); rejects with TokenRequestError. */
  getAccessToken(): Promise<GoogleOAuthAccessToken> {
    const now = Date.now();
    if (this.cached && now < this.cached.refreshAt) {
      return Promise.resolve({ access_token: this.cached.token, expires_in: Math.floor((this.cached.expiresAt - now) / 1000) });
    }
    // The request belongs to no single send: one send's deadline must not abort it for the others.
    this.pending ??= this.settings.contexts.exit(() => this.fetchToken()).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private assertion(): string {
    const iat = Math.floor(Date.now() / 1000);
    const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
    const claims = base64url(JSON.stringify({
      iss: this.settings.clientEmail,
      scope: FCM_SCOPE,
      aud: this.settings.tokenUrl,
      iat,
      exp: iat + ASSERTION_LIFETIME_S,
    }));
    const signature = crypto.sign('sha256', Buffer.from(`${header}.${claims}`), this.settings.key);
    return `${header}.${claims}.${signature.toString('base64url')}`;
  }

  private async fetchToken(): Promise<GoogleOAuthAccessToken> {
    const started = Date.now();
    const form = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: this.assertion() }).toString();
    const { status, body } = await this.post(form);
    let json: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } = {};
    try {
      json = JSON.parse(body) as typeof json;
    } catch {
      // handled below
    }
    if (status !== 200) {
      const detail = [json.error, json.error_description].filter((v) => typeof v === 'string').join(': ') || `HTTP ${status}`;
      const retryable = status === 429 || status >= 500;
      throw new TokenRequestError(`the OAuth token endpoint refused the service account (${status}: ${detail.slice(0, 300)})`, retryable);
    }
    if (typeof json.access_token !== 'string' || json.access_token === '' || typeof json.expires_in !== 'number' || json.expires_in <= 0) {
      throw new TokenRequestError('the OAuth token endpoint answered 200 without access_token and expires_in', false);
    }
    const lifetimeMs = json.expires_in * 1000;
    this.cached = {
      token: json.access_token,
      expiresAt: started + lifetimeMs,
      // Refresh when firebase-admin would (5 min before expiry), or halfway through a short lifetime.
      refreshAt: started + lifetimeMs - Math.min(5 * 60_000, lifetimeMs / 2),
    };
    this.settings.logger.debug({ expiresInS: json.expires_in }, 'obtained an FCM access token');
    return { access_token: json.access_token, expires_in: json.expires_in };
  }

  private post(form: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const url = new URL(this.settings.tokenUrl);
      const req = https.request(
        {
          protocol: 'https:',
          hostname: url.hostname,
          port: url.port || 443,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          agent: this.settings.agent,
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'content-length': Buffer.byteLength(form),
            accept: 'application/json',
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_TOKEN_RESPONSE_BYTES) {
              req.destroy(new TokenRequestError('the OAuth token endpoint answered with an oversized body', false));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', (err) => reject(err));
        },
      );
      const timer = setTimeout(() => {
        req.destroy(new TokenRequestError(`the OAuth token endpoint did not answer within ${this.settings.timeoutMs} ms`, true));
      }, this.settings.timeoutMs);
      req.once('close', () => clearTimeout(timer));
      req.on('error', (err) => {
        reject(err instanceof TokenRequestError ? err : new TokenRequestError(`could not reach the OAuth token endpoint: ${err.message}`, true));
      });
      req.end(form);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Message

const payloadBytes = (notification: object, data: object) =>
  Buffer.byteLength(JSON.stringify({ notification, data }), 'utf8');

/**
 * The FCM v1 message for one notification (Firebase, REST reference `projects.messages`;
 * firebase-admin `TokenMessage`, whose `notification.imageUrl` goes out as `image`):
 * `{token, notification: {title: "<emoji> <title>", body, imageUrl?}, data: {notificationId,
 * url?, emoji?} (strings), android: {priority: 'high'}}`. The body is shortened (UTF-8, at a
 * grapheme, ending "…") so that `notification` and `data` together stay within
 * {@link FCM_MAX_PAYLOAD_BYTES}; the stored notification keeps the full text.
 */
export function buildFcmMessage(notification: NotificationContent, token: string): Message {
  const data: Record<string, string> = { notificationId: notification.id };
  if (notification.url) data.url = notification.url;
  if (notification.emoji) data.emoji = notification.emoji;
  const title = titleWithEmoji(notification.title, notification.emoji);
  const wire = (body: string) => ({ title, body, ...(notification.image ? { image: notification.image } : {}) });
  let budget = FCM_MAX_PAYLOAD_BYTES - payloadBytes(wire(''), data);
  let body = truncateUtf8(notification.body, Math.max(0, budget));
  // JSON escaping (quotes, control characters) can make the body bigger on the wire than in UTF-8.
  for (let excess = payloadBytes(wire(body), data) - FCM_MAX_PAYLOAD_BYTES; excess > 0 && body !== ''; excess = payloadBytes(wire(body), data) - FCM_MAX_PAYLOAD_BYTES) {
    budget -= excess;
    body = truncateUtf8(notification.body, Math.max(0, budget));
  }
  return {
    token,
    notification: { title, body, ...(notification.image ? { imageUrl: notification.image } : {}) },
    data,
    android: { priority: 'high' },
  };
}

// ---------------------------------------------------------------------------------------------
// Outcomes

/** Error codes of firebase-admin (`messaging/…`, `app/…`) and what they mean for the delivery. */
const INVALID_TOKEN_CODES = new Set(['messaging/registration-token-not-registered', 'messaging/invalid-registration-token']);
const RETRY_CODES = new Set([
  'messaging/message-rate-exceeded',
  'messaging/device-message-rate-exceeded',
  'messaging/server-unavailable',
  'messaging/internal-error',
  'app/network-error',
  'app/network-timeout',
]);
const AUTH_CODES = new Set(['messaging/third-party-auth-error', 'messaging/mismatched-credential', 'messaging/authentication-error', 'app/invalid-credential']);

/** INVALID_ARGUMENT is about the registration token (FCM "Invalid registration") rather than the message. */
const isAboutToken = (message: string) =>
  /registration[ _-]?token|message\.token|\binvalid registration\b/i.test(message) ||
  (/\btoken\b/i.test(message) && !/access[ _]token|oauth|credential/i.test(message));

function parseRetryAfterMs(value: string | undefined): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function errorParts(err: unknown): { code: string; message: string } {
  if (typeof err === 'object' && err !== null) {
    const { code, message } = err as { code?: unknown; message?: unknown };
    return { code: typeof code === 'string' ? code : '', message: typeof message === 'string' ? message : String(err) };
  }
  return { code: '', message: String(err) };
}

/** Maps a rejection of `Messaging.send()` to an outcome (DESIGN.md "Delivery channels", FCM row). */
function outcomeFor(err: unknown, ctx: SendContext): SendOutcome {
  const { code, message } = errorParts(err);
  const reason = code ? `${code}: ${message}` : message;
  if (INVALID_TOKEN_CODES.has(code)) return { kind: 'invalid_token', reason };
  if (code === 'messaging/invalid-argument' && isAboutToken(message)) return { kind: 'invalid_token', reason };
  const retryAfterMs = parseRetryAfterMs(ctx.retryAfter);
  const status = ctx.lastStatus ?? 0;
  if (RETRY_CODES.has(code) || (code === 'messaging/unknown-error' && (status === 429 || status >= 500))) {
    return { kind: 'retry', reason, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }
  if (AUTH_CODES.has(code)) return { kind: 'failed', reason: `FCM refused the credentials: ${reason}` };
  return { kind: 'failed', reason };
}

// ---------------------------------------------------------------------------------------------
// Sender

/**
 * The FCM channel (DESIGN.md "Delivery channels"): sends one message per delivery with
 * firebase-admin's `getMessaging(app).send()` (FCM HTTP v1 `projects.messages.send`) on an app
 * of its own (`initializeApp(options, uniqueName)`, deleted by `close()`).
 *
 * - `serviceAccount`: the project's service account (see {@link parseFcmServiceAccount}; it is
 *   validated again here and a bad one throws HubError `invalid_field`).
 * - `origin`: `https://host:port` (or `http://`) that receives BOTH the FCM v1 requests (the
 *   sender's https.Agent dials it instead of fcm.googleapis.com) and the OAuth token request
 *   (`${origin}/token`, also the assertion's `aud`). For tests and proxies (PUSHHUB_FCM_ORIGIN);
 *   without it the sender talks to fcm.googleapis.com and the account's `token_uri`.
 * - `transport.extraCa`: PEM CAs trusted in addition to the system roots.
 * - `transport.requestTimeoutMs` (default 10 000): a send() that has no answer by then —
 *   token request, FCM request and firebase-admin's own retries of 503 included — is abandoned
 *   (its requests destroyed) and resolves `retry`.
 *
 * Outcomes: `delivered` with `providerId` = the message name (`projects/…/messages/…`);
 * `invalid_token` for UNREGISTERED and INVALID_ARGUMENT about the token; `retry` for
 * QUOTA_EXCEEDED (with Retry-After), UNAVAILABLE, INTERNAL, network errors, timeouts and a token
 * endpoint that is unreachable or answers 429/5xx; `failed` for a token endpoint refusing the
 * account, THIRD_PARTY_AUTH_ERROR, SENDER_ID_MISMATCH and anything else. Logs never contain
 * registration tokens, access tokens or the key.
 */
export function createFcmSender(options: {
  serviceAccount: FcmServiceAccount;
  origin?: string;
  transport?: TransportOptions;
  logger: Logger;
}): PushSender {
  const account = parseFcmServiceAccount(options.serviceAccount);
  const key = loadRsaSigningKey(account.private_key);
  const logger = options.logger.child({ component: 'fcm-sender', projectId: account.project_id });
  const timeoutMs = options.transport?.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;

  let target: URL | undefined;
  if (options.origin !== undefined) {
    try {
      target = new URL(options.origin);
    } catch {
      target = undefined;
    }
    if (!target || (target.protocol !== 'https:' && target.protocol !== 'http:') || target.pathname !== '/' || target.search) {
      throw new HubError('invalid_field', 'the FCM origin must be an http(s) origin such as https://127.0.0.1:8443', { field: 'fcmOrigin' });
    }
  }
  const extraCa = options.transport?.extraCa?.filter((pem) => pem.trim() !== '') ?? [];

  const contexts = new AsyncLocalStorage<SendContext>();
  const agent = new FcmAgent({ target, ca: extraCa.length > 0 ? [...tls.rootCertificates, ...extraCa] : undefined, contexts });
  const credential = new JwtBearerCredential({
    clientEmail: account.client_email,
    key,
    tokenUrl: target ? `${target.origin}/token` : (account.token_uri ?? GOOGLE_TOKEN_URI),
    agent,
    contexts,
    timeoutMs,
    logger,
  });
  const app: App = initializeApp(
    { projectId: account.project_id, credential, httpAgent: agent },
    `pushhub-fcm-${crypto.randomUUID()}`,
  );
  const messaging: Messaging = getMessaging(app);
  // Messaging.send() already uses HTTP/1.1 (and so the agent) in firebase-admin 13; this keeps
  // sendEach() off the HTTP/2 path, which cannot be redirected, should it ever be used.
  if (target) messaging.enableLegacyHttpTransport();

  const active = new Set<SendContext>();
  let closed = false;
  const abandon = (ctx: SendContext, why: string) => {
    ctx.aborted ??= new AbandonedRequestError(why);
    for (const req of ctx.requests) req.destroy(ctx.aborted);
  };

  const attempt = async (job: DeliveryJob, token: string, ctx: SendContext): Promise<SendOutcome> => {
    try {
      // Fetched here, not inside firebase-admin, so that a refusal keeps its cause (it wraps it).
      await credential.getAccessToken();
    } catch (err) {
      if (err instanceof TokenRequestError) {
        return err.retryable ? { kind: 'retry', reason: err.message } : { kind: 'failed', reason: err.message };
      }
      return { kind: 'retry', reason: `could not get an FCM access token: ${errorParts(err).message}` };
    }
    if (ctx.aborted) return { kind: 'retry', reason: ctx.aborted.message };
    try {
      const name = await messaging.send(buildFcmMessage(job.notification, token));
      return { kind: 'delivered', providerId: name };
    } catch (err) {
      return outcomeFor(err, ctx);
    }
  };

  return {
    channel: 'fcm',

    async send(job: DeliveryJob): Promise<SendOutcome> {
      const log = logger.child({ deliveryId: job.deliveryId, attempts: job.attempts });
      const token = job.device.token;
      let outcome: SendOutcome;
      if (closed) {
        outcome = { kind: 'retry', reason: 'the FCM sender was closed' };
      } else if (!token) {
        outcome = { kind: 'invalid_token', reason: 'the device has no FCM registration token' };
      } else {
        const ctx: SendContext = { aborted: null, requests: new Set() };
        active.add(ctx);
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<SendOutcome>((resolve) => {
          timer = setTimeout(() => {
            const reason = `FCM did not answer within ${timeoutMs} ms`;
            abandon(ctx, reason);
            resolve({ kind: 'retry', reason });
          }, timeoutMs);
        });
        try {
          outcome = await Promise.race([contexts.run(ctx, () => attempt(job, token, ctx)), deadline]);
        } catch (err) {
          outcome = { kind: 'failed', reason: errorParts(err).message };
        } finally {
          clearTimeout(timer);
          active.delete(ctx);
        }
        if (outcome.kind !== 'delivered' && token.length >= 8) {
          outcome = { ...outcome, reason: outcome.reason.split(token).join('[registration token]') };
        }
      }
      switch (outcome.kind) {
        case 'delivered':
          log.debug({ providerId: outcome.providerId }, 'FCM accepted the message');
          break;
        case 'retry':
          log.info({ reason: outcome.reason, retryAfterMs: outcome.retryAfterMs }, 'FCM delivery will be retried');
          break;
        case 'invalid_token':
          log.info({ reason: outcome.reason }, 'FCM says the registration token is dead');
          break;
        case 'failed':
          log.warn({ reason: outcome.reason }, 'FCM delivery failed');
          break;
      }
      return outcome;
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const ctx of active) abandon(ctx, 'the FCM sender was closed');
      agent.destroy();
      try {
        await deleteApp(app);
      } catch (err) {
        logger.warn({ err: errorParts(err).message }, 'could not delete the firebase-admin app');
      }
    },
  };
}
