import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig, type HubConfig } from '../../server/config/config.js';
import { startHub, type Hub } from '../../server/index.js';

/** The admin password every test hub is provisioned with. */
export const ADMIN_PASSWORD = 'correct horse battery';

/** A fresh temporary data directory, removed by the caller's cleanup. */
export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'pushhub-test-'));
}

/** A config for tests: loopback, port 0, quiet logs; `overrides` replace fields. */
export function testConfig(dataDir: string, overrides: Partial<HubConfig> = {}, env: Record<string, string> = {}): HubConfig {
  const base = loadConfig({
    flags: { port: 0, host: '127.0.0.1', dataDir },
    env: { PUSHHUB_ADMIN_PASSWORD: ADMIN_PASSWORD, PUSHHUB_LOG_LEVEL: 'silent', ...env },
  });
  return Object.freeze({ ...base, ...overrides });
}

/** A running hub plus small HTTP helpers for tests. */
export interface TestHub {
  hub: Hub;
  url: string;
  dataDir: string;
  /** Bearer token of the signed-in admin. */
  adminToken: string;
  /** JSON request to the admin API as the admin. */
  api(method: string, route: string, body?: unknown): Promise<{ status: number; json: any; headers: Headers }>;
  /** POST /v1/push with a JSON body. */
  push(body: unknown): Promise<{ status: number; text: string; json: any; headers: Headers }>;
  /** Stops the hub (the data dir stays). */
  close(): Promise<void>;
}

async function readJson(res: Response) {
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { text, json };
}

/** Starts a real hub on 127.0.0.1:0 with a real database in `dataDir` and signs in as admin. */
export async function startTestHub(options: { dataDir?: string; config?: Partial<HubConfig> } = {}): Promise<TestHub> {
  const dataDir = options.dataDir ?? tempDataDir();
  const hub = await startHub(testConfig(dataDir, options.config), { logger: pino({ level: 'silent' }) });
  const login = await fetch(`${hub.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  const adminToken = ((await login.json()) as { token: string }).token;

  return {
    hub,
    url: hub.url,
    dataDir,
    adminToken,
    async api(method, route, body) {
      const res = await fetch(`${hub.url}${route}`, {
        method,
        headers: {
          authorization: `Bearer ${adminToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const { json } = await readJson(res);
      return { status: res.status, json, headers: res.headers };
    },
    async push(body) {
      const res = await fetch(`${hub.url}/v1/push`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: res.status, ...(await readJson(res)), headers: res.headers };
    },
    close: () => hub.close(),
  };
}

/** Creates an app, a receiver and returns their keys: the usual starting point of a push test. */
export async function seed(t: TestHub, names: { app?: string; user?: string } = {}) {
  const app = await t.api('POST', '/api/apps', { name: names.app ?? 'Home Assistant' });
  const username = (names.user ?? `alice${Math.random().toString(36).slice(2, 8)}`).toLowerCase();
  const user = await t.api('POST', '/api/users', { name: names.user ?? 'Alice', username, password: 'receiver-pass' });
  return {
    appId: app.json.id as string,
    apiKey: app.json.apiKey as string,
    userId: user.json.id as string,
    userKey: user.json.userKey as string,
  };
}

/** Registers a device for a user directly in the store (the receiver API comes with delivery). */
export function addDevice(t: TestHub, userId: string, channel: 'apns' | 'fcm' | 'webpush' | 'stream' = 'apns') {
  const token = channel === 'stream' ? undefined : `${channel}-${Math.random().toString(16).slice(2)}`;
  return t.hub.store.devices.register({
    userId,
    name: `${channel} device`,
    platform: channel === 'apns' ? 'ios' : channel === 'fcm' ? 'android' : channel === 'webpush' ? 'web' : 'desktop',
    channel,
    ...(token ? { token } : {}),
  });
}
