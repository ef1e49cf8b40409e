import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseCookie } from 'cookie';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { hashSecret } from './domain/keys.js';
import { SESSION_COOKIE } from './http/middleware/auth.js';
import type { Store } from './store/index.js';

/** Delivery outcomes as counted in `pushhub_deliveries_total{outcome}`. */
export type OutcomeLabel = 'delivered' | 'retry' | 'invalid_token' | 'failed' | 'expired' | 'not_configured';

/** The hub's Prometheus metrics (prom-client), one registry per hub. */
export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Builds the metrics: pushes by answer, deliveries by channel and outcome, outbox depth, delivery
 * and request latency histograms, rate-limit hits, and Node's default process metrics. Names follow
 * Prometheus conventions (`_total` counters, `_seconds` histograms).
 */
export function createMetrics(store: Store) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'pushhub_' });
  return {
    registry,
    pushes: new Counter({
      name: 'pushhub_pushes_total',
      help: 'POST /v1/push answers by HTTP status (200 accepted; 4xx/5xx rejected).',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    deliveries: new Counter({
      name: 'pushhub_deliveries_total',
      help: 'Delivery attempts by channel and outcome.',
      labelNames: ['channel', 'outcome'] as const,
      registers: [registry],
    }),
    deliveryLatency: new Histogram({
      name: 'pushhub_delivery_latency_seconds',
      help: 'Time from accepting a notification to its delivery being confirmed by the push service.',
      labelNames: ['channel'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300, 3600],
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: 'pushhub_http_request_duration_seconds',
      help: 'HTTP request duration by route group, method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'pushhub_rate_limited_total',
      help: 'Requests refused with 429, by limiter (app: per-app push limit; auth: failed authentications per address).',
      labelNames: ['limiter'] as const,
      registers: [registry],
    }),
    outboxDepth: new Gauge({
      name: 'pushhub_outbox_depth',
      help: 'Deliveries waiting in the outbox (pending).',
      registers: [registry],
      collect() {
        this.set(store.outbox.depth());
      },
    }),
  };
}

/**
 * A low-cardinality name for a request path, for the request histogram: `/v1/push`,
 * `/api/<resource>`, `/api/receiver/<resource>`, `/healthz`, `/metrics`, or `other`.
 */
export function routeGroup(url: string | undefined): string {
  const path = (url ?? '').split('?')[0] ?? '';
  if (path === '/v1/push' || path === '/healthz' || path === '/metrics') return path;
  const m = /^\/api\/(receiver\/)?([a-z-]+)/.exec(path);
  if (m) return `/api/${m[1] ?? ''}${m[2]}`;
  return 'other';
}

/**
 * `GET /metrics` in the Prometheus text format, for an admin session (Bearer or cookie) or the
 * metrics token (`PUSHHUB_METRICS_TOKEN`, as `Authorization: Bearer <token>`). Others get 401.
 */
export function createMetricsHandler(deps: { metrics: Metrics; store: Store; metricsToken?: string | undefined }) {
  const allowed = (req: IncomingMessage) => {
    const header = req.headers.authorization;
    const bearer = header ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : undefined;
    if (bearer && deps.metricsToken && timingSafeEqual(hashSecret(bearer), hashSecret(deps.metricsToken))) return true;
    const token = bearer ?? (req.headers.cookie ? parseCookie(req.headers.cookie)[SESSION_COOKIE] : undefined);
    return token !== undefined && deps.store.auth.findSession(token, 'admin') !== undefined;
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!allowed(req)) {
      const body = JSON.stringify({ error: { code: 'unauthorized', message: 'sign in as admin or send the metrics token' } });
      res.writeHead(401, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    deps.metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': deps.metrics.registry.contentType });
        res.end(text);
      },
      () => {
        res.writeHead(500).end();
      },
    );
  };
}
