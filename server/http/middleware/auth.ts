import type { Request, RequestHandler, Response } from 'express';
import { parse as parseCookie } from 'cookie';
import { HubError } from '../../domain/errors.js';
import type { SessionKind } from '../../store/auth-store.js';
import type { Store } from '../../store/index.js';

/** Name of the admin console's session cookie (HttpOnly, SameSite=Strict). */
export const SESSION_COOKIE = 'pushhub_session';
/** How long a sign-in lasts, in ms (30 days). */
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

/** The bearer token of a request: `Authorization: Bearer …`, else the session cookie. */
export function sessionToken(req: Request): string | undefined {
  const header = req.get('authorization');
  if (header) {
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    return m?.[1];
  }
  const cookies = req.headers.cookie;
  return cookies ? parseCookie(cookies)[SESSION_COOKIE] : undefined;
}

/** Sets the admin session cookie (Secure when the request came over TLS). */
export function setSessionCookie(req: Request, res: Response, token: string): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure,
    path: '/',
    maxAge: SESSION_TTL_MS,
  });
}

/** Clears the admin session cookie. */
export function clearSessionCookie(res: Response): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', path: '/' });
}

/**
 * Requires a live session of `kind`; puts its subject id in `res.locals.subjectId`.
 * @throws HubError 401 `unauthorized` (JSON body) without one.
 */
export function requireSession(store: Store, kind: SessionKind): RequestHandler {
  return (req, res, next) => {
    const token = sessionToken(req);
    const subjectId = token ? store.auth.findSession(token, kind) : undefined;
    if (!subjectId) throw new HubError('unauthorized', 'sign in first (session cookie or Authorization: Bearer)');
    res.locals.subjectId = subjectId;
    res.locals.sessionToken = token;
    next();
  };
}
