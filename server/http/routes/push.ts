import express, { Router, type RequestHandler } from 'express';
import { HubError } from '../../domain/errors.js';
import { API_KEY_PATTERN } from '../../domain/keys.js';
import { parseNotification } from '../../domain/notification.js';
import type { PushService } from '../../domain/push-service.js';
import type { Store } from '../../store/index.js';
import type { KeyedLimiter } from '../middleware/rate-limit.js';

/** What the push route needs. */
export interface PushRoutesDeps {
  store: Store;
  pushService: PushService;
  /** Per app: burst 60, then 10/s by default. */
  perApp: KeyedLimiter;
  /** Per client IP, failed authentications only. */
  authFailures: KeyedLimiter;
  bodyLimitBytes: number;
}

const PUSH_TYPES = ['application/json', 'application/x-www-form-urlencoded'];

/** 415 unless the body is JSON or form-encoded (DESIGN.md "Contracts the spec leaves open"). */
const requirePushContentType: RequestHandler = (req, _res, next) => {
  if (!req.is(PUSH_TYPES)) {
    throw new HubError(
      'unsupported_media_type',
      'send the fields as Content-Type: application/json or application/x-www-form-urlencoded',
    );
  }
  next();
};

/**
 * `POST /v1/push` (spec "Endpoints / Send push notification").
 *
 * Order: content type (415) and body (413, 400 malformed_json) first, as the apiKey lives in
 * the body; then the API key (401, empty body); then the app's rate limit (429); then the
 * fields (400); then the target (400 unknown keys); then one transaction (shared with the other
 * pushes of the same event-loop turn: group commit) stores the notification and its outbox
 * rows, and only then 200 `{"id"}` is sent.
 */
export function createPushRoutes(deps: PushRoutesDeps): Router {
  const router = Router();
  router.post(
    '/v1/push',
    requirePushContentType,
    express.json({ limit: deps.bodyLimitBytes, type: 'application/json' }),
    express.urlencoded({ limit: deps.bodyLimitBytes, extended: false, type: 'application/x-www-form-urlencoded' }),
    async (req, res) => {
      const raw: unknown = req.body;
      const apiKey = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).apiKey : undefined;
      const app = typeof apiKey === 'string' && API_KEY_PATTERN.test(apiKey) ? deps.store.apps.findByApiKey(apiKey) : undefined;
      if (!app) {
        // A valid key is never refused by this limiter: it only slows down whoever keeps failing.
        const limited = deps.authFailures.take(req.ip ?? 'unknown');
        if (!limited.ok) {
          throw new HubError('rate_limited', 'too many failed authentications from this address', {
            retryAfterSeconds: limited.retryAfterSeconds,
          });
        }
        res.status(401).end();
        return;
      }
      const allowed = deps.perApp.take(app.id);
      if (!allowed.ok) {
        throw new HubError('rate_limited', 'this app is sending faster than its rate limit', {
          retryAfterSeconds: allowed.retryAfterSeconds,
        });
      }
      const input = parseNotification(raw);
      const { id } = await deps.pushService.submit(app, input);
      res.status(200).json({ id });
    },
  );
  return router;
}
