import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/**
 * A token bucket's shape: `burst` tokens at most, refilled at `refill` tokens per `intervalMs`.
 * Used for the per-app push limit and the per-IP failed-authentication limit (issue "Hub core").
 */
const bucketSchema = z.object({
  burst: z.number().int().positive(),
  refill: z.number().int().positive(),
  intervalMs: z.number().int().positive(),
});

/** The hub's whole configuration. Every field has a default, so `{}` is a valid input. */
export const configSchema = z.object({
  /** Interface to listen on. Loopback by default: the hub is reachable only from this machine. */
  host: z.string().min(1).default('127.0.0.1'),
  /** TCP port; 0 picks a free one. */
  port: z.number().int().min(0).max(65535).default(8780),
  /** Directory holding pushhub.db (created if missing). */
  dataDir: z.string().min(1),
  /** Password for the `admin` account on first start (PUSHHUB_ADMIN_PASSWORD); never logged. */
  adminPassword: z.string().min(8).optional(),
  /**
   * The address people and devices use to reach the hub (PUSHHUB_PUBLIC_URL), e.g.
   * `https://push.example.net`; shown in snippets and pairing links, and its host is allowed in
   * the `Host` header. Default: the listen address.
   */
  publicUrl: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * Which proxies to believe about the client's address (X-Forwarded-For), as Express's
   * `trust proxy` setting: e.g. `loopback` behind a reverse proxy on the same machine, or a
   * list of addresses/subnets (PUSHHUB_TRUST_PROXY). Default: none, the socket's address counts.
   * Rate limits per client address depend on it.
   */
  trustProxy: z.string().min(1).optional(),
  /** A bearer token that may read GET /metrics without an admin session (PUSHHUB_METRICS_TOKEN). */
  metricsToken: z.string().min(16).optional(),
  /** A one-time token that signs the local operator in (PUSHHUB_LOCAL_LOGIN_TOKEN; the desktop app sets it). */
  localLoginToken: z.string().min(32).optional(),
  /** pino level; `silent` in tests. */
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** The largest accepted request body on /v1/push and /api, in bytes (DESIGN.md: 16 KiB). */
  bodyLimitBytes: z.number().int().positive().default(16 * 1024),
  /** SQLite `PRAGMA synchronous`: FULL makes every answered push durable across power loss. */
  synchronous: z.enum(['FULL', 'NORMAL']).default('FULL'),
  /** How long a write waits for the database lock before answering 503 (ms). */
  busyTimeoutMs: z.number().int().min(0).default(5000),
  /** APNs origin override (PUSHHUB_APNS_ORIGIN); default Apple's production or sandbox host. */
  apnsOrigin: z.url({ protocol: /^https?$/ }).optional(),
  /** FCM and OAuth token origin override (PUSHHUB_FCM_ORIGIN); default Google's hosts. */
  fcmOrigin: z.url({ protocol: /^https?$/ }).optional(),
  /** A PEM bundle trusted in addition to the system's CAs (PUSHHUB_EXTRA_CA_FILE). */
  extraCaFile: z.string().min(1).optional(),
  /** Milliseconds between heartbeat comments on receiver streams (keeps proxies from closing them). */
  streamHeartbeatMs: z.number().int().positive().default(15_000),
  delivery: z
    .object({
      /** A delivery still failing this long after its notification was accepted ends `expired` (ms, default 24 h). */
      maxAgeMs: z.number().int().positive().default(24 * 3600 * 1000),
      /** A request to a push service that takes longer is abandoned and retried (ms). */
      requestTimeoutMs: z.number().int().positive().default(10_000),
      /** Sends in flight at once, per channel. */
      concurrency: z.number().int().positive().default(64),
      /** Per-channel overrides: APNs multiplexes many streams per HTTP/2 connection (decision 0004). */
      channelConcurrency: z
        .object({
          apns: z.number().int().positive().optional(),
          fcm: z.number().int().positive().optional(),
          webpush: z.number().int().positive().optional(),
          stream: z.number().int().positive().optional(),
        })
        .default({ apns: 1000 }),
      /** First retry delay (ms); doubles each attempt, with jitter, up to maxBackoffMs. */
      baseBackoffMs: z.number().int().positive().default(2000),
      maxBackoffMs: z.number().int().positive().default(3600 * 1000),
      /** Backpressure: past this many pending deliveries, /v1/push answers 503 with Retry-After. */
      maxOutboxDepth: z.number().int().positive().default(1_000_000),
    })
    .default({
      maxAgeMs: 24 * 3600 * 1000,
      requestTimeoutMs: 10_000,
      concurrency: 64,
      channelConcurrency: { apns: 1000 },
      baseBackoffMs: 2000,
      maxBackoffMs: 3600 * 1000,
      maxOutboxDepth: 1_000_000,
    }),
  rateLimit: z
    .object({
      /** Per app: burst 60, then 10 per second. */
      perApp: bucketSchema.default({ burst: 60, refill: 10, intervalMs: 1000 }),
      /** Per client IP, failed authentications only: burst 30, then 1 per minute. */
      authFailures: bucketSchema.default({ burst: 30, refill: 1, intervalMs: 60_000 }),
    })
    .default({
      perApp: { burst: 60, refill: 10, intervalMs: 1000 },
      authFailures: { burst: 30, refill: 1, intervalMs: 60_000 },
    }),
});

/** A validated, frozen configuration (see {@link configSchema} for units and defaults). */
export type HubConfig = Readonly<z.infer<typeof configSchema>>;

/** Options given on the command line (already parsed by commander). */
export interface ConfigFlags {
  host?: string;
  port?: string | number;
  dataDir?: string;
}

/** Inputs to {@link loadConfig}; `file` is the parsed JSON of a config file, if any. */
export interface LoadConfigInput {
  flags?: ConfigFlags;
  env?: Record<string, string | undefined>;
  file?: unknown;
}

/** Thrown by {@link loadConfig} with every problem in one readable message. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * The default data directory: `$XDG_DATA_HOME/pushhub`, else `~/.local/share/pushhub`
 * (XDG Base Directory Specification).
 */
export function defaultDataDir(env: Record<string, string | undefined>): string {
  const base = env.XDG_DATA_HOME || path.join(env.HOME || os.homedir(), '.local', 'share');
  return path.join(base, 'pushhub');
}

function portFrom(value: string | number | undefined, source: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n)) throw new ConfigError(`${source}: port must be an integer, got "${value}"`);
  return n;
}

function intFrom(value: string | undefined, source: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new ConfigError(`${source}: expected an integer, got "${value}"`);
  return n;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Builds the configuration from defaults < file < environment < flags. Pure: reads nothing but
 * its arguments (DESIGN.md convention 5).
 *
 * Environment: PUSHHUB_HOST, PUSHHUB_PORT, PUSHHUB_DATA_DIR, PUSHHUB_ADMIN_PASSWORD,
 * PUSHHUB_LOG_LEVEL, PUSHHUB_RATE_LIMIT_BURST, PUSHHUB_RATE_LIMIT_PER_SECOND, PUSHHUB_APNS_ORIGIN,
 * PUSHHUB_FCM_ORIGIN, PUSHHUB_EXTRA_CA_FILE, PUSHHUB_PUBLIC_URL, PUSHHUB_LOCAL_LOGIN_TOKEN,
 * PUSHHUB_MAX_OUTBOX_DEPTH, PUSHHUB_METRICS_TOKEN, PUSHHUB_TRUST_PROXY.
 *
 * @throws ConfigError naming each invalid setting.
 */
export function loadConfig({ flags = {}, env = {}, file = {} }: LoadConfigInput): HubConfig {
  if (!isObject(file)) throw new ConfigError('config file: expected a JSON object');
  const fromFile = { ...file };
  const rateLimit = isObject(fromFile.rateLimit) ? { ...fromFile.rateLimit } : {};
  const perApp = isObject(rateLimit.perApp) ? { ...rateLimit.perApp } : {};
  const burst = intFrom(env.PUSHHUB_RATE_LIMIT_BURST, 'PUSHHUB_RATE_LIMIT_BURST');
  const perSecond = intFrom(env.PUSHHUB_RATE_LIMIT_PER_SECOND, 'PUSHHUB_RATE_LIMIT_PER_SECOND');
  if (burst !== undefined || perSecond !== undefined) {
    Object.assign(perApp, { burst: 60, refill: 10, intervalMs: 1000 }, isObject(rateLimit.perApp) ? rateLimit.perApp : {});
    if (burst !== undefined) perApp.burst = burst;
    if (perSecond !== undefined) Object.assign(perApp, { refill: perSecond, intervalMs: 1000 });
    rateLimit.perApp = perApp;
  }

  const merged: Record<string, unknown> = {
    ...fromFile,
    ...(Object.keys(rateLimit).length ? { rateLimit } : {}),
  };
  const set = (key: string, value: unknown) => {
    if (value !== undefined && value !== '') merged[key] = value;
  };
  set('host', env.PUSHHUB_HOST);
  set('port', portFrom(env.PUSHHUB_PORT, 'PUSHHUB_PORT'));
  set('dataDir', env.PUSHHUB_DATA_DIR);
  set('adminPassword', env.PUSHHUB_ADMIN_PASSWORD);
  set('logLevel', env.PUSHHUB_LOG_LEVEL);
  set('publicUrl', env.PUSHHUB_PUBLIC_URL);
  set('localLoginToken', env.PUSHHUB_LOCAL_LOGIN_TOKEN);
  set('metricsToken', env.PUSHHUB_METRICS_TOKEN);
  set('trustProxy', env.PUSHHUB_TRUST_PROXY);
  set('apnsOrigin', env.PUSHHUB_APNS_ORIGIN);
  const depth = intFrom(env.PUSHHUB_MAX_OUTBOX_DEPTH, 'PUSHHUB_MAX_OUTBOX_DEPTH');
  if (depth !== undefined) merged.delivery = { ...(isObject(merged.delivery) ? merged.delivery : {}), maxOutboxDepth: depth };
  set('fcmOrigin', env.PUSHHUB_FCM_ORIGIN);
  set('extraCaFile', env.PUSHHUB_EXTRA_CA_FILE);
  set('host', flags.host);
  set('port', portFrom(flags.port, '--port'));
  set('dataDir', flags.dataDir);
  if (merged.dataDir === undefined) merged.dataDir = defaultDataDir(env);

  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return Object.freeze({ ...parsed.data, dataDir: path.resolve(parsed.data.dataDir) });
}

/** True when `host` only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}
