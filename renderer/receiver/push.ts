// Web Push on this device (W3C Push API, RFC 8030/8292): the service worker at /receiver/sw.js
// shows the notifications; the subscription is made with the hub's VAPID key and registered as a
// `webpush` device of the account (POST /api/receiver/devices).

import { receiverApi, type PushSubscriptionJson } from './api';
import { loadDevicePrefs, saveDevicePrefs, type Session } from './session';

/** The service worker's address and scope (served by the hub, see server/http/routes/console.ts). */
export const SERVICE_WORKER_URL = '/receiver/sw.js';
export const SCOPE = '/receiver/';

/**
 * Whether this browser can get push notifications here, and if not, why:
 * - `insecure`: service workers need https (or localhost); a hub on http://192.168.x.y is not one;
 * - `ios-home-screen`: Safari on iPhone and iPad offers push only to apps added to the Home Screen;
 * - `unsupported`: no Push API at all.
 */
export type PushSupport = 'supported' | 'insecure' | 'ios-home-screen' | 'unsupported';

export function pushSupport(): PushSupport {
  if (!window.isSecureContext) return 'insecure';
  const ios = /iPhone|iPad|iPod/.test(navigator.userAgent) || (/Macintosh/.test(navigator.userAgent) && navigator.maxTouchPoints > 1);
  const hasPush = 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
  if (!hasPush) return ios && !isStandalone() ? 'ios-home-screen' : 'unsupported';
  return 'supported';
}

/** True when running as an installed app (Home Screen, desktop install). */
export function isStandalone(): boolean {
  return window.matchMedia('(display-mode: standalone)').matches || (navigator as { standalone?: boolean }).standalone === true;
}

/** The notification permission: `default` (not asked yet), `granted` or `denied`; null without the API. */
export function notificationPermission(): NotificationPermission | null {
  return 'Notification' in window ? Notification.permission : null;
}

/** Registers the service worker (once per page load); resolves with its registration, or null where unavailable. */
export function registerServiceWorker(): Promise<ServiceWorkerRegistration | null> {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return Promise.resolve(null);
  // In development (vite) the worker is the TypeScript module itself.
  const url = import.meta.env.DEV ? '/receiver/sw.ts' : SERVICE_WORKER_URL;
  return navigator.serviceWorker
    .register(url, { scope: SCOPE, ...(import.meta.env.DEV ? { type: 'module' as const } : {}) })
    .catch(() => null);
}

/** base64url (VAPID public key) → bytes for `applicationServerKey`. */
export function base64UrlToBytes(value: string): Uint8Array<ArrayBuffer> {
  const b64 = value.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (value.length % 4)) % 4);
  const raw = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

const sameKey = (a: ArrayBuffer | null | undefined, b: Uint8Array) => {
  if (!a) return false;
  const x = new Uint8Array(a);
  return x.length === b.length && x.every((v, i) => v === b[i]);
};

/** Thrown with a message for people when push cannot be turned on. */
export class PushError extends Error {
  override readonly name = 'PushError';
}

/**
 * Turns push on for this device: asks for permission, subscribes with the hub's VAPID key
 * (renewing a subscription made with another key) and registers it as this device. Resolves with
 * the device id.
 * @throws PushError when permission is refused or the browser's push service cannot be reached;
 *   ApiError when the hub refuses the subscription.
 */
export async function enablePush(session: Session, deviceName: string): Promise<string> {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') {
    throw new PushError(
      permission === 'denied'
        ? 'Notifications are blocked for this site. Allow them in the browser’s site settings, then try again.'
        : 'Notifications were not allowed. Try again and choose Allow.',
    );
  }
  const registration = (await registerServiceWorker()) ?? (await navigator.serviceWorker.getRegistration(SCOPE));
  if (!registration) throw new PushError('The service worker could not be installed, so this browser cannot receive push notifications here.');
  const { publicKey } = await receiverApi.webPushKey(session.token);
  const key = base64UrlToBytes(publicKey);

  let subscription = await registration.pushManager.getSubscription();
  if (subscription && !sameKey(subscription.options.applicationServerKey, key)) {
    await subscription.unsubscribe().catch(() => false);
    subscription = null;
  }
  if (!subscription) {
    try {
      subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    } catch (err) {
      throw new PushError(
        `The browser’s push service could not be reached (${(err as Error).message || (err as Error).name}). Check the connection and try again.`,
      );
    }
  }
  const json = subscription.toJSON() as PushSubscriptionJson;
  const { id } = await receiverApi.registerWebPush(session.token, deviceName, json);
  saveDevicePrefs({ ...loadDevicePrefs(), name: deviceName, pushDeviceId: id, ...(json.endpoint ? { pushEndpoint: json.endpoint } : {}) });
  return id;
}

/**
 * Turns push off for this device: removes the device from the account (best effort: it may be
 * gone already) and drops the browser's subscription.
 */
export async function disablePush(session: Session): Promise<void> {
  const prefs = loadDevicePrefs();
  if (prefs.pushDeviceId) await receiverApi.removeDevice(session.token, prefs.pushDeviceId).catch(() => undefined);
  const registration = 'serviceWorker' in navigator ? await navigator.serviceWorker.getRegistration(SCOPE) : undefined;
  const subscription = await registration?.pushManager.getSubscription().catch(() => null);
  await subscription?.unsubscribe().catch(() => false);
  saveDevicePrefs({ name: prefs.name });
}

/**
 * Keeps the registered subscription current: when the browser renewed it (a new endpoint), the
 * new one is registered under the same name. Does nothing when push is off here.
 */
export async function syncPush(session: Session): Promise<void> {
  const prefs = loadDevicePrefs();
  if (!prefs.pushDeviceId || notificationPermission() !== 'granted' || !('serviceWorker' in navigator)) return;
  const registration = await navigator.serviceWorker.getRegistration(SCOPE);
  const subscription = await registration?.pushManager.getSubscription();
  if (!subscription) return;
  const json = subscription.toJSON() as PushSubscriptionJson;
  if (!json.endpoint || json.endpoint === prefs.pushEndpoint) return;
  const { id } = await receiverApi.registerWebPush(session.token, prefs.name, json);
  saveDevicePrefs({ ...prefs, pushDeviceId: id, pushEndpoint: json.endpoint });
}
