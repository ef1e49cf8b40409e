import { createHash } from 'node:crypto';
import net from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import type { HubConfig } from '../../config/config.js';
import { HubError } from '../../domain/errors.js';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The hostname of a `Host` header value (`example.net:8780`, `[::1]:8780`, `127.1`), lowercased,
 * IPv4 shorthand normalised by the WHATWG URL parser, brackets and a trailing dot removed.
 * @returns null when the value is not a valid host.
 */
export function hostnameOf(hostHeader: string): string | null {
  try {
    const url = new URL(`http://${hostHeader}`);
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return null;
    return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  } catch {
    return null;
  }
}

/**
 * The hostnames the hub answers to besides IP literals (docs/decisions/0002-host-allowlist.md):
 * `localhost` (and `*.localhost`, which browsers always resolve to loopback), the listen host
 * when it is a name, and the host of `config.publicUrl`.
 */
export function allowedHostnames(config: Pick<HubConfig, 'host' | 'publicUrl'>): Set<string> {
  const names = new Set(['localhost']);
  const listen = hostnameOf(config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host);
  if (listen && net.isIP(listen) === 0) names.add(listen);
  if (config.publicUrl) {
    const pub = hostnameOf(new URL(config.publicUrl).host);
    if (pub) names.add(pub);
  }
  return names;
}

/** True when a request with this `Host` header value may be served (see {@link hostGuard}). */
export function isAllowedHost(hostHeader: string | undefined, allowed: Set<string>): boolean {
  // HTTP/1.0 clients may leave Host out; DNS rebinding needs a browser, and browsers always send it.
  if (hostHeader === undefined || hostHeader === '') return true;
  const name = hostnameOf(hostHeader);
  if (name === null) return false;
  if (net.isIP(name) !== 0) return true;
  return allowed.has(name) || name.endsWith('.localhost');
}

const PAGE_STYLE = `body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f6f7f9;color:#101828;
font:15px/1.55 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}main{max-width:34rem;margin:2rem 1rem;padding:2rem;
background:#fff;border:1px solid #e4e7ec;border-radius:14px;box-shadow:0 20px 48px -12px rgba(16,24,40,.18)}
h1{font-size:1.3rem;margin:0 0 .75rem}p{margin:.5rem 0;color:#475467}code{font:.85em ui-monospace,Menlo,Consolas,monospace;
background:#f2f4f7;border:1px solid #e4e7ec;border-radius:5px;padding:.1em .35em;word-break:break-all}
.brand{font-weight:700;color:#4f46e5;margin-bottom:1rem}@media (prefers-color-scheme:dark){body{background:#0c111d;color:#f0f2f5}
main{background:#161b26;border-color:#262e3e}p{color:#a0a9ba}code{background:#1b2130;border-color:#333d51}}`;
/** The CSP of {@link sendPlainPage}: nothing but its own inline stylesheet, allowed by hash. */
const PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/**
 * Sends a small self-contained HTML page (no script; its one inline stylesheet allowed by hash
 * in a CSP of its own) for answers a person reads in a browser: an unknown address, a console
 * that is not built. `bodyHtml` must already be escaped.
 */
export function sendPlainPage(res: Response, status: number, title: string, bodyHtml: string): void {
  res
    .status(status)
    .set('Content-Security-Policy', PAGE_CSP)
    .set('Cache-Control', 'no-store')
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Pushhub</title>` +
        `<meta name="viewport" content="width=device-width, initial-scale=1"><style>${PAGE_STYLE}</style></head>` +
        `<body><main><div class="brand">Pushhub</div><h1>${escapeHtml(title)}</h1>${bodyHtml}</main></body></html>`,
    );
}

function refuse(req: Request, res: Response, name: string, hostHeader: string): void {
  const message =
    `The hub does not answer to "${name}" (protection against DNS rebinding). Use localhost or its IP address, ` +
    `or, if this is the address people use to reach it, start it with PUSHHUB_PUBLIC_URL=http://${hostHeader}.`;
  if (req.accepts(['json', 'html']) === 'html' && !req.path.startsWith('/api/')) {
    sendPlainPage(
      res,
      403,
      'This address is not one of the hub’s',
      `<p>The hub does not answer to <code>${escapeHtml(name)}</code>: a web page could use such a name to reach it ` +
        `from outside (DNS rebinding).</p><p>Open it as <code>localhost</code> or by its IP address. If this is the ` +
        `name people use to reach the hub, start it with <code>PUSHHUB_PUBLIC_URL=http://${escapeHtml(hostHeader)}</code>.</p>`,
    );
    return;
  }
  throw new HubError('forbidden', message);
}

/**
 * Refuses requests whose `Host` header names a host the hub does not know (403 `forbidden`),
 * against DNS rebinding: a web page on an attacker's name that resolves to this machine would
 * otherwise talk to the hub as if it were same-origin. IP literals are always allowed, because a
 * rebinding attack needs a hostname and a hub bound to 0.0.0.0 is reached by its LAN address.
 * `exempt` paths (e.g. `/v1/push`, which scripts reach by whatever name they know, and which is
 * authenticated by its body) are not checked. Decision: docs/decisions/0002-host-allowlist.md.
 */
export function hostGuard(config: Pick<HubConfig, 'host' | 'publicUrl'>, exempt: readonly string[] = []): RequestHandler {
  const allowed = allowedHostnames(config);
  return (req, res, next) => {
    if (exempt.includes(req.path) || isAllowedHost(req.headers.host, allowed)) {
      next();
      return;
    }
    const name = hostnameOf(req.headers.host ?? '');
    refuse(req, res, name ?? 'this name', name === null ? '<host>:<port>' : (req.headers.host ?? name));
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery guard for state-changing requests (anything but GET, HEAD and
 * OPTIONS): refuses with 403 `forbidden` a request that a browser marks `Sec-Fetch-Site:
 * cross-site`, or whose `Origin` is neither the origin the request was addressed to (its `Host`)
 * nor the origin of `config.publicUrl`. A request without `Origin` (curl, scripts, native apps)
 * passes: browsers always send `Origin` on cross-origin POST, PUT, PATCH and DELETE (Fetch
 * standard, "append a request `Origin` header").
 */
export function originGuard(config: Pick<HubConfig, 'publicUrl'>): RequestHandler {
  const publicOrigin = config.publicUrl ? new URL(config.publicUrl).origin : null;
  return (req, _res, next) => {
    if (SAFE_METHODS.has(req.method)) {
      next();
      return;
    }
    if (req.get('sec-fetch-site') === 'cross-site') {
      throw new HubError('forbidden', 'cross-site requests are refused; use the console served by the hub');
    }
    const origin = req.get('origin');
    if (origin !== undefined && !isSameOrigin(origin, req.headers.host, publicOrigin)) {
      throw new HubError('forbidden', `requests from the origin ${origin.slice(0, 200)} are refused`);
    }
    next();
  };
}

/** True when `origin` is the origin of a request to `hostHeader` (any scheme) or is `publicOrigin`. */
export function isSameOrigin(origin: string, hostHeader: string | undefined, publicOrigin: string | null): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file: pages) and garbage
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (publicOrigin !== null && parsed.origin === publicOrigin) return true;
  if (!hostHeader) return false;
  try {
    return new URL(`${parsed.protocol}//${hostHeader}`).origin === parsed.origin;
  } catch {
    return false;
  }
}
