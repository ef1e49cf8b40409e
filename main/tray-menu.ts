import type { HubState } from './server-host.js';

/** What a tray item does when clicked; main.ts maps each to Electron calls. */
export type TrayAction =
  | { kind: 'open-console' }
  | { kind: 'open-receiver' }
  | { kind: 'copy-push-url' }
  | { kind: 'toggle-start-at-login' }
  | { kind: 'open-data-folder' }
  | { kind: 'restart-hub' }
  | { kind: 'choose-receiver'; userId: string | null }
  | { kind: 'quit' };

/** One item of the tray menu, independent of Electron (`MenuItemConstructorOptions` is built from it). */
export interface TrayItem {
  type: 'normal' | 'separator' | 'checkbox' | 'radio' | 'submenu';
  label?: string;
  enabled?: boolean;
  checked?: boolean;
  action?: TrayAction;
  submenu?: TrayItem[];
}

/** The desktop receiver as the tray shows it. */
export interface TrayReceiverInfo {
  /** Receivers of the hub; null when not known (hub not running). */
  users: { id: string; name: string }[] | null;
  /** The receiver whose notifications this desktop shows, or null. */
  selected: { userId: string; name: string } | null;
  /** Connection state of the desktop receiver, for the label. */
  connection: 'off' | 'connecting' | 'connected' | 'reconnecting' | 'unauthorized';
}

/** Everything the tray menu depends on. */
export interface TrayModelInput {
  hub: HubState;
  /** Deliveries waiting in the outbox; null when unknown. */
  pendingDeliveries: number | null;
  startAtLogin: boolean;
  /** False where start-at-login cannot be set (e.g. a Linux build that is not installed). */
  startAtLoginAvailable?: boolean;
  receiver: TrayReceiverInfo;
}

const seconds = (ms: number) => `${Math.max(1, Math.round(ms / 1000))} s`;

/** The one-line status: "Running on port 8780", "Starting…", "Restarting in 4 s", "Stopped: …". */
export function hubStatusLabel(hub: HubState): string {
  switch (hub.state) {
    case 'running':
      return `Running on port ${hub.ready.port}`;
    case 'starting':
      return hub.attempt > 1 ? `Starting (attempt ${hub.attempt})…` : 'Starting…';
    case 'restarting':
      return `Hub crashed, restarting in ${seconds(hub.delayMs)}`;
    case 'failed':
      return `Not running: ${hub.failure.message}`;
    case 'stopping':
      return 'Stopping…';
    case 'stopped':
      return 'Stopped';
  }
}

/** The tray icon's tooltip. */
export function trayTooltip(input: Pick<TrayModelInput, 'hub' | 'pendingDeliveries'>): string {
  const base = `Pushhub: ${hubStatusLabel(input.hub)}`;
  if (input.hub.state !== 'running' || !input.pendingDeliveries) return base;
  return `${base}, ${input.pendingDeliveries} pending`;
}

function pendingLabel(n: number): string {
  if (n === 0) return 'No deliveries pending';
  return n === 1 ? '1 delivery pending' : `${n} deliveries pending`;
}

function receiverItem(info: TrayReceiverInfo, running: boolean): TrayItem {
  const state = info.connection === 'off' || !info.selected ? 'off' : info.connection;
  const suffix =
    state === 'off'
      ? 'off'
      : state === 'connected'
        ? info.selected!.name
        : state === 'unauthorized'
          ? `${info.selected!.name} (signed out)`
          : `${info.selected!.name} (${state}…)`;
  const choices: TrayItem[] = [
    { type: 'radio', label: 'Off', checked: !info.selected, enabled: running, action: { kind: 'choose-receiver', userId: null } },
  ];
  const users = info.users ?? [];
  if (users.length) choices.push({ type: 'separator' });
  for (const u of users) {
    choices.push({
      type: 'radio',
      label: u.name,
      checked: info.selected?.userId === u.id,
      enabled: running,
      action: { kind: 'choose-receiver', userId: u.id },
    });
  }
  if (running && info.users && users.length === 0) {
    choices.push({ type: 'normal', label: 'No receivers yet: add one in the console', enabled: false });
  }
  return { type: 'submenu', label: `Desktop notifications: ${suffix}`, enabled: running || !!info.selected, submenu: choices };
}

/**
 * The tray menu (issue "Desktop app"): status (running / port / deliveries pending), Open console,
 * Open receiver, Copy push URL, desktop notifications (choose a receiver), Start at login,
 * Open data folder, Restart hub, Quit. Items that need the hub are disabled while it is not running.
 */
export function buildTrayMenu(input: TrayModelInput): TrayItem[] {
  const running = input.hub.state === 'running';
  const items: TrayItem[] = [{ type: 'normal', label: `Pushhub: ${hubStatusLabel(input.hub)}`, enabled: false }];
  if (running && input.pendingDeliveries !== null) {
    items.push({ type: 'normal', label: pendingLabel(input.pendingDeliveries), enabled: false });
  }
  items.push(
    { type: 'separator' },
    { type: 'normal', label: 'Open console', enabled: running, action: { kind: 'open-console' } },
    { type: 'normal', label: 'Open receiver', enabled: running, action: { kind: 'open-receiver' } },
    { type: 'normal', label: 'Copy push URL', enabled: running, action: { kind: 'copy-push-url' } },
    { type: 'separator' },
    receiverItem(input.receiver, running),
    {
      type: 'checkbox',
      label: 'Start at login',
      checked: input.startAtLogin,
      enabled: input.startAtLoginAvailable ?? true,
      action: { kind: 'toggle-start-at-login' },
    },
    { type: 'normal', label: 'Open data folder', action: { kind: 'open-data-folder' } },
    {
      type: 'normal',
      label: input.hub.state === 'failed' || input.hub.state === 'stopped' ? 'Start hub' : 'Restart hub',
      enabled: input.hub.state !== 'stopping',
      action: { kind: 'restart-hub' },
    },
    { type: 'separator' },
    { type: 'normal', label: 'Quit Pushhub', action: { kind: 'quit' } },
  );
  return items;
}
