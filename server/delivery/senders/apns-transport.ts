import http2 from 'node:http2';
import tls from 'node:tls';

/**
 * What apns2's `ApnsClient.send` passes to its `client.request` (apns2 12.x, dist/esm/apns.js):
 * `POST /3/device/<token>` with the authorization, apns-* headers and the JSON payload.
 */
export interface ApnsRequestOptions {
  path: string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
}

/** The answer in the shape apns2 reads from undici: `statusCode`, and `body.json()` on an error status. */
export interface ApnsResponse {
  statusCode: number;
  headers: http2.IncomingHttpHeaders;
  body: { json(): Promise<unknown>; text(): Promise<string>; dump(): Promise<void> };
}

/**
 * What one send attaches to the request apns2 makes for it (see {@link ApnsHttp2Transport.within}).
 * - `responseHeaders`: filled in with the answer's headers (apns-id, retry-after), which apns2 drops.
 */
export interface ApnsRequestScope {
  responseHeaders?: http2.IncomingHttpHeaders;
}

/** A request that got no answer within its scope's `timeoutMs`. */
export class ApnsTimeoutError extends Error {
  override readonly name = 'ApnsTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
  }
}

/** How often an open session is checked with an HTTP/2 PING, as apns2 does (Apple: "check the health of your connection"). */
const PING_INTERVAL_MS = 10 * 60 * 1000;

/** How long a PING may go unanswered before the session counts as dead (ms, at most). */
const PING_TIMEOUT_MS = 5_000;

/** One HTTP/2 session and the streams it carries. */
interface Connection {
  session: http2.ClientHttp2Session;
  /** Streams open on this session. */
  active: number;
  /** The peer's SETTINGS arrived; until then one stream at a time (APNs itself starts at 1). */
  settled: boolean;
  /** The error that ended the session, given to requests that die with it. */
  error?: Error;
  /** The session has emitted 'close'. */
  ended: boolean;
  /** A PING is out and unanswered. */
  pinging: boolean;
}

/** A request waiting for a free stream, or in flight. */
interface Pending {
  options: ApnsRequestOptions;
  scope: ApnsRequestScope | undefined;
  resolve: (res: ApnsResponse) => void;
  reject: (err: Error) => void;
  /** When the deadline passes (ms since the epoch). */
  deadlineAt: number;
  stream?: http2.ClientHttp2Stream;
  /** The session the request went out on. */
  connection?: Connection;
  /** Sent again once after the server refused its stream unprocessed. */
  resent: boolean;
  done: boolean;
}

/**
 * An HTTP/2 client for one APNs origin that takes the place of apns2's undici Pool (its public
 * `client` property; DESIGN.md "Facts for testing the senders"), answering the calls apns2 makes:
 * `request`, `close` and `destroy`. apns2 keeps building the requests (provider token, headers,
 * payload) and reading the answers; this class only carries them.
 *
 * Why not undici (docs/decisions/0004-apns-transport.md): undici's per-request machinery cost
 * about 2.5× the CPU of plain node:http2 per notification, which capped the dispatcher.
 *
 * - One TLS session at a time to `origin` (Apple: "keep your connection to APNs open"),
 *   trusting `ca` (PEM strings; the system roots when not given), opened on the first request
 *   and again after a GOAWAY, an error or a close. A session without the server's SETTINGS
 *   `timeoutMs` after it was opened is destroyed. A session that lets a request time out, or
 *   every 10 minutes, gets a PING; unanswered within 5 s (or `timeoutMs` if shorter), the session
 *   is dropped — a connection a NAT or firewall silently cut is replaced, not waited on.
 * - Requests are multiplexed up to the server's SETTINGS_MAX_CONCURRENT_STREAMS (RFC 9113
 *   §6.5.2; APNs allows up to 1,000 per connection); beyond it they wait in order for a free stream.
 * - Each request settles, by `timeoutMs` after it was made at the latest (waiting for a stream
 *   included): with the complete answer, with the session's or stream's error, or with an
 *   {@link ApnsTimeoutError} (its stream is then cancelled). A stream the server refused
 *   unprocessed (REFUSED_STREAM, e.g. past a GOAWAY's last stream id; RFC 9113 §8.7) is sent
 *   again, once.
 * - Adds `apns-priority: 10` when apns2 left it out (apns2 omits the default priority).
 */
export class ApnsHttp2Transport {
  private readonly secureContext: tls.SecureContext;
  private connection: Connection | undefined;
  private readonly connections = new Set<Connection>();
  private readonly queue: Pending[] = [];
  /** Every request not settled yet, oldest first (so in deadline order: one timeout for all). */
  private readonly unsettled = new Set<Pending>();
  private deadlineTimer: NodeJS.Timeout | undefined;
  private scope: ApnsRequestScope | undefined;
  private closed = false;
  private readonly pingTimer: NodeJS.Timeout;

  constructor(
    private readonly origin: string,
    private readonly options: { ca?: string[]; timeoutMs: number },
  ) {
    // Built once: parsing ~140 system roots per connection is a measurable cost (decision 0004).
    this.secureContext = tls.createSecureContext(options.ca ? { ca: options.ca } : {});
    this.pingTimer = setInterval(() => this.ping(), PING_INTERVAL_MS).unref();
  }

  /**
   * Runs `fn` with `scope` attached to the one request `fn` makes synchronously — as apns2's
   * `send()` does: it calls `client.request` before its first `await` (apns2 12.2; the
   * dependency is pinned to 12.2.x for this). A request made outside `within` reports no headers.
   */
  within<T>(scope: ApnsRequestScope, fn: () => T): T {
    this.scope = scope;
    try {
      return fn();
    } finally {
      this.scope = undefined;
    }
  }

  /** Sends one request (see the class comment for how it settles). Rejects at once after close(). */
  request(options: ApnsRequestOptions): Promise<ApnsResponse> {
    const scope = this.scope;
    this.scope = undefined;
    return new Promise<ApnsResponse>((resolve, reject) => {
      if (this.closed) {
        reject(new Error('the APNs connection is closed'));
        return;
      }
      const pending: Pending = { options, scope, resolve, reject, deadlineAt: Date.now() + this.options.timeoutMs, resent: false, done: false };
      this.unsettled.add(pending);
      // unref: an open session keeps the process alive while requests are out; a timer must not after close.
      this.deadlineTimer ??= setTimeout(() => this.expire(), this.options.timeoutMs).unref();
      this.queue.push(pending);
      this.pump();
    });
  }

  /** Stops taking requests and lets the open streams finish; resolves when every session has closed. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.pingTimer);
    for (const pending of this.queue.splice(0)) this.settle(pending, new Error('the APNs connection was closed'));
    await Promise.all(
      [...this.connections].map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.ended) return resolve();
            c.session.once('close', () => resolve());
            // A session already closing or destroyed ignores close(); its 'close' event still comes.
            if (!c.session.closed && !c.session.destroyed) c.session.close();
          }),
      ),
    );
  }

  /** Ends every session at once; requests in flight reject with `err` (or a generic error). */
  async destroy(err?: Error | null): Promise<void> {
    this.closed = true;
    clearInterval(this.pingTimer);
    const reason = err ?? new Error('the APNs connection was destroyed');
    for (const pending of this.queue.splice(0)) this.settle(pending, reason);
    for (const c of this.connections) this.drop(c, reason);
  }

  /** Starts queued requests while the current session has free streams. */
  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const c = this.current();
      const limit = c.settled ? (c.session.remoteSettings.maxConcurrentStreams ?? 100) : 1;
      if (c.active >= limit) return;
      const pending = this.queue.shift()!;
      if (pending.done) continue;
      this.start(c, pending);
    }
  }

  private start(c: Connection, pending: Pending): void {
    const { options } = pending;
    // apns2 builds a new headers object per request: complete it in place.
    const headers: http2.OutgoingHttpHeaders = options.headers ?? {};
    headers[':method'] = options.method;
    headers[':path'] = options.path;
    if (headers['apns-priority'] === undefined) headers['apns-priority'] = '10';
    let stream: http2.ClientHttp2Stream;
    try {
      stream = c.session.request(headers);
    } catch (err) {
      // The session went away between the check and the call: drop it and fail this request.
      this.forget(c);
      this.settle(pending, err instanceof Error ? err : new Error(String(err)));
      return;
    }
    c.active += 1;
    pending.stream = stream;
    pending.connection = c;
    let status = 0;
    let responseHeaders: http2.IncomingHttpHeaders = {};
    let streamError: Error | undefined;
    let complete = false;
    const chunks: Buffer[] = [];
    stream.on('response', (h) => {
      status = Number(h[':status']);
      responseHeaders = h;
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => (complete = true));
    stream.on('error', (err) => (streamError = err));
    stream.on('close', () => {
      c.active -= 1;
      if (stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM && status === 0 && !pending.resent && !pending.done && Date.now() < pending.deadlineAt) {
        // Never processed by the server (RFC 9113 §8.7): send it again, once (after a GOAWAY
        // the session is already forgotten, so on a new one).
        pending.resent = true;
        pending.stream = undefined;
        pending.connection = undefined;
        this.queue.unshift(pending);
      } else if (status > 0 && complete && streamError === undefined && !stream.rstCode) {
        if (pending.scope) pending.scope.responseHeaders = responseHeaders;
        this.settle(pending, undefined, new Answer(status, responseHeaders, chunks));
      } else if (c.session.destroyed && !c.ended) {
        // The session is going down and its streams close before it reports why (ECONNRESET,
        // a certificate error): fail with that reason, once the session has closed.
        c.session.once('close', () => this.settle(pending, c.error ?? streamError));
      } else {
        this.settle(pending, c.error ?? streamError ?? new Error(`APNs stream closed without an answer (code ${stream.rstCode})`));
      }
      // A session going down takes no new streams; its 'close' handler moves the queue on.
      if (!c.session.destroyed) this.pump();
    });
    stream.end(options.body);
  }

  private settle(pending: Pending, err: Error | undefined, res?: ApnsResponse): void {
    if (pending.done) return;
    pending.done = true;
    this.unsettled.delete(pending);
    if (res) pending.resolve(res);
    else pending.reject(err ?? new Error('APNs request failed'));
  }

  /**
   * Ends the requests whose deadline has passed (their streams are cancelled, and their sessions
   * get a PING), then waits for the next deadline. One timer for all requests instead of one each:
   * every request has the same timeout, so the oldest unsettled one is always the next due.
   */
  private expire(): void {
    this.deadlineTimer = undefined;
    const now = Date.now();
    for (const pending of this.unsettled) {
      if (pending.deadlineAt > now) {
        this.deadlineTimer = setTimeout(() => this.expire(), pending.deadlineAt - now).unref();
        return;
      }
      pending.stream?.close(http2.constants.NGHTTP2_CANCEL);
      this.settle(pending, new ApnsTimeoutError(this.options.timeoutMs));
      // No answer in time: make sure the session itself is still alive.
      if (pending.connection) this.checkAlive(pending.connection);
    }
  }

  /** The session new requests go to, opened if there is none. */
  private current(): Connection {
    const open = this.connection;
    if (open && !open.session.destroyed && !open.session.closed) return open;
    this.connection = undefined;
    const session = http2.connect(this.origin, { secureContext: this.secureContext });
    const c: Connection = { session, active: 0, settled: false, ended: false, pinging: false };
    this.connection = c;
    this.connections.add(c);
    const connectTimer = setTimeout(() => {
      if (!c.settled) this.drop(c, new Error(`connecting to APNs timed out after ${this.options.timeoutMs} ms`));
    }, this.options.timeoutMs);
    connectTimer.unref();
    session.on('remoteSettings', () => {
      c.settled = true;
      this.pump();
    });
    session.on('error', (err) => this.lost(c, err));
    // After GOAWAY the session finishes its streams but takes no new ones.
    session.on('goaway', () => this.forget(c));
    session.on('close', () => {
      c.ended = true;
      clearTimeout(connectTimer);
      this.connections.delete(c);
      this.lost(c, new Error(c.settled ? 'the APNs connection closed' : 'the APNs connection closed before it was established'));
      this.pump();
    });
    return c;
  }

  private forget(c: Connection): void {
    if (this.connection === c) this.connection = undefined;
  }

  /**
   * `c` failed or closed: new requests go to a new session. If `c` never got as far as the
   * server's SETTINGS it could not connect, so the requests waiting for it fail with its error
   * instead of each dialling again at once.
   */
  private lost(c: Connection, err: Error): void {
    c.error ??= err;
    const wasCurrent = this.connection === c;
    this.forget(c);
    if (!c.settled && wasCurrent) for (const pending of this.queue.splice(0)) this.settle(pending, c.error);
  }

  /** Ends `c` with `err` (its requests fail with it); new requests go to a new session. */
  private drop(c: Connection, err: Error): void {
    c.error ??= err;
    this.forget(c);
    c.session.destroy();
  }

  /** Sends a PING on `c` unless one is out; no answer within the PING deadline drops the session. */
  private checkAlive(c: Connection): void {
    if (c.pinging || !c.settled || c.session.destroyed || c.session.closed) return;
    c.pinging = true;
    const limit = Math.min(PING_TIMEOUT_MS, this.options.timeoutMs);
    const timer = setTimeout(() => this.drop(c, new Error(`APNs connection did not answer a PING within ${limit} ms`)), limit);
    timer.unref();
    try {
      c.session.ping((err) => {
        clearTimeout(timer);
        c.pinging = false;
        if (err && !c.session.destroyed) this.drop(c, err);
      });
    } catch (err) {
      clearTimeout(timer);
      c.pinging = false;
      this.drop(c, err instanceof Error ? err : new Error(String(err)));
    }
  }

  private ping(): void {
    if (this.connection) this.checkAlive(this.connection);
  }
}

/** A complete answer, with its body already read. */
class Answer implements ApnsResponse {
  readonly body: ApnsResponse['body'] = this;
  constructor(
    readonly statusCode: number,
    readonly headers: http2.IncomingHttpHeaders,
    private readonly chunks: Buffer[],
  ) {}
  async text(): Promise<string> {
    return Buffer.concat(this.chunks).toString('utf8');
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }
  async dump(): Promise<void> {}
}
