// The Electron main process (issue "Desktop app"; DESIGN.md "Layout"): wiring only. The hub runs
// in a utility process (server/child.ts) driven by server-host.ts; what the tray shows, what the
// window may do and the desktop receiver are plain modules next to this file, tested without
// Electron. This file is the one place that talks to Electron's APIs.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  app,
  BrowserWindow,
  clipboard,
  dialog,
  ipcMain,
  Menu,
  nativeImage,
  Notification,
  session,
  shell,
  Tray,
  utilityProcess,
  type IpcMainInvokeEvent,
  type MenuItemConstructorOptions,
  type WebContents,
} from 'electron';
import { linuxAutostart } from './autostart.js';
import { hubChildEnv, localLoginUrl, newLocalLoginToken, pushUrl, receiverUrl } from './child-env.js';
import { DESKTOP_IPC } from './desktop-bridge.js';
import {
  createDesktopReceiver,
  createNotificationBatcher,
  notificationContent,
  type DesktopReceiver,
  type ReceiverState,
  type StreamNotification,
} from './desktop-receiver.js';
import { createSettingsFile } from './desktop-settings.js';
import { failureDialog, FAILURE_BUTTONS } from './failure-dialog.js';
import { openLogFile, type LogFile } from './log-file.js';
import { createServerHost, HubRequestError, HubStartError, type HubChild, type HubFailure, type HubState } from './server-host.js';
import { desktopStatus } from './status.js';
import { buildTrayMenu, trayTooltip, type TrayAction, type TrayItem, type TrayReceiverInfo } from './tray-menu.js';
import { installNavigationPolicy, ipcSenderAllowed, originOf, permissionAllowed, secureWebPreferences } from './window-policy.js';

const APP_ID = 'org.pushhub.desktop';
const here = path.dirname(fileURLToPath(import.meta.url)); // dist/main (inside app.asar when packaged)
const CHILD_ENTRY = path.join(here, '..', 'server', 'child.js');
const PRELOAD = path.join(here, 'preload.cjs');
const ASSETS = path.join(here, 'assets');
const STATUS_POLL_MS = 10_000;

// Before `ready` (the entry's top level runs before it): one name and one folder whether the app
// runs packaged or as `electron dist/main/main.js` (which would otherwise be named "Electron").
app.setName('Pushhub');
app.setPath('userData', path.join(app.getPath('appData'), 'Pushhub'));
if (process.platform === 'win32') app.setAppUserModelId(APP_ID);

// One app per data folder. Asked before anything touches the folder: a second start must not
// rotate the first one's log or write its settings; it only makes the first show its window.
const primary = app.requestSingleInstanceLock();

const dataDir = app.getPath('userData');
const log: LogFile = primary ? openLogFile(path.join(dataDir, 'logs')) : silentLog();
const settings = createSettingsFile(path.join(dataDir, 'desktop.json'));
const startHidden = process.argv.includes('--hidden') || (process.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin);

let quitting = false;
let window: BrowserWindow | null = null;
let tray: Tray | null = null;
/** The one-time sign-in token handed to the current hub child; null once the window used it. */
let loginToken: string | null = null;
let pendingDeliveries: number | null = null;
let receiverUsers: { id: string; name: string }[] | null = null;
let receiver: DesktopReceiver | null = null;
let receiverConnection: TrayReceiverInfo['connection'] = 'off';
let receiverReauths = 0;
let lastMenuJson = '';
/** Shown notifications, kept referenced until dismissed: a collected one loses its click handler. */
const notifications = new Set<Notification>();

function silentLog(): LogFile {
  const stream = new PassThrough();
  stream.resume();
  return { path: path.join(dataDir, 'logs', 'hub.log'), stream, line: () => {}, close: async () => {} };
}

const hubOrigin = () => (host.state.state === 'running' ? originOf(host.state.ready.url) : null);

/** Electron's utility process as the host's HubChild; its output goes to the log file. */
function spawnUtility(env: Record<string, string>): HubChild {
  const child = utilityProcess.fork(CHILD_ENTRY, [], { env, stdio: 'pipe', serviceName: 'Pushhub hub' });
  child.stdout?.pipe(log.stream, { end: false });
  child.stderr?.pipe(log.stream, { end: false });
  return {
    postMessage: (message) => child.postMessage(message),
    kill: () => child.kill(),
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => child.once('exit', (code) => listener(code)),
  };
}

const host = createServerHost({
  spawn: spawnUtility,
  env: ({ lastFailure }) => {
    loginToken = newLocalLoginToken();
    const remembered = settings.read().port;
    const portTaken = lastFailure?.message.includes('already in use') ?? false;
    return hubChildEnv({
      base: process.env,
      dataDir,
      port: remembered && !portTaken ? remembered : 0,
      localLoginToken: loginToken,
    });
  },
  log: (line) => log.line(line),
});

// ---- hub lifecycle -------------------------------------------------------------------------

/** start()/restart() calls in flight: they show their own failures, onHubState shows the others. */
let starts = 0;

/** Runs a start or restart of the hub; its failure is returned, not thrown. */
async function attempt(run: () => Promise<unknown>): Promise<HubFailure | null> {
  starts += 1;
  try {
    await run();
    return null;
  } catch (err) {
    if (err instanceof HubStartError) return err.failure;
    throw err;
  } finally {
    starts -= 1;
  }
}

async function startHub(): Promise<void> {
  const failure = await attempt(() => host.start());
  if (!failure || quitting) return;
  // A remembered port someone else took: forget it and take a free one, once, without asking.
  if (failure.message.includes('already in use') && settings.read().port) {
    settings.update((s) => ({ ...s, port: undefined }));
    return startHub();
  }
  await showFailure(failure);
}

async function restartHub(): Promise<void> {
  const failure = await attempt(() => host.restart());
  if (failure && !quitting) await showFailure(failure);
}

async function showFailure(failure: HubFailure): Promise<void> {
  const options = failureDialog(failure, { logFile: log.path, dataDir });
  const { response } = await dialog.showMessageBox(options);
  const choice = FAILURE_BUTTONS[response];
  if (choice === 'Retry') await startHub();
  else if (choice === 'Open log folder') {
    await shell.openPath(path.dirname(log.path));
    await showFailure(failure);
  } else app.quit();
}

function onHubState(state: HubState): void {
  if (state.state === 'running') {
    if (settings.read().port !== state.ready.port) settings.update((s) => ({ ...s, port: state.ready.port }));
    void pollHub();
    // A new hub process has a new sign-in token: a visible window signs in again with it.
    if (window && !window.isDestroyed() && window.isVisible()) loadConsole();
    void startReceiver();
  } else {
    pendingDeliveries = null;
    receiverUsers = null;
    void stopReceiver();
  }
  // A crash loop that gave up: nobody awaits a start, so say it here (starts show their own dialog).
  if (state.state === 'failed' && starts === 0 && !quitting) void showFailure(state.failure);
  broadcastStatus();
  refreshTray();
}

async function pollHub(): Promise<void> {
  if (host.state.state !== 'running') return;
  try {
    const [status, receivers] = await Promise.all([host.request('status'), host.request('receivers')]);
    pendingDeliveries = status.pendingDeliveries;
    receiverUsers = receivers.users.map((u) => ({ id: u.id, name: u.name }));
  } catch (err) {
    if (!(err instanceof HubRequestError)) log.line(`status poll failed: ${(err as Error).message}`);
  }
  broadcastStatus();
  refreshTray();
}

// ---- console window ------------------------------------------------------------------------

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1200,
    height: 820,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Pushhub',
    icon: path.join(ASSETS, 'icon.png'),
    autoHideMenuBar: true,
    webPreferences: secureWebPreferences(PRELOAD),
  });
  // Closing the window keeps the hub running in the tray; Quit (tray or app menu) really quits.
  win.on('close', (event) => {
    if (quitting) return;
    event.preventDefault();
    win.hide();
  });
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    if (window === win) window = null;
  });
  return win;
}

/** Loads the console: through the one-time sign-in link while it is unused, else the hub's root. */
function loadConsole(): void {
  if (!window || window.isDestroyed() || host.state.state !== 'running') return;
  const { url } = host.state.ready;
  const target = loginToken ? localLoginUrl(url, loginToken) : `${url}/`;
  loginToken = null;
  void window.loadURL(target).catch((err: Error) => log.line(`console did not load: ${err.message}`));
}

function showConsole(): void {
  if (host.state.state !== 'running') return;
  if (!window || window.isDestroyed()) {
    window = createWindow();
    loadConsole();
    return;
  }
  if (!window.webContents.getURL() || loginToken) loadConsole();
  window.show();
  window.focus();
}

function broadcastStatus(): void {
  if (!window || window.isDestroyed()) return;
  window.webContents.send(DESKTOP_IPC.status, currentStatus());
}

const currentStatus = () => desktopStatus(host.state, pendingDeliveries, { dataDir, logFile: log.path });

// ---- security: every webContents, the session, IPC ------------------------------------------

function openExternal(url: string): void {
  void shell.openExternal(url).catch((err: Error) => log.line(`could not open ${url}: ${err.message}`));
}

function secureContents(contents: WebContents): void {
  installNavigationPolicy(
    {
      onNavigate: (listener) => {
        contents.on('will-frame-navigate', (event) => listener(event));
        contents.on('will-redirect', (event) => listener(event));
      },
      onAttachWebview: (listener) => contents.on('will-attach-webview', (event) => listener(event)),
      setWindowOpenHandler: (handler) => contents.setWindowOpenHandler(handler),
      loadURL: (url) => contents.loadURL(url),
    },
    hubOrigin,
    openExternal,
  );
}

function secureSession(): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(permissionAllowed(permission, details.requestingUrl, hubOrigin()));
  });
  ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) => permissionAllowed(permission, requestingOrigin, hubOrigin()));
}

function handle(channel: string, fn: () => unknown): void {
  ipcMain.handle(channel, (event: IpcMainInvokeEvent) => {
    if (!ipcSenderAllowed(event.senderFrame?.url, hubOrigin())) throw new Error('not allowed from this page');
    return fn();
  });
}

function registerIpc(): void {
  handle(DESKTOP_IPC.getStatus, () => currentStatus());
  handle(DESKTOP_IPC.restartHub, () => restartHub());
  handle(DESKTOP_IPC.openDataFolder, async () => {
    await shell.openPath(dataDir);
  });
}

// ---- start at login ------------------------------------------------------------------------

function autostart() {
  const exec = process.env.APPIMAGE ?? process.execPath;
  // Unpackaged (`electron dist/main/main.js`), Electron needs the entry as its first argument.
  const args = app.isPackaged ? ['--hidden'] : [path.join(here, 'main.js'), '--hidden'];
  return linuxAutostart({
    configHome: process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'),
    id: APP_ID,
    name: 'Pushhub',
    exec,
    args,
  });
}

function startsAtLogin(): boolean {
  if (process.platform === 'linux') return autostart().isEnabled();
  return app.getLoginItemSettings({ args: ['--hidden'] }).openAtLogin;
}

function setStartAtLogin(enabled: boolean): void {
  if (process.platform === 'linux') autostart().setEnabled(enabled);
  else app.setLoginItemSettings({ openAtLogin: enabled, args: ['--hidden'] });
}

// ---- desktop receiver ----------------------------------------------------------------------

const batcher = createNotificationBatcher<StreamNotification>({
  windowMs: 2000,
  max: 3,
  show: (n) => {
    const content = notificationContent(n);
    showNotification(content.title, content.body, content.url);
  },
  showSummary: (items) => showNotification(`${items.length} more notifications`, items.map((n) => n.title).slice(0, 5).join(' · '), null),
});

function showNotification(title: string, body: string, url: string | null): void {
  if (!Notification.isSupported()) return;
  const notification = new Notification({ title, body, icon: path.join(ASSETS, 'icon.png') });
  notifications.add(notification);
  const forget = () => notifications.delete(notification);
  notification.on('click', () => {
    forget();
    if (url) openExternal(url);
    else showConsole();
  });
  notification.on('close', forget);
  notification.show();
}

const connectionOf = (state: ReceiverState): TrayReceiverInfo['connection'] =>
  state === 'connected' || state === 'reconnecting' || state === 'unauthorized' ? state : state === 'connecting' ? 'connecting' : 'off';

async function stopReceiver(): Promise<void> {
  const r = receiver;
  receiver = null;
  receiverConnection = 'off';
  await r?.stop();
}

async function startReceiver(): Promise<void> {
  await stopReceiver();
  const chosen = settings.read().receiver;
  if (!chosen || host.state.state !== 'running') return refreshTray();
  const hubUrl = host.state.ready.url;
  let session: { token: string; user: { id: string; name: string } };
  try {
    session = await host.request('receiver-session', { userId: chosen.userId, token: chosen.token });
  } catch (err) {
    log.line(`desktop notifications: ${(err as Error).message}`);
    if (err instanceof HubRequestError && err.code === 'not_found') settings.update((s) => ({ ...s, receiver: undefined }));
    return refreshTray();
  }
  settings.update((s) => (s.receiver ? { ...s, receiver: { ...s.receiver, token: session.token, name: session.user.name } } : s));
  const r = createDesktopReceiver({
    hubUrl,
    token: session.token,
    deviceName: `Pushhub desktop (${os.hostname()})`,
    deviceToken: chosen.deviceToken,
    lastEventId: chosen.lastEventId,
    onNotification: (n) => batcher.add(n),
    onLastEventId: (id) => settings.update((s) => (s.receiver ? { ...s, receiver: { ...s.receiver, lastEventId: id } } : s)),
    onDevice: (id) => settings.update((s) => (s.receiver ? { ...s, receiver: { ...s.receiver, deviceId: id } } : s)),
    onState: (state, detail) => {
      if (receiver !== r) return;
      receiverConnection = connectionOf(state);
      if (detail) log.line(`desktop notifications: ${state} ${detail}`);
      refreshTray();
      if (state === 'connected') receiverReauths = 0;
      // The session ended (signed out elsewhere, password changed): get a new one, a few times at most.
      if (state === 'unauthorized' && receiverReauths++ < 3) {
        settings.update((s) => (s.receiver ? { ...s, receiver: { ...s.receiver, token: null } } : s));
        void startReceiver();
      }
    },
  });
  receiver = r;
  try {
    await r.start();
  } catch (err) {
    if (receiver === r) log.line(`desktop notifications could not start: ${(err as Error).message}`);
  }
}

async function chooseReceiver(userId: string | null): Promise<void> {
  const current = settings.read().receiver;
  if ((current?.userId ?? null) === userId) return;
  const r = receiver;
  receiver = null;
  if (r) await r.unregister().catch((err: Error) => log.line(`could not remove this desktop's device: ${err.message}`));
  const user = userId ? receiverUsers?.find((u) => u.id === userId) : undefined;
  settings.update((s) => ({
    ...s,
    receiver: user
      ? { userId: user.id, name: user.name, token: null, deviceToken: randomBytes(24).toString('base64url'), deviceId: null, lastEventId: null }
      : undefined,
  }));
  receiverConnection = 'off';
  receiverReauths = 0;
  await startReceiver();
}

// ---- tray ----------------------------------------------------------------------------------

function trayIcon() {
  // macOS: a template image (black + alpha) that follows the menu bar's appearance.
  const file = process.platform === 'darwin' ? 'trayTemplate.png' : 'tray.png';
  return nativeImage.createFromPath(path.join(ASSETS, file));
}

function toMenuItem(item: TrayItem): MenuItemConstructorOptions {
  if (item.type === 'separator') return { type: 'separator' };
  const { action } = item;
  return {
    type: item.type,
    label: item.label,
    enabled: item.enabled ?? true,
    ...(item.checked === undefined ? {} : { checked: item.checked }),
    ...(item.submenu ? { submenu: item.submenu.map(toMenuItem) } : {}),
    ...(action ? { click: () => void onTrayAction(action) } : {}),
  };
}

function refreshTray(): void {
  if (!tray) return;
  const chosen = settings.read().receiver;
  const items = buildTrayMenu({
    hub: host.state,
    pendingDeliveries,
    startAtLogin: startsAtLogin(),
    receiver: {
      users: receiverUsers,
      selected: chosen ? { userId: chosen.userId, name: chosen.name } : null,
      connection: receiverConnection,
    },
  });
  tray.setToolTip(trayTooltip({ hub: host.state, pendingDeliveries }));
  // Rebuilding an unchanged menu makes some Linux trays flicker.
  const json = JSON.stringify(items);
  if (json === lastMenuJson) return;
  lastMenuJson = json;
  tray.setContextMenu(Menu.buildFromTemplate(items.map(toMenuItem)));
}

async function onTrayAction(action: TrayAction): Promise<void> {
  const ready = host.state.state === 'running' ? host.state.ready : null;
  switch (action.kind) {
    case 'open-console':
      return showConsole();
    case 'open-receiver':
      // The web receiver is a PWA for browsers (Web Push, install): the system browser, not this window.
      if (ready) openExternal(receiverUrl(ready));
      return;
    case 'copy-push-url':
      if (ready) clipboard.writeText(pushUrl(ready));
      return;
    case 'toggle-start-at-login':
      setStartAtLogin(!startsAtLogin());
      return refreshTray();
    case 'open-data-folder':
      await shell.openPath(dataDir);
      return;
    case 'restart-hub':
      return restartHub();
    case 'choose-receiver':
      return chooseReceiver(action.userId);
    case 'quit':
      app.quit();
      return;
  }
}

// ---- app lifecycle -------------------------------------------------------------------------

function onReady(): void {
  log.line(`Pushhub desktop ${app.getVersion()} starting (Electron ${process.versions.electron}, data in ${dataDir})`);
  secureSession();
  registerIpc();
  app.on('web-contents-created', (_event, contents) => secureContents(contents));
  host.onState(onHubState);
  tray = new Tray(trayIcon());
  tray.on('click', () => showConsole());
  refreshTray();
  setInterval(() => void pollHub(), STATUS_POLL_MS).unref();
  void (async () => {
    await startHub();
    if (!startHidden) showConsole();
  })();
}

if (!primary) {
  // Another Pushhub already runs on this data folder: it shows its window (second-instance) and this one leaves.
  app.quit();
} else {
  app.on('second-instance', () => showConsole());
  app.on('activate', () => showConsole()); // macOS: the Dock icon
  // The hub lives in the tray: closing the last window does not quit.
  app.on('window-all-closed', () => {});
  app.on('before-quit', (event) => {
    if (quitting) return;
    // Stop the hub (SQLite closed cleanly) before Electron tears down; then quit for real.
    quitting = true;
    event.preventDefault();
    batcher.dispose();
    void (async () => {
      await stopReceiver().catch(() => {});
      await host.stop().catch(() => {});
      log.line('quit');
      await log.close();
      app.quit();
    })();
  });
  app.whenReady().then(onReady, (err: Error) => log.line(`Electron did not start: ${err.message}`));
}
