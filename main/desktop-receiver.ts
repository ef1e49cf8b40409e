/**
 * The desktop receiver (issue "Desktop app": "the operator can choose a receiver user whose
 * notifications this desktop shows as native notifications (a desktop/stream device of that user;
 * click opens the url)"). A client of the hub's receiver API, like any other receiver:
 *
 * - `POST /api/receiver/devices {name, platform:'desktop', channel:'stream', token}`: the stable
 *   `token` makes registering again update the same device;
 * - `GET /api/receiver/stream?deviceId=…` (Server-Sent Events) with `Last-Event-ID`, so a
 *   reconnect gets what was missed, and the device's outbox deliveries are recorded `delivered`.
 *
 * Plain Node (fetch, streams): no Electron here; main.ts turns each notification into a native one.
 */

/** One `notification` event of the receiver stream (server/delivery/stream-hub.ts notificationEventData). */
export interface StreamNotification {
  id: string;
  title: string;
  body: string;
  emoji: string | null;
  image: string | null;
  url: string | null;
  /** ISO 8601. */
  createdAt: string;
}

/** One dispatched Server-Sent Event. */
export interface SseMessage {
  /** The event type (`message` when the stream named none). */
  event: string;
  data: string;
  /** The stream's last event id at dispatch time (WHATWG HTML, "Server-sent events" §9.2.6). */
  lastEventId: string;
}

/**
 * An incremental parser of `text/event-stream` (WHATWG HTML §9.2.6 "Interpreting an event
 * stream"): lines end in CRLF, LF or CR; `:` starts a comment; fields `event`, `data`, `id`
 * (ignored when it contains NULL) and `retry` (digits only); a blank line dispatches.
 */
export function createSseParser(handlers: { onEvent(message: SseMessage): void; onRetry?(ms: number): void }) {
  let buffer = '';
  let data = '';
  let eventType = '';
  let lastEventId = '';

  const processLine = (line: string) => {
    if (line === '') {
      if (data === '') {
        eventType = '';
        return;
      }
      const message = { event: eventType || 'message', data: data.endsWith('\n') ? data.slice(0, -1) : data, lastEventId };
      data = '';
      eventType = '';
      handlers.onEvent(message);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        eventType = value;
        break;
      case 'data':
        data += `${value}\n`;
        break;
      case 'id':
        if (!value.includes('\0')) lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) handlers.onRetry?.(Number(value));
        break;
      default:
        break;
    }
  };

  return {
    /** Feeds decoded text; complete lines are processed, a partial one waits for the next chunk. */
    push(text: string): void {
      buffer += text;
      for (;;) {
        const match = /\r\n|\n|\r/.exec(buffer);
        if (!match) return;
        // A CR at the very end may be the first half of a CRLF split across chunks.
        if (match[0] === '\r' && match.index === buffer.length - 1) return;
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        processLine(line);
      }
    },
  };
}

/** Rejects the receiver's calls when its session is not (or no longer) valid: sign in again. */
export class ReceiverAuthError extends Error {
  override readonly name = 'ReceiverAuthError';
}

/** A refused receiver API call other than 401. */
export class ReceiverApiError extends Error {
  override readonly name = 'ReceiverApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type FetchLike = typeof fetch;

async function apiError(res: Response, what: string): Promise<Error> {
  const text = await res.text().catch(() => '');
  if (res.status === 401) return new ReceiverAuthError(`${what}: the receiver session is not valid`);
  let message = text.slice(0, 200);
  try {
    message = (JSON.parse(text) as { error: { message: string } }).error.message;
  } catch {
    // not the hub's error shape
  }
  return new ReceiverApiError(res.status, `${what}: HTTP ${res.status} ${message}`);
}

/** `POST /api/receiver/login`: a receiver session for a username and password (for clients that ask the person). */
export async function receiverLogin(
  hubUrl: string,
  username: string,
  password: string,
  fetchImpl: FetchLike = fetch,
): Promise<{ token: string; userKey: string; user: { id: string; name: string } }> {
  const res = await fetchImpl(new URL('/api/receiver/login', hubUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (!res.ok) throw await apiError(res, 'sign-in');
  return (await res.json()) as { token: string; userKey: string; user: { id: string; name: string } };
}

/** Connection state of the desktop receiver. */
export type ReceiverState = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'unauthorized' | 'stopped';

/** How {@link createDesktopReceiver} reaches the hub and reports what it receives. */
export interface DesktopReceiverOptions {
  /** The hub's base URL. */
  hubUrl: string;
  /** A receiver session token (receiverLogin, or the hub child's `receiver-session`). */
  token: string;
  /** The device's name as the console lists it, e.g. `Desktop (my-laptop)`. */
  deviceName: string;
  /** A stable random id of this installation (at least 16 characters): the stream device's `token`. */
  deviceToken: string;
  /** The last notification id already shown: the first connection resumes after it. */
  lastEventId?: string | null;
  onNotification(notification: StreamNotification): void;
  /** Called with each new last event id (to persist it). */
  onLastEventId?(id: string): void;
  onState?(state: ReceiverState, detail?: string): void;
  /** Called with the device id once registered (to persist it). */
  onDevice?(deviceId: string): void;
  fetch?: FetchLike;
  /** Reconnect delays: the stream's `retry` (or `initialMs`), doubling per failure up to `maxMs`. */
  reconnect?: { initialMs?: number; maxMs?: number };
}

/** A running desktop receiver (see {@link createDesktopReceiver}). */
export interface DesktopReceiver {
  readonly state: ReceiverState;
  readonly deviceId: string | null;
  /**
   * Registers the stream device, then keeps the stream open in the background (reconnecting with
   * backoff). Resolves once registered; rejects with ReceiverAuthError (session invalid) or
   * ReceiverApiError / a network error (then nothing keeps running).
   */
  start(): Promise<void>;
  /** Closes the stream; the device stays registered (its deliveries wait for the next start). */
  stop(): Promise<void>;
  /** Stops, deletes the device and ends the session: this desktop no longer receives for the user. */
  unregister(): Promise<void>;
}

/** Remembers the last `size` ids so a notification replayed after a reconnect is not shown twice. */
function recentIds(size: number) {
  const set = new Set<string>();
  return {
    seen(id: string): boolean {
      if (set.has(id)) return true;
      set.add(id);
      if (set.size > size) set.delete(set.values().next().value!);
      return false;
    },
  };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

function parseNotification(data: string): StreamNotification | null {
  try {
    const n = JSON.parse(data) as Partial<StreamNotification>;
    if (typeof n.id !== 'string' || typeof n.title !== 'string') return null;
    return {
      id: n.id,
      title: n.title,
      body: typeof n.body === 'string' ? n.body : '',
      emoji: n.emoji ?? null,
      image: n.image ?? null,
      url: n.url ?? null,
      createdAt: typeof n.createdAt === 'string' ? n.createdAt : '',
    };
  } catch {
    return null;
  }
}

/**
 * Creates the desktop receiver of one receiver session; nothing happens until start(). Each
 * notification is passed to `onNotification` once, even when a reconnect replays it.
 */
export function createDesktopReceiver(options: DesktopReceiverOptions): DesktopReceiver {
  const fetchImpl = options.fetch ?? fetch;
  const initialMs = options.reconnect?.initialMs ?? 1000;
  const maxMs = options.reconnect?.maxMs ?? 30_000;
  const auth = { authorization: `Bearer ${options.token}` };
  const api = (route: string) => new URL(route, options.hubUrl);

  let state: ReceiverState = 'idle';
  let deviceId: string | null = null;
  let lastEventId = options.lastEventId ?? null;
  let controller: AbortController | null = null;
  let loop: Promise<void> | null = null;
  let serverRetryMs: number | null = null;
  const dedupe = recentIds(1000);

  const setState = (next: ReceiverState, detail?: string) => {
    if (state === next && detail === undefined) return;
    state = next;
    options.onState?.(next, detail);
  };

  const register = async (signal?: AbortSignal) => {
    const res = await fetchImpl(api('/api/receiver/devices'), {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: options.deviceName, platform: 'desktop', channel: 'stream', token: options.deviceToken }),
      ...(signal ? { signal } : {}),
    });
    if (!res.ok) throw await apiError(res, 'registering this desktop');
    deviceId = ((await res.json()) as { id: string }).id;
    options.onDevice?.(deviceId);
  };

  /** One stream connection; resolves when it ends. Throws ReceiverAuthError on 401. */
  const streamOnce = async (signal: AbortSignal) => {
    const url = api('/api/receiver/stream');
    url.searchParams.set('deviceId', deviceId!);
    const res = await fetchImpl(url, {
      headers: { ...auth, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      signal,
    });
    if (res.status === 404) {
      // The device was removed (by the operator, or deactivated): register it again.
      await res.body?.cancel();
      await register(signal);
      return false;
    }
    if (!res.ok || !res.body) throw await apiError(res, 'opening the notification stream');
    setState('connected');
    const parser = createSseParser({
      onRetry: (ms) => (serverRetryMs = ms),
      onEvent: (message) => {
        if (message.event !== 'notification') return;
        const n = parseNotification(message.data);
        if (!n) return;
        lastEventId = message.lastEventId || n.id;
        options.onLastEventId?.(lastEventId);
        if (!dedupe.seen(n.id)) options.onNotification(n);
      },
    });
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.push(decoder.decode(value, { stream: true }));
      }
    } finally {
      reader.releaseLock();
    }
    return true;
  };

  const run = async (signal: AbortSignal) => {
    let failures = 0;
    while (!signal.aborted) {
      let connected = false;
      try {
        setState(failures ? 'reconnecting' : 'connecting');
        connected = await streamOnce(signal);
      } catch (err) {
        if (signal.aborted) break;
        if (err instanceof ReceiverAuthError) {
          setState('unauthorized', err.message);
          return;
        }
      }
      if (signal.aborted) break;
      failures = connected ? 1 : failures + 1;
      const base = serverRetryMs ?? initialMs;
      const delay = Math.min(maxMs, base * 2 ** Math.max(0, failures - 1));
      setState('reconnecting', `reconnecting in ${Math.round(delay / 1000)} s`);
      await sleep(delay, signal);
    }
  };

  const receiver: DesktopReceiver = {
    get state() {
      return state;
    },
    get deviceId() {
      return deviceId;
    },
    async start() {
      if (loop) return;
      setState('connecting');
      try {
        await register();
      } catch (err) {
        setState(err instanceof ReceiverAuthError ? 'unauthorized' : 'idle', (err as Error).message);
        throw err;
      }
      controller = new AbortController();
      const signal = controller.signal;
      loop = run(signal);
    },
    async stop() {
      controller?.abort();
      await loop?.catch(() => {});
      loop = null;
      controller = null;
      setState('stopped');
    },
    async unregister() {
      await receiver.stop();
      if (deviceId) {
        const res = await fetchImpl(api(`/api/receiver/devices/${encodeURIComponent(deviceId)}`), { method: 'DELETE', headers: auth });
        if (!res.ok && res.status !== 404 && res.status !== 401) throw await apiError(res, 'removing this desktop');
        await res.body?.cancel();
        deviceId = null;
      }
      const out = await fetchImpl(api('/api/receiver/logout'), { method: 'POST', headers: auth });
      await out.body?.cancel();
    },
  };
  return receiver;
}

/** What a native notification shows for a stream notification, and what a click opens. */
export function notificationContent(n: StreamNotification): { title: string; body: string; url: string | null } {
  let url: string | null = null;
  if (n.url) {
    try {
      const parsed = new URL(n.url);
      if (parsed.protocol === 'http:' || parsed.protocol === 'https:') url = parsed.toString();
    } catch {
      // the hub validates urls; anything else is not opened
    }
  }
  return { title: n.emoji ? `${n.emoji} ${n.title}` : n.title, body: n.body, url };
}

/**
 * Shows at most `max` notifications per `windowMs`; the rest of a burst (a reconnect that replays
 * many missed notifications) becomes one summary at the end of the window.
 */
export function createNotificationBatcher<T>(options: {
  windowMs: number;
  max: number;
  show(item: T): void;
  showSummary(items: T[]): void;
}) {
  let shown = 0;
  let held: T[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    shown = 0;
    const items = held;
    held = [];
    if (items.length === 1) options.show(items[0]!);
    else if (items.length > 1) options.showSummary(items);
  };
  return {
    add(item: T): void {
      if (!timer) timer = setTimeout(flush, options.windowMs);
      if (shown < options.max) {
        shown += 1;
        options.show(item);
      } else {
        held.push(item);
      }
    },
    /** Shows what is held now (e.g. before quitting). */
    flush,
    dispose(): void {
      clearTimeout(timer);
      timer = undefined;
      held = [];
    },
  };
}
