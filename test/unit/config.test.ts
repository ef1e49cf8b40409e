import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultDataDir, isLoopbackHost, loadConfig } from '../../server/config/config.js';

describe('loadConfig', () => {
  it('has working defaults: loopback, port 8780, XDG data dir, durable commits', () => {
    const c = loadConfig({ env: { HOME: '/home/ann' } });
    expect(c).toMatchObject({ host: '127.0.0.1', port: 8780, dataDir: '/home/ann/.local/share/pushhub', synchronous: 'FULL' });
    expect(c.rateLimit.perApp).toEqual({ burst: 60, refill: 10, intervalMs: 1000 });
    expect(c.rateLimit.authFailures).toEqual({ burst: 30, refill: 1, intervalMs: 60_000 });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads XDG_DATA_HOME', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/data', HOME: '/home/ann' })).toBe(path.join('/data', 'pushhub'));
  });

  it('applies defaults < file < environment < flags', () => {
    const file = { host: '127.0.0.2', port: 1000, dataDir: '/from-file', rateLimit: { perApp: { burst: 5, refill: 1, intervalMs: 1000 } } };
    expect(loadConfig({ file })).toMatchObject({ host: '127.0.0.2', port: 1000, dataDir: '/from-file' });
    const env = { PUSHHUB_PORT: '2000', PUSHHUB_DATA_DIR: '/from-env' };
    expect(loadConfig({ file, env })).toMatchObject({ host: '127.0.0.2', port: 2000, dataDir: '/from-env' });
    const flags = { port: '3000', host: 'localhost' };
    expect(loadConfig({ file, env, flags })).toMatchObject({ host: 'localhost', port: 3000, dataDir: '/from-env' });
    expect(loadConfig({ file }).rateLimit.perApp.burst).toBe(5);
  });

  it('configures the per-app rate limit from the environment', () => {
    const c = loadConfig({ env: { PUSHHUB_RATE_LIMIT_BURST: '100', PUSHHUB_RATE_LIMIT_PER_SECOND: '20' } });
    expect(c.rateLimit.perApp).toEqual({ burst: 100, refill: 20, intervalMs: 1000 });
  });

  it('names each invalid setting', () => {
    expect(() => loadConfig({ flags: { port: 'x' } })).toThrow(/--port: port must be an integer/);
    expect(() => loadConfig({ flags: { port: 70000 } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { PUSHHUB_LOG_LEVEL: 'loud' } })).toThrow(/logLevel/);
    expect(() => loadConfig({ env: { PUSHHUB_ADMIN_PASSWORD: 'short' } })).toThrow(/adminPassword/);
    expect(() => loadConfig({ file: [] })).toThrow(/JSON object/);
  });
});

describe('isLoopbackHost', () => {
  it('tells loopback from network addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.10', 'hub.lan']) expect(isLoopbackHost(h), h).toBe(false);
  });
});
