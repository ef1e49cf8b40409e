import crypto from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { testCertificate } from './tls.js';

/** The part of a Google service-account key file the fake needs: its key verifies the assertions. */
export interface FakeFcmServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
}

/** The FCM v1 message as it arrives on the wire (REST reference `projects.messages`). */
export interface FakeFcmMessage {
  token?: string;
  notification?: { title?: string; body?: string; image?: string };
  data?: Record<string, string>;
  android?: { priority?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** One request the fake received, in arrival order. */
export interface FakeFcmRequest {
  kind: 'token' | 'send' | 'other';
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Token requests: the form fields. Send requests: the parsed JSON body. */
  body: unknown;
  /** Token requests whose assertion verified: its claims. */
  claims?: Record<string, unknown>;
  /** Send requests: `body.message`. */
  message?: FakeFcmMessage;
  /** Send requests: the `:project` of the path. */
  project?: string;
  /** Set when the client closed the connection before the fake answered (a hang the client gave up on). */
  abandonedByClient?: boolean;
}

/** A scripted answer: status, JSON body and headers, or `'hang'` (never answer until close()). */
export type FakeFcmResponse = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang' | 'reset';

/** Decides the answer to a request that passed the fake's checks; `undefined` → the default answer. */
export type FakeFcmResponder = (request: FakeFcmRequest) => FakeFcmResponse | undefined;

/** A running fake FCM + Google OAuth token endpoint. */
export interface FakeFcm {
  /** `https://127.0.0.1:<port>`: pass as the sender's `origin`; trust `testCertificate().cert`. */
  origin: string;
  /** Every request received, in order (tests only: it holds registration tokens). */
  requests: FakeFcmRequest[];
  /** Installs a script for later requests (replacing any previous one). */
  respond(fn: FakeFcmResponder): void;
  /** Access tokens the fake has issued. */
  issuedTokens: string[];
  close(): Promise<void>;
}

const FCM_ERROR_TYPE = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

const fcmError = (code: number, status: string, message: string, errorCode?: string, headers?: Record<string, string>): FakeFcmResponse => ({
  status: code,
  body: { error: { code, message, status, ...(errorCode ? { details: [{ '@type': FCM_ERROR_TYPE, errorCode }] } : {}) } },
  ...(headers ? { headers } : {}),
});

/**
 * FCM v1 error answers as Google sends them (Firebase, "FCM error codes" / REST `ErrorCode`):
 * `{error: {code, message, status, details: [{'@type': …FcmError, errorCode}]}}`.
 */
export const fakeFcmErrors = {
  /** 404 UNREGISTERED: the app was uninstalled or the token expired. */
  unregistered: () => fcmError(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED'),
  /** 400 INVALID_ARGUMENT about the registration token. */
  invalidToken: () => fcmError(400, 'INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token', 'INVALID_ARGUMENT'),
  /** 400 INVALID_ARGUMENT about a message field (not the token). */
  invalidField: (field = 'message.data[0].value') => ({
    status: 400,
    body: {
      error: {
        code: 400,
        message: `Invalid value at '${field}' (TYPE_STRING), 12`,
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field, description: `Invalid value at '${field}'` }] }],
      },
    },
  }) satisfies FakeFcmResponse,
  /** 429 QUOTA_EXCEEDED, with Retry-After seconds when given. */
  quotaExceeded: (retryAfterS?: number) =>
    fcmError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded for quota metric.', 'QUOTA_EXCEEDED', retryAfterS !== undefined ? { 'retry-after': String(retryAfterS) } : undefined),
  /** 503 UNAVAILABLE (firebase-admin retries it itself, about 7 s in all). */
  unavailable: () => fcmError(503, 'UNAVAILABLE', 'The service is currently unavailable.', 'UNAVAILABLE'),
  /** 500 INTERNAL. */
  internal: () => fcmError(500, 'INTERNAL', 'Internal error encountered.', 'INTERNAL'),
  /** 403 SENDER_ID_MISMATCH: the token belongs to another project. */
  senderIdMismatch: () => fcmError(403, 'PERMISSION_DENIED', 'SenderId mismatch', 'SENDER_ID_MISMATCH'),
  /** 401 THIRD_PARTY_AUTH_ERROR: the APNs certificate or web push key is invalid or missing. */
  thirdPartyAuth: () => fcmError(401, 'UNAUTHENTICATED', 'Auth error from APNS or Web Push Service', 'THIRD_PARTY_AUTH_ERROR'),
  /** Never answer. */
  hang: (): FakeFcmResponse => 'hang',
  /** The connection is reset before an answer. */
  reset: (): FakeFcmResponse => 'reset',
};

/** A fresh service account with a 2048-bit RSA key (PKCS#8 PEM), shaped like a Firebase console download. */
export function generateTestServiceAccount(projectId = 'pushhub-test'): FakeFcmServiceAccount & Record<string, string> {
  const { privateKey } = crypto.generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const clientEmail = `firebase-adminsdk-test@${projectId}.iam.gserviceaccount.com`;
  return {
    type: 'service_account',
    project_id: projectId,
    private_key_id: crypto.randomBytes(20).toString('hex'),
    private_key: privateKey,
    client_email: clientEmail,
    client_id: '100000000000000000000',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(clientEmail)}`,
    universe_domain: 'googleapis.com',
  };
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body ?? {});
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
};

const badRequest = (message: string, field: string) => ({
  status: 400,
  body: {
    error: {
      code: 400,
      message,
      status: 'INVALID_ARGUMENT',
      details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field, description: message }] }],
    },
  },
});

/** Checks a message as FCM would; returns an INVALID_ARGUMENT answer or null. */
function validateMessage(message: unknown): { status: number; body: unknown } | null {
  if (typeof message !== 'object' || message === null) return badRequest('Missing message', 'message');
  const m = message as FakeFcmMessage;
  const targets = ['token', 'topic', 'condition'].filter((k) => typeof m[k] === 'string' && m[k] !== '');
  if (targets.length !== 1 || typeof m.token !== 'string') return badRequest('Exactly one of token, topic or condition is required', 'message.token');
  if (m.notification !== undefined) {
    const n = m.notification as Record<string, unknown>;
    for (const key of Object.keys(n)) {
      if (!['title', 'body', 'image'].includes(key)) return badRequest(`Invalid JSON payload received. Unknown name "${key}" at 'message.notification'`, `message.notification.${key}`);
      if (typeof n[key] !== 'string') return badRequest(`Invalid value at 'message.notification.${key}'`, `message.notification.${key}`);
    }
  }
  if (m.data !== undefined) {
    if (typeof m.data !== 'object' || m.data === null) return badRequest("Invalid value at 'message.data'", 'message.data');
    for (const [key, value] of Object.entries(m.data)) {
      if (typeof value !== 'string') return badRequest(`Invalid value at 'message.data[${key}].value' (TYPE_STRING)`, `message.data[${key}].value`);
      if (key === 'from' || /^(google|gcm)/i.test(key)) return badRequest(`Invalid data key: ${key}`, `message.data[${key}].key`);
    }
  }
  if (m.android?.priority !== undefined && !/^(high|normal)$/i.test(String(m.android.priority))) {
    return badRequest(`Invalid value at 'message.android.priority'`, 'message.android.priority');
  }
  const size = Buffer.byteLength(JSON.stringify({ notification: m.notification ?? {}, data: m.data ?? {} }), 'utf8');
  if (size > 4096) return badRequest('Message is too big', 'message');
  return null;
}

/**
 * Starts a fake of the two Google endpoints the FCM sender talks to, over HTTPS on 127.0.0.1 with
 * {@link testCertificate} (no network):
 * - `POST /token`: the OAuth 2.0 JWT bearer grant (RFC 7523; Google "Using OAuth 2.0 for Server
 *   to Server Applications"). The RS256 assertion must verify against the public half of
 *   `serviceAccount.private_key`, with `iss` = client_email, `aud` = `${origin}/token`, the
 *   firebase.messaging scope and `exp` within an hour of `iat`; the answer is
 *   `{access_token, expires_in: 3599, token_type: 'Bearer'}`, else 400 `{error: 'invalid_grant', …}`.
 * - `POST /v1/projects/:project/messages:send`: FCM HTTP v1. Checks `Authorization: Bearer` of an
 *   issued token (401 UNAUTHENTICATED) and the project (403), validates the message (400
 *   INVALID_ARGUMENT) and answers `{name: "projects/<p>/messages/<id>"}` — or what the script
 *   installed with `respond()` returns (see {@link fakeFcmErrors}).
 */
export async function startFakeFcm(options: { serviceAccount: FakeFcmServiceAccount }): Promise<FakeFcm> {
  const { serviceAccount } = options;
  const publicKey = crypto.createPublicKey(serviceAccount.private_key);
  const requests: FakeFcmRequest[] = [];
  const issuedTokens: string[] = [];
  let responder: FakeFcmResponder = () => undefined;
  let messageCounter = 0;
  let origin = '';

  const verifyAssertion = (assertion: string): { claims: Record<string, unknown> } | { error: string } => {
    const parts = assertion.split('.');
    if (parts.length !== 3) return { error: 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.' };
    const [h, p, s] = parts as [string, string, string];
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>;
      claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return { error: 'Invalid JWT: not JSON' };
    }
    if (header.alg !== 'RS256') return { error: `Invalid JWT: alg ${String(header.alg)}` };
    if (!crypto.verify('sha256', Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s, 'base64url'))) {
      return { error: 'Invalid JWT Signature.' };
    }
    const now = Math.floor(Date.now() / 1000);
    if (claims.iss !== serviceAccount.client_email) return { error: 'Invalid JWT: iss is not the service account' };
    if (claims.aud !== `${origin}/token`) return { error: `Invalid JWT: aud must be ${origin}/token` };
    if (typeof claims.scope !== 'string' || !claims.scope.split(' ').includes(FCM_SCOPE)) return { error: 'Invalid JWT: scope' };
    if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number') return { error: 'Invalid JWT: iat and exp are required' };
    if (claims.iat > now + 60 || claims.exp <= now || claims.exp - claims.iat > 3600) {
      return { error: 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.' };
    }
    return { claims };
  };

  const answer = (res: ServerResponse, scripted: FakeFcmResponse | undefined, fallback: () => void) => {
    if (scripted === 'hang') return; // the connection stays open until close()
    if (scripted === 'reset') {
      res.socket?.destroy();
      return;
    }
    if (scripted) send(res, scripted.status, scripted.body, scripted.headers);
    else fallback();
  };

  const track = (record: FakeFcmRequest, res: ServerResponse) => {
    requests.push(record);
    res.once('close', () => {
      if (!res.writableFinished) record.abandonedByClient = true;
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const text = await readBody(req);
    const path = req.url ?? '/';
    const method = req.method ?? 'GET';

    if (method === 'POST' && path === '/token') {
      const form = Object.fromEntries(new URLSearchParams(text));
      const record: FakeFcmRequest = { kind: 'token', method, path, headers: req.headers, body: form };
      track(record, res);
      if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        send(res, 400, { error: 'invalid_request', error_description: 'form-encoded body expected' });
        return;
      }
      if (form.grant_type !== JWT_BEARER_GRANT) {
        send(res, 400, { error: 'unsupported_grant_type', error_description: `Invalid grant_type: ${form.grant_type ?? ''}` });
        return;
      }
      const verified = verifyAssertion(form.assertion ?? '');
      if ('error' in verified) {
        send(res, 400, { error: 'invalid_grant', error_description: verified.error });
        return;
      }
      record.claims = verified.claims;
      answer(res, responder(record), () => {
        const token = `ya29.fake-${crypto.randomBytes(16).toString('hex')}`;
        issuedTokens.push(token);
        send(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
      });
      return;
    }

    const match = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(path);
    if (method === 'POST' && match) {
      const project = decodeURIComponent(match[1] ?? '');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const message = (body as { message?: FakeFcmMessage } | undefined)?.message;
      const record: FakeFcmRequest = { kind: 'send', method, path, headers: req.headers, body, project, ...(message ? { message } : {}) };
      track(record, res);
      const auth = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
      if (!auth || !issuedTokens.includes(auth[1] ?? '')) {
        send(res, 401, {
          error: {
            code: 401,
            message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
            status: 'UNAUTHENTICATED',
          },
        });
        return;
      }
      if (project !== serviceAccount.project_id) {
        send(res, 403, { error: { code: 403, message: 'Permission denied on resource project.', status: 'PERMISSION_DENIED' } });
        return;
      }
      if (body === undefined) {
        send(res, 400, badRequest('Invalid JSON payload received.', 'message').body);
        return;
      }
      const invalid = validateMessage(message);
      if (invalid) {
        send(res, invalid.status, invalid.body);
        return;
      }
      answer(res, responder(record), () => {
        messageCounter += 1;
        send(res, 200, { name: `projects/${project}/messages/0:${Date.now()}%${messageCounter.toString(16).padStart(16, '0')}` });
      });
      return;
    }

    track({ kind: 'other', method, path, headers: req.headers, body: text }, res);
    send(res, 404, { error: { code: 404, message: 'Not found', status: 'NOT_FOUND' } });
  };

  const { key, cert } = testCertificate();
  const server = https.createServer({ key, cert }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { code: 500, message: String(err), status: 'INTERNAL' } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    requests,
    issuedTokens,
    respond(fn: FakeFcmResponder) {
      responder = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
