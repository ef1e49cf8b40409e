import type { DispatcherOptions } from './dispatcher.js';
import type { NotificationContent, TransportOptions } from './types.js';
import type { Channel } from '../store/device-store.js';

/** What the dispatcher worker is started with (structured-cloneable). */
export interface DispatcherWorkerData {
  dataDir: string;
  synchronous: 'FULL' | 'NORMAL';
  busyTimeoutMs: number;
  logLevel: string;
  options: DispatcherOptions;
  transport: TransportOptions;
  apnsOrigin?: string | undefined;
  fcmOrigin?: string | undefined;
}

/** Messages from the HTTP process to the dispatcher worker. */
export type ToWorker =
  | { type: 'wake' }
  | { type: 'reload'; channel: Channel; requestId: number }
  | { type: 'stream-result'; requestId: number; delivered: boolean }
  /** Which stream devices have an open stream: the whole set, then each change. */
  | { type: 'stream-devices'; online: string[] }
  | { type: 'stream-device'; deviceId: string; online: boolean }
  | { type: 'stop'; timeoutMs: number };

/** Messages from the dispatcher worker to the HTTP process. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'reloaded'; requestId: number }
  | { type: 'stream'; requestId: number; deviceId: string; notification: NotificationContent }
  | { type: 'outcomes'; items: OutcomeReport[] }
  | { type: 'stopped' };

/** One delivery outcome, reported to the HTTP thread for the metrics. */
export interface OutcomeReport {
  channel: Channel;
  outcome: 'delivered' | 'retry' | 'invalid_token' | 'failed' | 'expired' | 'not_configured';
  latencyMs?: number;
}
