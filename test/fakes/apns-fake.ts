import crypto, { type KeyObject } from 'node:crypto';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { testCertificate } from './tls.js';

/** One request the fake APNs received on `POST /3/device/:token`. */
export interface FakeApnsRequest {
  /** The device token from the path (decoded). */
  token: string;
  /** Request headers without HTTP/2 pseudo-headers, names lower-case. */
  headers: Record<string, string>;
  /** The parsed JSON body; null when it was empty or not JSON. */
  payload: unknown;
  /** Size of the body in bytes. */
  bytes: number;
  /** The decoded provider token when its ES256 signature, kid and iss verified; null otherwise. */
  jwt: { header: Record<string, unknown>; claims: Record<string, unknown> } | null;
}

/** A scripted answer: status, JSON body (e.g. `{reason:"Unregistered"}`), extra headers, or `hang` to never answer. */
export interface FakeApnsResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  hang?: boolean;
  /** Reset the request's stream (RST_STREAM INTERNAL_ERROR) instead of answering. */
  reset?: boolean;
  /** Answer this many ms later (APNs is tens of ms away). */
  delayMs?: number;
  /** Send the status and half of the body, then cut the connection (TCP gone mid-answer). */
  truncate?: boolean;
}

/** A running fake APNs. */
export interface FakeApns {
  /** `https://127.0.0.1:<port>`; its certificate is `testCertificate().cert`. */
  origin: string;
  /** Every request to a device path, in arrival order (also those refused for a bad token). */
  requests: FakeApnsRequest[];
  /** Scripts answers for authorised requests; `undefined` from `fn` (or no script) means 200. */
  respond(fn: ((req: FakeApnsRequest) => FakeApnsResponse | undefined) | undefined): void;
  /** HTTP/2 sessions (TLS connections) opened so far. */
  sessionCount(): number;
  /** The most requests that were open at once on one session so far. */
  maxStreamsInFlight(): number;
  /**
   * Sends GOAWAY on every open session (as APNs does before it closes a connection). With
   * `lastStreamId`, streams above it are refused unprocessed (RFC 9113 §6.8).
   */
  goaway(lastStreamId?: number): void;
  /** The HTTP/2 stream id of each request in `requests`, in the same order. */
  streamIds: number[];
  /** Stops the server, cutting open sessions (hung requests included). */
  close(): Promise<void>;
}

const MAX_PAYLOAD_BYTES = 4096;

/**
 * Starts a fake APNs on 127.0.0.1 (port 0) speaking HTTP/2 over TLS with {@link testCertificate}
 * (DESIGN.md "Facts for testing the senders"). It behaves like Apple's server as described in
 * "Sending notification requests to APNs", "Establishing a token-based connection to APNs" and
 * "Handling error responses from APNs":
 * - only `POST /3/device/:token` (405 MethodNotAllowed, 404 BadPath otherwise);
 * - `authorization: bearer <JWT>` must be an ES256 JWT (signature in IEEE P1363 form) signed by
 *   the private half of `publicKey`, with header `kid` = `keyId`, claim `iss` = `teamId` and an
 *   `iat` within the last hour → otherwise 403 InvalidProviderToken (403 MissingProviderToken if absent);
 * - `apns-topic` and `apns-push-type` are required (400 MissingTopic, 400 InvalidPushType);
 *   a body over 4096 bytes is 413 PayloadTooLarge, an empty or non-JSON one 400 PayloadEmpty;
 * - then the scripted answer if any, else 200 with an `apns-id` header (the request's apns-id or a UUID).
 * Every answer carries `apns-id`; error bodies are `{"reason": …}` JSON.
 */
export async function startFakeApns(options: {
  publicKey: KeyObject | string;
  keyId: string;
  teamId: string;
  /** SETTINGS_MAX_CONCURRENT_STREAMS advertised to clients (APNs: up to 1,000); node's default when absent. */
  maxConcurrentStreams?: number;
}): Promise<FakeApns> {
  const publicKey = typeof options.publicKey === 'string' ? crypto.createPublicKey(options.publicKey) : options.publicKey;
  const { key, cert } = testCertificate();
  const requests: FakeApnsRequest[] = [];
  const streamIds: number[] = [];
  const sessions = new Set<http2.ServerHttp2Session>();
  let sessionsOpened = 0;
  let maxInFlight = 0;
  let script: ((req: FakeApnsRequest) => FakeApnsResponse | undefined) | undefined;

  const server = http2.createSecureServer({
    key,
    cert,
    ...(options.maxConcurrentStreams ? { settings: { maxConcurrentStreams: options.maxConcurrentStreams } } : {}),
  });
  const inFlight = new Map<http2.Http2Session, number>();
  server.on('session', (session) => {
    sessionsOpened += 1;
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    const session = stream.session!;
    const open = (inFlight.get(session) ?? 0) + 1;
    inFlight.set(session, open);
    maxInFlight = Math.max(maxInFlight, open);
    stream.on('close', () => inFlight.set(session, (inFlight.get(session) ?? 1) - 1));
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', () => undefined);
    stream.on('end', () => {
      const apnsId = typeof headers['apns-id'] === 'string' ? headers['apns-id'] : crypto.randomUUID();
      const answer = (status: number, body?: unknown, extra: Record<string, string> = {}) => {
        if (stream.destroyed || stream.closed) return;
        const json = body === undefined ? undefined : JSON.stringify(body);
        stream.respond({
          ':status': status,
          'apns-id': apnsId,
          ...(json ? { 'content-type': 'application/json' } : {}),
          ...extra,
        });
        stream.end(json);
      };

      const match = /^\/3\/device\/([^/?]+)$/.exec(String(headers[':path']));
      if (!match?.[1]) return answer(404, { reason: 'BadPath' });
      if (headers[':method'] !== 'POST') return answer(405, { reason: 'MethodNotAllowed' });

      const raw = Buffer.concat(chunks);
      let payload: unknown = null;
      try {
        payload = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : null;
      } catch {
        payload = null;
      }
      const plainHeaders: Record<string, string> = {};
      for (const [name, value] of Object.entries(headers)) {
        if (!name.startsWith(':') && value !== undefined) plainHeaders[name] = Array.isArray(value) ? value.join(', ') : String(value);
      }
      const authorization = plainHeaders.authorization;
      const jwt = authorization ? verifyJwt(authorization, publicKey, options) : null;
      const req: FakeApnsRequest = {
        token: decodeURIComponent(match[1]),
        headers: plainHeaders,
        payload,
        bytes: raw.length,
        jwt,
      };
      requests.push(req);
      streamIds.push(stream.id ?? 0);

      if (!authorization) return answer(403, { reason: 'MissingProviderToken' });
      if (!jwt) return answer(403, { reason: 'InvalidProviderToken' });
      if (!plainHeaders['apns-topic']) return answer(400, { reason: 'MissingTopic' });
      if (!plainHeaders['apns-push-type']) return answer(400, { reason: 'InvalidPushType' });
      if (raw.length > MAX_PAYLOAD_BYTES) return answer(413, { reason: 'PayloadTooLarge' });
      if (payload === null || typeof payload !== 'object') return answer(400, { reason: 'PayloadEmpty' });

      const scripted = script?.(req);
      if (!scripted) return answer(200);
      if (scripted.hang) return; // never answer
      if (scripted.reset) {
        stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
        return;
      }
      if (scripted.truncate) {
        const json = JSON.stringify(scripted.body ?? { reason: 'BadDeviceToken' });
        stream.respond({ ':status': scripted.status, 'apns-id': apnsId, 'content-type': 'application/json' });
        // (node's stream.close() would end the body cleanly first, so the whole session goes.)
        stream.write(json.slice(0, Math.floor(json.length / 2)), () => stream.session?.destroy());
        return;
      }
      if (scripted.delayMs) {
        setTimeout(() => answer(scripted.status, scripted.body, scripted.headers), scripted.delayMs);
        return;
      }
      return answer(scripted.status, scripted.body, scripted.headers);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    origin: `https://127.0.0.1:${port}`,
    requests,
    respond(fn) {
      script = fn;
    },
    sessionCount: () => sessionsOpened,
    maxStreamsInFlight: () => maxInFlight,
    streamIds,
    goaway(lastStreamId) {
      for (const session of sessions) session.goaway(http2.constants.NGHTTP2_NO_ERROR, lastStreamId);
    },
    close() {
      return new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      });
    },
  };
}

/**
 * Verifies an APNs provider token (Apple, "Establishing a token-based connection to APNs"):
 * `bearer <base64url header>.<base64url claims>.<base64url ES256 signature, r||s>`.
 */
function verifyJwt(
  authorization: string,
  publicKey: KeyObject,
  expected: { keyId: string; teamId: string },
): FakeApnsRequest['jwt'] {
  const match = /^bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/i.exec(authorization.trim());
  if (!match) return null;
  const [, encodedHeader = '', encodedClaims = '', encodedSignature = ''] = match;
  try {
    const header = JSON.parse(Buffer.from(encodedHeader, 'base64url').toString('utf8')) as Record<string, unknown>;
    const claims = JSON.parse(Buffer.from(encodedClaims, 'base64url').toString('utf8')) as Record<string, unknown>;
    const valid = crypto.verify(
      'sha256',
      Buffer.from(`${encodedHeader}.${encodedClaims}`),
      { key: publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(encodedSignature, 'base64url'),
    );
    const now = Math.floor(Date.now() / 1000);
    const iat = claims.iat;
    if (
      !valid ||
      header.alg !== 'ES256' ||
      header.kid !== expected.keyId ||
      claims.iss !== expected.teamId ||
      typeof iat !== 'number' ||
      iat > now + 60 ||
      iat < now - 3600
    ) {
      return null;
    }
    return { header, claims };
  } catch {
    return null;
  }
}
