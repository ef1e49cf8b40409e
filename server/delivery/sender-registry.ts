import type { Logger } from 'pino';
import type { Channel } from '../store/device-store.js';
import type { SettingsStore } from '../store/settings-store.js';
import { createApnsSender, type ApnsSettings } from './senders/apns-sender.js';
import { createFcmSender, type FcmServiceAccount } from './senders/fcm-sender.js';
import { createStreamSender } from './senders/stream-sender.js';
import { createWebPushSender, type VapidKeys } from './senders/webpush-sender.js';
import type { StreamTarget } from './senders/stream-sender.js';
import type { PushSender, TransportOptions } from './types.js';

/** The stored FCM setting: the service account JSON as uploaded. */
export interface FcmSetting {
  serviceAccount: FcmServiceAccount;
}

/** What the HTTP layer may do with the senders: rebuild a channel's sender after its settings changed. */
export interface SenderRegistry {
  reload(channel: Channel): Promise<void>;
}

/**
 * Builds each channel's sender from the stored settings on first use, and again as soon as the
 * operator changes them ({@link reload}). A channel without credentials has no sender, and the
 * dispatcher fails its deliveries with `channel_not_configured`.
 */
export function createSenderRegistry(deps: {
  settings: SettingsStore;
  /** Where stream deliveries go: the open receiver streams (in the HTTP process). */
  streamTarget: StreamTarget;
  transport: TransportOptions;
  apnsOrigin?: string | undefined;
  fcmOrigin?: string | undefined;
  logger: Logger;
}): SenderRegistry & { senderFor(channel: Channel): PushSender | null; close(): Promise<void> } {
  const cache = new Map<Channel, PushSender | null>();

  const build = (channel: Channel): PushSender | null => {
    const logger = deps.logger.child({ component: `sender-${channel}` });
    const transport = deps.transport;
    switch (channel) {
      case 'stream':
        return createStreamSender(deps.streamTarget);
      case 'apns': {
        const settings = deps.settings.get<ApnsSettings>('apns');
        return settings ? createApnsSender({ settings, transport, logger, ...(deps.apnsOrigin ? { origin: deps.apnsOrigin } : {}) }) : null;
      }
      case 'fcm': {
        const setting = deps.settings.get<FcmSetting>('fcm');
        return setting
          ? createFcmSender({ serviceAccount: setting.serviceAccount, transport, logger, ...(deps.fcmOrigin ? { origin: deps.fcmOrigin } : {}) })
          : null;
      }
      case 'webpush': {
        const vapid = deps.settings.get<VapidKeys>('webpush');
        return vapid ? createWebPushSender({ vapid, transport, logger }) : null;
      }
    }
  };

  const registry = {
    senderFor(channel: Channel): PushSender | null {
      if (!cache.has(channel)) {
        try {
          cache.set(channel, build(channel));
        } catch (err) {
          deps.logger.error({ err, channel }, 'could not build the sender from the stored settings');
          cache.set(channel, null);
        }
      }
      return cache.get(channel) ?? null;
    },
    /**
     * Replaces the channel's sender with one built from the new settings, right away: building
     * (a TLS context with the system roots, key parsing) takes tens of ms, better spent when
     * the operator saves than on the first delivery.
     */
    async reload(channel: Channel): Promise<void> {
      const old = cache.get(channel);
      cache.delete(channel);
      registry.senderFor(channel);
      await old?.close();
    },
    async close(): Promise<void> {
      const all = [...cache.values()];
      cache.clear();
      await Promise.allSettled(all.map((s) => s?.close()));
    },
  };
  return registry;
}
