import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  backoffDelay,
  createServerHost,
  DEFAULT_BACKOFF,
  HubRequestError,
  HubStartError,
  type HubChild,
  type HubEnv,
  type HubState,
  type ServerHostOptions,
} from '../../main/server-host.js';

// The server host (main/server-host.ts) against a fake child process: what Electron's main process
// does with the hub's utility process, without Electron. Time is fake (vi.useFakeTimers).

/** A child that does what the test tells it, and records what the host did to it. */
class FakeChild implements HubChild {
  posted: unknown[] = [];
  killed = 0;
  exited = false;
  private messageListeners: ((m: unknown) => void)[] = [];
  private exitListeners: ((code: number | null) => void)[] = [];
  constructor(
    readonly env: HubEnv,
    /** What the fake does on `{type:'stop'}`: exit 0 (a healthy hub), or nothing (a hung one). */
    private onStop: 'exit' | 'hang' = 'exit',
  ) {}
  postMessage(message: unknown) {
    this.posted.push(message);
    if ((message as { type: string }).type === 'stop' && this.onStop === 'exit') queueMicrotask(() => this.exit(0));
  }
  kill() {
    this.killed += 1;
    queueMicrotask(() => this.exit(null));
    return true;
  }
  onMessage(listener: (m: unknown) => void) {
    this.messageListeners.push(listener);
  }
  onExit(listener: (code: number | null) => void) {
    this.exitListeners.push(listener);
  }
  /** The child sends a message to the host. */
  send(message: unknown) {
    for (const l of this.messageListeners) l(message);
  }
  ready(port = 8780) {
    this.send({ type: 'ready', url: `http://127.0.0.1:${port}`, port, dataDir: '/data', publicUrl: null });
  }
  exit(code: number | null) {
    if (this.exited) return;
    this.exited = true;
    for (const l of this.exitListeners) l(code);
  }
}

function setup(overrides: Partial<ServerHostOptions> & { onStop?: 'exit' | 'hang' } = {}) {
  const children: FakeChild[] = [];
  const envCalls: { attempt: number; lastFailure: unknown }[] = [];
  const states: HubState[] = [];
  const lines: string[] = [];
  const host = createServerHost({
    spawn: (env) => {
      const child = new FakeChild(env, overrides.onStop);
      children.push(child);
      return child;
    },
    env: (ctx) => {
      envCalls.push(ctx);
      return { PUSHHUB_PORT: '0', ATTEMPT: String(ctx.attempt) };
    },
    readyTimeoutMs: 10_000,
    stopTimeoutMs: 3000,
    log: (line) => lines.push(line),
    ...overrides,
  });
  host.onState((s) => states.push(s));
  const last = () => children.at(-1)!;
  return { host, children, envCalls, states, lines, last };
}

/** Lets queued microtasks and promise callbacks run (fake timers do not advance). */
const flush = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('server host: ready', () => {
  it('spawns the child with the environment and resolves with the ready message', async () => {
    const { host, children, envCalls, states, last } = setup();
    const started = host.start();
    expect(children).toHaveLength(1);
    expect(last().env).toEqual({ PUSHHUB_PORT: '0', ATTEMPT: '1' });
    expect(envCalls).toEqual([{ attempt: 1, lastFailure: null }]);
    expect(host.state).toEqual({ state: 'starting', attempt: 1 });

    last().ready(41234);
    await expect(started).resolves.toEqual({ url: 'http://127.0.0.1:41234', port: 41234, dataDir: '/data', publicUrl: null });
    expect(host.state.state).toBe('running');
    expect(states.map((s) => s.state)).toEqual(['starting', 'running']);
    // start() while running answers at once and spawns nothing.
    await expect(host.start()).resolves.toMatchObject({ port: 41234 });
    expect(children).toHaveLength(1);
  });

  it('ignores messages that are not a well-formed ready', async () => {
    const { host, last } = setup();
    const started = host.start();
    last().send('hello');
    last().send({ type: 'ready' });
    last().send({ type: 'ready', url: 'http://127.0.0.1:1' });
    expect(host.state.state).toBe('starting');
    last().ready();
    await expect(started).resolves.toMatchObject({ port: 8780 });
  });

  it('answers requests through the child and rejects unknown or refused ones', async () => {
    const { host, last } = setup();
    await expect(host.request('status')).rejects.toMatchObject({ code: 'unavailable' });
    const started = host.start();
    last().ready();
    await started;

    const status = host.request('status');
    const sent = last().posted.at(-1) as { type: string; id: number; method: string };
    expect(sent).toMatchObject({ type: 'request', method: 'status' });
    last().send({ type: 'reply', id: sent.id, ok: true, result: { pendingDeliveries: 3 } });
    await expect(status).resolves.toEqual({ pendingDeliveries: 3 });

    const refused = host.request('receiver-session', { userId: 'nobody' });
    const sent2 = last().posted.at(-1) as { id: number };
    last().send({ type: 'reply', id: sent2.id, ok: false, error: { code: 'not_found', message: 'no receiver' } });
    await expect(refused).rejects.toEqual(new HubRequestError('not_found', 'no receiver'));

    const unanswered = host.request('receivers', {}, 1000);
    const assertion = expect(unanswered).rejects.toMatchObject({ code: 'timeout' });
    await vi.advanceTimersByTimeAsync(1000);
    await assertion;
  });
});

describe('server host: a start that fails', () => {
  it('times out without a ready message: kills the child, fails, does not retry', async () => {
    const { host, children, states, last } = setup();
    const started = host.start();
    const assertion = expect(started).rejects.toEqual(
      new HubStartError({ cause: 'timeout', message: 'the hub did not report ready within 10 s' }),
    );
    await vi.advanceTimersByTimeAsync(9999);
    expect(host.state.state).toBe('starting');
    await vi.advanceTimersByTimeAsync(1);
    await assertion;
    expect(last().killed).toBe(1);
    expect(host.state).toEqual({ state: 'failed', failure: { cause: 'timeout', message: 'the hub did not report ready within 10 s' } });
    expect(states.map((s) => s.state)).toEqual(['starting', 'failed']);
    // No automatic retry of a first start: the app shows the failure instead.
    await vi.advanceTimersByTimeAsync(120_000);
    expect(children).toHaveLength(1);
  });

  it('reports the hub\'s own error message', async () => {
    const { host, last } = setup();
    const started = host.start();
    last().send({ type: 'error', message: 'port 8780 on 127.0.0.1 is already in use' });
    await expect(started).rejects.toMatchObject({ failure: { cause: 'error', message: 'port 8780 on 127.0.0.1 is already in use' } });
    expect(last().killed).toBe(1);
    // Its exit afterwards changes nothing.
    await flush();
    expect(host.state).toMatchObject({ state: 'failed', failure: { cause: 'error' } });
  });

  it('reports an exit before ready, and a spawn that throws', async () => {
    const { host, last } = setup();
    const started = host.start();
    last().exit(1);
    await expect(started).rejects.toMatchObject({ failure: { cause: 'exit', message: 'the hub exited with code 1 before it was ready' } });

    const broken = createServerHost({
      spawn: () => {
        throw new Error('ENOENT child.js');
      },
      env: () => ({}),
    });
    await expect(broken.start()).rejects.toMatchObject({ failure: { cause: 'spawn', message: 'could not start the hub process: ENOENT child.js' } });
    expect(broken.state.state).toBe('failed');
  });

  it('starts again after a failure when asked, telling env() what failed', async () => {
    const { host, children, envCalls, last } = setup();
    const first = host.start();
    last().send({ type: 'error', message: 'port 8780 on 127.0.0.1 is already in use' });
    await expect(first).rejects.toBeInstanceOf(HubStartError);
    await flush();
    const second = host.start();
    expect(children).toHaveLength(2);
    expect(envCalls[1]).toEqual({ attempt: 1, lastFailure: { cause: 'error', message: 'port 8780 on 127.0.0.1 is already in use' } });
    last().ready(5555);
    await expect(second).resolves.toMatchObject({ port: 5555 });
  });
});

describe('server host: crash → restart with backoff', () => {
  it('restarts a crashed hub after 1 s, 2 s, 4 s … and resets after a stable run', async () => {
    const { host, children, states, last, lines } = setup({ backoff: { initialMs: 1000, factor: 2, maxMs: 30_000, maxAttempts: 6, stableMs: 60_000 } });
    const started = host.start();
    last().ready();
    await started;

    // First crash: restart in 1 s.
    last().exit(1);
    expect(host.state).toMatchObject({ state: 'restarting', delayMs: 1000, failure: { cause: 'exit', message: 'the hub exited with code 1 unexpectedly' } });
    await vi.advanceTimersByTimeAsync(999);
    expect(children).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(children).toHaveLength(2);
    expect(host.state).toEqual({ state: 'starting', attempt: 2 });

    // The restarted child crashes before ready: 2 s; then again: 4 s.
    last().exit(null);
    expect(host.state).toMatchObject({ state: 'restarting', delayMs: 2000, failure: { message: 'the hub was killed before it was ready' } });
    await vi.advanceTimersByTimeAsync(2000);
    expect(children).toHaveLength(3);
    last().exit(1);
    expect(host.state).toMatchObject({ state: 'restarting', delayMs: 4000 });
    await vi.advanceTimersByTimeAsync(4000);
    expect(children).toHaveLength(4);

    // Back up; after a minute of running the count of failures in a row starts over.
    last().ready(8780);
    await flush();
    expect(host.state.state).toBe('running');
    await vi.advanceTimersByTimeAsync(60_000);
    last().exit(1);
    expect(host.state).toMatchObject({ state: 'restarting', delayMs: 1000 });
    expect(states.filter((s) => s.state === 'running')).toHaveLength(2);
    expect(lines).toContain('restarting the hub in 1000 ms');
  });

  it('gives up after maxAttempts failures in a row', async () => {
    const { host, children, last } = setup({ backoff: { maxAttempts: 3 } });
    const started = host.start();
    last().ready();
    await started;
    for (const delay of [1000, 2000, 4000]) {
      last().exit(1);
      expect(host.state).toMatchObject({ state: 'restarting', delayMs: delay });
      await vi.advanceTimersByTimeAsync(delay);
    }
    expect(children).toHaveLength(4);
    last().exit(1);
    expect(host.state).toMatchObject({ state: 'failed', failure: { cause: 'exit' } });
    await vi.advanceTimersByTimeAsync(600_000);
    expect(children).toHaveLength(4);
  });

  it('treats a restarted child that never gets ready like a crash (timeout, killed, next delay)', async () => {
    const { host, children, last } = setup();
    const started = host.start();
    last().ready();
    await started;
    last().exit(1);
    await vi.advanceTimersByTimeAsync(1000);
    const hung = last();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(hung.killed).toBe(1);
    expect(host.state).toMatchObject({ state: 'restarting', delayMs: 2000, failure: { cause: 'timeout' } });
    await vi.advanceTimersByTimeAsync(2000);
    expect(children).toHaveLength(3);
  });

  it('waits for the old process to be gone before starting the next one', async () => {
    const { host, children, last } = setup();
    const started = host.start();
    last().ready();
    await started;
    // The hub reports a fatal error but its process lingers (kill takes effect later).
    const old = last();
    old.kill = () => {
      old.killed += 1;
      return true;
    };
    old.send({ type: 'error', message: 'boom' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(children).toHaveLength(1);
    old.exit(null);
    await flush();
    expect(children).toHaveLength(2);
  });

  it('the backoff formula is capped', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(DEFAULT_BACKOFF, n))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
  });
});

describe('server host: stop', () => {
  it('asks the child to stop and resolves once it exited', async () => {
    const { host, last, states } = setup();
    const started = host.start();
    last().ready();
    await started;
    const child = last();
    await host.stop();
    expect(child.posted).toContainEqual({ type: 'stop' });
    expect(child.killed).toBe(0);
    expect(child.exited).toBe(true);
    expect(host.state).toEqual({ state: 'stopped' });
    expect(states.map((s) => s.state)).toEqual(['starting', 'running', 'stopping', 'stopped']);
    // The exit during a stop is not a crash: nothing restarts.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(host.state).toEqual({ state: 'stopped' });
  });

  it('kills a child that does not stop in time', async () => {
    const { host, last } = setup({ onStop: 'hang' });
    const started = host.start();
    last().ready();
    await started;
    const stopped = host.stop();
    await vi.advanceTimersByTimeAsync(2999);
    expect(last().killed).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    await stopped;
    expect(last().killed).toBe(1);
    expect(last().exited).toBe(true);
  });

  it('cancels a pending restart and rejects a start in progress', async () => {
    const { host, children, last } = setup();
    const started = host.start();
    last().ready();
    await started;
    last().exit(1);
    expect(host.state.state).toBe('restarting');
    await host.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(children).toHaveLength(1);

    const again = host.start();
    const stopping = host.stop();
    await expect(again).rejects.toMatchObject({ message: 'the hub was stopped' });
    await stopping;
    expect(host.state).toEqual({ state: 'stopped' });
    // Stopping twice is fine.
    await host.stop();
  });

  it('restart() stops the running child and starts a fresh one', async () => {
    const { host, children, last } = setup();
    const started = host.start();
    last().ready(1111);
    await started;
    const first = last();
    const restarted = host.restart();
    await flush();
    expect(first.posted).toContainEqual({ type: 'stop' });
    expect(children).toHaveLength(2);
    last().ready(2222);
    await expect(restarted).resolves.toMatchObject({ port: 2222 });
  });

  it('rejects requests in flight when the hub goes away', async () => {
    const { host, last } = setup();
    const started = host.start();
    last().ready();
    await started;
    const pending = host.request('status');
    last().exit(1);
    await expect(pending).rejects.toMatchObject({ code: 'unavailable' });
  });
});
