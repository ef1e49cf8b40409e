// The receiver API (README "Receiver API") as the web receiver uses it: same origin, the
// receiver token as `Authorization: Bearer` (and `?token=` for EventSource, which cannot set
// headers). Errors are the console's ApiError, so the shared error and empty states read them.

import { ApiError } from '../console/api';

export { ApiError, errorMessage } from '../console/api';

/** A notification as the receiver API sends it (history and the live stream). */
export interface ReceivedNotification {
  id: string;
  title: string;
  body: string;
  emoji: string | null;
  image: string | null;
  url: string | null;
  createdAt: string;
}

export type Platform = 'ios' | 'ipados' | 'watchos' | 'android' | 'wearos' | 'web' | 'desktop';
export type Channel = 'apns' | 'fcm' | 'webpush' | 'stream';

/** One of the account's devices (`GET /api/receiver/me`). */
export interface Device {
  id: string;
  name: string;
  platform: Platform;
  channel: Channel;
  createdAt: string;
  lastSuccessAt: string | null;
  deactivated: boolean;
  deactivatedReason: string | null;
}

/** The answer of sign-in and of pairing: the account's User Key and a session for this device. */
export interface SignInAnswer {
  userKey: string;
  token: string;
  user: { id: string; name: string };
}

export interface Me {
  userKey: string;
  name: string;
  username: string;
  devices: Device[];
}

/** A browser's `PushSubscription.toJSON()`. */
export interface PushSubscriptionJson {
  endpoint?: string;
  expirationTime?: number | null;
  keys?: Record<string, string>;
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Calls `listener` when the hub answers 401 to a signed-in request: the session ended. */
export function onSessionEnded(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/**
 * One JSON request to the receiver API. Resolves with the body (undefined for 204).
 * @throws ApiError for any non-2xx answer; TypeError when the hub cannot be reached.
 */
async function request<T>(method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(`/api/receiver${path}`, {
    method,
    headers: {
      accept: 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: options.body === undefined ? null : JSON.stringify(options.body),
    cache: 'no-store',
    credentials: 'omit',
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const error = (json as { error?: { code?: string; message?: string; field?: string } } | undefined)?.error;
    const retry = Number(res.headers.get('retry-after'));
    if (res.status === 401 && options.token) unauthorizedListeners.forEach((l) => l());
    throw new ApiError(
      res.status,
      error?.code ?? `http_${res.status}`,
      error?.message ?? `The hub answered ${res.status} ${res.statusText}`.trim(),
      error?.field,
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
    );
  }
  return json as T;
}

/** The receiver API, one function per operation. */
export const receiverApi = {
  login: (username: string, password: string) => request<SignInAnswer>('POST', '/login', { body: { username, password } }),
  pair: (pairingToken: string) => request<SignInAnswer>('POST', '/pair', { body: { token: pairingToken } }),
  logout: (token: string) => request<void>('POST', '/logout', { token }),
  me: (token: string) => request<Me>('GET', '/me', { token }),
  notifications: (token: string, page: { before?: string; limit?: number } = {}) => {
    const q = new URLSearchParams({ limit: String(page.limit ?? 30), ...(page.before ? { before: page.before } : {}) });
    return request<{ items: ReceivedNotification[]; next: string | null }>('GET', `/notifications?${q}`, { token });
  },
  webPushKey: (token: string) => request<{ publicKey: string }>('GET', '/webpush-key', { token }),
  registerWebPush: (token: string, name: string, subscription: PushSubscriptionJson) =>
    request<{ id: string }>('POST', '/devices', { token, body: { name, platform: 'web', channel: 'webpush', subscription } }),
  removeDevice: (token: string, id: string) => request<void>('DELETE', `/devices/${encodeURIComponent(id)}`, { token }),
};

/**
 * The live stream's address for EventSource (`?token=`, and `lastEventId` when reopening by
 * hand: EventSource sends `Last-Event-ID` itself only on its own reconnects).
 */
export function streamUrl(token: string, lastEventId?: string): string {
  const q = new URLSearchParams({ token, ...(lastEventId ? { lastEventId } : {}) });
  return `/api/receiver/stream?${q}`;
}
