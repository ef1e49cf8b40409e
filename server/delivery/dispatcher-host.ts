import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Channel } from '../store/device-store.js';
import type { SenderRegistry } from './sender-registry.js';
import type { StreamHub } from './stream-hub.js';
import type { DispatcherWorkerData, FromWorker, OutcomeReport, ToWorker } from './worker-protocol.js';

/** The dispatcher as the HTTP process sees it: a worker thread it can wake, reconfigure and stop. */
export interface DispatcherHost extends SenderRegistry {
  /** Makes the dispatcher look at the outbox now (after a push was accepted or a device reconnected). */
  wake(): void;
  /** Tells the thread a `stream` device's stream opened or closed. */
  streamDevice(deviceId: string, online: boolean): void;
  /** Stops taking new work and waits up to `timeoutMs` for sends in flight, then ends the thread. */
  stop(timeoutMs: number): Promise<void>;
}

/** tsx's loader API, to run the worker from the TypeScript sources (a devDependency). */
function tsxApi(): string {
  const require = createRequire(import.meta.url);
  const pkgFile = require.resolve('tsx/package.json');
  const api = (JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as { exports: Record<string, { import: { default?: string } | string }> })
    .exports['./esm/api']!.import;
  return pathToFileURL(path.join(path.dirname(pkgFile), typeof api === 'string' ? api : api.default!)).href;
}

/** Shortest time between two wake-ups of the dispatcher thread (ms). */
const WAKE_INTERVAL_MS = 5;

/** Milliseconds before a crashed dispatcher thread is started again (doubling up to 30 s). */
const RESTART_BACKOFF_MS = [500, 1000, 2000, 5000, 10_000, 30_000];

/**
 * Runs the outbox dispatcher in a worker thread (on the second core), so sending never takes
 * time from the requests: the thread opens its own connection to the database and builds the
 * senders from the stored settings; stream deliveries come back to `streamHub` here, where the
 * receivers' connections are. A thread that dies is started again with backoff; deliveries live
 * in the database, so nothing is lost meanwhile.
 *
 * From the TypeScript sources (tests, `npm run dev`) the thread loads them through tsx.
 */
export function startDispatcherWorker(deps: {
  data: DispatcherWorkerData;
  streamHub: StreamHub;
  logger: Logger;
  /** Hears the delivery outcomes the thread reports (for the metrics). */
  onOutcomes?: (items: OutcomeReport[]) => void;
}): Promise<DispatcherHost> {
  const fromSources = import.meta.url.endsWith('.ts');
  const entry = new URL(`./dispatcher-worker.${fromSources ? 'ts' : 'js'}`, import.meta.url);
  let worker: Worker;
  let stopping = false;
  let restarts = 0;
  let nextRequestId = 1;
  const reloads = new Map<number, () => void>();

  const spawn = (): Promise<void> =>
    new Promise((resolve, reject) => {
      worker = fromSources
        ? // Worker threads ignore --import in execArgv on Node 20: register tsx inside the thread.
          new Worker(
            `import(${JSON.stringify(tsxApi())}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`,
            { eval: true, workerData: deps.data },
          )
        : new Worker(entry, { workerData: deps.data });
      worker.on('message', (m: FromWorker) => {
        switch (m.type) {
          case 'ready':
            worker.postMessage({ type: 'stream-devices', online: deps.streamHub.onlineDevices() } satisfies ToWorker);
            resolve();
            return;
          case 'reloaded':
            reloads.get(m.requestId)?.();
            reloads.delete(m.requestId);
            return;
          case 'stream':
            worker.postMessage({
              type: 'stream-result',
              requestId: m.requestId,
              delivered: deps.streamHub.sendToDevice(m.deviceId, m.notification),
            } satisfies ToWorker);
            return;
          case 'outcomes':
            deps.onOutcomes?.(m.items);
            return;
          case 'stopped':
            return;
        }
      });
      worker.on('error', (err) => {
        deps.logger.error({ err }, 'the dispatcher thread failed');
        reject(err);
      });
      worker.on('exit', (code) => {
        for (const done of reloads.values()) done();
        reloads.clear();
        if (stopping) return;
        const wait = RESTART_BACKOFF_MS[Math.min(restarts++, RESTART_BACKOFF_MS.length - 1)]!;
        deps.logger.error({ code, restartInMs: wait }, 'the dispatcher thread exited; starting it again');
        setTimeout(() => {
          if (!stopping) spawn().catch(() => undefined);
        }, wait).unref();
      });
    });

  const send = (m: ToWorker) => worker.postMessage(m);

  // A burst of pushes wakes the thread at most once per WAKE_INTERVAL_MS (a postMessage costs
  // tens of µs; the thread looks at the outbox at most that often anyway).
  let wakeQueued = false;
  let lastWake = -Infinity;
  const wake = () => {
    if (wakeQueued) return;
    wakeQueued = true;
    const fire = () => {
      wakeQueued = false;
      lastWake = performance.now();
      send({ type: 'wake' });
    };
    const wait = lastWake + WAKE_INTERVAL_MS - performance.now();
    if (wait > 0) setTimeout(fire, wait);
    else setImmediate(fire);
  };

  return spawn().then(() => ({
    wake,
    streamDevice: (deviceId: string, online: boolean) => send({ type: 'stream-device', deviceId, online }),
    reload: (channel: Channel) =>
      new Promise<void>((resolve) => {
        const requestId = nextRequestId++;
        reloads.set(requestId, resolve);
        send({ type: 'reload', channel, requestId });
      }),
    async stop(timeoutMs: number) {
      stopping = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      send({ type: 'stop', timeoutMs });
      const timer = setTimeout(() => void worker.terminate(), timeoutMs + 2000);
      await exited;
      clearTimeout(timer);
    },
  }));
}
