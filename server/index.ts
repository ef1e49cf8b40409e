import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { pino, type Logger } from 'pino';
import { isLoopbackHost, type HubConfig } from './config/config.js';
import { systemClock, type Clock } from './domain/clock.js';
import { newSessionToken } from './domain/keys.js';
import { hashPassword } from './domain/passwords.js';
import { createPushService } from './domain/push-service.js';
import { clientAddressFrom, createApp } from './http/app.js';
import { createKeyedLimiter } from './http/middleware/rate-limit.js';
import { createPushHandler, isPushRequest } from './http/push-handler.js';
import type { SetupState } from './http/routes/auth.js';
import { startDispatcherWorker, type DispatcherHost } from './delivery/dispatcher-host.js';
import { generateVapidKeys } from './delivery/senders/webpush-sender.js';
import { createStreamHub } from './delivery/stream-hub.js';
import { createMetrics, createMetricsHandler, routeGroup } from './metrics.js';
import { openDatabase } from './store/db.js';
import { createStore, type Store } from './store/index.js';

/** Optional replacements for the hub's collaborators (tests pass a fixed clock or a quiet logger). */
export interface HubDeps {
  clock?: Clock;
  logger?: Logger;
}

/** A running hub. */
export interface Hub {
  /** Base URL, e.g. `http://127.0.0.1:8780`. */
  url: string;
  port: number;
  /** The one-time setup URL when no admin account exists yet, else null. */
  setupUrl: string | null;
  store: Store;
  /** The outbox dispatcher, running in its own thread. */
  dispatcher: DispatcherHost;
  /** Stops taking connections, ends live streams, lets in-flight requests and sends finish (bounded), closes the database. */
  close(): Promise<void>;
}

/** The VAPID subject used until the operator sets one (RFC 8292 §2.1: a mailto: or https: contact). */
export const DEFAULT_VAPID_SUBJECT = 'mailto:pushhub@localhost';

/** Thrown when the hub refuses to start; the message says why and what to do. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

const urlHost = (host: string) => (host.includes(':') ? `[${host}]` : host);

/**
 * The one wiring point (DESIGN.md "Layout"): opens the database in `config.dataDir`, creates the
 * `admin` account from `config.adminPassword` on first start, and serves HTTP on
 * `config.host:config.port` (0 = a free port).
 *
 * @throws StartupError when binding a non-loopback host without an admin account, or when
 *   the port is taken; DatabaseTooNewError for a database from a newer Pushhub.
 */
export async function startHub(config: HubConfig, deps: HubDeps = {}): Promise<Hub> {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? pino({ level: config.logLevel });
  let extraCa: string[] | undefined;
  if (config.extraCaFile) {
    try {
      extraCa = [fs.readFileSync(config.extraCaFile, 'utf8')];
    } catch (err) {
      throw new StartupError(`cannot read PUSHHUB_EXTRA_CA_FILE ${config.extraCaFile}: ${(err as Error).message}`);
    }
  }
  const db = openDatabase(config.dataDir, { synchronous: config.synchronous, busyTimeoutMs: config.busyTimeoutMs });
  let dispatcher: DispatcherHost | undefined;
  try {
    const store = createStore(db, clock);
    if (config.adminPassword && store.auth.adminCount() === 0) {
      store.auth.createFirstAdmin('admin', await hashPassword(config.adminPassword));
      logger.info('created the admin account "admin" from PUSHHUB_ADMIN_PASSWORD');
    }
    const hasAdmin = store.auth.adminCount() > 0;
    if (!hasAdmin && !isLoopbackHost(config.host)) {
      throw new StartupError(
        `refusing to listen on ${config.host} before an admin account exists: anyone on the network could claim ` +
          'the hub. Set PUSHHUB_ADMIN_PASSWORD, or start once on 127.0.0.1 and complete the setup.',
      );
    }
    const setup: SetupState = { token: hasAdmin ? null : newSessionToken() };
    if (!store.settings.get('webpush')) {
      store.settings.set('webpush', generateVapidKeys(DEFAULT_VAPID_SUBJECT));
      logger.info('generated the Web Push (VAPID) keys');
    }

    const metrics = createMetrics(store);
    // The dispatcher thread learns which stream devices are online as they come and go.
    let dispatcherHost: DispatcherHost | undefined;
    const streamHub = createStreamHub((deviceId, online) => dispatcherHost?.streamDevice(deviceId, online));
    const host = await startDispatcherWorker({
      data: {
        dataDir: config.dataDir,
        synchronous: config.synchronous,
        busyTimeoutMs: config.busyTimeoutMs,
        logLevel: config.logLevel,
        options: config.delivery,
        transport: { ...(extraCa ? { extraCa } : {}), requestTimeoutMs: config.delivery.requestTimeoutMs },
        apnsOrigin: config.apnsOrigin,
        fcmOrigin: config.fcmOrigin,
      },
      streamHub,
      logger,
      onOutcomes: (items) => {
        for (const o of items) {
          metrics.deliveries.inc({ channel: o.channel, outcome: o.outcome });
          if (o.latencyMs !== undefined) metrics.deliveryLatency.observe({ channel: o.channel }, o.latencyMs / 1000);
        }
      },
    });
    dispatcher = host;
    dispatcherHost = host;
    const pushService = createPushService({
      store,
      clock,
      onlineStreamDevices: streamHub.onlineDevicesJson,
      onAccepted: (notification, userIds) => {
        try {
          streamHub.publishToUsers(userIds, notification);
        } catch (err) {
          logger.error({ err }, 'could not publish to live streams');
        }
        host.wake();
      },
    });
    const perApp = createKeyedLimiter(config.rateLimit.perApp, undefined, () => metrics.rateLimited.inc({ limiter: 'app' }));
    const app = createApp({
      config,
      store,
      clock,
      pushService,
      logger,
      setup,
      streamHub,
      senders: host,
      wakeDispatcher: host.wake,
      perApp,
    });

    // POST /v1/push takes a lean path ahead of Express (docs/decisions/0003-push-fast-path.md).
    const pushHandler = createPushHandler({
      store,
      pushService,
      perApp,
      authFailures: createKeyedLimiter(config.rateLimit.authFailures, undefined, () => metrics.rateLimited.inc({ limiter: 'auth' })),
      bodyLimitBytes: config.bodyLimitBytes,
      maxOutboxDepth: config.delivery.maxOutboxDepth,
      logger: logger.child({ component: 'push' }),
      onAnswer: (status) => metrics.pushes.inc({ status: String(status) }),
      ...(config.trustProxy ? { clientAddress: clientAddressFrom(config.trustProxy) } : {}),
    });
    const metricsHandler = createMetricsHandler({ metrics, store, metricsToken: config.metricsToken });
    const server = http.createServer((req, res) => {
      const started = performance.now();
      res.once('finish', () => {
        metrics.requestDuration.observe(
          { route: routeGroup(req.url), method: req.method ?? 'GET', status: String(res.statusCode) },
          (performance.now() - started) / 1000,
        );
      });
      if (isPushRequest(req)) pushHandler(req, res);
      else if (req.method === 'GET' && routeGroup(req.url) === '/metrics') metricsHandler(req, res);
      else app(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) =>
        reject(err.code === 'EADDRINUSE' ? new StartupError(`port ${config.port} on ${config.host} is already in use`) : err),
      );
      server.listen(config.port, config.host, resolve);
    });
    const { port } = server.address() as AddressInfo;
    const url = `http://${urlHost(config.host)}:${port}`;
    const setupUrl = setup.token ? `${url}/setup?token=${setup.token}` : null;

    let closing: Promise<void> | undefined;
    return {
      url,
      port,
      setupUrl,
      store,
      dispatcher: host,
      close() {
        closing ??= (async () => {
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          streamHub.closeAll();
          server.closeIdleConnections();
          await Promise.all([closed, host.stop(5000)]);
          db.close();
        })();
        return closing;
      },
    };
  } catch (err) {
    await dispatcher?.stop(0);
    db.close();
    throw err;
  }
}
