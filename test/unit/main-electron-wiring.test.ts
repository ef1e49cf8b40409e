import type { ChildProcess } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DESKTOP_IPC } from '../../main/desktop-bridge.js';
import { waitFor } from '../helpers/wait.js';

// main/main.ts itself, with a stand-in for the `electron` module (the real binary cannot be
// downloaded here). The stand-in records what main.ts asks of Electron and runs the hub child as
// a Node child process (server/child.ts speaks process.send when there is no parentPort). This
// checks the wiring — the token handed to the child is the one the window opens, the policies
// are installed, the tray and IPC answer, quitting stops the hub — not Electron's behaviour.

const fake = vi.hoisted(() => {
  const state = {
    appData: '',
    appHandlers: new Map<string, ((...args: any[]) => void)[]>(),
    quitCalls: 0,
    windows: [] as any[],
    trays: [] as any[],
    ipc: new Map<string, (event: any, ...args: any[]) => unknown>(),
    permissionRequest: null as null | ((...args: any[]) => void),
    permissionCheck: null as null | ((...args: any[]) => boolean),
    clipboard: '',
    external: [] as string[],
    opened: [] as string[],
    forks: [] as { modulePath: string; env: Record<string, string>; child: any }[],
    dialogs: [] as any[],
    notifications: [] as any[],
    cookie: '',
  };
  return state;
});

vi.mock('electron', async () => {
  const { EventEmitter: Emitter } = await import('node:events');
  const { fork: nodeFork } = await import('node:child_process');
  const fsm = await import('node:fs');
  const { PassThrough: Pass } = await import('node:stream');
  const emitApp = (event: string, ...args: any[]) => {
    for (const h of fake.appHandlers.get(event) ?? []) h(...args);
  };
  class WebContents extends Emitter {
    url = '';
    loads: string[] = [];
    sent: [string, unknown][] = [];
    openHandler: ((d: { url: string }) => unknown) | null = null;
    setWindowOpenHandler(h: (d: { url: string }) => unknown) {
      this.openHandler = h;
    }
    async loadURL(url: string) {
      this.loads.push(url);
      this.url = url;
    }
    getURL() {
      return this.url;
    }
    send(channel: string, payload: unknown) {
      this.sent.push([channel, payload]);
    }
  }
  class BrowserWindow extends Emitter {
    webContents = new WebContents();
    visible = false;
    destroyed = false;
    constructor(readonly options: any) {
      super();
      fake.windows.push(this);
      emitApp('web-contents-created', {}, this.webContents);
    }
    loadURL(url: string) {
      return this.webContents.loadURL(url);
    }
    show() {
      this.visible = true;
    }
    hide() {
      this.visible = false;
    }
    focus() {}
    isVisible() {
      return this.visible;
    }
    isDestroyed() {
      return this.destroyed;
    }
  }
  class Tray extends Emitter {
    tooltip = '';
    menu: any = null;
    constructor(readonly image: unknown) {
      super();
      fake.trays.push(this);
    }
    setToolTip(t: string) {
      this.tooltip = t;
    }
    setContextMenu(m: unknown) {
      this.menu = m;
    }
  }
  class Notification extends Emitter {
    static isSupported() {
      return true;
    }
    shown = false;
    constructor(readonly options: unknown) {
      super();
      fake.notifications.push(this);
    }
    show() {
      this.shown = true;
    }
  }
  const app = {
    setName() {},
    setPath(name: string, value: string) {
      if (name === 'userData') (app as any).userData = value;
    },
    getPath(name: string) {
      if (name === 'appData') return fake.appData;
      if (name === 'userData') return (app as any).userData;
      throw new Error(`getPath(${name})`);
    },
    setAppUserModelId() {},
    getLoginItemSettings: () => ({ openAtLogin: false, wasOpenedAtLogin: false }),
    setLoginItemSettings() {},
    requestSingleInstanceLock: () => true,
    on(event: string, handler: (...args: any[]) => void) {
      if (!fake.appHandlers.has(event)) fake.appHandlers.set(event, []);
      fake.appHandlers.get(event)!.push(handler);
      return app;
    },
    whenReady: () => Promise.resolve(),
    quit() {
      fake.quitCalls += 1;
      const event = { defaultPrevented: false, preventDefault() { this.defaultPrevented = true; } };
      emitApp('before-quit', event);
    },
    getVersion: () => '0.0.0-test',
    isPackaged: false,
  };
  const utilityProcess = {
    fork(modulePath: string, _args: string[], options: { env: Record<string, string> }) {
      // From the sources there is no compiled child.js next to main.ts: run child.ts with tsx.
      const entry = fsm.existsSync(modulePath) ? modulePath : modulePath.replace(/\.js$/, '.ts');
      const proc = nodeFork(entry, [], { env: options.env, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
      const child = new Emitter() as any;
      child.stdout = new Pass();
      child.stderr = new Pass();
      proc.stdout!.pipe(child.stdout);
      proc.stderr!.pipe(child.stderr);
      child.proc = proc;
      child.postMessage = (m: unknown) => proc.connected && proc.send(m as object);
      child.kill = () => proc.kill('SIGTERM');
      proc.on('message', (m) => child.emit('message', m));
      proc.on('exit', (code) => child.emit('exit', code ?? -1));
      fake.forks.push({ modulePath, env: options.env, child });
      return child;
    },
  };
  return {
    app,
    BrowserWindow,
    Tray,
    Notification,
    utilityProcess,
    clipboard: { writeText: (t: string) => (fake.clipboard = t) },
    dialog: { showMessageBox: async (o: unknown) => (fake.dialogs.push(o), { response: 2 }) },
    ipcMain: { handle: (channel: string, fn: (e: any, ...a: any[]) => unknown) => fake.ipc.set(channel, fn) },
    Menu: { buildFromTemplate: (template: unknown[]) => ({ template }) },
    nativeImage: { createFromPath: (p: string) => ({ path: p }) },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (h: any) => (fake.permissionRequest = h),
        setPermissionCheckHandler: (h: any) => (fake.permissionCheck = h),
      },
    },
    shell: {
      openExternal: async (url: string) => void fake.external.push(url),
      openPath: async (p: string) => (fake.opened.push(p), ''),
    },
  };
});

// The tray polls the hub every 10 s (setInterval): that clock is the test's.
vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pushhub-electron-'));
fake.appData = path.join(home, 'appData');
process.env.XDG_CONFIG_HOME = path.join(home, 'config');
process.env.PUSHHUB_LOG_LEVEL = 'warn';

afterAll(() => {
  for (const f of fake.forks) {
    const proc = f.child.proc as ChildProcess;
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
});

/** The flattened labels of the tray's current menu. */
const menuLabels = () => (fake.trays[0].menu.template as { label?: string; type?: string }[]).map((i) => i.label ?? i.type);
const menuItem = (label: string) => (fake.trays[0].menu.template as { label?: string; click?: () => void }[]).find((i) => i.label === label)!;

describe('main.ts wired to (a stand-in for) Electron', { timeout: 60_000 }, () => {
  it('starts the hub in a child, opens the console signed in, and secures the window', async () => {
    await import('../../main/main.js');
    await waitFor(() => fake.windows.length === 1 && fake.windows[0].webContents.loads.length === 1, 30_000, 'the console window to load');
    const { modulePath, env } = fake.forks[0]!;
    const userData = path.join(fake.appData, 'Pushhub');
    expect(modulePath).toBe(path.resolve(import.meta.dirname, '../../server/child.js'));
    expect(env).toMatchObject({ PUSHHUB_HOST: '127.0.0.1', PUSHHUB_PORT: '0', PUSHHUB_DATA_DIR: userData });
    expect(env.PUSHHUB_LOCAL_LOGIN_TOKEN).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const win = fake.windows[0];
    expect(win.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webviewTag: false });
    expect(win.options.webPreferences.preload).toBe(path.resolve(import.meta.dirname, '../../main/preload.cjs'));
    const [loaded] = win.webContents.loads as string[];
    const url = new URL(loaded!).origin;
    expect(loaded).toBe(`${url}/auth/local?token=${encodeURIComponent(env.PUSHHUB_LOCAL_LOGIN_TOKEN!)}`);
    // The window's link is the child's token: it signs in (once).
    const signIn = await fetch(loaded!, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    fake.cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    expect((await fetch(loaded!, { redirect: 'manual' })).status).toBe(401);

    // The remembered port and the log file.
    const settings = JSON.parse(fs.readFileSync(path.join(userData, 'desktop.json'), 'utf8'));
    expect(settings.port).toBe(Number(new URL(url).port));
    await waitFor(() => fs.readFileSync(path.join(userData, 'logs', 'hub.log'), 'utf8').includes('hub ready at'), 5000, 'the log line');

    // Navigation policy on the window's webContents.
    const contents = win.webContents as EventEmitter & { openHandler: (d: { url: string }) => unknown };
    let prevented = false;
    contents.emit('will-frame-navigate', { url: 'https://example.com/', preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
    expect(fake.external).toContain('https://example.com/');
    expect(contents.openHandler({ url: 'https://example.org/' })).toEqual({ action: 'deny' });

    // Permissions: notifications from the hub, nothing else.
    const answers: boolean[] = [];
    fake.permissionRequest!(contents, 'notifications', (ok: boolean) => answers.push(ok), { requestingUrl: `${url}/` });
    fake.permissionRequest!(contents, 'media', (ok: boolean) => answers.push(ok), { requestingUrl: `${url}/` });
    fake.permissionRequest!(contents, 'notifications', (ok: boolean) => answers.push(ok), { requestingUrl: 'https://example.com/' });
    expect(answers).toEqual([true, false, false]);
    expect(fake.permissionCheck!(contents, 'geolocation', url, {})).toBe(false);

    // IPC answers the hub's pages only.
    expect([...fake.ipc.keys()].sort()).toEqual([DESKTOP_IPC.getStatus, DESKTOP_IPC.openDataFolder, DESKTOP_IPC.restartHub].sort());
    const status = (await fake.ipc.get(DESKTOP_IPC.getStatus)!({ senderFrame: { url: `${url}/settings` } })) as Record<string, unknown>;
    expect(status).toMatchObject({ state: 'running', url, dataDir: userData, logFile: path.join(userData, 'logs', 'hub.log') });
    expect(() => fake.ipc.get(DESKTOP_IPC.getStatus)!({ senderFrame: { url: 'https://example.com/' } })).toThrow('not allowed');
    await fake.ipc.get(DESKTOP_IPC.openDataFolder)!({ senderFrame: { url: `${url}/` } });
    expect(fake.opened).toContain(userData);
  });

  it('shows the hub in the tray and acts on its items', async () => {
    await waitFor(() => menuLabels().includes('No deliveries pending'), 10_000, 'the pending count');
    const [first] = menuLabels();
    expect(first).toMatch(/^Pushhub: Running on port \d+$/);
    expect(menuLabels()).toEqual(expect.arrayContaining(['Open console', 'Open receiver', 'Copy push URL', 'Start at login', 'Open data folder', 'Quit Pushhub']));
    const url = new URL(fake.windows[0].webContents.loads[0]).origin;
    menuItem('Copy push URL').click!();
    expect(fake.clipboard).toBe(`${url}/v1/push`);
    menuItem('Open receiver').click!();
    expect(fake.external).toContain(`${url}/receiver/`);
    // Start at login on Linux: an XDG autostart entry.
    menuItem('Start at login').click!();
    const entry = path.join(process.env.XDG_CONFIG_HOME!, 'autostart', 'org.pushhub.desktop.desktop');
    expect(fs.readFileSync(entry, 'utf8')).toContain('--hidden');
    await waitFor(() => (fake.trays[0].menu.template as { label?: string; checked?: boolean }[]).find((i) => i.label === 'Start at login')?.checked === true, 2000, 'the checkbox');
    menuItem('Start at login').click!();
    expect(fs.existsSync(entry)).toBe(false);

    // Closing the window hides it: the hub stays up.
    const win = fake.windows[0];
    let prevented = false;
    win.emit('close', { preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
    expect(win.isVisible()).toBe(false);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it('desktop notifications: a receiver chosen in the tray gets native notifications; a click opens the url', async () => {
    const url = new URL(fake.windows[0].webContents.loads[0]).origin;
    const admin = { cookie: fake.cookie, origin: url, 'content-type': 'application/json' };
    const user = (await (await fetch(`${url}/api/users`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Erin', username: 'erin', password: 'erin password' }) })).json()) as {
      id: string;
      userKey: string;
    };
    const app = (await (await fetch(`${url}/api/apps`, { method: 'POST', headers: admin, body: '{"name":"cron"}' })).json()) as { apiKey: string };

    // The next poll lists the receiver in the tray.
    vi.advanceTimersByTime(10_000);
    const submenu = () =>
      ((fake.trays[0].menu.template as { label?: string; submenu?: { label?: string; checked?: boolean; click?: () => void }[] }[]).find((i) =>
        i.label?.startsWith('Desktop notifications'),
      ) ?? { submenu: [] }) as { label?: string; submenu: { label?: string; checked?: boolean; click?: () => void }[] };
    await waitFor(() => submenu().submenu.some((i) => i.label === 'Erin'), 5000, 'Erin in the tray');
    submenu().submenu.find((i) => i.label === 'Erin')!.click!();
    await waitFor(() => submenu().label === 'Desktop notifications: Erin', 10_000, 'the stream to connect');
    const devices = (await (await fetch(`${url}/api/users/${user.id}/devices`, { headers: admin })).json()) as { id: string; platform: string; channel: string }[];
    expect(devices).toEqual([expect.objectContaining({ platform: 'desktop', channel: 'stream' })]);

    const push = await fetch(`${url}/v1/push`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: app.apiKey, userKey: user.userKey, title: 'Washer', body: 'Laundry is done', emoji: '🧺', url: 'http://homeassistant.local:8123/' }),
    });
    expect(push.status).toBe(200);
    await waitFor(() => fake.notifications.some((n) => n.shown), 5000, 'a native notification');
    const [shown] = fake.notifications;
    expect(shown.options).toMatchObject({ title: '🧺 Washer', body: 'Laundry is done' });
    shown.emit('click');
    expect(fake.external).toContain('http://homeassistant.local:8123/');
    const settings = JSON.parse(fs.readFileSync(path.join(fake.appData, 'Pushhub', 'desktop.json'), 'utf8'));
    expect(settings.receiver).toMatchObject({ userId: user.id, name: 'Erin', deviceId: devices[0]!.id, lastEventId: ((await push.json()) as { id: string }).id });

    // Off: the device goes away.
    submenu().submenu.find((i) => i.label === 'Off')!.click!();
    await waitFor(async () => ((await (await fetch(`${url}/api/users/${user.id}/devices`, { headers: admin })).json()) as unknown[]).length === 0, 5000, 'the device removed');
    await waitFor(() => JSON.parse(fs.readFileSync(path.join(fake.appData, 'Pushhub', 'desktop.json'), 'utf8')).receiver === undefined, 5000, 'the choice forgotten');
    await waitFor(() => submenu().label === 'Desktop notifications: off', 2000, 'the tray to say off');
  });

  it('quitting stops the hub child cleanly before the app exits', async () => {
    const { child } = fake.forks[0]!;
    const exited = new Promise<number>((resolve) => child.once('exit', resolve));
    const url = new URL(fake.windows[0].webContents.loads[0]).origin;
    const quitsBefore = fake.quitCalls;
    const handlers = fake.appHandlers.get('before-quit')!;
    const event = { prevented: false, preventDefault() { this.prevented = true; } };
    for (const h of handlers) h(event);
    expect(event.prevented).toBe(true);
    expect(await exited).toBe(0);
    await waitFor(() => fake.quitCalls > quitsBefore, 5000, 'the real quit');
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect(fake.dialogs).toEqual([]);
  });
});
