/**
 * The preload bridge's contract (issue "Desktop app": "a narrow typed preload bridge (only desktop
 * concerns: hub status, restart, open data folder)"). The console page served by the hub finds it
 * at `window.pushhubDesktop` when it runs inside the desktop app, and `undefined` in a browser:
 *
 * ```ts
 * import type { PushhubDesktopBridge } from '../main/desktop-bridge.js';
 * const desktop = (window as { pushhubDesktop?: PushhubDesktopBridge }).pushhubDesktop;
 * ```
 *
 * main/preload.cts implements it (a sandboxed preload cannot import this module at run time, so
 * it repeats the channel names; test/unit/main-preload.test.ts checks that they agree). It imports
 * nothing, so the renderer can import its types without pulling in the server or Node.
 */

/** The global the bridge is exposed as (`window.pushhubDesktop`). */
export const DESKTOP_BRIDGE_KEY = 'pushhubDesktop';

/** IPC channels between the preload and the main process. */
export const DESKTOP_IPC = {
  /** invoke → {@link DesktopHubStatus} */
  getStatus: 'pushhub:get-status',
  /** main → renderer event carrying a {@link DesktopHubStatus} whenever it changes */
  status: 'pushhub:status',
  /** invoke → void: restarts the hub (the window reloads once it is back) */
  restartHub: 'pushhub:restart-hub',
  /** invoke → void: opens the data folder in the file manager */
  openDataFolder: 'pushhub:open-data-folder',
} as const;

/** The hub as the desktop app sees it. */
export interface DesktopHubStatus {
  state: 'starting' | 'running' | 'restarting' | 'failed' | 'stopping' | 'stopped';
  /** The hub's base URL while running, e.g. `http://127.0.0.1:8780`. */
  url: string | null;
  port: number | null;
  /** Deliveries waiting in the outbox; null when unknown. */
  pendingDeliveries: number | null;
  /** Where the database lives (the app's userData folder). */
  dataDir: string;
  /** The hub's log file. */
  logFile: string;
  /** Why the hub is failed or restarting, for a person. */
  message: string | null;
}

/** What `window.pushhubDesktop` offers; nothing else of Electron or Node reaches the page. */
export interface PushhubDesktopBridge {
  getStatus(): Promise<DesktopHubStatus>;
  /** Calls `listener` on every status change; returns the function that stops it. */
  onStatus(listener: (status: DesktopHubStatus) => void): () => void;
  restartHub(): Promise<void>;
  openDataFolder(): Promise<void>;
}
