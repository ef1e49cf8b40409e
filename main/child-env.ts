import { randomBytes } from 'node:crypto';
import type { HubReady } from './server-host.js';

/** Settings the desktop app decides for its hub; whatever the user's environment says about them is replaced. */
const OWNED = ['PUSHHUB_HOST', 'PUSHHUB_PORT', 'PUSHHUB_DATA_DIR', 'PUSHHUB_LOCAL_LOGIN_TOKEN'];

/**
 * A fresh one-time local sign-in token: 32 random bytes, base64url (43 characters; the hub
 * requires at least 32). Made for every start of the hub and never stored.
 */
export function newLocalLoginToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The environment of the hub child (server/child.ts reads it with loadConfig): the parent's
 * environment (so PUSHHUB_PUBLIC_URL, PUSHHUB_LOG_LEVEL, proxies … still apply) with the desktop
 * app's own settings on top: data dir = the app's userData folder, loopback only, the port
 * (0 = a free one), and the one-time local sign-in token.
 */
export function hubChildEnv(input: {
  base: Record<string, string | undefined>;
  dataDir: string;
  port: number;
  localLoginToken: string;
  host?: string;
}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.base)) {
    if (value !== undefined && !OWNED.includes(key)) env[key] = value;
  }
  env.PUSHHUB_HOST = input.host ?? '127.0.0.1';
  env.PUSHHUB_PORT = String(input.port);
  env.PUSHHUB_DATA_DIR = input.dataDir;
  env.PUSHHUB_LOCAL_LOGIN_TOKEN = input.localLoginToken;
  return env;
}

/** The URL the console window opens: signs the local operator in once, then redirects to `/` (GET /auth/local). */
export function localLoginUrl(hubUrl: string, token: string): string {
  return `${hubUrl.replace(/\/+$/, '')}/auth/local?token=${encodeURIComponent(token)}`;
}

/** The address people and devices use: PUSHHUB_PUBLIC_URL when set, else the listen URL. */
export function publicBase(ready: Pick<HubReady, 'url' | 'publicUrl'>): string {
  return (ready.publicUrl ?? ready.url).replace(/\/+$/, '');
}

/** The push endpoint scripts call (`POST /v1/push`). */
export function pushUrl(ready: Pick<HubReady, 'url' | 'publicUrl'>): string {
  return `${publicBase(ready)}/v1/push`;
}

/** The web receiver (served by the hub at `/receiver/`). */
export function receiverUrl(ready: Pick<HubReady, 'url' | 'publicUrl'>): string {
  return `${publicBase(ready)}/receiver/`;
}
