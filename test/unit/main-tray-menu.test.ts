import { describe, expect, it } from 'vitest';
import type { HubState } from '../../main/server-host.js';
import { buildTrayMenu, hubStatusLabel, trayTooltip, type TrayItem, type TrayModelInput } from '../../main/tray-menu.js';

// The tray menu model (main/tray-menu.ts): what the tray shows in each state of the hub.

const running: HubState = {
  state: 'running',
  ready: { url: 'http://127.0.0.1:8780', port: 8780, dataDir: '/data', publicUrl: null },
  since: 0,
};

const input = (over: Partial<TrayModelInput> = {}): TrayModelInput => ({
  hub: running,
  pendingDeliveries: 2,
  startAtLogin: false,
  receiver: { users: [{ id: 'u1', name: 'Alice' }, { id: 'u2', name: 'Bob' }], selected: null, connection: 'off' },
  ...over,
});

const labels = (items: TrayItem[]) => items.map((i) => (i.type === 'separator' ? '---' : i.label));
const find = (items: TrayItem[], label: string) => {
  const item = items.find((i) => i.label === label || i.label?.startsWith(label));
  if (!item) throw new Error(`no item ${label} in ${labels(items).join(', ')}`);
  return item;
};

describe('tray menu', () => {
  it('while running: status with the port and pending deliveries, every action enabled', () => {
    const items = buildTrayMenu(input());
    expect(labels(items)).toEqual([
      'Pushhub: Running on port 8780',
      '2 deliveries pending',
      '---',
      'Open console',
      'Open receiver',
      'Copy push URL',
      '---',
      'Desktop notifications: off',
      'Start at login',
      'Open data folder',
      'Restart hub',
      '---',
      'Quit Pushhub',
    ]);
    expect(items[0]).toMatchObject({ enabled: false });
    expect(items[1]).toMatchObject({ enabled: false });
    for (const label of ['Open console', 'Open receiver', 'Copy push URL', 'Open data folder', 'Restart hub', 'Quit Pushhub']) {
      expect(find(items, label).enabled ?? true).toBe(true);
    }
    expect(find(items, 'Open console').action).toEqual({ kind: 'open-console' });
    expect(find(items, 'Open receiver').action).toEqual({ kind: 'open-receiver' });
    expect(find(items, 'Copy push URL').action).toEqual({ kind: 'copy-push-url' });
    expect(find(items, 'Open data folder').action).toEqual({ kind: 'open-data-folder' });
    expect(find(items, 'Quit Pushhub').action).toEqual({ kind: 'quit' });
  });

  it('counts pending deliveries in words, and leaves the line out when unknown', () => {
    expect(labels(buildTrayMenu(input({ pendingDeliveries: 0 })))[1]).toBe('No deliveries pending');
    expect(labels(buildTrayMenu(input({ pendingDeliveries: 1 })))[1]).toBe('1 delivery pending');
    expect(labels(buildTrayMenu(input({ pendingDeliveries: null })))[1]).toBe('---');
  });

  it('Start at login is a checkbox that reflects the setting', () => {
    expect(find(buildTrayMenu(input({ startAtLogin: true })), 'Start at login')).toEqual({
      type: 'checkbox',
      label: 'Start at login',
      checked: true,
      enabled: true,
      action: { kind: 'toggle-start-at-login' },
    });
    expect(find(buildTrayMenu(input({ startAtLogin: false, startAtLoginAvailable: false })), 'Start at login')).toMatchObject({
      checked: false,
      enabled: false,
    });
  });

  it('while the hub is not running: the status says why and hub actions are disabled', () => {
    const cases: [HubState, string, string][] = [
      [{ state: 'starting', attempt: 1 }, 'Pushhub: Starting…', 'Restart hub'],
      [{ state: 'starting', attempt: 3 }, 'Pushhub: Starting (attempt 3)…', 'Restart hub'],
      [{ state: 'restarting', attempt: 2, delayMs: 4000, failure: { cause: 'exit', message: 'x' } }, 'Pushhub: Hub crashed, restarting in 4 s', 'Restart hub'],
      [{ state: 'failed', failure: { cause: 'error', message: 'port 8780 on 127.0.0.1 is already in use' } }, 'Pushhub: Not running: port 8780 on 127.0.0.1 is already in use', 'Start hub'],
      [{ state: 'stopped' }, 'Pushhub: Stopped', 'Start hub'],
    ];
    for (const [hub, status, restartLabel] of cases) {
      const items = buildTrayMenu(input({ hub, pendingDeliveries: 5 }));
      expect(items[0]!.label).toBe(status);
      expect(labels(items)).not.toContain('5 deliveries pending');
      for (const label of ['Open console', 'Open receiver', 'Copy push URL']) expect(find(items, label).enabled).toBe(false);
      expect(find(items, restartLabel)).toMatchObject({ enabled: true, action: { kind: 'restart-hub' } });
      expect(find(items, 'Quit Pushhub').enabled ?? true).toBe(true);
      expect(find(items, 'Open data folder').enabled ?? true).toBe(true);
    }
    expect(find(buildTrayMenu(input({ hub: { state: 'stopping' } })), 'Restart hub').enabled).toBe(false);
  });

  it('desktop notifications: a radio list of receivers, the chosen one checked, the state in the label', () => {
    const items = buildTrayMenu(
      input({ receiver: { users: [{ id: 'u1', name: 'Alice' }, { id: 'u2', name: 'Bob' }], selected: { userId: 'u2', name: 'Bob' }, connection: 'connected' } }),
    );
    const menu = find(items, 'Desktop notifications');
    expect(menu.label).toBe('Desktop notifications: Bob');
    expect(menu.submenu!.map((i) => [i.type, i.label, i.checked])).toEqual([
      ['radio', 'Off', false],
      ['separator', undefined, undefined],
      ['radio', 'Alice', false],
      ['radio', 'Bob', true],
    ]);
    expect(menu.submenu![0]!.action).toEqual({ kind: 'choose-receiver', userId: null });
    expect(menu.submenu![2]!.action).toEqual({ kind: 'choose-receiver', userId: 'u1' });

    const reconnecting = find(buildTrayMenu(input({ receiver: { users: [], selected: { userId: 'u2', name: 'Bob' }, connection: 'reconnecting' } })), 'Desktop');
    expect(reconnecting.label).toBe('Desktop notifications: Bob (reconnecting…)');
    const signedOut = find(buildTrayMenu(input({ receiver: { users: [], selected: { userId: 'u2', name: 'Bob' }, connection: 'unauthorized' } })), 'Desktop');
    expect(signedOut.label).toBe('Desktop notifications: Bob (signed out)');
  });

  it('says how to get a receiver when the hub has none, and disables choices while it is down', () => {
    const none = find(buildTrayMenu(input({ receiver: { users: [], selected: null, connection: 'off' } })), 'Desktop');
    expect(none.submenu!.map((i) => i.label)).toEqual(['Off', 'No receivers yet: add one in the console']);
    const down = find(buildTrayMenu(input({ hub: { state: 'stopped' }, receiver: { users: null, selected: null, connection: 'off' } })), 'Desktop');
    expect(down.enabled).toBe(false);
    expect(down.submenu!.every((i) => i.enabled === false)).toBe(true);
  });

  it('tooltip and status label', () => {
    expect(trayTooltip({ hub: running, pendingDeliveries: 3 })).toBe('Pushhub: Running on port 8780, 3 pending');
    expect(trayTooltip({ hub: running, pendingDeliveries: 0 })).toBe('Pushhub: Running on port 8780');
    expect(trayTooltip({ hub: { state: 'stopped' }, pendingDeliveries: 3 })).toBe('Pushhub: Stopped');
    expect(hubStatusLabel({ state: 'restarting', attempt: 2, delayMs: 200, failure: { cause: 'exit', message: '' } })).toBe('Hub crashed, restarting in 1 s');
  });
});
