import crypto from 'node:crypto';
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testCertificate } from './tls.js';

/** A browser-like push subscription (W3C Push API `PushSubscription.toJSON()`). */
export interface TestPushSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** A subscription made the way a browser makes one, plus what the browser needs to read pushes. */
export interface TestSubscription {
  subscription: TestPushSubscription;
  /** Decrypts an aes128gcm body (RFC 8291) sent to this subscription; throws when it cannot. */
  decrypt(body: Buffer): string;
}

/** One request the fake push service received. */
export interface FakePushRequest {
  /** The subscription id from `POST /push/:id`. */
  id: string;
  headers: IncomingHttpHeaders;
  /** Bytes of the (encrypted) request body. */
  bodyLength: number;
  /** The decrypted body (UTF-8); undefined when it could not be decrypted. */
  text?: string;
  /** The decrypted body parsed as JSON; undefined when it could not be decrypted or is not JSON. */
  payload: unknown;
  /** The verified VAPID claims (RFC 8292); null when the Authorization header was rejected. */
  vapid: { sub: string; aud: string; exp: number; k: string } | null;
  /** The status the fake answered; 0 for a scripted hang. */
  status: number;
  /** Why the fake rejected the request, when it did. */
  error?: string;
}

/** A scripted answer: `status` with `headers`, or no answer at all when `hang` is true. */
export interface FakePushResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  hang?: boolean;
  /** Reset the TCP connection instead of answering. */
  reset?: boolean;
}

/** A running fake push service (RFC 8030) on https://127.0.0.1:<port>. */
export interface FakePushService {
  origin: string;
  /** Every request received, in order. */
  requests: FakePushRequest[];
  /**
   * A new subscription whose endpoint is on this fake (`/push/<random id>`). With
   * `applicationServerKey` (a VAPID public key, base64url) the fake, like a real push service,
   * answers 403 to pushes whose VAPID `k` is another key (RFC 8292 §4.2).
   */
  subscribe(applicationServerKey?: string): TestSubscription;
  /**
   * Scripts answers: called for each request after it was verified and recorded; return a
   * response to use it, or undefined for the default (201 with a Location header, or the
   * verification error).
   */
  respond(fn: (req: FakePushRequest) => FakePushResponse | undefined): void;
  close(): Promise<void>;
}

/**
 * Makes an ECDH P-256 key pair and a 16-byte auth secret as a browser does (RFC 8291 §3) for
 * an endpoint `<endpointOrigin>/push/<random id>`; `decrypt` reads an aes128gcm body with them.
 */
export function createTestSubscription(endpointOrigin: string): TestSubscription {
  const ecdh = crypto.createECDH('prime256v1');
  const uaPublic = ecdh.generateKeys();
  const authSecret = crypto.randomBytes(16);
  const id = crypto.randomBytes(24).toString('base64url');
  return {
    subscription: {
      endpoint: `${endpointOrigin}/push/${id}`,
      keys: { p256dh: uaPublic.toString('base64url'), auth: authSecret.toString('base64url') },
    },
    decrypt: (body) => decryptAes128gcm(body, ecdh, authSecret),
  };
}

/**
 * RFC 8291 §3.4 + RFC 8188 §2, done with node:crypto (independently of web-push/http_ece):
 * header salt(16) | rs(4) | idlen(1) | keyid (the sender's ephemeral public key, 65 bytes),
 * then records of `rs` bytes, each AES-128-GCM with delimiter 0x01 (0x02 on the last) and
 * zero padding.
 */
function decryptAes128gcm(body: Buffer, ecdh: crypto.ECDH, authSecret: Buffer): string {
  if (body.length < 21) throw new Error('aes128gcm body shorter than its header');
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  const asPublic = body.subarray(21, 21 + idlen);
  if (idlen !== 65) throw new Error(`keyid must be a 65-byte P-256 point, got ${idlen} bytes`);
  if (rs < 18) throw new Error(`record size ${rs} too small`);
  const uaPublic = ecdh.getPublicKey();
  const ecdhSecret = ecdh.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = Buffer.from(crypto.hkdfSync('sha256', ecdhSecret, authSecret, keyInfo, 32));
  const cek = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const baseNonce = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));

  const records = body.subarray(21 + idlen);
  const parts: Buffer[] = [];
  for (let offset = 0, seq = 0; offset < records.length; offset += rs, seq += 1) {
    const record = records.subarray(offset, offset + rs);
    const last = offset + rs >= records.length;
    const nonce = Buffer.from(baseNonce);
    nonce.writeUInt32BE((nonce.readUInt32BE(8) ^ seq) >>> 0, 8); // seq < 2^32: only the low 32 bits change
    const decipher = crypto.createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
    let end = plain.length - 1;
    while (end >= 0 && plain[end] === 0) end -= 1;
    const delimiter = plain[end];
    if (delimiter !== (last ? 2 : 1)) throw new Error(`bad padding delimiter in record ${seq}`);
    parts.push(plain.subarray(0, end));
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Verifies `Authorization: vapid t=<JWT>, k=<public key>` (RFC 8292 §3): an ES256 JWT signed
 * by the key in `k`, `aud` = this service's origin, `exp` in the future and within 24 h,
 * `sub` a mailto: or https: URL. Returns the claims or throws with the reason.
 */
function verifyVapid(authorization: string | undefined, origin: string): { sub: string; aud: string; exp: number; k: string } {
  if (!authorization) throw new Error('no Authorization header');
  const match = /^vapid\s+(.*)$/i.exec(authorization.trim());
  if (!match) throw new Error('Authorization scheme is not vapid');
  const params = new Map<string, string>();
  for (const part of match[1]!.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) params.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  const token = params.get('t');
  const k = params.get('k');
  if (!token || !k) throw new Error('vapid needs t= and k=');
  const [h, p, s, extra] = token.split('.');
  if (!h || !p || !s || extra !== undefined) throw new Error('t is not a JWS compact token');
  const head = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { alg?: string };
  if (head.alg !== 'ES256') throw new Error(`JWT alg ${String(head.alg)} is not ES256`);
  const point = Buffer.from(k, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  const key = crypto.createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  const ok = crypto.verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
  if (!ok) throw new Error('JWT signature does not match k');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as { aud?: unknown; exp?: unknown; sub?: unknown };
  if (claims.aud !== origin) throw new Error(`aud ${String(claims.aud)} is not ${origin}`);
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp !== 'number' || claims.exp <= now) throw new Error('exp missing or past');
  if (claims.exp > now + 24 * 60 * 60) throw new Error('exp more than 24 h ahead');
  if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub)) throw new Error('sub missing or not mailto:/https:');
  return { sub: claims.sub, aud: claims.aud, exp: claims.exp, k };
}

/**
 * Starts a fake push service (RFC 8030 §5) over HTTPS with testCertificate() on 127.0.0.1:0.
 * `POST /push/:id` is checked like a real service: VAPID (RFC 8292; 401 when invalid, 403 when
 * the subscription was made for another key), `Content-Encoding: aes128gcm` (else 415), a `TTL`
 * header (else 400), a body of at most 4096 bytes (else 413), an id it issued (else 404) and a
 * body that decrypts with that subscription's keys (else 400). Accepted pushes answer 201 with
 * `Location: /message/<id>`, unless {@link FakePushService.respond} scripts something else.
 */
export async function startFakePushService(): Promise<FakePushService> {
  const { key, cert } = testCertificate();
  const subscriptions = new Map<string, { sub: TestSubscription; applicationServerKey?: string }>();
  const requests: FakePushRequest[] = [];
  let script: (req: FakePushRequest) => FakePushResponse | undefined = () => undefined;
  let origin = '';

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const match = /^\/push\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match) {
      res.writeHead(404).end();
      return;
    }
    const id = match[1]!;
    const record: FakePushRequest = { id, headers: req.headers, bodyLength: body.length, payload: undefined, vapid: null, status: 0 };
    requests.push(record);
    const reject = (status: number, error: string) => {
      record.status = status;
      record.error = error;
    };

    const known = subscriptions.get(id);
    try {
      record.vapid = verifyVapid(req.headers.authorization, origin);
    } catch (err) {
      reject(401, `VAPID: ${(err as Error).message}`);
    }
    if (record.status === 0) {
      if (known?.applicationServerKey && record.vapid && record.vapid.k !== known.applicationServerKey) {
        reject(403, 'VAPID key does not match the subscription');
      } else if (req.headers['content-encoding'] !== 'aes128gcm') {
        reject(415, `Content-Encoding ${String(req.headers['content-encoding'])} is not aes128gcm`);
      } else if (!/^\d+$/.test(String(req.headers.ttl ?? ''))) {
        reject(400, 'TTL header missing or not a number');
      } else if (body.length > 4096) {
        reject(413, `body of ${body.length} bytes is over 4096`);
      } else if (!known) {
        reject(404, 'no such subscription');
      } else {
        try {
          record.text = known.sub.decrypt(body);
        } catch (err) {
          reject(400, `cannot decrypt: ${(err as Error).message}`);
        }
        try {
          if (record.text !== undefined) record.payload = JSON.parse(record.text);
        } catch {
          // Not JSON: a push service does not read the plaintext; `payload` stays undefined.
        }
      }
    }

    const scripted = script(record);
    if (scripted?.hang) {
      record.status = 0;
      return; // never answer; close() drops the connection
    }
    if (scripted?.reset) {
      record.status = 0;
      res.socket?.destroy();
      return;
    }
    if (scripted) {
      record.status = scripted.status;
      res.writeHead(scripted.status, scripted.headers ?? {}).end(scripted.body ?? '');
      return;
    }
    if (record.status !== 0) {
      res.writeHead(record.status, { 'content-type': 'text/plain' }).end(record.error);
      return;
    }
    record.status = 201;
    res.writeHead(201, { location: `${origin}/message/${crypto.randomBytes(12).toString('base64url')}` }).end();
  };

  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    requests,
    subscribe(applicationServerKey) {
      const sub = createTestSubscription(origin);
      const id = sub.subscription.endpoint.slice(`${origin}/push/`.length);
      subscriptions.set(id, applicationServerKey === undefined ? { sub } : { sub, applicationServerKey });
      return sub;
    },
    respond(fn) {
      script = fn;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
