import { timingSafeEqual } from 'node:crypto';
import express, { Router } from 'express';
import { z } from 'zod';
import { HubError } from '../../domain/errors.js';
import { hashSecret, newSessionToken } from '../../domain/keys.js';
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from '../../domain/passwords.js';
import { parseBody } from '../../domain/validation.js';
import type { Store } from '../../store/index.js';
import { clearSessionCookie, requireSession, SESSION_TTL_MS, setSessionCookie } from '../middleware/auth.js';
import type { KeyedLimiter } from '../middleware/rate-limit.js';
import { username } from './admin.js';

/** The one-time first-run setup token; null once an admin exists. */
export interface SetupState {
  token: string | null;
}

const loginBody = z.object({ username: z.string().min(1), password: z.string().min(1) });
const passwordBody = z.object({
  currentPassword: z.string().optional(),
  newPassword: z.string().min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`).max(1024),
});
const setupBody = z.object({
  token: z.string().min(1),
  username,
  password: z.string().min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`).max(1024),
});

function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(hashSecret(a), hashSecret(b));
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The first-run page behind the setup URL: a plain form (no script), until the console ships its own. */
function setupPage(token: string, message = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pushhub setup</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; line-height: 1.5">
<h1>Set up Pushhub</h1><p>Create the operator account. This link works once.</p>
${message ? `<p role="alert" style="color:#b00020">${escapeHtml(message)}</p>` : ''}
<form method="post" action="/setup">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<p><label>Username<br><input name="username" value="admin" required autocomplete="username"></label></p>
<p><label>Password (at least ${MIN_PASSWORD_LENGTH} characters)<br>
<input name="password" type="password" minlength="${MIN_PASSWORD_LENGTH}" required autocomplete="new-password"></label></p>
<p><button type="submit">Create account</button></p></form></body></html>`;
}

/**
 * Operator sign-in: first-run setup (`POST /api/setup`, and the `/setup` page the printed URL
 * opens), `POST /api/auth/login` (rate-limited per IP on failures), `POST /api/auth/logout`,
 * `GET /api/auth/me`.
 */
export function createAuthRoutes({ store, setup, loginFailures, localLogin }: {
  store: Store;
  setup: SetupState;
  loginFailures: KeyedLimiter;
  /** The desktop app's one-time local sign-in token (PUSHHUB_LOCAL_LOGIN_TOKEN); null once used. */
  localLogin: { token: string | null };
}): Router {
  const router = Router();
  // Sessions started by the desktop app's local sign-in (this process only): they may set a
  // password without knowing the current one, which the desktop generated at random.
  const localSessions = new Set<string>();

  /**
   * `GET /auth/local?token=…`: the desktop window's way in. The token, handed from the Electron
   * main process to the hub and the window, works once; it signs the local operator in as the
   * first admin account (created with a random password on a fresh hub, to be changed later)
   * and redirects to the console.
   */
  router.get('/auth/local', async (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    if (!localLogin.token || !token || !sameSecret(token, localLogin.token)) {
      throw new HubError('unauthorized', 'this sign-in link is not valid (it works once)');
    }
    localLogin.token = null;
    if (store.auth.adminCount() === 0) {
      store.auth.createFirstAdmin('admin', await hashPassword(newSessionToken()));
      setup.token = null;
    }
    const admin = store.auth.firstAdmin();
    if (!admin) throw new HubError('internal', 'no admin account');
    const session = store.auth.createSession('admin', admin.id, SESSION_TTL_MS);
    localSessions.add(session);
    setSessionCookie(req, res, session);
    res.redirect(303, '/');
  });

  /** Creates the first admin; @throws HubError 400 invalid_setup_token / 409 conflict. */
  const completeSetup = async (raw: unknown) => {
    const body = parseBody(setupBody, raw);
    if (!setup.token || !sameSecret(body.token, setup.token)) {
      throw new HubError(
        setup.token ? 'invalid_setup_token' : 'conflict',
        setup.token ? 'the setup token is wrong' : 'the hub is already set up; sign in instead',
        { field: 'token' },
      );
    }
    const created = store.auth.createFirstAdmin(body.username, await hashPassword(body.password));
    setup.token = null;
    if (!created) throw new HubError('conflict', 'the hub is already set up; sign in instead');
    return body.username;
  };

  router.post('/api/setup', async (req, res) => {
    const name = await completeSetup(req.body);
    res.status(201).json({ username: name });
  });

  router.get('/setup', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    if (!setup.token) {
      res.status(410).type('html').send('<!doctype html><title>Pushhub</title><p>Pushhub is already set up.</p>');
      return;
    }
    res.type('html').send(setupPage(token));
  });
  router.post('/setup', express.urlencoded({ extended: false, limit: '4kb' }), async (req, res) => {
    try {
      const name = await completeSetup(req.body);
      res.status(201).type('html').send(
        `<!doctype html><title>Pushhub</title><p>The account <b>${escapeHtml(name)}</b> is ready. Sign in through the admin API or console.</p>`,
      );
    } catch (err) {
      if (!(err instanceof HubError) || !setup.token) throw err;
      res.status(err.status).type('html').send(setupPage(String(req.body?.token ?? ''), err.message));
    }
  });

  router.post('/api/auth/login', async (req, res) => {
    const body = parseBody(loginBody, req.body);
    const found = store.auth.findAdmin(body.username);
    const ok = found ? await verifyPassword(found.passwordHash, body.password) : false;
    if (!found || !ok) {
      const limited = loginFailures.take(req.ip ?? 'unknown');
      if (!limited.ok) {
        throw new HubError('rate_limited', 'too many failed sign-ins from this address', {
          retryAfterSeconds: limited.retryAfterSeconds,
        });
      }
      throw new HubError('unauthorized', 'wrong username or password');
    }
    const token = store.auth.createSession('admin', found.admin.id, SESSION_TTL_MS);
    setSessionCookie(req, res, token);
    res.json({ token });
  });

  router.post('/api/auth/logout', requireSession(store, 'admin'), (_req, res) => {
    store.auth.endSession(res.locals.sessionToken as string);
    clearSessionCookie(res);
    res.status(204).end();
  });

  /**
   * `POST /api/auth/password {currentPassword, newPassword}`: changes the signed-in operator's
   * password. The current one is required, except in a session the desktop app's local sign-in
   * started. @throws HubError 400 when the current password is wrong or the new one too short.
   */
  router.post('/api/auth/password', requireSession(store, 'admin'), async (req, res) => {
    const body = parseBody(passwordBody, req.body);
    const adminId = res.locals.subjectId as string;
    const local = localSessions.has(res.locals.sessionToken as string);
    if (!local) {
      const stored = store.auth.adminPasswordHash(adminId);
      if (!body.currentPassword || !stored || !(await verifyPassword(stored, body.currentPassword))) {
        // 400, not 401: the session itself is fine, and a 401 would sign the console out.
        throw new HubError('invalid_field', 'currentPassword: the current password is wrong', { field: 'currentPassword' });
      }
    }
    store.auth.setAdminPassword(adminId, await hashPassword(body.newPassword));
    res.status(204).end();
  });

  router.get('/api/auth/me', requireSession(store, 'admin'), (_req, res) => {
    res.json({ adminId: res.locals.subjectId });
  });

  return router;
}
