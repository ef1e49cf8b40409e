import { toIso } from '../domain/clock.js';
import type { NotificationContent } from './types.js';

/**
 * The JSON of one `notification` event on the receiver stream and in Web Push payloads:
 * `{id, title, body, emoji, image, url, createdAt}` with createdAt in ISO 8601.
 */
export function notificationEventData(n: NotificationContent) {
  return { id: n.id, title: n.title, body: n.body, emoji: n.emoji, image: n.image, url: n.url, createdAt: toIso(n.createdAt) };
}

/** One open receiver stream (an SSE response). */
export interface StreamConnection {
  userId: string;
  /** Set when a `stream` device (desktop app, `pushhub listen`) opened it: it then gets that device's deliveries. */
  deviceId: string | null;
  /** Writes one `notification` event. */
  send(n: NotificationContent): void;
  /** Ends the stream (the hub is shutting down). */
  close(): void;
}

/** Open receiver streams in this process. */
export type StreamHub = ReturnType<typeof createStreamHub>;

/**
 * Keeps the open receiver streams and routes notifications to them:
 * - a user's plain streams (the web receiver's inbox) get every notification for the user as
 *   soon as it is accepted ({@link publishToUsers});
 * - a device's stream gets that device's deliveries from the outbox ({@link sendToDevice}), so
 *   they are recorded `delivered` like any other channel's.
 */
export function createStreamHub(
  /** Hears when a `stream` device gets its first open stream (true) or loses its last (false). */
  onDevice?: (deviceId: string, online: boolean) => void,
) {
  const byUser = new Map<string, Set<StreamConnection>>();
  const byDevice = new Map<string, Set<StreamConnection>>();
  let onlineJson: string | null = null; // onlineDevicesJson(), until a device comes or goes

  const addTo = <K>(map: Map<K, Set<StreamConnection>>, key: K, c: StreamConnection) => {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(c);
  };
  const removeFrom = <K>(map: Map<K, Set<StreamConnection>>, key: K, c: StreamConnection) => {
    const set = map.get(key);
    set?.delete(c);
    if (set?.size === 0) map.delete(key);
  };

  return {
    /** Registers a connection; returns the function that unregisters it. */
    add(c: StreamConnection): () => void {
      const deviceId = c.deviceId;
      if (!deviceId) {
        addTo(byUser, c.userId, c);
        return () => removeFrom(byUser, c.userId, c);
      }
      const first = !byDevice.has(deviceId);
      addTo(byDevice, deviceId, c);
      if (first) {
        onlineJson = null;
        onDevice?.(deviceId, true);
      }
      return () => {
        removeFrom(byDevice, deviceId, c);
        if (!byDevice.has(deviceId)) {
          onlineJson = null;
          onDevice?.(deviceId, false);
        }
      };
    },
    /** The `stream` devices with an open stream now. */
    onlineDevices(): string[] {
      return [...byDevice.keys()];
    },
    /** {@link onlineDevices} as a JSON array, kept between changes (read on every accepted push). */
    onlineDevicesJson(): string {
      return (onlineJson ??= JSON.stringify([...byDevice.keys()]));
    },
    /** Sends to the plain streams of each user. */
    publishToUsers(userIds: Iterable<string>, n: NotificationContent): void {
      for (const userId of userIds) for (const c of byUser.get(userId) ?? []) c.send(n);
    },
    /** Sends to the device's open streams; false when none is open. */
    sendToDevice(deviceId: string, n: NotificationContent): boolean {
      const set = byDevice.get(deviceId);
      if (!set?.size) return false;
      for (const c of set) c.send(n);
      return true;
    },
    /** Ends every open stream (shutdown: lets the HTTP server close). */
    closeAll(): void {
      for (const map of [byUser, byDevice]) for (const set of map.values()) for (const c of [...set]) c.close();
    },
    /** Number of open connections (for status and tests). */
    size(): number {
      let n = 0;
      for (const s of byUser.values()) n += s.size;
      for (const s of byDevice.values()) n += s.size;
      return n;
    },
  };
}
