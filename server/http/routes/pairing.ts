import { Router, type Request } from 'express';
import { z } from 'zod';
import type { HubConfig } from '../../config/config.js';
import { toIso } from '../../domain/clock.js';
import { HubError } from '../../domain/errors.js';
import { parseBody } from '../../domain/validation.js';
import type { Store } from '../../store/index.js';
import type { KeyedLimiter } from '../middleware/rate-limit.js';
import { RECEIVER_SESSION_TTL_MS } from './receiver.js';

/** How long a pairing link works (ms): 15 minutes (issue "Web receiver app" / "Pairing"). */
export const PAIRING_TTL_MS = 15 * 60 * 1000;

const pairBody = z.object({ token: z.string().min(1).max(200) });

/**
 * The address of the web receiver a phone should open: `config.publicUrl` when set (the name
 * people use to reach the hub), else the origin this request came to. No trailing slash.
 */
function baseUrl(config: Pick<HubConfig, 'publicUrl'>, req: Request): string {
  const base = config.publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  return base.replace(/\/+$/, '');
}

/**
 * `POST /api/users/:id/pairing` (admin session; mount after the admin session check) → 201
 * `{url, expiresAt}`: a one-time link that signs a device in to that receiver's account without
 * the password, valid {@link PAIRING_TTL_MS}. The link is `<base>/receiver/#pair=<token>`: the
 * token rides in the fragment, so it never reaches a server log or a Referer header. Only the
 * token's SHA-256 is stored. 404 `not_found` for an unknown user.
 */
export function createPairingAdminRoutes({ store, config }: { store: Store; config: Pick<HubConfig, 'publicUrl'> }): Router {
  const router = Router();
  router.post('/users/:id/pairing', (req, res) => {
    const user = store.users.get(req.params.id);
    if (!user) throw new HubError('not_found', `no user has the id "${req.params.id}"`);
    const { token, expiresAt } = store.pairing.create(user.id, PAIRING_TTL_MS);
    res
      .status(201)
      .set('Cache-Control', 'no-store')
      .json({ url: `${baseUrl(config, req)}/receiver/#pair=${token}`, expiresAt: toIso(expiresAt) });
  });
  return router;
}

/**
 * `POST /api/receiver/pair {token}` (no session; mount ahead of the receiver routes) → the same
 * answer as `POST /api/receiver/login`: `{userKey, token, user:{id, name}}` with a new receiver
 * session. The pairing token works once:
 * - 410 `pairing_used` when it was already redeemed,
 * - 410 `pairing_expired` when it is older than 15 minutes,
 * - 400 `pairing_invalid` when the hub never issued it (these count against the same per-address
 *   budget as failed sign-ins: 429 `rate_limited` with `Retry-After` when spent).
 */
export function createPairingReceiverRoutes({ store, loginFailures }: { store: Store; loginFailures: KeyedLimiter }): Router {
  const router = Router();
  router.post('/pair', (req, res) => {
    const { token } = parseBody(pairBody, req.body);
    const answer = store.transaction(() => {
      const found = store.pairing.redeem(token);
      if (found.status !== 'ok') return found;
      const user = store.users.get(found.userId);
      if (!user) return { status: 'unknown' as const };
      const session = store.auth.createSession('receiver', user.id, RECEIVER_SESSION_TTL_MS);
      return { status: 'ok' as const, body: { userKey: user.userKey, token: session, user: { id: user.id, name: user.name } } };
    });
    switch (answer.status) {
      case 'ok':
        res.set('Cache-Control', 'no-store').json(answer.body);
        return;
      case 'used':
        throw new HubError('pairing_used', 'this pairing link was already used; ask for a new one');
      case 'expired':
        throw new HubError('pairing_expired', 'this pairing link has expired (links work for 15 minutes); ask for a new one');
      case 'unknown': {
        const limited = loginFailures.take(req.ip ?? 'unknown');
        if (!limited.ok) {
          throw new HubError('rate_limited', 'too many failed sign-ins from this address', {
            retryAfterSeconds: limited.retryAfterSeconds,
          });
        }
        throw new HubError('pairing_invalid', 'this pairing link is not valid; check that it was copied whole, or ask for a new one', {
          field: 'token',
        });
      }
    }
  });
  return router;
}
