import type { StreamHub } from '../stream-hub.js';
import type { PushSender } from '../types.js';

/** How long a delivery to a `stream` device that is not connected waits before the next try (ms). */
const NOT_CONNECTED_RETRY_MS = 60_000;

/**
 * The live-stream channel: delivers to the open SSE stream of a `stream` device (desktop app,
 * `pushhub listen`). A device that is not connected gets a retry; when it connects again its
 * waiting deliveries are made due at once (see the receiver stream route).
 */
export function createStreamSender(hub: StreamHub): PushSender {
  return {
    channel: 'stream',
    async send(job) {
      return hub.sendToDevice(job.device.id, job.notification)
        ? { kind: 'delivered' }
        : { kind: 'retry', reason: 'receiver not connected', retryAfterMs: NOT_CONNECTED_RETRY_MS };
    },
    async close() {},
  };
}
