import type { ChildMethods, ChildToParent } from '../server/child.js';

/**
 * The hub child process as the host sees it: Electron's `UtilityProcess` in the app (see
 * main.ts), a `child_process.fork` in tests, a fake in unit tests.
 */
export interface HubChild {
  postMessage(message: unknown): void;
  /** Asks the process to end (SIGTERM on POSIX); true when the signal was sent. */
  kill(): boolean;
  onMessage(listener: (message: unknown) => void): void;
  /** Called once when the process has ended, with its exit code (null when killed by a signal). */
  onExit(listener: (code: number | null) => void): void;
}

/** What the hub reports once it serves (server/child.ts `{type:'ready'}`). */
export interface HubReady {
  /** Base URL, e.g. `http://127.0.0.1:8780`. */
  url: string;
  port: number;
  dataDir: string;
  /** PUSHHUB_PUBLIC_URL when set. */
  publicUrl: string | null;
}

/** Why a start or a running hub failed. */
export interface HubFailure {
  /** `timeout`: no ready message in time; `error`: the hub said why; `exit`: the process ended; `spawn`: it could not be started. */
  cause: 'timeout' | 'error' | 'exit' | 'spawn';
  message: string;
}

/** The host's state; every change is reported to {@link ServerHost.onState} listeners. */
export type HubState =
  | { state: 'stopped' }
  | { state: 'starting'; attempt: number }
  | { state: 'running'; ready: HubReady; since: number }
  | { state: 'restarting'; attempt: number; delayMs: number; failure: HubFailure }
  | { state: 'failed'; failure: HubFailure }
  | { state: 'stopping' };

/** Restart policy after a crash: delay = min(maxMs, initialMs × factor^(n−1)) for the n-th failure in a row. */
export interface BackoffPolicy {
  initialMs: number;
  factor: number;
  maxMs: number;
  /** Failures in a row after which the host gives up (state `failed`). */
  maxAttempts: number;
  /** A hub that stays up this long resets the count of failures in a row (ms). */
  stableMs: number;
}

/** 1 s, 2 s, 4 s … up to 30 s; six restarts in a row at most; a minute up counts as stable. */
export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 1000, factor: 2, maxMs: 30_000, maxAttempts: 6, stableMs: 60_000 };

/** Environment of one start of the child: the key PUSHHUB_* settings (see child-env.ts). */
export type HubEnv = Record<string, string>;

/** What {@link createServerHost} needs: how to spawn the child, its environment, the time limits. */
export interface ServerHostOptions {
  /** Starts a child with this environment. May throw (→ failure `spawn`). */
  spawn(env: HubEnv): HubChild;
  /**
   * The environment of each start. `attempt` counts from 1 since the last start(); `lastFailure`
   * is the failure that led to this attempt, if any (e.g. to drop a remembered port that is taken).
   */
  env(context: { attempt: number; lastFailure: HubFailure | null }): HubEnv;
  /** How long to wait for `{type:'ready'}` (ms, default 30 000). */
  readyTimeoutMs?: number;
  /** How long a stop waits for the child to exit after `{type:'stop'}` before killing it (ms, default 5000). */
  stopTimeoutMs?: number;
  backoff?: Partial<BackoffPolicy>;
  /** Lifecycle lines for the log file. */
  log?(line: string): void;
  now?(): number;
}

/** Rejects start() and restart() when the hub could not start. */
export class HubStartError extends Error {
  override readonly name = 'HubStartError';
  constructor(readonly failure: HubFailure) {
    super(failure.message);
  }
}

/** Rejects request() when the child refused or did not answer. */
export class HubRequestError extends Error {
  override readonly name = 'HubRequestError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Runs the hub child: start, ready, restart with backoff, stop (issue "Desktop app"). */
export interface ServerHost {
  readonly state: HubState;
  /**
   * Starts the child and resolves once it is ready. A start that fails before the hub was ever
   * ready (a bad setting, a database from a newer Pushhub, a timeout) is not retried: the state
   * becomes `failed` and the promise rejects with a {@link HubStartError}. A hub that crashes
   * after it was ready is restarted with backoff ({@link BackoffPolicy}) until it is ready again
   * or `maxAttempts` failures in a row leave it `failed`. While running, resolves at once.
   */
  start(): Promise<HubReady>;
  /** Stops the child (if any) and starts it again, as start() does. */
  restart(): Promise<HubReady>;
  /**
   * Sends `{type:'stop'}`, waits up to `stopTimeoutMs` for the child to exit, then kills it.
   * Cancels a pending restart. Resolves when no child is left. Idempotent.
   */
  stop(): Promise<void>;
  /** Asks the running hub something (see ChildMethods in server/child.ts); rejects with HubRequestError. */
  request<M extends keyof ChildMethods>(method: M, params?: ChildMethods[M]['params'], timeoutMs?: number): Promise<ChildMethods[M]['result']>;
  /** Subscribes to state changes; returns the unsubscribe function. */
  onState(listener: (state: HubState) => void): () => void;
}

/** The delay before restart number `failures` (1-based) under `policy`, in ms. */
export function backoffDelay(policy: Pick<BackoffPolicy, 'initialMs' | 'factor' | 'maxMs'>, failures: number): number {
  return Math.min(policy.maxMs, Math.round(policy.initialMs * policy.factor ** Math.max(0, failures - 1)));
}

interface Spawned {
  gen: number;
  child: HubChild;
  exited: boolean;
  exitPromise: Promise<void>;
  ready: HubReady | null;
  /** A failure was recorded for this child; its later events are ignored. */
  done: boolean;
}

interface PendingRequest {
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function readyFrom(message: Record<string, unknown>): HubReady | null {
  if (typeof message.url !== 'string' || typeof message.port !== 'number') return null;
  return {
    url: message.url,
    port: message.port,
    dataDir: typeof message.dataDir === 'string' ? message.dataDir : '',
    publicUrl: typeof message.publicUrl === 'string' ? message.publicUrl : null,
  };
}

/** Creates the host; nothing runs until start(). */
export function createServerHost(options: ServerHostOptions): ServerHost {
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const stopTimeoutMs = options.stopTimeoutMs ?? 5000;
  const policy: BackoffPolicy = { ...DEFAULT_BACKOFF, ...options.backoff };
  const log = options.log ?? (() => {});
  const now = options.now ?? Date.now;

  let state: HubState = { state: 'stopped' };
  const listeners = new Set<(s: HubState) => void>();
  let current: Spawned | null = null;
  let gen = 0;
  let attempt = 0;
  /** Failures in a row since the hub was last stable. */
  let failuresInRow = 0;
  /** The hub was ready at least once since the last start()/restart(). */
  let everReady = false;
  let lastFailure: HubFailure | null = null;
  let readyTimer: ReturnType<typeof setTimeout> | undefined;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  let stableTimer: ReturnType<typeof setTimeout> | undefined;
  let waiters: { resolve(r: HubReady): void; reject(e: Error): void }[] = [];
  let stopping: Promise<void> | null = null;
  let requestId = 0;
  const pending = new Map<number, PendingRequest>();

  const setState = (next: HubState) => {
    state = next;
    for (const l of [...listeners]) {
      try {
        l(next);
      } catch {
        // a listener's failure must not break the host
      }
    }
  };
  const settleWaiters = (result: { ready: HubReady } | { error: Error }) => {
    const list = waiters;
    waiters = [];
    for (const w of list) ('ready' in result ? w.resolve(result.ready) : w.reject(result.error));
  };
  const rejectRequests = (why: string) => {
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      p.reject(new HubRequestError('unavailable', why));
      pending.delete(id);
    }
  };
  const clearTimers = () => {
    clearTimeout(readyTimer);
    clearTimeout(restartTimer);
    clearTimeout(stableTimer);
    readyTimer = restartTimer = stableTimer = undefined;
  };

  /** Waits for the child's exit, at most `ms`; true when it exited. */
  const waitExit = (s: Spawned, ms: number) =>
    new Promise<boolean>((resolve) => {
      if (s.exited) return resolve(true);
      const t = setTimeout(() => resolve(s.exited), ms);
      void s.exitPromise.then(() => {
        clearTimeout(t);
        resolve(true);
      });
    });

  const spawnNext = () => {
    attempt += 1;
    const thisGen = ++gen;
    setState({ state: 'starting', attempt });
    log(`starting the hub (attempt ${attempt})`);
    let child: HubChild;
    try {
      child = options.spawn(options.env({ attempt, lastFailure }));
    } catch (err) {
      current = null;
      fail({ cause: 'spawn', message: `could not start the hub process: ${(err as Error).message}` });
      return;
    }
    let markExited!: () => void;
    const s: Spawned = {
      gen: thisGen,
      child,
      exited: false,
      exitPromise: new Promise<void>((resolve) => (markExited = resolve)),
      ready: null,
      done: false,
    };
    current = s;
    child.onMessage((message) => onMessage(s, message));
    child.onExit((code) => {
      s.exited = true;
      markExited();
      onExit(s, code);
    });
    readyTimer = setTimeout(() => {
      if (current !== s || s.ready || s.done) return;
      fail({ cause: 'timeout', message: `the hub did not report ready within ${Math.round(readyTimeoutMs / 1000)} s` });
    }, readyTimeoutMs);
  };

  const onMessage = (s: Spawned, raw: unknown) => {
    if (current !== s || s.done || !isObject(raw)) return;
    const message = raw as Partial<ChildToParent> & Record<string, unknown>;
    if (message.type === 'ready' && !s.ready) {
      const ready = readyFrom(message);
      if (!ready) return;
      clearTimeout(readyTimer);
      s.ready = ready;
      everReady = true;
      lastFailure = null;
      setState({ state: 'running', ready, since: now() });
      log(`hub ready at ${ready.url}`);
      stableTimer = setTimeout(() => (failuresInRow = 0), policy.stableMs);
      settleWaiters({ ready });
    } else if (message.type === 'error') {
      fail({ cause: 'error', message: typeof message.message === 'string' ? message.message : 'the hub reported an error' });
    } else if (message.type === 'reply' && typeof message.id === 'number') {
      const p = pending.get(message.id);
      if (!p) return;
      pending.delete(message.id);
      clearTimeout(p.timer);
      if (message.ok === true) p.resolve(message.result);
      else {
        const error = isObject(message.error) ? message.error : {};
        p.reject(new HubRequestError(String(error.code ?? 'internal'), String(error.message ?? 'the hub refused the request')));
      }
    }
  };

  const onExit = (s: Spawned, code: number | null) => {
    if (current !== s || s.done || stopping) return;
    const how = code === null ? 'was killed' : `exited with code ${code}`;
    fail({ cause: 'exit', message: s.ready ? `the hub ${how} unexpectedly` : `the hub ${how} before it was ready` });
  };

  /** Records a failure of the current child and decides: give up, or restart after a delay. */
  const fail = (failure: HubFailure) => {
    const s = current;
    if (s) {
      s.done = true;
      if (!s.exited) s.child.kill();
    }
    clearTimers();
    rejectRequests(failure.message);
    lastFailure = failure;
    if (stopping) return;
    log(`hub failure (${failure.cause}): ${failure.message}`);
    failuresInRow += 1;
    if (!everReady || failuresInRow > policy.maxAttempts) {
      setState({ state: 'failed', failure });
      settleWaiters({ error: new HubStartError(failure) });
      return;
    }
    const delayMs = backoffDelay(policy, failuresInRow);
    setState({ state: 'restarting', attempt: attempt + 1, delayMs, failure });
    log(`restarting the hub in ${delayMs} ms`);
    restartTimer = setTimeout(() => {
      // Never two hubs on one data dir: the old process must be gone first.
      void (s ? waitExit(s, stopTimeoutMs) : Promise.resolve(true)).then(() => {
        if (stopping || state.state !== 'restarting') return;
        spawnNext();
      });
    }, delayMs);
  };

  const stopChild = async () => {
    clearTimers();
    rejectRequests('the hub is stopping');
    const s = current;
    if (!s || s.exited) return;
    s.done = true;
    try {
      s.child.postMessage({ type: 'stop' });
    } catch {
      // the channel may already be closed
    }
    if (await waitExit(s, stopTimeoutMs)) return;
    log(`the hub did not stop within ${stopTimeoutMs} ms: killing it`);
    s.child.kill();
    await waitExit(s, 2000);
  };

  const host: ServerHost = {
    get state() {
      return state;
    },
    start() {
      if (state.state === 'running') return Promise.resolve(state.ready);
      const promise = new Promise<HubReady>((resolve, reject) => waiters.push({ resolve, reject }));
      if (state.state === 'stopped' || state.state === 'failed') {
        attempt = 0;
        failuresInRow = 0;
        everReady = false;
        spawnNext();
      } else if (state.state === 'stopping') {
        void stopping?.then(() => {
          if (state.state === 'stopped' && waiters.length) {
            attempt = 0;
            failuresInRow = 0;
            everReady = false;
            spawnNext();
          }
        });
      }
      return promise;
    },
    async restart() {
      await host.stop();
      return host.start();
    },
    stop() {
      if (stopping) return stopping;
      if (state.state === 'stopped') return Promise.resolve();
      setState({ state: 'stopping' });
      log('stopping the hub');
      // Starts waiting now are abandoned; a start() called while stopping waits for the next run.
      const abandoned = waiters;
      waiters = [];
      stopping = (async () => {
        await stopChild();
        current = null;
        for (const w of abandoned) w.reject(new HubStartError({ cause: 'exit', message: 'the hub was stopped' }));
        stopping = null;
        setState({ state: 'stopped' });
        log('hub stopped');
      })();
      return stopping;
    },
    request(method, params, timeoutMs = 5000) {
      const s = current;
      if (state.state !== 'running' || !s?.ready) {
        return Promise.reject(new HubRequestError('unavailable', 'the hub is not running'));
      }
      const id = ++requestId;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new HubRequestError('timeout', `the hub did not answer "${method}" within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
        try {
          s.child.postMessage({ type: 'request', id, method, params: params ?? {} });
        } catch (err) {
          clearTimeout(timer);
          pending.delete(id);
          reject(new HubRequestError('unavailable', (err as Error).message));
        }
      });
    },
    onState(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return host;
}
