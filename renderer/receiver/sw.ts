// The web receiver's service worker, served unhashed at /receiver/sw.js with scope /receiver/
// (vite.config.ts, server/http/routes/console.ts). It shows Web Push messages as notifications
// and opens their url (or the inbox) on click; the decisions are in sw-logic.ts. It also keeps
// a copy of the app's page and scripts, so the installed app opens without a connection.
//
// Built as a single classic script (it imports only sw-logic.ts, which nothing else imports).

import { clickTarget, notificationFromPush, windowToReuse, type NotificationSpec } from './sw-logic';

// The few service worker globals used here (W3C Service Workers, Push API, Notifications API),
// typed locally: the renderer's TypeScript setup uses the DOM library, not the WebWorker one.
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface PushEvent extends ExtendableEvent {
  readonly data: { json(): unknown; text(): string } | null;
}
interface NotificationEvent extends ExtendableEvent {
  readonly notification: Notification;
}
interface FetchEvent extends ExtendableEvent {
  readonly request: Request;
  respondWith(response: Response | Promise<Response>): void;
}
interface WindowClient {
  readonly url: string;
  focus(): Promise<WindowClient>;
  navigate(url: string): Promise<WindowClient | null>;
}
interface ServiceWorkerScope {
  readonly registration: ServiceWorkerRegistration;
  readonly clients: {
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<readonly WindowClient[]>;
    openWindow(url: string): Promise<WindowClient | null>;
    claim(): Promise<void>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'push', listener: (event: PushEvent) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: NotificationEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
}

const sw = globalThis as unknown as ServiceWorkerScope;
const scope = sw.registration.scope;
const SHELL_CACHE = 'pushhub-receiver-shell';

sw.addEventListener('install', (event) => {
  event.waitUntil(refreshShell().catch(() => {}).then(() => sw.skipWaiting()));
});
sw.addEventListener('activate', (event) => {
  event.waitUntil(sw.clients.claim());
});

sw.addEventListener('push', (event) => {
  let raw: unknown = null;
  try {
    raw = event.data?.json() ?? null;
  } catch {
    raw = event.data?.text() ?? null;
  }
  const spec = notificationFromPush(raw, scope);
  event.waitUntil(show(spec));
});

sw.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = clickTarget(event.notification.data, scope);
  event.waitUntil(
    sw.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(async (windows) => {
      const i = windowToReuse(
        windows.map((w) => w.url),
        target,
        scope,
      );
      const existing = i >= 0 ? windows[i] : undefined;
      if (!existing) return void (await sw.clients.openWindow(target));
      const focused = await existing.focus();
      if (focused.url !== target && target === scope) await focused.navigate(target).catch(() => null);
    }),
  );
});

/** Shows the notification with the emoji drawn as a PNG icon where the browser can draw one. */
async function show(spec: NotificationSpec): Promise<void> {
  // Chrome decodes only raster images for notification icons; the hub's SVG is the fallback.
  const png = spec.emoji ? await emojiPng(spec.emoji).catch(() => null) : null;
  const options = { ...spec.options, ...(png ? { icon: png } : {}) };
  await sw.registration.showNotification(spec.title, options as NotificationOptions);
}

/** The emoji drawn on a 192×192 transparent PNG, as a data: URL; null where it cannot be drawn. */
async function emojiPng(emoji: string): Promise<string | null> {
  if (typeof OffscreenCanvas === 'undefined') return null;
  const size = 192;
  const canvas = new OffscreenCanvas(size, size);
  const ctx = canvas.getContext('2d');
  if (!ctx) return null;
  ctx.font = `${Math.round(size * 0.78)}px "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji", sans-serif`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(emoji, size / 2, size * 0.54);
  // Nothing drawn (no emoji font): let the hub's image try.
  const pixels = ctx.getImageData(0, 0, size, size).data;
  let painted = false;
  for (let i = 3; i < pixels.length && !painted; i += 4 * 7) painted = pixels[i]! > 0;
  if (!painted) return null;
  const bytes = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:image/png;base64,${btoa(binary)}`;
}

// ---- The app shell, for opening without a connection ----

const isAsset = (url: URL) => url.origin === location.origin && url.pathname.startsWith('/assets/');
const isPage = (request: Request, url: URL) =>
  request.mode === 'navigate' && url.origin === location.origin && url.href.startsWith(scope);

sw.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (isPage(request, url)) {
    // Network first: a new build shows at once; the copy is for when the hub cannot be reached.
    event.respondWith(
      fetch(request).catch(async () => (await caches.match(scope, { cacheName: SHELL_CACHE })) ?? Response.error()),
    );
    event.waitUntil(refreshShell().catch(() => {}));
  } else if (isAsset(url)) {
    // Content-hashed: a copy never goes stale.
    event.respondWith(caches.match(request, { cacheName: SHELL_CACHE }).then((hit) => hit ?? fetch(request)));
  }
});

/** Copies the app's page and the scripts and styles it names; drops copies of older builds. */
async function refreshShell(): Promise<void> {
  const page = await fetch(scope, { cache: 'no-cache' });
  if (!page.ok) return;
  const html = await page.clone().text();
  const assets = [...new Set(html.match(/\/assets\/[^"'\s>]+/g) ?? [])].map((p) => new URL(p, scope).href);
  const cache = await caches.open(SHELL_CACHE);
  await cache.put(scope, page);
  const have = new Set((await cache.keys()).map((r) => r.url));
  await Promise.all(assets.filter((a) => !have.has(a)).map((a) => cache.add(a)));
  for (const url of have) if (url !== scope && !assets.includes(url)) await cache.delete(url);
}
