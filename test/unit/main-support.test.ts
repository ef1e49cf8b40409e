import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config/config.js';
import { linuxAutostart, quoteExecArg } from '../../main/autostart.js';
import { hubChildEnv, localLoginUrl, newLocalLoginToken, pushUrl, receiverUrl } from '../../main/child-env.js';
import { createSettingsFile } from '../../main/desktop-settings.js';
import { failureDialog, FAILURE_BUTTONS } from '../../main/failure-dialog.js';
import { openLogFile } from '../../main/log-file.js';
import { desktopStatus } from '../../main/status.js';

// The small plain modules of main/: the child's environment, the failure dialog, the settings
// file, the log file, Linux autostart and the bridge's status.

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'pushhub-main-'));

describe('the hub child environment', () => {
  it('sets data dir, loopback host, port and a fresh one-time token over the parent environment', () => {
    const token = newLocalLoginToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newLocalLoginToken()).not.toBe(token);
    const env = hubChildEnv({
      base: {
        PATH: '/usr/bin',
        PUSHHUB_PUBLIC_URL: 'https://push.example.net',
        PUSHHUB_HOST: '0.0.0.0', // the user's shell must not open the desktop hub to the network
        PUSHHUB_PORT: '80',
        PUSHHUB_DATA_DIR: '/elsewhere',
        PUSHHUB_LOCAL_LOGIN_TOKEN: 'x'.repeat(40),
        UNSET: undefined,
      },
      dataDir: '/home/me/.config/Pushhub',
      port: 0,
      localLoginToken: token,
    });
    expect(env).toEqual({
      PATH: '/usr/bin',
      PUSHHUB_PUBLIC_URL: 'https://push.example.net',
      PUSHHUB_HOST: '127.0.0.1',
      PUSHHUB_PORT: '0',
      PUSHHUB_DATA_DIR: '/home/me/.config/Pushhub',
      PUSHHUB_LOCAL_LOGIN_TOKEN: token,
    });
    // What server/child.ts makes of it.
    const config = loadConfig({ env });
    expect(config).toMatchObject({ host: '127.0.0.1', port: 0, dataDir: '/home/me/.config/Pushhub', localLoginToken: token });
  });

  it('builds the sign-in, push and receiver URLs', () => {
    expect(localLoginUrl('http://127.0.0.1:8780', 'a+b/c')).toBe('http://127.0.0.1:8780/auth/local?token=a%2Bb%2Fc');
    const local = { url: 'http://127.0.0.1:8780', publicUrl: null };
    expect(pushUrl(local)).toBe('http://127.0.0.1:8780/v1/push');
    expect(receiverUrl(local)).toBe('http://127.0.0.1:8780/receiver/');
    const published = { url: 'http://127.0.0.1:8780', publicUrl: 'https://push.example.net/' };
    expect(pushUrl(published)).toBe('https://push.example.net/v1/push');
    expect(receiverUrl(published)).toBe('https://push.example.net/receiver/');
  });
});

describe('failure dialog', () => {
  it('says what failed and where the log and the data are', () => {
    const dialog = failureDialog(
      { cause: 'timeout', message: 'the hub did not report ready within 30 s' },
      { logFile: '/home/me/.config/Pushhub/logs/hub.log', dataDir: '/home/me/.config/Pushhub' },
    );
    expect(dialog).toMatchObject({ type: 'error', message: 'Pushhub could not start its hub', buttons: ['Retry', 'Open log folder', 'Quit'], defaultId: 0, cancelId: 2 });
    expect(dialog.detail).toContain('did not report that it was ready in time');
    expect(dialog.detail).toContain('the hub did not report ready within 30 s');
    expect(dialog.detail).toContain('The log is in /home/me/.config/Pushhub/logs/hub.log');
    expect(dialog.detail).toContain('Your data is in /home/me/.config/Pushhub');
    expect(FAILURE_BUTTONS[dialog.cancelId]).toBe('Quit');
    expect(failureDialog({ cause: 'error', message: 'database is newer' }, { logFile: 'l', dataDir: 'd' }).detail).toMatch(/^The hub refused to start\./);
  });
});

describe('settings file', () => {
  it('reads nothing as empty, writes atomically with mode 0600, ignores a corrupt file', () => {
    const dir = tmp();
    const file = createSettingsFile(path.join(dir, 'desktop.json'));
    expect(file.read()).toEqual({});
    file.update((s) => ({ ...s, port: 8780 }));
    const next = file.update((s) => ({ ...s, receiver: { userId: 'u1', name: 'Alice', token: 't', deviceToken: 'd'.repeat(32), deviceId: null, lastEventId: null } }));
    expect(next.port).toBe(8780);
    expect(createSettingsFile(path.join(dir, 'desktop.json')).read()).toEqual(next);
    if (process.platform !== 'win32') expect(fs.statSync(path.join(dir, 'desktop.json')).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual(['desktop.json']);
    fs.writeFileSync(path.join(dir, 'desktop.json'), '{"port": "not a port"');
    expect(file.read()).toEqual({});
    expect(() => file.update(() => ({ port: 70000 }))).toThrow();
  });
});

describe('log file', () => {
  it('appends lifecycle lines and moves an oversized log aside', async () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'hub.log'), 'x'.repeat(200));
    const log = openLogFile(dir, 'hub.log', 100);
    log.line('starting the hub (attempt 1)');
    log.stream.write('{"level":30,"msg":"from the child"}\n');
    await log.close();
    expect(fs.readFileSync(path.join(dir, 'hub.log.1'), 'utf8')).toBe('x'.repeat(200));
    const text = fs.readFileSync(log.path, 'utf8');
    expect(text).toMatch(/^\[\d{4}-\d\d-\d\dT[^\]]+\] desktop: starting the hub \(attempt 1\)\n\{"level":30,"msg":"from the child"\}\n$/);
  });
});

describe('Linux autostart', () => {
  it('writes and removes an XDG autostart entry that starts the app hidden', () => {
    const configHome = tmp();
    const auto = linuxAutostart({ configHome, id: 'org.pushhub.desktop', name: 'Pushhub', exec: '/opt/Push Hub/pushhub', args: ['--hidden'] });
    expect(auto.file).toBe(path.join(configHome, 'autostart', 'org.pushhub.desktop.desktop'));
    expect(auto.isEnabled()).toBe(false);
    auto.setEnabled(true);
    expect(auto.isEnabled()).toBe(true);
    const entry = fs.readFileSync(auto.file, 'utf8');
    expect(entry).toContain('[Desktop Entry]\nType=Application\nName=Pushhub\n');
    expect(entry).toContain('Exec="/opt/Push Hub/pushhub" --hidden\n');
    auto.setEnabled(false);
    expect(auto.isEnabled()).toBe(false);
    auto.setEnabled(false);
  });

  it('quotes Exec arguments as the Desktop Entry Specification asks', () => {
    expect(quoteExecArg('/usr/bin/pushhub')).toBe('/usr/bin/pushhub');
    expect(quoteExecArg('--hidden')).toBe('--hidden');
    expect(quoteExecArg('/home/me/Apps/Pushhub 1.0.AppImage')).toBe('"/home/me/Apps/Pushhub 1.0.AppImage"');
    expect(quoteExecArg('/a/$HOME')).toBe('"/a/\\\\$HOME"');
    expect(quoteExecArg('100%')).toBe('100%%');
  });
});

describe('bridge status', () => {
  it('reports running with the port and pending count, and why otherwise', () => {
    const paths = { dataDir: '/d', logFile: '/d/logs/hub.log' };
    expect(desktopStatus({ state: 'running', ready: { url: 'http://127.0.0.1:8780', port: 8780, dataDir: '/d', publicUrl: null }, since: 1 }, 4, paths)).toEqual({
      state: 'running',
      url: 'http://127.0.0.1:8780',
      port: 8780,
      pendingDeliveries: 4,
      dataDir: '/d',
      logFile: '/d/logs/hub.log',
      message: null,
    });
    expect(desktopStatus({ state: 'failed', failure: { cause: 'error', message: 'no' } }, 4, paths)).toMatchObject({
      state: 'failed',
      url: null,
      port: null,
      pendingDeliveries: null,
      message: 'no',
    });
  });
});
