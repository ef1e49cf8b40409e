// What the web receiver's service worker does with a Web Push message and a click, as plain
// functions (no service worker globals), so test/unit/sw-logic.test.ts can check them with the
// payloads the hub's sender produces. sw.ts wires them to the `push` and `notificationclick`
// events. Self-contained on purpose: it is also compiled by the Node test setup.

/**
 * The JSON of a Web Push message from the hub (server/delivery/senders/webpush-sender.ts
 * `webPushPayload`): `{id, title, body, emoji, image, url}`; optional fields are null.
 */
export interface PushPayload {
  id: string;
  title: string;
  body: string;
  emoji: string | null;
  image: string | null;
  url: string | null;
}

/** What the notification click needs later, stored in the notification's `data`. */
export interface NotificationData {
  id: string | null;
  /** The notification's url, or null to open the inbox. */
  url: string | null;
}

/** Arguments for `registration.showNotification(title, options)` (W3C Notifications API). */
export interface NotificationSpec {
  title: string;
  /** The notification's emoji, for a service worker that can draw it as a raster icon. */
  emoji: string | null;
  options: {
    body: string;
    /** The emoji as an image (the hub's `/emoji/<code points>.svg`), else the app icon. */
    icon: string;
    /** Small monochrome icon for the Android status bar. */
    badge: string;
    /** Large picture under the text (Chrome on Android and desktop). */
    image?: string;
    /** The notification id: a second delivery of the same notification replaces the first. */
    tag: string;
    /** When the hub accepted it (ms since the epoch), read from the ULID id. */
    timestamp?: number;
    lang?: string;
    data: NotificationData;
  };
}

/** Shown when a push message cannot be read: the browser insists that every push shows something. */
export const FALLBACK_TITLE = 'Pushhub';
export const FALLBACK_BODY = 'You have a new notification. Open the inbox to read it.';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The time (ms since the epoch) in a ULID's first 10 characters, or undefined for another id. */
export function ulidTime(id: string): number | undefined {
  if (!ULID.test(id)) return undefined;
  let ms = 0;
  for (const c of id.slice(0, 10)) ms = ms * 32 + CROCKFORD.indexOf(c);
  return ms;
}

const isHttpUrl = (value: unknown): value is string => {
  if (typeof value !== 'string') return false;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * Reads a push message's data: the JSON object the hub sends, as an object or as its text.
 * Returns null when it is not one (not JSON, or no string `title`).
 */
export function parsePushPayload(raw: unknown): PushPayload | null {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const title = text(v.title);
  if (title === null) return null;
  return {
    id: text(v.id) ?? '',
    title,
    body: typeof v.body === 'string' ? v.body : '',
    emoji: text(v.emoji),
    image: isHttpUrl(v.image) ? v.image : null,
    url: isHttpUrl(v.url) ? v.url : null,
  };
}

/** The title as receivers see it: the emoji in front (spec: "Emoji shown in the title"). */
export function displayTitle(title: string, emoji: string | null): string {
  return emoji ? `${emoji} ${title}` : title;
}

/**
 * The hub's image of an emoji (server/http/routes/emoji.ts): `/emoji/` + its code points in
 * lowercase hex joined by `-` + `.svg`, e.g. `🚪` → `/emoji/1f6aa.svg`.
 */
export function emojiIconPath(emoji: string): string {
  return `/emoji/${[...emoji].map((c) => c.codePointAt(0)!.toString(16)).join('-')}.svg`;
}

/**
 * Turns a push message into the notification to show. `scope` is the service worker's scope
 * (`https://hub.example/receiver/`); icons are resolved against it. A message that cannot be
 * read still shows a notification (FALLBACK_TITLE / FALLBACK_BODY) that opens the inbox.
 */
export function notificationFromPush(raw: unknown, scope: string): NotificationSpec {
  const payload = parsePushPayload(raw);
  const appIcon = new URL('icons/icon-192.png', scope).href;
  const badge = new URL('icons/badge-96.png', scope).href;
  if (!payload) {
    return { title: FALLBACK_TITLE, emoji: null, options: { body: FALLBACK_BODY, icon: appIcon, badge, tag: 'pushhub', data: { id: null, url: null } } };
  }
  const timestamp = ulidTime(payload.id);
  return {
    title: displayTitle(payload.title, payload.emoji),
    emoji: payload.emoji,
    options: {
      body: payload.body,
      icon: payload.emoji ? new URL(emojiIconPath(payload.emoji), scope).href : appIcon,
      badge,
      ...(payload.image ? { image: payload.image } : {}),
      tag: payload.id || 'pushhub',
      ...(timestamp !== undefined ? { timestamp } : {}),
      data: { id: payload.id || null, url: payload.url },
    },
  };
}

/**
 * Where a click on a notification goes: its url when it has one (http or https only), else the
 * inbox (`scope`).
 */
export function clickTarget(data: unknown, scope: string): string {
  const url = typeof data === 'object' && data !== null ? (data as { url?: unknown }).url : undefined;
  return isHttpUrl(url) ? url : scope;
}

/**
 * Which open window to reuse for `target`: one already showing exactly that address, else,
 * for the inbox, any window of the app (it is navigated there). -1 when a new window is needed.
 */
export function windowToReuse(clientUrls: readonly string[], target: string, scope: string): number {
  const exact = clientUrls.indexOf(target);
  if (exact >= 0) return exact;
  if (target !== scope) return -1;
  return clientUrls.findIndex((u) => u.startsWith(scope));
}
