import type { IncomingMessage } from 'node:http';
import express, { type Express } from 'express';
import proxyaddr from 'proxy-addr';
import helmet from 'helmet';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import type { HubConfig } from '../config/config.js';
import { HubError } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import type { PushService } from '../domain/push-service.js';
import type { SenderRegistry } from '../delivery/sender-registry.js';
import type { VapidKeys } from '../delivery/senders/webpush-sender.js';
import type { StreamHub } from '../delivery/stream-hub.js';
import type { Store } from '../store/index.js';
import { requireSession } from './middleware/auth.js';
import { errorHandler, notFound } from './middleware/errors.js';
import { createKeyedLimiter, type KeyedLimiter } from './middleware/rate-limit.js';
import { hostGuard, originGuard } from './middleware/security.js';
import { createAdminRoutes } from './routes/admin.js';
import { createAuthRoutes, type SetupState } from './routes/auth.js';
import { createConsoleApiRoutes, createConsoleRoutes, findRendererDir } from './routes/console.js';
import { createEmojiRoutes } from './routes/emoji.js';
import { createPairingAdminRoutes, createPairingReceiverRoutes } from './routes/pairing.js';
import { createReceiverRoutes } from './routes/receiver.js';
import { createSettingsRoutes } from './routes/settings.js';
import { createStatsRoutes } from './routes/stats.js';
import { createTestPushRoutes } from './routes/test-push.js';

/** Everything the HTTP layer is built from (DESIGN.md convention 6: passed in, no singletons). */
export interface AppDeps {
  config: HubConfig;
  store: Store;
  clock: Clock;
  pushService: PushService;
  logger: Logger;
  setup: SetupState;
  streamHub: StreamHub;
  senders: SenderRegistry;
  /** Makes the dispatcher look at the outbox now. */
  wakeDispatcher: () => void;
  /** The built renderer (console and web receiver); default: dist/renderer when built, else none. */
  rendererDir?: string | null;
  /**
   * The per-app rate limiter of `POST /v1/push`, so the console's test push spends the same
   * tokens; default: one of its own with the same settings.
   */
  perApp?: KeyedLimiter;
}

/** PUSHHUB_TRUST_PROXY as Express and proxy-addr take it: a hop count, or names/addresses/subnets. */
export function trustProxyValue(setting: string): number | string[] {
  return /^\d+$/.test(setting) ? Number(setting) : setting.split(',').map((s) => s.trim()).filter(Boolean);
}

/**
 * The client's address as Express's `req.ip` computes it for the same setting (proxy-addr),
 * for the parts of the hub answered ahead of Express.
 */
export function clientAddressFrom(setting: string): (req: IncomingMessage) => string {
  const value = trustProxyValue(setting);
  const trust = typeof value === 'number' ? (_addr: string, hop: number) => hop < value : proxyaddr.compile(value);
  return (req) => proxyaddr(req, trust);
}

/**
 * Builds the hub's Express app: `/api/*` (admin and receiver APIs), `/healthz`,
 * the first-run `/setup` page, the console at `/` (built renderer), security headers and a
 * strict CSP on every answer, a `Host` allowlist (DNS rebinding), an `Origin` check on
 * state-changing `/api` requests (CSRF) and one error renderer.
 */
export function createApp(deps: AppDeps): Express {
  const { config, store, pushService, logger, setup } = deps;
  const app = express();
  app.disable('x-powered-by');
  // Behind a reverse proxy, req.ip is the client's address only when the proxy is trusted.
  if (config.trustProxy) app.set('trust proxy', trustProxyValue(config.trustProxy));
  app.use(
    helmet({
      // The hub usually serves plain HTTP on a LAN: forcing https would lock the operator out.
      strictTransportSecurity: false,
      // The console is built by Vite into files: no inline script or style is needed anywhere.
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          scriptSrcAttr: ["'none'"],
          styleSrc: ["'self'"],
          // Notification image previews come from anywhere on https.
          imgSrc: ["'self'", 'data:', 'https:'],
          fontSrc: ["'self'"],
          connectSrc: ["'self'"],
          objectSrc: ["'none'"],
          baseUri: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          upgradeInsecureRequests: null,
        },
      },
      frameguard: { action: 'deny' },
    }),
  );
  app.use(
    pinoHttp({
      logger: logger.child({ component: 'http' }),
      // Log the path only: query strings can carry tokens (the setup URL, EventSource auth).
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, path: req.url.split('?')[0] }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'debug'),
    }),
  );
  // Against DNS rebinding; /v1/push is reached by scripts under any name and authenticated by its body.
  app.use(hostGuard(config, ['/v1/push']));

  app.get('/healthz', (_req, res) => {
    try {
      store.db.prepare('SELECT 1').get();
      res.json({ status: 'ok' });
    } catch {
      throw new HubError('unavailable', 'the database does not answer');
    }
  });

  app.use('/api', originGuard(config));
  app.use('/api', express.json({ limit: config.bodyLimitBytes }));
  const loginFailures = createKeyedLimiter(config.rateLimit.authFailures);
  // Pairing links sign a device in without a session: ahead of the receiver routes' session check.
  app.use('/api/receiver', createPairingReceiverRoutes({ store, loginFailures }));
  app.use(
    '/api/receiver',
    createReceiverRoutes({
      store,
      clock: deps.clock,
      streamHub: deps.streamHub,
      loginFailures,
      wakeDispatcher: deps.wakeDispatcher,
      vapidPublicKey: () => store.settings.get<VapidKeys>('webpush')?.publicKey ?? null,
      heartbeatMs: config.streamHeartbeatMs,
    }),
  );
  app.use('/api/console', createConsoleApiRoutes({ config, store, setup }));
  // Emoji images for notification icons (the web receiver's service worker, native apps).
  app.use('/emoji', createEmojiRoutes());
  app.use(createConsoleRoutes({ dir: deps.rendererDir === undefined ? findRendererDir() : deps.rendererDir }));
  app.use(createAuthRoutes({ store, setup, loginFailures, localLogin: { token: config.localLoginToken ?? null } }));
  app.use('/api', requireSession(store, 'admin'));
  app.use('/api/settings', createSettingsRoutes({ store, senders: deps.senders }));
  app.use('/api', createAdminRoutes({ store }));
  app.use('/api', createPairingAdminRoutes({ store, config }));
  // One bucket per app, shared with /v1/push (answered ahead of Express, see push-handler.ts).
  app.use('/api', createTestPushRoutes({ store, pushService, perApp: deps.perApp ?? createKeyedLimiter(config.rateLimit.perApp) }));
  app.use('/api', createStatsRoutes({ store, clock: deps.clock }));
  app.use(['/api', '/v1'], notFound);
  app.use(errorHandler(logger));
  return app;
}
