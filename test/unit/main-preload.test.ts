import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DESKTOP_BRIDGE_KEY, DESKTOP_IPC, type DesktopHubStatus } from '../../main/desktop-bridge.js';

// The preload bridge's surface (main/preload.cts). The preload is compiled the way the build does
// (CommonJS) and run the way a sandboxed renderer runs it: a script whose `require` knows
// `electron` only. A fake contextBridge records what reaches the page.

const source = fs.readFileSync(path.resolve(import.meta.dirname, '../../main/preload.cts'), 'utf8');

function loadPreload() {
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    fileName: 'preload.cts',
  });
  const exposed = new Map<string, unknown>();
  const invoked: string[] = [];
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  const required: string[] = [];
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
    ipcRenderer: {
      invoke: async (channel: string, ...args: unknown[]) => {
        invoked.push(channel);
        if (args.length) throw new Error('the bridge passes no arguments');
        return channel === DESKTOP_IPC.getStatus ? { state: 'running' } : undefined;
      },
      on: (channel: string, l: (...args: unknown[]) => void) => {
        if (!listeners.has(channel)) listeners.set(channel, new Set());
        listeners.get(channel)!.add(l);
      },
      removeListener: (channel: string, l: (...args: unknown[]) => void) => listeners.get(channel)?.delete(l),
      send: () => {
        throw new Error('not used');
      },
    },
  };
  const module = { exports: {} };
  const sandboxRequire = (id: string) => {
    required.push(id);
    if (id === 'electron') return electron;
    throw new Error(`a sandboxed preload cannot require "${id}"`);
  };
  vm.runInNewContext(outputText, { require: sandboxRequire, module, exports: module.exports }, { filename: 'preload.cjs' });
  const emit = (channel: string, ...args: unknown[]) => listeners.get(channel)?.forEach((l) => l(...args));
  return { exposed, invoked, listeners, required, emit };
}

describe('preload bridge', () => {
  it('exposes exactly four functions under window.pushhubDesktop, requiring nothing but electron', () => {
    const { exposed, required } = loadPreload();
    expect(required).toEqual(['electron']);
    expect([...exposed.keys()]).toEqual([DESKTOP_BRIDGE_KEY]);
    expect(DESKTOP_BRIDGE_KEY).toBe('pushhubDesktop');
    const api = exposed.get('pushhubDesktop') as Record<string, unknown>;
    expect(Object.keys(api).sort()).toEqual(['getStatus', 'onStatus', 'openDataFolder', 'restartHub']);
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
  });

  it('uses the channels main.ts answers (desktop-bridge.ts), passing no arguments and returning no IPC objects', async () => {
    const { exposed, invoked } = loadPreload();
    const api = exposed.get('pushhubDesktop') as {
      getStatus(): Promise<unknown>;
      restartHub(): Promise<unknown>;
      openDataFolder(): Promise<unknown>;
    };
    await expect(api.getStatus()).resolves.toEqual({ state: 'running' });
    await expect(api.restartHub()).resolves.toBeUndefined();
    await expect(api.openDataFolder()).resolves.toBeUndefined();
    expect(invoked).toEqual([DESKTOP_IPC.getStatus, DESKTOP_IPC.restartHub, DESKTOP_IPC.openDataFolder]);
    // The preload repeats the names (it cannot import them): every channel it mentions is one of ours.
    const mentioned = [...source.matchAll(/'(pushhub:[a-z-]+)'/g)].map((m) => m[1]).sort();
    expect(mentioned).toEqual(Object.values(DESKTOP_IPC).sort());
  });

  it('onStatus hands the page the status only (never the IPC event) and unsubscribes', () => {
    const { exposed, listeners, emit } = loadPreload();
    const api = exposed.get('pushhubDesktop') as { onStatus(l: (s: DesktopHubStatus) => void): () => void };
    const seen: unknown[][] = [];
    const stop = api.onStatus((...args) => seen.push(args));
    expect(listeners.get(DESKTOP_IPC.status)?.size).toBe(1);
    const ipcEvent = { sender: { send() {} }, senderFrame: {} };
    emit(DESKTOP_IPC.status, ipcEvent, { state: 'restarting' });
    expect(seen).toEqual([[{ state: 'restarting' }]]);
    expect(typeof stop).toBe('function');
    stop();
    expect(listeners.get(DESKTOP_IPC.status)?.size).toBe(0);
    emit(DESKTOP_IPC.status, ipcEvent, { state: 'running' });
    expect(seen).toHaveLength(1);
    expect(() => api.onStatus('not a function' as never)).toThrow('onStatus needs a function');
  });
});
