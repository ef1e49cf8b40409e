// The console window's preload (sandboxed, context-isolated). A sandboxed preload is a CommonJS
// script whose `require` only knows a few Electron modules, so this file is self-contained: it
// imports nothing at run time but `electron`, and repeats the channel names of desktop-bridge.ts.
// It exposes four functions and never ipcRenderer itself (Electron "Security" checklist, item 20).
import electron = require('electron');
import type { DesktopHubStatus, PushhubDesktopBridge } from './desktop-bridge.js';

const CHANNELS = {
  getStatus: 'pushhub:get-status',
  status: 'pushhub:status',
  restartHub: 'pushhub:restart-hub',
  openDataFolder: 'pushhub:open-data-folder',
} as const;

const { contextBridge, ipcRenderer } = electron;

const bridge: PushhubDesktopBridge = {
  getStatus: () => ipcRenderer.invoke(CHANNELS.getStatus) as Promise<DesktopHubStatus>,
  onStatus(listener) {
    if (typeof listener !== 'function') throw new TypeError('onStatus needs a function');
    // The page gets the status only, never the IPC event (it carries the sender).
    const handler = (_event: unknown, status: DesktopHubStatus) => listener(status);
    ipcRenderer.on(CHANNELS.status, handler);
    return () => {
      ipcRenderer.removeListener(CHANNELS.status, handler);
    };
  },
  restartHub: async () => {
    await ipcRenderer.invoke(CHANNELS.restartHub);
  },
  openDataFolder: async () => {
    await ipcRenderer.invoke(CHANNELS.openDataFolder);
  },
};

contextBridge.exposeInMainWorld('pushhubDesktop', bridge);
