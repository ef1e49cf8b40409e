import type { IncomingMessage, ServerResponse } from 'node:http';
import querystring from 'node:querystring';
import helmet from 'helmet';
import type { Logger } from 'pino';
import { HubError } from '../domain/errors.js';
import { API_KEY_PATTERN } from '../domain/keys.js';
import { parseNotification } from '../domain/notification.js';
import type { PushService } from '../domain/push-service.js';
import type { Store } from '../store/index.js';
import type { KeyedLimiter } from './middleware/rate-limit.js';

/** What the push handler needs. */
export interface PushHandlerDeps {
  store: Store;
  pushService: PushService;
  /** Per app: burst 60, then 10/s by default. */
  perApp: KeyedLimiter;
  /** Per client IP, failed authentications only. */
  authFailures: KeyedLimiter;
  bodyLimitBytes: number;
  /** Backpressure: past this many pending deliveries, pushes are refused with 503. */
  maxOutboxDepth: number;
  logger: Logger;
  /** Counts answers by status. */
  onAnswer?: (status: number) => void;
  /** The client's address (the socket's, or X-Forwarded-For from a trusted proxy). */
  clientAddress?: (req: IncomingMessage) => string;
}

/** How stale the outbox depth used for backpressure may be (ms): counting costs O(depth). */
const DEPTH_REFRESH_MS = 1000;

/** True for the requests {@link createPushHandler} answers: `POST /v1/push` (any query string). */
export function isPushRequest(req: IncomingMessage): boolean {
  if (req.method !== 'POST' || !req.url?.startsWith('/v1/push')) return false;
  const rest = req.url.slice('/v1/push'.length);
  return rest === '' || rest.startsWith('?');
}

/** The security headers helmet sets on every other answer, computed once. */
function securityHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const fakeRes = {
    setHeader: (name: string, value: string) => (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
  };
  helmet({ strictTransportSecurity: false, contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } })(
    {} as never,
    fakeRes as never,
    () => {},
  );
  return headers;
}

const MAX_FORM_FIELDS = 1000;

/** SQLite errors that mean "cannot write now" rather than a bug (better-sqlite3 error codes). */
function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(FULL|BUSY|LOCKED|READONLY|IOERR|CANTOPEN)/.test(code);
}

/** Reads the body up to `limit` bytes. @throws HubError 413 past the limit, 400 when the request is cut short. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      reject(new HubError('payload_too_large', `the body is larger than ${limit} bytes`));
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new HubError('payload_too_large', `the body is larger than ${limit} bytes`));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks, size)));
    req.on('aborted', () => reject(new HubError('malformed_json', 'the body ended early')));
    req.on('error', reject);
  });
}

/**
 * Which of the spec's two encodings a request uses, from its headers.
 * @throws HubError 415 for any other content type, a charset other than UTF-8, or a content encoding.
 */
export function pushMediaType(contentType: string | undefined, encoding: string | undefined): 'json' | 'form' {
  // Media types and content codings are case-insensitive (RFC 9110 §8.3.1, §8.4.1).
  const [type = '', ...params] = (contentType ?? '').toLowerCase().split(';').map((s) => s.trim());
  const charset = params.find((p) => p.startsWith('charset='))?.slice(8).replace(/"/g, '');
  const media = type === 'application/json' ? 'json' : type === 'application/x-www-form-urlencoded' ? 'form' : null;
  if (!media) {
    throw new HubError(
      'unsupported_media_type',
      'send the fields as Content-Type: application/json or application/x-www-form-urlencoded',
    );
  }
  if ((charset && charset !== 'utf-8' && charset !== 'utf8') || (encoding && encoding.trim().toLowerCase() !== 'identity')) {
    throw new HubError('unsupported_media_type', 'send the body as UTF-8 without a content encoding');
  }
  return media;
}

/** Decodes a JSON or form body. @throws HubError 400 malformed_json, 413 for too many form fields. */
export function parsePushBody(media: 'json' | 'form', body: Buffer): unknown {
  const text = body.toString('utf8');
  if (media === 'json') {
    try {
      return JSON.parse(text);
    } catch {
      throw new HubError('malformed_json', 'the body is not valid JSON');
    }
  }
  const fields = querystring.parse(text, '&', '=', { maxKeys: MAX_FORM_FIELDS + 1 });
  if (Object.keys(fields).length > MAX_FORM_FIELDS) throw new HubError('payload_too_large', 'the form has too many fields');
  return fields;
}

/**
 * `POST /v1/push` (spec "Endpoints / Send push notification"), answered on the hub's HTTP server
 * ahead of Express: the hot path does only what the operation needs (see
 * docs/decisions/0003-push-fast-path.md), with the same checks, errors and headers.
 *
 * Order: content type (415) and body (413, 400 malformed_json) first, as the apiKey lives in
 * the body; then the API key (401, empty body); then the app's rate limit (429); then the
 * fields (400); then backpressure (503 when the outbox is deeper than configured); then the
 * target (400 unknown keys); then one transaction (shared with the other
 * pushes of the same event-loop turn: group commit) stores the notification and its outbox
 * rows, and only then 200 `{"id"}` is sent.
 */
export function createPushHandler(deps: PushHandlerDeps) {
  const baseHeaders = securityHeaders();
  let depth = { value: 0, at: -Infinity };
  const outboxFull = () => {
    const now = performance.now();
    if (now - depth.at > DEPTH_REFRESH_MS) depth = { value: deps.store.outbox.depth(), at: now };
    return depth.value >= deps.maxOutboxDepth;
  };

  const send = (res: ServerResponse, status: number, body: string, extra: Record<string, string> = {}) => {
    if (res.headersSent) return;
    deps.onAnswer?.(status);
    const headers: Record<string, string | number> = { ...baseHeaders, ...extra, 'content-length': Buffer.byteLength(body) };
    if (body) headers['content-type'] = 'application/json; charset=utf-8';
    res.writeHead(status, headers);
    res.end(body);
  };

  const handle = async (req: IncomingMessage): Promise<{ status: number; body: string }> => {
    const media = pushMediaType(req.headers['content-type'], req.headers['content-encoding']);
    const raw = parsePushBody(media, await readBody(req, deps.bodyLimitBytes));

    const apiKey = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).apiKey : undefined;
    const app = typeof apiKey === 'string' && API_KEY_PATTERN.test(apiKey) ? deps.store.apps.findByApiKey(apiKey) : undefined;
    if (!app) {
      // A valid key is never refused by this limiter: it only slows down whoever keeps failing.
      const limited = deps.authFailures.take(deps.clientAddress?.(req) ?? req.socket.remoteAddress ?? 'unknown');
      if (!limited.ok) {
        throw new HubError('rate_limited', 'too many failed authentications from this address', {
          retryAfterSeconds: limited.retryAfterSeconds,
        });
      }
      return { status: 401, body: '' };
    }
    const allowed = deps.perApp.take(app.id);
    if (!allowed.ok) {
      throw new HubError('rate_limited', 'this app is sending faster than its rate limit', {
        retryAfterSeconds: allowed.retryAfterSeconds,
      });
    }
    const input = parseNotification(raw);
    if (outboxFull()) {
      throw new HubError('unavailable', 'the hub has too many deliveries waiting; retry later', { retryAfterSeconds: 30 });
    }
    const { id } = await deps.pushService.submit(app, input);
    return { status: 200, body: JSON.stringify({ id }) };
  };

  return (req: IncomingMessage, res: ServerResponse): void => {
    handle(req).then(
      ({ status, body }) => send(res, status, body),
      (err: unknown) => {
        if (isDatabaseUnavailable(err)) {
          // Disk full, database locked or read-only: nothing was stored; the sender should retry.
          deps.logger.error({ err }, 'POST /v1/push could not be stored');
          const unavailable = new HubError('unavailable', 'the hub cannot store notifications right now; retry later', {
            retryAfterSeconds: 5,
          });
          send(res, 503, JSON.stringify(unavailable.toBody()), { 'retry-after': '5' });
          return;
        }
        if (err instanceof HubError) {
          const extra: Record<string, string> = err.retryAfterSeconds === undefined ? {} : { 'retry-after': String(err.retryAfterSeconds) };
          send(res, err.status, JSON.stringify(err.toBody()), extra);
          return;
        }
        deps.logger.error({ err }, 'POST /v1/push failed');
        send(res, 500, JSON.stringify(new HubError('internal', 'internal error; see the hub log').toBody()));
      },
    );
  };
}
