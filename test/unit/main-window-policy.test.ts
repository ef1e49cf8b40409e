import { describe, expect, it } from 'vitest';
import {
  decideNavigation,
  decideWindowOpen,
  GRANTED_PERMISSIONS,
  installNavigationPolicy,
  ipcSenderAllowed,
  originOf,
  permissionAllowed,
  secureWebPreferences,
  type PolicyTarget,
} from '../../main/window-policy.js';

// The console window's security policies (main/window-policy.ts; DESIGN.md convention 10).

const HUB = 'http://127.0.0.1:8780';

describe('navigation policy', () => {
  it('allows the hub itself, in any path, and nothing while the hub is unknown', () => {
    expect(decideNavigation(`${HUB}/`, HUB)).toBe('allow');
    expect(decideNavigation(`${HUB}/apps/01J?x=1#y`, HUB)).toBe('allow');
    expect(decideNavigation(`${HUB}/auth/local?token=abc`, HUB)).toBe('allow');
    expect(decideNavigation(`${HUB}/`, null)).toBe('open-external');
  });

  it('sends other web origins to the system browser, including look-alikes of the hub', () => {
    for (const url of [
      'https://example.com/',
      'http://127.0.0.1:8781/', // another port is another origin
      'http://localhost:8780/', // another host name is another origin
      'https://127.0.0.1:8780/', // another scheme is another origin
      'http://127.0.0.1.nip.example:8780/',
      'mailto:ops@example.com',
    ]) {
      expect(decideNavigation(url, HUB), url).toBe('open-external');
    }
  });

  it('refuses everything else outright', () => {
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,<b>x</b>', 'chrome://gpu', 'ms-settings:privacy', 'http://127.0.0.1:8780.evil.example/', 'smb://host/share', 'not a url', '']) {
      expect(decideNavigation(url, HUB), url).toBe('deny');
    }
  });

  it('new windows: never created; hub links load in the console window', () => {
    expect(decideWindowOpen(`${HUB}/users`, HUB)).toBe('load-here');
    expect(decideWindowOpen('https://docs.example.com/', HUB)).toBe('open-external');
    expect(decideWindowOpen('file:///tmp/x', HUB)).toBe('deny');
  });

  it('is installed on a webContents: stops navigations out, opens them externally, denies windows and webviews', async () => {
    const handlers: { navigate?: (e: { url: string; preventDefault(): void }) => void; webview?: (e: { preventDefault(): void }) => void; open?: (d: { url: string }) => { action: string } } = {};
    const loaded: string[] = [];
    const target: PolicyTarget = {
      onNavigate: (l) => (handlers.navigate = l),
      onAttachWebview: (l) => (handlers.webview = l),
      setWindowOpenHandler: (h) => (handlers.open = h),
      loadURL: async (url) => void loaded.push(url),
    };
    const external: string[] = [];
    let origin: string | null = HUB;
    installNavigationPolicy(target, () => origin, (url) => external.push(url));

    const navigate = (url: string) => {
      let prevented = false;
      handlers.navigate!({ url, preventDefault: () => (prevented = true) });
      return prevented;
    };
    expect(navigate(`${HUB}/apps`)).toBe(false);
    expect(navigate('https://example.com/')).toBe(true);
    expect(navigate('file:///etc/passwd')).toBe(true);
    expect(external).toEqual(['https://example.com/']);

    // The hub moved to another port (restart): the old origin is foreign now.
    origin = 'http://127.0.0.1:9000';
    expect(navigate(`${HUB}/apps`)).toBe(true);

    let webviewPrevented = false;
    handlers.webview!({ preventDefault: () => (webviewPrevented = true) });
    expect(webviewPrevented).toBe(true);

    expect(handlers.open!({ url: 'http://127.0.0.1:9000/receiver/' })).toEqual({ action: 'deny' });
    expect(handlers.open!({ url: 'https://example.org/' })).toEqual({ action: 'deny' });
    expect(handlers.open!({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' });
    await Promise.resolve();
    expect(loaded).toEqual(['http://127.0.0.1:9000/receiver/']);
    expect(external).toEqual(['https://example.com/', `${HUB}/apps`, 'https://example.org/']);
  });
});

describe('permission policy', () => {
  it('grants notifications (and sanitized clipboard writes) to the hub only', () => {
    expect(GRANTED_PERMISSIONS).toEqual(['notifications', 'clipboard-sanitized-write']);
    expect(permissionAllowed('notifications', `${HUB}/`, HUB)).toBe(true);
    expect(permissionAllowed('notifications', HUB, HUB)).toBe(true); // checks pass an origin
    expect(permissionAllowed('clipboard-sanitized-write', `${HUB}/apps`, HUB)).toBe(true);
    expect(permissionAllowed('notifications', 'https://example.com/', HUB)).toBe(false);
    expect(permissionAllowed('notifications', `${HUB}/`, null)).toBe(false);
    expect(permissionAllowed('notifications', undefined, HUB)).toBe(false);
  });

  it('denies everything else, even to the hub', () => {
    for (const p of ['media', 'geolocation', 'clipboard-read', 'openExternal', 'fullscreen', 'pointerLock', 'midiSysex', 'hid', 'serial', 'usb', 'fileSystem', 'display-capture', 'window-management', 'unknown']) {
      expect(permissionAllowed(p, `${HUB}/`, HUB), p).toBe(false);
    }
  });

  it('answers IPC only for frames showing the hub', () => {
    expect(ipcSenderAllowed(`${HUB}/settings`, HUB)).toBe(true);
    expect(ipcSenderAllowed('https://example.com/', HUB)).toBe(false);
    expect(ipcSenderAllowed('data:text/html,x', HUB)).toBe(false);
    expect(ipcSenderAllowed(undefined, HUB)).toBe(false);
    expect(ipcSenderAllowed(`${HUB}/`, null)).toBe(false);
    expect(originOf('about:blank')).toBe(null);
  });
});

describe('web preferences', () => {
  it('isolated, sandboxed, no Node anywhere, no webviews, the preload given', () => {
    expect(secureWebPreferences('/app/dist/main/preload.cjs')).toEqual({
      preload: '/app/dist/main/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      safeDialogs: true,
    });
  });
});
