import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type Request, type Response } from 'express';
import type { HubConfig } from '../../config/config.js';
import { notificationLimits } from '../../domain/notification.js';
import type { Store } from '../../store/index.js';
import { requireSession, sessionToken } from '../middleware/auth.js';
import { sendPlainPage } from '../middleware/security.js';
import type { SetupState } from './auth.js';

/** Cache-Control of Vite's content-hashed files under `assets/`: their name changes with their content. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Cache-Control of HTML and unhashed files: always revalidated (ETag / Last-Modified). */
export const REVALIDATE = 'no-cache';

/** The web receiver's service worker, relative to the built renderer (served at /receiver/sw.js). */
export const RECEIVER_SERVICE_WORKER = 'receiver/sw.js';

/**
 * Paths of the console's pages (renderer/console/routes.ts): served index.html with 200 so a
 * reload or a shared link opens the page. Keep the two lists in step.
 */
const CONSOLE_PAGE = /^\/(?:|login|setup|apps|users|groups|notifications|send|settings)(?:\/[A-Za-z0-9_-]+)?\/?$/;
/** Paths that never fall back to a page (APIs, the push operation, hashed assets). */
const NOT_PAGES = /^\/(?:api|v1|auth|healthz|assets)(?:\/|$)/;
/** Paths that are never files of the renderer. */
const API_PATHS = /^\/(?:api|v1|auth|healthz)(?:\/|$)/;

/**
 * Where Vite put the built renderer (`dist/renderer`), found from this module's location: the
 * repository root when running from sources (tsx, tests), `dist/` when running the build.
 * @returns the directory, or null when the renderer has not been built.
 */
export function findRendererDir(moduleUrl: string = import.meta.url): string | null {
  const up = path.resolve(path.dirname(fileURLToPath(moduleUrl)), '..', '..', '..');
  const dir = path.basename(up) === 'dist' ? path.join(up, 'renderer') : path.join(up, 'dist', 'renderer');
  return fs.existsSync(path.join(dir, 'index.html')) ? dir : null;
}

const NOT_BUILT =
  '<p>Run <code>npm run build</code> (or <code>npm start</code>, which builds it), then reload this page. For ' +
  'development with hot reload, run <code>npm run dev</code> and <code>npm run dev:renderer</code> (see renderer/README.md).</p>' +
  '<p>The hub itself is running: <code>POST /v1/push</code> and the admin API work.</p>';

/**
 * Serves the built renderer (issue "Admin UI" / "Build and serve"): the console at `/` and the
 * web receiver at `/receiver/`, both from `dir` (`dist/renderer`, see {@link findRendererDir}).
 *
 * - `assets/*` (content-hashed by Vite): `Cache-Control: public, max-age=31536000, immutable`.
 * - index.html and other files: `Cache-Control: no-cache` with ETag, so a new build shows at once.
 * - Console pages (`/apps`, `/users/:id`, …) answer index.html (SPA fallback); any other
 *   extension-less page path answers index.html with 404 (the console shows "not found");
 *   `/receiver/*` answers the receiver's index.html.
 * - `/setup`: browsers navigating there (`Sec-Fetch-Dest: document`) get the console's setup page;
 *   other clients fall through to the script-free form of the auth routes.
 *
 * Only GET and HEAD are handled; everything else, and `/api`, `/v1`, `/auth`, `/healthz`, pass on.
 * With `dir` null (not built), pages answer 503 with how to build the console.
 */
export function createConsoleRoutes({ dir }: { dir: string | null }): Router {
  const router = Router();
  const sendHtml = (res: Response, file: string, status = 200) => {
    res.status(status);
    res.sendFile(file, { headers: { 'Cache-Control': REVALIDATE }, dotfiles: 'deny' });
  };
  const isPage = (req: Request) =>
    (req.method === 'GET' || req.method === 'HEAD') && !NOT_PAGES.test(req.path) && !path.extname(req.path);

  if (dir === null) {
    router.use((req, res, next) => {
      if (!isPage(req) || req.path === '/setup' || req.path.startsWith('/receiver')) {
        next();
        return;
      }
      sendPlainPage(res, 503, 'The console has not been built', NOT_BUILT);
    });
    return router;
  }

  const consoleIndex = path.join(dir, 'index.html');
  const receiverIndex = path.join(dir, 'receiver', 'index.html');

  const serveStatic = express.static(dir, {
      index: false,
      redirect: false,
      dotfiles: 'ignore',
      setHeaders: (res, file) => {
        const rel = path.relative(dir, file).split(path.sep);
        res.setHeader('Cache-Control', rel[0] === 'assets' ? IMMUTABLE : REVALIDATE);
        // The web receiver's service worker (unhashed, always revalidated so an update is seen
        // at once) controls /receiver/ and nothing else.
        if (rel.join('/') === RECEIVER_SERVICE_WORKER) res.setHeader('Service-Worker-Allowed', '/receiver/');
      },
  });
  router.use((req, res, next) => {
    if (API_PATHS.test(req.path)) next();
    else serveStatic(req, res, next);
  });

  router.use((req, res, next) => {
    if (!isPage(req)) {
      next();
      return;
    }
    if (req.path === '/receiver' || req.path.startsWith('/receiver/')) {
      if (!fs.existsSync(receiverIndex)) {
        next();
        return;
      }
      if (req.path === '/receiver') {
        res.redirect(301, '/receiver/');
        return;
      }
      sendHtml(res, receiverIndex);
      return;
    }
    if (req.path === '/setup') {
      res.vary('Sec-Fetch-Dest');
      if (req.get('sec-fetch-dest') !== 'document') {
        next();
        return;
      }
    }
    const known = CONSOLE_PAGE.test(req.path);
    if (!known && req.accepts('html') !== 'html') {
      next();
      return;
    }
    sendHtml(res, consoleIndex, known ? 200 : 404);
  });
  return router;
}

/**
 * `GET /api/console/status` (public): `{setupRequired, signedIn}`, so the console can choose
 * between setup, sign-in and itself without provoking a 401, and the sign-in page can tell a
 * fresh hub from a forgotten password. `GET /api/console/info` (admin session): what the console shows
 * about the hub itself: `publicUrl` (PUSHHUB_PUBLIC_URL, null when unset: the console then uses
 * its own origin in snippets), the listen address, and the limits in force (bytes, counts, ms).
 */
export function createConsoleApiRoutes({ config, store, setup }: { config: HubConfig; store: Store; setup: SetupState }): Router {
  const router = Router();
  router.get('/status', (req, res) => {
    const token = sessionToken(req);
    res.set('Cache-Control', 'no-store').json({
      setupRequired: setup.token !== null && store.auth.adminCount() === 0,
      signedIn: token !== undefined && store.auth.findSession(token, 'admin') !== undefined,
    });
  });
  router.get('/info', requireSession(store, 'admin'), (_req, res) => {
    const { perApp, authFailures } = config.rateLimit;
    res.set('Cache-Control', 'no-store').json({
      publicUrl: config.publicUrl ?? null,
      listen: { host: config.host, port: config.port },
      dataDir: config.dataDir,
      limits: {
        bodyBytes: config.bodyLimitBytes,
        titleChars: notificationLimits.titleChars,
        notificationBodyBytes: notificationLimits.bodyBytes,
        urlChars: notificationLimits.urlChars,
        perApp: { burst: perApp.burst, refill: perApp.refill, intervalMs: perApp.intervalMs },
        authFailures: { burst: authFailures.burst, refill: authFailures.refill, intervalMs: authFailures.intervalMs },
      },
      delivery: {
        maxAgeMs: config.delivery.maxAgeMs,
        baseBackoffMs: config.delivery.baseBackoffMs,
        maxBackoffMs: config.delivery.maxBackoffMs,
      },
      // Notifications and their deliveries are kept until deleted: the hub has no retention job yet.
      retention: { notificationsMaxAgeMs: null },
    });
  });
  return router;
}
