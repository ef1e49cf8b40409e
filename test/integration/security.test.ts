import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedHostnames, isAllowedHost, isSameOrigin } from '../../server/http/middleware/security.js';
import { findRendererDir } from '../../server/http/routes/console.js';
import { ADMIN_PASSWORD, seed, startTestHub, type TestHub } from '../helpers/hub.js';

// Security of the local web console (issue "Admin UI" / "Security of a local web console"),
// checked over real HTTP: CSRF (Origin / Sec-Fetch-Site), DNS rebinding (Host allowlist),
// sessions, rate-limited sign-in, security headers and CSP.

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** An HTTP request with exactly the headers given (fetch would not let a test forge Host). */
function raw(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path, headers: { ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers } }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (data += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

const json = { 'content-type': 'application/json' };
const errorCode = (r: RawResponse) => (JSON.parse(r.body) as { error: { code: string } }).error.code;

describe('state-changing /api requests from another origin (CSRF)', () => {
  let t: TestHub;
  let auth: Record<string, string>;
  beforeAll(async () => {
    t = await startTestHub({ config: { publicUrl: 'https://push.example.net' } });
    auth = { authorization: `Bearer ${t.adminToken}`, ...json };
  });
  afterAll(() => t.close());
  const appCount = async () => ((await t.api('GET', '/api/apps')).json as unknown[]).length;

  it('refuses a forged Origin with 403, and nothing changes', async () => {
    const before = await appCount();
    for (const origin of ['http://evil.example', 'http://127.0.0.1:1', 'null', 'https://push.example.net.evil.example']) {
      const res = await raw(t.url, 'POST', '/api/apps', { ...auth, origin }, JSON.stringify({ name: 'Forged' }));
      expect(res.status, origin).toBe(403);
      expect(errorCode(res)).toBe('forbidden');
    }
    expect(await appCount()).toBe(before);
  });

  it('refuses Sec-Fetch-Site: cross-site even without Origin', async () => {
    const res = await raw(t.url, 'POST', '/api/apps', { ...auth, 'sec-fetch-site': 'cross-site' }, JSON.stringify({ name: 'Forged' }));
    expect(res.status).toBe(403);
  });

  it('covers every state-changing method, sign-in and sign-out', async () => {
    const { appId } = await seed(t);
    const evil = { ...auth, origin: 'http://evil.example' };
    expect((await raw(t.url, 'DELETE', `/api/apps/${appId}`, evil)).status).toBe(403);
    expect((await raw(t.url, 'POST', `/api/apps/${appId}/rotate-key`, evil)).status).toBe(403);
    expect((await raw(t.url, 'PUT', '/api/settings/webpush', evil, JSON.stringify({ subject: 'mailto:x@example.com' }))).status).toBe(403);
    expect((await raw(t.url, 'PATCH', '/api/users/x', evil, '{}')).status).toBe(403);
    const login = await raw(t.url, 'POST', '/api/auth/login', { ...json, origin: 'http://evil.example' }, JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }));
    expect(login.status).toBe(403);
    expect(login.headers['set-cookie']).toBeUndefined();
    expect((await raw(t.url, 'POST', '/api/auth/logout', evil)).status).toBe(403);
    expect((await t.api('GET', '/api/apps')).json.some((a: { id: string }) => a.id === appId)).toBe(true);
  });

  it('accepts the hub’s own origin, the public URL’s origin, and scripts that send no Origin', async () => {
    const own = await raw(t.url, 'POST', '/api/apps', { ...auth, origin: t.url, 'sec-fetch-site': 'same-origin' }, JSON.stringify({ name: 'Same origin' }));
    expect(own.status).toBe(201);
    const viaProxy = await raw(t.url, 'POST', '/api/apps', { ...auth, origin: 'https://push.example.net' }, JSON.stringify({ name: 'Public URL' }));
    expect(viaProxy.status).toBe(201);
    const script = await raw(t.url, 'POST', '/api/apps', auth, JSON.stringify({ name: 'curl' }));
    expect(script.status).toBe(201);
  });

  it('leaves reads, /v1/push and the receiver API to clients without Origin (and /v1/push to any origin)', async () => {
    const { apiKey, userKey } = await seed(t, { user: 'Rita' });
    expect((await raw(t.url, 'GET', '/api/apps', { ...auth, origin: 'http://evil.example' })).status).toBe(200);
    const push = await raw(t.url, 'POST', '/v1/push', { ...json, origin: 'http://dashboard.example' }, JSON.stringify({ apiKey, userKey, title: 't', body: 'b' }));
    expect(push.status).toBe(200);
    const users = (await t.api('GET', '/api/users')).json as { username: string; name: string }[];
    const rita = users.find((u) => u.name === 'Rita')!;
    const receiver = await raw(t.url, 'POST', '/api/receiver/login', json, JSON.stringify({ username: rita.username, password: 'receiver-pass' }));
    expect(receiver.status).toBe(200);
  });
});

describe('Host allowlist (DNS rebinding)', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub({ config: { publicUrl: 'https://push.example.net' } });
  });
  afterAll(() => t.close());
  const port = () => new URL(t.url).port;

  it('refuses a rebinding Host with 403 on pages, the API and health', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/apps'],
      ['GET', '/api/console/status'],
      ['GET', '/api/apps'],
      ['POST', '/api/auth/login'],
      ['GET', '/healthz'],
      ['GET', '/setup'],
    ] as const) {
      const res = await raw(t.url, method, path, { host: `rebind.example:${port()}`, authorization: `Bearer ${t.adminToken}` });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    // A person who typed that name sees why, in a page.
    const page = await raw(t.url, 'GET', '/', { host: `attacker.example:${port()}`, accept: 'text/html' });
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('PUSHHUB_PUBLIC_URL');
    expect(page.body).toContain('attacker.example');
    const api = await raw(t.url, 'GET', '/api/apps', { host: 'attacker.example', accept: 'application/json' });
    expect(errorCode(api)).toBe('forbidden');
  });

  it('escapes the name it echoes', async () => {
    const res = await raw(t.url, 'GET', '/', { host: 'a<b>.example', accept: 'text/html' });
    expect(res.status).toBe(403);
    expect(res.body).not.toContain('<b>');
  });

  it('answers to localhost, IP literals (a LAN address included) and the public URL’s host', async () => {
    for (const host of [`localhost:${port()}`, `127.0.0.1:${port()}`, `[::1]:${port()}`, '192.168.1.20:8780', '10.0.0.7', `app.localhost:${port()}`, 'push.example.net', 'PUSH.EXAMPLE.NET.']) {
      const res = await raw(t.url, 'GET', '/api/console/status', { host });
      expect(res.status, host).toBe(200);
    }
  });

  it('does not check /v1/push: scripts reach it by whatever name they know, its API key authenticates', async () => {
    const res = await raw(t.url, 'POST', '/v1/push', { host: 'nas.local:8780', ...json }, JSON.stringify({ apiKey: 'pk_nope', userKey: 'x', title: 't', body: 'b' }));
    expect(res.status).toBe(401);
  });

  it('builds the allowlist from the listen host and the public URL', () => {
    expect([...allowedHostnames({ host: '0.0.0.0', publicUrl: undefined })]).toEqual(['localhost']);
    expect([...allowedHostnames({ host: 'nas.local', publicUrl: 'http://push.home.arpa:8780/' })].sort()).toEqual(['localhost', 'nas.local', 'push.home.arpa']);
    const allowed = allowedHostnames({ host: '::', publicUrl: undefined });
    expect(isAllowedHost('[fe80::1]:8780', allowed)).toBe(true);
    expect(isAllowedHost('evil.example', allowed)).toBe(false);
    expect(isAllowedHost('user@localhost', allowed)).toBe(false);
    expect(isAllowedHost(undefined, allowed)).toBe(true);
  });

  it('compares origins with the request’s own host and the public origin', () => {
    expect(isSameOrigin('http://127.0.0.1:8780', '127.0.0.1:8780', null)).toBe(true);
    expect(isSameOrigin('http://example.net', 'example.net:80', null)).toBe(true);
    expect(isSameOrigin('http://127.0.0.1:5173', '127.0.0.1:8780', null)).toBe(false);
    expect(isSameOrigin('https://push.example.net', '127.0.0.1:8780', 'https://push.example.net')).toBe(true);
    expect(isSameOrigin('file://', 'localhost', null)).toBe(false);
  });
});

describe('sessions and sign-in', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub({ config: { rateLimit: { perApp: { burst: 60, refill: 10, intervalMs: 1000 }, authFailures: { burst: 3, refill: 1, intervalMs: 60_000 } } } });
  });
  afterAll(() => t.close());

  it('answers 401 without a session cookie, on the console’s own endpoints too', async () => {
    for (const [method, path] of [
      ['GET', '/api/apps'],
      ['GET', '/api/stats'],
      ['GET', '/api/console/info'],
      ['POST', '/api/apps/x/test-push'],
      ['GET', '/api/settings/apns'],
    ] as const) {
      const res = await raw(t.url, method, path, json, method === 'POST' ? '{}' : undefined);
      expect(res.status, `${method} ${path}`).toBe(401);
    }
    const status = await raw(t.url, 'GET', '/api/console/status');
    expect(JSON.parse(status.body)).toEqual({ setupRequired: false, signedIn: false });
  });

  it('signs in with an HttpOnly, SameSite=Strict cookie that the console status recognises', async () => {
    const res = await raw(t.url, 'POST', '/api/auth/login', json, JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }));
    expect(res.status).toBe(200);
    const cookie = res.headers['set-cookie']?.[0] ?? '';
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    const status = await raw(t.url, 'GET', '/api/console/status', { cookie: cookie.split(';')[0]! });
    expect(JSON.parse(status.body)).toMatchObject({ signedIn: true });
  });

  it('rate-limits failed sign-ins per address: 429 with Retry-After', async () => {
    const attempt = () => raw(t.url, 'POST', '/api/auth/login', json, JSON.stringify({ username: 'admin', password: 'guess' }));
    for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(401);
    const limited = await attempt();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('security headers', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub();
  });
  afterAll(() => t.close());

  it('sends a CSP without inline script or style, and the usual hardening headers', async () => {
    // The console page itself when it is built (npm run build), else the page saying how to build it.
    const paths = findRendererDir() ? ['/', '/apps', '/api/console/status', '/healthz'] : ['/api/console/status', '/healthz'];
    for (const path of paths) {
      const res = await raw(t.url, 'GET', path);
      const csp = String(res.headers['content-security-policy']);
      const directive = (name: string) => csp.split(';').map((d) => d.trim()).find((d) => d.startsWith(`${name} `)) ?? '';
      expect(directive('default-src'), path).toBe("default-src 'self'");
      expect(directive('script-src')).toBe("script-src 'self'");
      expect(directive('script-src-attr')).toBe("script-src-attr 'none'");
      expect(directive('style-src')).toBe("style-src 'self'");
      expect(directive('img-src')).toBe("img-src 'self' data: https:");
      expect(directive('frame-ancestors')).toBe("frame-ancestors 'none'");
      expect(directive('object-src')).toBe("object-src 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('gives the plain pages a person may see (unknown address) a CSP that allows no script at all', async () => {
    const res = await raw(t.url, 'GET', '/', { host: 'rebind.example', accept: 'text/html' });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*';/);
    expect(csp).not.toContain('script-src');
    expect(res.body).not.toContain('<script');
    expect(res.headers['x-frame-options']).toBe('DENY');
  });
});
