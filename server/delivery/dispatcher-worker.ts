// The dispatcher's thread (issue 7: "the dispatcher runs off the request path"). It has its own
// SQLite connection to the hub's database and the push service senders; stream deliveries are
// handed to the HTTP thread, which holds the open receiver streams. See dispatcher-host.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { systemClock } from '../domain/clock.js';
import { openDatabase } from '../store/db.js';
import { createStore } from '../store/index.js';
import { createDispatcher } from './dispatcher.js';
import { createSenderRegistry } from './sender-registry.js';
import type { NotificationContent } from './types.js';
import type { DispatcherWorkerData, FromWorker, OutcomeReport, ToWorker } from './worker-protocol.js';

const port = parentPort!;
const data = workerData as DispatcherWorkerData;
const post = (m: FromWorker) => port.postMessage(m);

const logger = pino({ level: data.logLevel, base: { component: 'dispatcher' } }, pino.destination(2));
// Outcomes are written without an fsync per commit (synchronous=NORMAL in WAL mode): after a
// power loss the last outcomes may be lost, and those deliveries are sent again (at-least-once).
// Accepted pushes stay durable: the HTTP thread commits them with the configured FULL.
const db = openDatabase(data.dataDir, { synchronous: 'NORMAL', busyTimeoutMs: data.busyTimeoutMs });
const store = createStore(db, systemClock);

let nextRequestId = 1;
const waitingStreams = new Map<number, (delivered: boolean) => void>();
// Stream devices with an open stream (told by the HTTP thread): the others need no round trip.
let onlineDevices = new Set<string>();
const streamTarget = {
  sendToDevice: (deviceId: string, notification: NotificationContent) =>
    !onlineDevices.has(deviceId) ? false : new Promise<boolean>((resolve) => {
      const requestId = nextRequestId++;
      waitingStreams.set(requestId, resolve);
      post({ type: 'stream', requestId, deviceId, notification });
    }),
};

const senders = createSenderRegistry({
  settings: store.settings,
  streamTarget,
  transport: data.transport,
  apnsOrigin: data.apnsOrigin,
  fcmOrigin: data.fcmOrigin,
  logger,
});
// Outcomes go to the HTTP thread's metrics, batched per event-loop turn.
let outcomes: OutcomeReport[] = [];
const dispatcher = createDispatcher({
  outbox: store.outbox,
  senderFor: senders.senderFor,
  clock: systemClock,
  logger,
  options: data.options,
  onOutcome: (channel, outcome, latencyMs) => {
    outcomes.push(latencyMs === undefined ? { channel, outcome } : { channel, outcome, latencyMs });
    if (outcomes.length === 1) {
      setImmediate(() => {
        post({ type: 'outcomes', items: outcomes });
        outcomes = [];
      });
    }
  },
});

port.on('message', (m: ToWorker) => {
  switch (m.type) {
    case 'wake':
      dispatcher.wake();
      return;
    case 'reload':
      void senders.reload(m.channel).then(() => post({ type: 'reloaded', requestId: m.requestId }));
      return;
    case 'stream-devices':
      onlineDevices = new Set(m.online);
      return;
    case 'stream-device':
      if (m.online) onlineDevices.add(m.deviceId);
      else onlineDevices.delete(m.deviceId);
      return;
    case 'stream-result':
      waitingStreams.get(m.requestId)?.(m.delivered);
      waitingStreams.delete(m.requestId);
      return;
    case 'stop':
      void (async () => {
        await dispatcher.stop(m.timeoutMs);
        for (const resolve of waitingStreams.values()) resolve(false);
        await senders.close();
        db.close();
        post({ type: 'stopped' });
        port.close();
      })();
  }
});

dispatcher.start();
post({ type: 'ready' });
