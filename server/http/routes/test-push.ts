import { Router } from 'express';
import { HubError } from '../../domain/errors.js';
import { parseNotification } from '../../domain/notification.js';
import type { PushService } from '../../domain/push-service.js';
import type { Store } from '../../store/index.js';
import type { KeyedLimiter } from '../middleware/rate-limit.js';

/**
 * `POST /api/apps/:id/test-push` (issue "Admin UI" / "Send test"): the console's way to send a
 * push on an app's behalf, since API keys are stored only as hashes and the console cannot call
 * `/v1/push` itself. Runs the very pipeline of `/v1/push` after its authentication step: the
 * app's rate limit (429 with `Retry-After`, shared with `/v1/push`), the field rules of
 * {@link parseNotification} (400 naming the field), the target resolution and the one
 * transaction of {@link PushService.accept}.
 *
 * Body: the notification fields of the spec without `apiKey` (`userKey` and/or `userGroupKey`,
 * `title`, `body`, `emoji?`, `image?`, `url?`). Answer: 200 `{id, deliveries}` (deliveries =
 * outbox rows written); 404 when the app does not exist. Mount behind an admin session.
 */
export function createTestPushRoutes({ store, pushService, perApp }: {
  store: Store;
  pushService: PushService;
  /** The same per-app limiter `/v1/push` uses. */
  perApp: KeyedLimiter;
}): Router {
  const router = Router();
  router.post('/apps/:id/test-push', (req, res) => {
    const app = store.apps.get(req.params.id);
    if (!app) throw new HubError('not_found', `no app has the id "${req.params.id}"`);
    const allowed = perApp.take(app.id);
    if (!allowed.ok) {
      throw new HubError('rate_limited', 'this app is sending faster than its rate limit', {
        retryAfterSeconds: allowed.retryAfterSeconds,
      });
    }
    const { id, deliveries } = pushService.accept(app, parseNotification(req.body ?? {}));
    res.status(200).json({ id, deliveries });
  });
  return router;
}
