// The admin API as the console uses it: same origin, session cookie (HttpOnly, set by the hub
// at sign-in). Nothing secret is ever written to browser storage.

/** An error answer of the hub: `{"error":{"code","message","field"?}}` with its status. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Calls `listener` whenever the hub answers 401 to a signed-in request (the session ended). */
export function onUnauthorized(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** A readable message for any error thrown by {@link request}. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof TypeError) return 'The hub cannot be reached. Is it running?';
  return err instanceof Error ? err.message : String(err);
}

/**
 * One JSON request to the hub. Resolves with the parsed body (undefined for 204).
 * @throws ApiError for any non-2xx answer; TypeError when the hub cannot be reached.
 */
export async function request<T>(method: string, path: string, body?: unknown, options: { quiet401?: boolean } = {}): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
    cache: 'no-store',
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
    if (res.status === 401 && !options.quiet401) unauthorizedListeners.forEach((l) => l());
    throw new ApiError(
      res.status,
      error?.code ?? 'http_' + res.status,
      error?.message ?? `The hub answered ${res.status} ${res.statusText}`.trim(),
      error?.field,
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
    );
  }
  return json as T;
}

export interface App {
  id: string;
  name: string;
  keyPrefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}
export interface CreatedApp extends App {
  apiKey: string;
}
export interface User {
  id: string;
  name: string;
  username: string;
  userKey: string;
  createdAt: string;
}
export type Platform = 'ios' | 'ipados' | 'watchos' | 'android' | 'wearos' | 'web' | 'desktop';
export type Channel = 'apns' | 'fcm' | 'webpush' | 'stream';
export interface Device {
  id: string;
  name: string;
  platform: Platform;
  channel: Channel;
  topic: string | null;
  createdAt: string;
  lastSuccessAt: string | null;
  deactivated: boolean;
  deactivatedAt: string | null;
  deactivatedReason: string | null;
}
export interface UserDetail extends User {
  devices: Device[];
}
export interface Group {
  id: string;
  name: string;
  groupKey: string;
  userIds: string[];
  createdAt: string;
}
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'expired';
export interface DeliverySummary {
  total: number;
  pending: number;
  delivered: number;
  failed: number;
  expired: number;
}
export interface Notification {
  id: string;
  app: { id: string | null; name: string };
  target: { userId: string | null; groupId: string | null; label: string };
  title: string;
  body: string;
  emoji: string | null;
  image: string | null;
  url: string | null;
  createdAt: string;
  recipients: number;
  summary: DeliverySummary;
}
export interface Delivery {
  id: number;
  deviceId: string;
  deviceName: string | null;
  userId: string | null;
  channel: Channel;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  providerId: string | null;
  lastError: string | null;
  updatedAt: string;
}
export interface NotificationDetail extends Notification {
  deliveries: Delivery[];
}
export interface Page<T> {
  items: T[];
  next: string | null;
}
export interface DayStats {
  date: string;
  notifications: number;
  deliveries: number;
  delivered: number;
  failed: number;
  expired: number;
  pending: number;
  successRate: number | null;
}
export interface Stats {
  apps: number;
  users: number;
  groups: number;
  devices: { total: number; active: number; byPlatform: Record<Platform, { total: number; active: number }>; byChannel: Partial<Record<Channel, number>> };
  notifications: { total: number; last24h: number };
  deliveries: { pending: number; delivered: number; failed: number; expired: number; successRate: number | null };
  days: DayStats[];
}
export interface Bucket {
  burst: number;
  refill: number;
  intervalMs: number;
}
export interface ConsoleInfo {
  publicUrl: string | null;
  listen: { host: string; port: number };
  dataDir: string;
  limits: {
    bodyBytes: number;
    titleChars: number;
    notificationBodyBytes: number;
    urlChars: number;
    perApp: Bucket;
    authFailures: Bucket;
  };
  delivery: { maxAgeMs: number; baseBackoffMs: number; maxBackoffMs: number };
  retention: { notificationsMaxAgeMs: number | null };
}
export interface ApnsSettings {
  configured: boolean;
  teamId: string | null;
  keyId: string | null;
  defaultTopic: string | null;
  environment: 'production' | 'sandbox' | null;
  privateKeySet: boolean;
}
export interface FcmSettings {
  configured: boolean;
  projectId: string | null;
  clientEmail: string | null;
}
export interface WebPushSettings {
  configured: boolean;
  publicKey: string | null;
  subject: string | null;
}
export interface TestPushInput {
  userKey?: string;
  userGroupKey?: string;
  title: string;
  body: string;
  emoji?: string;
  image?: string;
  url?: string;
}

const enc = encodeURIComponent;

/** The admin API, one function per operation (README "Admin API"). */
export const api = {
  status: () => request<{ setupRequired: boolean; signedIn: boolean }>('GET', '/api/console/status'),
  me: () => request<{ adminId: string }>('GET', '/api/auth/me', undefined, { quiet401: true }),
  setup: (token: string, username: string, password: string) => request<{ username: string }>('POST', '/api/setup', { token, username, password }),
  // The answer's token is the cookie's value; the console relies on the HttpOnly cookie only.
  login: async (username: string, password: string) => {
    await request<unknown>('POST', '/api/auth/login', { username, password }, { quiet401: true });
  },
  logout: () => request<void>('POST', '/api/auth/logout', undefined, { quiet401: true }),
  info: () => request<ConsoleInfo>('GET', '/api/console/info'),
  stats: (days: number) => request<Stats>('GET', `/api/stats?days=${days}&tzOffset=${new Date().getTimezoneOffset()}`),

  apps: () => request<App[]>('GET', '/api/apps'),
  createApp: (name: string) => request<CreatedApp>('POST', '/api/apps', { name }),
  rotateKey: (id: string) => request<{ apiKey: string }>('POST', `/api/apps/${enc(id)}/rotate-key`),
  deleteApp: (id: string) => request<void>('DELETE', `/api/apps/${enc(id)}`),
  testPush: (appId: string, input: TestPushInput) =>
    request<{ id: string; deliveries: number }>('POST', `/api/apps/${enc(appId)}/test-push`, input),

  users: () => request<User[]>('GET', '/api/users'),
  user: (id: string) => request<UserDetail>('GET', `/api/users/${enc(id)}`),
  createUser: (input: { name: string; username: string; password: string }) => request<User>('POST', '/api/users', input),
  updateUser: (id: string, changes: { name?: string; password?: string }) => request<User>('PATCH', `/api/users/${enc(id)}`, changes),
  deleteUser: (id: string) => request<void>('DELETE', `/api/users/${enc(id)}`),
  removeDevice: (userId: string, deviceId: string) => request<void>('DELETE', `/api/users/${enc(userId)}/devices/${enc(deviceId)}`),

  groups: () => request<Group[]>('GET', '/api/groups'),
  group: (id: string) => request<Group>('GET', `/api/groups/${enc(id)}`),
  createGroup: (name: string, userIds: string[]) => request<Group>('POST', '/api/groups', { name, userIds }),
  setMembers: (id: string, userIds: string[]) => request<Group>('PUT', `/api/groups/${enc(id)}/members`, { userIds }),
  deleteGroup: (id: string) => request<void>('DELETE', `/api/groups/${enc(id)}`),

  notifications: (q: { limit?: number; before?: string | null; appId?: string; userId?: string }) => {
    const params = new URLSearchParams();
    params.set('limit', String(q.limit ?? 50));
    if (q.before) params.set('before', q.before);
    if (q.appId) params.set('appId', q.appId);
    if (q.userId) params.set('userId', q.userId);
    return request<Page<Notification>>('GET', `/api/notifications?${params}`);
  },
  notification: (id: string) => request<NotificationDetail>('GET', `/api/notifications/${enc(id)}`),

  apns: () => request<ApnsSettings>('GET', '/api/settings/apns'),
  saveApns: (input: { teamId: string; keyId: string; defaultTopic: string; environment: string; privateKey?: string }) =>
    request<ApnsSettings>('PUT', '/api/settings/apns', input),
  deleteApns: () => request<void>('DELETE', '/api/settings/apns'),
  fcm: () => request<FcmSettings>('GET', '/api/settings/fcm'),
  saveFcm: (serviceAccount: unknown) => request<FcmSettings>('PUT', '/api/settings/fcm', { serviceAccount }),
  deleteFcm: () => request<void>('DELETE', '/api/settings/fcm'),
  webpush: () => request<WebPushSettings>('GET', '/api/settings/webpush'),
  saveWebpush: (subject: string) => request<WebPushSettings>('PUT', '/api/settings/webpush', { subject }),
  changePassword: (currentPassword: string, newPassword: string) =>
    request<void>('POST', '/api/auth/password', { ...(currentPassword ? { currentPassword } : {}), newPassword }),
};
