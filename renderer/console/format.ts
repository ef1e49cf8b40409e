import type { DeliverySummary, Notification, Platform, Channel, DeliveryStatus } from './api';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const number = new Intl.NumberFormat();

/** "21 Nov 2026, 14:05". */
export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));
/** "14:05:09". */
export const formatTime = (iso: string) => timeOnly.format(new Date(iso));
export const formatNumber = (n: number) => number.format(n);

/** "just now", "5 minutes ago", "yesterday", then the date. */
export function formatRelative(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour');
  if (abs < 7 * 86_400) return relative.format(Math.round(seconds / 86_400), 'day');
  return formatDateTime(iso);
}

/** "250 ms", "10 s", "24 h". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 172_800_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} days`;
}

/** "16 KiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  return `${Math.round(n / 1024)} KiB`;
}

export function formatPercent(rate: number | null): string {
  return rate === null ? '—' : `${Math.round(rate * 1000) / 10}%`;
}

/** "3/4 delivered, 1 failed"; "no devices" when nobody had one. */
export function summaryText(s: DeliverySummary): string {
  if (s.total === 0) return 'No devices';
  const parts = [`${s.delivered}/${s.total} delivered`];
  if (s.failed) parts.push(`${s.failed} failed`);
  if (s.expired) parts.push(`${s.expired} expired`);
  if (s.pending) parts.push(`${s.pending} pending`);
  return parts.join(', ');
}

/** The one status a notification is filtered by. */
export type NotificationStatus = 'delivered' | 'pending' | 'failed' | 'no-devices';

export function notificationStatus(n: Pick<Notification, 'summary'>): NotificationStatus {
  const s = n.summary;
  if (s.total === 0) return 'no-devices';
  if (s.failed + s.expired > 0) return 'failed';
  if (s.pending > 0) return 'pending';
  return 'delivered';
}

export const platformNames: Record<Platform, string> = {
  ios: 'iOS',
  ipados: 'iPadOS',
  watchos: 'watchOS',
  android: 'Android',
  wearos: 'Wear OS',
  web: 'Web',
  desktop: 'Desktop',
};

export const channelNames: Record<Channel, string> = {
  apns: 'APNs',
  fcm: 'FCM',
  webpush: 'Web Push',
  stream: 'Live stream',
};

export const statusNames: Record<DeliveryStatus, string> = {
  pending: 'Pending',
  delivered: 'Delivered',
  failed: 'Failed',
  expired: 'Expired',
};

/** The title as receivers see it: the emoji in front. */
export const displayTitle = (n: { emoji: string | null; title: string }) => (n.emoji ? `${n.emoji} ${n.title}` : n.title);
