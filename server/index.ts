import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { pino, type Logger } from 'pino';
import { isLoopbackHost, type HubConfig } from './config/config.js';
import { systemClock, type Clock } from './domain/clock.js';
import { newSessionToken } from './domain/keys.js';
import { hashPassword } from './domain/passwords.js';
import { createPushService } from './domain/push-service.js';
import { createApp } from './http/app.js';
import type { SetupState } from './http/routes/auth.js';
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
  /** Stops taking connections, lets in-flight requests finish, closes the database. */
  close(): Promise<void>;
}

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
  const db = openDatabase(config.dataDir, { synchronous: config.synchronous });
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
    const pushService = createPushService({ store, clock });
    const app = createApp({ config, store, pushService, logger, setup });

    const server = http.createServer(app);
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
      close() {
        closing ??= new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        }).then(() => {
          db.close();
        });
        return closing;
      },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}
