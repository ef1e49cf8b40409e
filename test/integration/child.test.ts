import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildToParent } from '../../server/child.js';
import { hubChildEnv, localLoginUrl, newLocalLoginToken } from '../../main/child-env.js';
import { createDesktopReceiver, type StreamNotification } from '../../main/desktop-receiver.js';
import { createServerHost, type HubChild, type HubEnv } from '../../main/server-host.js';
import { tempDataDir } from '../helpers/hub.js';
import { waitFor } from '../helpers/wait.js';

// The contract between main/ and the server, for real: server/child.ts runs as a Node child
// process with the environment Electron's main process gives it (temporary data dir, port 0,
// 127.0.0.1, a fresh one-time sign-in token), and talks over the IPC channel as it would over
// Electron's parentPort.

const root = path.resolve(import.meta.dirname, '../..');
const CHILD = path.join(root, 'server/child.ts');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** The environment main.ts builds, on a clean base (PATH, HOME and a quiet log). */
function desktopEnv(dataDir: string, extra: Record<string, string> = {}) {
  const token = newLocalLoginToken();
  const env = hubChildEnv({
    base: { PATH: process.env.PATH, HOME: process.env.HOME, PUSHHUB_LOG_LEVEL: 'warn', ...extra },
    dataDir,
    port: Number(extra.PUSHHUB_PORT ?? 0),
    localLoginToken: token,
  });
  return { env, token };
}

/** Forks server/child.ts from the sources with tsx, as `node --import tsx server/child.ts`. */
function forkChild(env: HubEnv) {
  const child = fork(CHILD, [], {
    cwd: root,
    env,
    execPath: process.execPath,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const messages: ChildToParent[] = [];
  child.on('message', (m) => messages.push(m as ChildToParent));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const next = async (type: ChildToParent['type'], ms = 20_000) => {
    await waitFor(() => messages.some((m) => m.type === type) || child.exitCode !== null, ms, `a ${type} message (output: ${output})`);
    const found = messages.find((m) => m.type === type);
    if (!found) throw new Error(`the child exited (${child.exitCode}) without a ${type} message: ${output}`);
    return found;
  };
  return { child, messages, exited, next, output: () => output };
}

/** A Node child process as the server host's HubChild (main.ts adapts Electron's UtilityProcess the same way). */
function nodeSpawner() {
  const spawned: ChildProcess[] = [];
  const spawn = (env: HubEnv): HubChild => {
    const { child } = forkChild(env);
    spawned.push(child);
    return {
      postMessage: (m) => child.connected && child.send(m as object),
      kill: () => child.kill('SIGTERM'),
      onMessage: (l) => child.on('message', l),
      onExit: (l) => child.once('exit', (code) => l(code)),
    };
  };
  return { spawn, spawned };
}

// Each test starts real processes from the TypeScript sources (tsx): give them time on a busy machine.
describe('server/child.ts as the desktop app runs it', { timeout: 60_000 }, () => {
  it('reports ready with its URL, answers /healthz, honours the local sign-in token once, and stops on request', async () => {
    const dataDir = tempDataDir();
    const { env, token } = desktopEnv(dataDir);
    const hub = forkChild(env);
    const ready = await hub.next('ready');
    expect(ready).toEqual({ type: 'ready', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), port: expect.any(Number), dataDir, publicUrl: null });
    const { url, port } = ready as { url: string; port: number };
    expect(port).toBeGreaterThan(0);
    expect(url).toBe(`http://127.0.0.1:${port}`);

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(fs.existsSync(path.join(dataDir, 'pushhub.db'))).toBe(true);

    // The window's way in: the one-time token signs the local operator in and redirects to the console…
    const signIn = await fetch(localLoginUrl(url, token), { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/');
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const me = await fetch(`${url}/api/auth/me`, { headers: { cookie } });
    expect(me.status).toBe(200);
    // …once.
    expect((await fetch(localLoginUrl(url, token), { redirect: 'manual' })).status).toBe(401);
    expect((await fetch(localLoginUrl(url, newLocalLoginToken()), { redirect: 'manual' })).status).toBe(401);

    hub.child.send({ type: 'stop' });
    expect(await hub.exited).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('answers the tray\'s requests: pending deliveries, receivers, a receiver session', async () => {
    const dataDir = tempDataDir();
    const { env, token } = desktopEnv(dataDir);
    const hub = forkChild(env);
    const { url } = (await hub.next('ready')) as { url: string };
    const signIn = await fetch(localLoginUrl(url, token), { redirect: 'manual' });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const admin = { cookie, 'content-type': 'application/json', origin: url };
    const user = (await (await fetch(`${url}/api/users`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Erin', username: 'erin', password: 'erin password' }) })).json()) as {
      id: string;
      userKey: string;
    };
    const app = (await (await fetch(`${url}/api/apps`, { method: 'POST', headers: admin, body: '{"name":"cron"}' })).json()) as { apiKey: string };

    let id = 0;
    const request = async (method: string, params: Record<string, unknown> = {}) => {
      const requestId = ++id;
      hub.child.send({ type: 'request', id: requestId, method, params });
      await waitFor(() => hub.messages.some((m) => m.type === 'reply' && m.id === requestId), 5000, `the reply to ${method}`);
      return hub.messages.find((m) => m.type === 'reply' && m.id === requestId)!;
    };

    expect(await request('status')).toEqual({ type: 'reply', id: 1, ok: true, result: { pendingDeliveries: 0 } });
    expect(await request('receivers')).toEqual({ type: 'reply', id: 2, ok: true, result: { users: [{ id: user.id, name: 'Erin', username: 'erin' }] } });
    expect(await request('receiver-session', { userId: 'nobody' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await request('launch-missiles')).toMatchObject({ ok: false, error: { code: 'unknown_method' } });

    const session = (await request('receiver-session', { userId: user.id })) as { ok: true; result: { token: string; user: { id: string; name: string } } };
    expect(session.result.user).toEqual({ id: user.id, name: 'Erin' });
    // A still-valid token is handed back instead of a new session.
    const again = (await request('receiver-session', { userId: user.id, token: session.result.token })) as { result: { token: string } };
    expect(again.result.token).toBe(session.result.token);

    // The desktop receiver with that session: a push arrives as it would become a native notification.
    const shown: StreamNotification[] = [];
    const receiver = createDesktopReceiver({
      hubUrl: url,
      token: session.result.token,
      deviceName: 'Pushhub desktop (child test)',
      deviceToken: 'child-test-desktop-device',
      onNotification: (n) => shown.push(n),
    });
    await receiver.start();
    await waitFor(() => receiver.state === 'connected', 5000, 'the stream');
    // A second device that never connects keeps one delivery pending: the tray's count.
    await fetch(`${url}/api/receiver/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.result.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'offline desktop', platform: 'desktop', channel: 'stream', token: 'offline-desktop-device-1' }),
    });
    const push = await fetch(`${url}/v1/push`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: app.apiKey, userKey: user.userKey, title: 'Backup done', body: 'nightly' }),
    });
    expect(push.status).toBe(200);
    await waitFor(() => shown.length === 1, 5000, 'the notification');
    expect(shown[0]).toMatchObject({ title: 'Backup done', body: 'nightly' });
    // The shown delivery's outcome is recorded right after the send (outcomes are committed in
    // groups): the count settles at the one delivery still waiting for the offline device.
    let pending = -1;
    await waitFor(
      async () => {
        pending = ((await request('status')) as { result: { pendingDeliveries: number } }).result.pendingDeliveries;
        return pending === 1;
      },
      5000,
      'one pending delivery',
    ).catch(() => expect(pending).toBe(1));
    await receiver.stop();

    hub.child.kill('SIGTERM');
    expect(await hub.exited).toBe(0);
  });

  it('reports why it cannot start, then exits 1', async () => {
    // A port that is taken.
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      const { env } = desktopEnv(tempDataDir(), { PUSHHUB_PORT: String(taken) });
      const hub = forkChild(env);
      expect(await hub.next('error')).toEqual({ type: 'error', message: `port ${taken} on 127.0.0.1 is already in use` });
      expect(await hub.exited).toBe(1);
    } finally {
      blocker.close();
    }

    // A bad setting from the user's environment.
    const { env } = desktopEnv(tempDataDir(), { PUSHHUB_RATE_LIMIT_BURST: 'lots' });
    const bad = forkChild(env);
    expect(await bad.next('error')).toMatchObject({ message: expect.stringContaining('PUSHHUB_RATE_LIMIT_BURST') });
    expect(await bad.exited).toBe(1);
  });

  it('refuses to run without a parent to report to', async () => {
    const { env } = desktopEnv(tempDataDir());
    const { spawn } = await import('node:child_process');
    const orphan = spawn(process.execPath, ['--import', 'tsx', CHILD], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(orphan);
    let stderr = '';
    orphan.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => orphan.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('use `pushhub serve`');
  });

  it('under the server host: ready, crash → restarted on the remembered port, stop', async () => {
    const dataDir = tempDataDir();
    const { spawn, spawned } = nodeSpawner();
    let port = 0;
    const host = createServerHost({
      spawn,
      env: () => desktopEnv(dataDir, { PUSHHUB_PORT: String(port) }).env,
      readyTimeoutMs: 20_000,
      backoff: { initialMs: 100 },
    });
    const ready = await host.start();
    port = ready.port;
    expect((await fetch(`${ready.url}/healthz`)).status).toBe(200);
    expect(await host.request('status')).toEqual({ pendingDeliveries: 0 });

    // The hub process dies (as on an out-of-memory kill): the host starts a new one.
    spawned[0]!.kill('SIGKILL');
    await waitFor(() => host.state.state === 'restarting', 5000, 'the crash to be seen');
    await waitFor(() => host.state.state === 'running', 20_000, 'the restarted hub');
    expect(spawned).toHaveLength(2);
    expect(host.state.state === 'running' && host.state.ready.url).toBe(ready.url);
    expect((await fetch(`${ready.url}/healthz`)).status).toBe(200);

    const second = spawned[1]!;
    const exited = new Promise<number | null>((resolve) => second.once('exit', resolve));
    await host.stop();
    expect(await exited).toBe(0);
    expect(host.state).toEqual({ state: 'stopped' });
  });
});
