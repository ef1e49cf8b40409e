import type { Channel, Platform } from '../store/device-store.js';

/**
 * The content every channel sends: the stored notification (spec "Notification") without its
 * sender and target. `createdAt` is ms since the epoch.
 */
export interface NotificationContent {
  id: string;
  title: string;
  body: string;
  emoji: string | null;
  image: string | null;
  url: string | null;
  createdAt: number;
}

/** The device a delivery goes to. `token` and `subscription` are secrets: never log them. */
export interface DeliveryTarget {
  id: string;
  userId: string;
  platform: Platform;
  channel: Channel;
  /** APNs device token (hex), FCM registration token, Web Push endpoint; null for stream. */
  token: string | null;
  /** APNs topic (bundle id) registered by the device; null → the configured default topic. */
  topic: string | null;
  /** Web Push subscription `{endpoint, keys:{p256dh, auth}}` (W3C Push API). */
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } } | null;
}

/** One delivery handed to a sender: an outbox row with what it needs to be sent. */
export interface DeliveryJob {
  deliveryId: number;
  /** Attempts made before this one (0 on the first try). */
  attempts: number;
  notification: NotificationContent;
  device: DeliveryTarget;
}

/**
 * What happened to one send (DESIGN.md convention 3). A sender never deletes or deactivates a
 * device itself; the dispatcher acts on the outcome:
 * - `delivered`: the push service accepted it; `providerId` is its id (apns-id, FCM message name, Web Push Location).
 * - `retry`: a temporary failure (429, 5xx, network, timeout); `retryAfterMs` when the service said when (Retry-After).
 * - `invalid_token`: the token or subscription is dead (APNs 410/BadDeviceToken/DeviceTokenNotForTopic,
 *   FCM UNREGISTERED/invalid token, Web Push 404/410): the device is deactivated.
 * - `failed`: anything else that retrying will not fix; `reason` says what.
 */
export type SendOutcome =
  | { kind: 'delivered'; providerId?: string }
  | { kind: 'retry'; reason: string; retryAfterMs?: number }
  | { kind: 'invalid_token'; reason: string }
  | { kind: 'failed'; reason: string };

/** A channel's sender (DESIGN.md "Delivery channels"): `ApnsSender`, `FcmSender`, `WebPushSender`, `StreamSender`. */
export interface PushSender {
  readonly channel: Channel;
  /** Sends one delivery. Resolves with an outcome; never rejects (errors become outcomes). */
  send(job: DeliveryJob): Promise<SendOutcome>;
  /** Releases connections; in-flight sends may be abandoned (they are retried after a restart). */
  close(): Promise<void>;
}

/** How the senders reach the push services (configurable for tests and proxies, issue "Delivery"). */
export interface TransportOptions {
  /** Extra CA certificates (PEM) to trust in addition to the system's (PUSHHUB_EXTRA_CA_FILE). */
  extraCa?: string[];
  /** Milliseconds before a request to a push service is abandoned and retried (default 10 000). */
  requestTimeoutMs?: number;
}
