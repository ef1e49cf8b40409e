import type { NotificationContent, PushSender } from '../types.js';

/** Something that can hand a notification to a device's open stream: the stream hub, or a bridge to it. */
export interface StreamTarget {
  /** True when the device had an open stream and the notification was written to it. */
  sendToDevice(deviceId: string, n: NotificationContent): boolean | Promise<boolean>;
}

/** How long a delivery to a `stream` device that is not connected waits before the next try (ms). */
export const NOT_CONNECTED_RETRY_MS = 60_000;

/** The `last_error` of a delivery waiting for its `stream` device to connect. */
export const NOT_CONNECTED_REASON = 'receiver not connected';

/**
 * The live-stream channel: delivers to the open SSE stream of a `stream` device (desktop app,
 * `pushhub listen`). A device that is not connected gets a retry; when it connects again its
 * waiting deliveries are made due at once (see the receiver stream route).
 */
export function createStreamSender(target: StreamTarget): PushSender {
  return {
    channel: 'stream',
    async send(job) {
      return (await target.sendToDevice(job.device.id, job.notification))
        ? { kind: 'delivered' }
        : { kind: 'retry', reason: NOT_CONNECTED_REASON, retryAfterMs: NOT_CONNECTED_RETRY_MS };
    },
    async close() {},
  };
}
