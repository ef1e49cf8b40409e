import { createParser } from 'eventsource-parser';

/** A notification as the receiver API sends it (`{id, title, body, emoji, image, url, createdAt}`). */
export interface ReceivedNotification {
  id: string;
  title: string;
  body: string;
  emoji: string | null;
  image: string | null;
  url: string | null;
  createdAt: string;
}

/** Thrown when the hub answers the receiver API with an error; `status` is the HTTP status. */
export class ReceiverApiError extends Error {
  override readonly name = 'ReceiverApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(server: string, route: string, init: RequestInit & { token?: string } = {}): Promise<T> {
  const { token, ...rest } = init;
  const res = await fetch(new URL(route, server), {
    ...rest,
    headers: {
      ...(rest.body ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
  });
  const text = await res.text();
  if (!res.ok) {
    let message = text.slice(0, 200);
    try {
      message = (JSON.parse(text) as { error: { message: string } }).error.message;
    } catch {
      // not JSON: keep the text
    }
    throw new ReceiverApiError(res.status, `${res.status}: ${message}`);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * A client of the hub's receiver API (issue "Delivery" / "Receiver API") for programs that
 * receive on a `stream` device: `pushhub listen` and the desktop app.
 */
export function createReceiverClient(server: string) {
  return {
    /** `POST /api/receiver/login` → the account's User Key and a receiver session token. */
    login(username: string, password: string) {
      return call<{ userKey: string; token: string; user: { id: string; name: string } }>(server, '/api/receiver/login', {
        method: 'POST',
        body: JSON.stringify({ username, password }),
      });
    },

    /**
     * Registers (or, with the same `clientId`, re-registers) a `stream` device and returns its id.
     * `clientId` is a stable name for this installation, so restarts do not add devices.
     */
    async registerStreamDevice(token: string, name: string, clientId: string, platform: 'desktop' | 'web' = 'desktop') {
      const { id } = await call<{ id: string }>(server, '/api/receiver/devices', {
        method: 'POST',
        token,
        body: JSON.stringify({ name, platform, channel: 'stream', token: clientId }),
      });
      return id;
    },

    /**
     * Follows `GET /api/receiver/stream?deviceId=…` (Server-Sent Events) until `signal` aborts,
     * calling `onNotification` for each event. It reconnects after a dropped connection, sending
     * the last id it saw as `Last-Event-ID` so nothing is missed, waiting `retryMs` (default 3 s)
     * between attempts; `onStatus` hears about connects and drops. A 401 ends it with an error.
     */
    async follow(options: {
      token: string;
      deviceId?: string;
      signal: AbortSignal;
      onNotification: (n: ReceivedNotification) => void;
      onStatus?: (status: 'connected' | 'disconnected', detail?: string) => void;
      lastEventId?: string;
      retryMs?: number;
    }): Promise<void> {
      let lastEventId = options.lastEventId;
      const retryMs = options.retryMs ?? 3000;
      const url = new URL('/api/receiver/stream', server);
      if (options.deviceId) url.searchParams.set('deviceId', options.deviceId);
      while (!options.signal.aborted) {
        try {
          const res = await fetch(url, {
            headers: {
              authorization: `Bearer ${options.token}`,
              accept: 'text/event-stream',
              ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
            },
            signal: options.signal,
          });
          if (res.status === 401) throw new ReceiverApiError(401, '401: the receiver session is no longer valid; sign in again');
          if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
          options.onStatus?.('connected');
          const parser = createParser({
            onEvent: (event) => {
              if (event.event !== 'notification') return;
              if (event.id) lastEventId = event.id;
              options.onNotification(JSON.parse(event.data) as ReceivedNotification);
            },
          });
          const decoder = new TextDecoder();
          for await (const chunk of res.body) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
          options.onStatus?.('disconnected', 'the hub closed the stream');
        } catch (err) {
          if (options.signal.aborted) return;
          if (err instanceof ReceiverApiError) throw err;
          options.onStatus?.('disconnected', (err as Error).message);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, retryMs);
          options.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
        });
      }
    },
  };
}
