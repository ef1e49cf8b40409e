// The hub as a child process of the desktop app (DESIGN.md "Layout"; issue "Desktop app"):
// Electron's main process forks this file with `utilityProcess.fork` (messages through
// `process.parentPort`); tests and other Node parents fork it with `child_process.fork`
// (messages through `process.send`). Its configuration comes from the environment only
// (PUSHHUB_DATA_DIR, PUSHHUB_HOST, PUSHHUB_PORT, PUSHHUB_LOCAL_LOGIN_TOKEN, …, see loadConfig).
//
// Protocol, one JSON-compatible object per message:
//   child → parent: {type:'ready', url, port, dataDir, publicUrl} once the hub serves;
//                   {type:'error', message} when it cannot start (then it exits 1);
//                   {type:'reply', id, ok, result | error} answering a request.
//   parent → child: {type:'stop'} closes the hub and exits 0 (as SIGTERM and SIGINT do);
//                   {type:'request', id, method, params} with method 'status' | 'receivers' |
//                   'receiver-session' (see ChildRequest).
import fs from 'node:fs';
import { pino } from 'pino';
import { loadConfig } from './config/config.js';
import { RECEIVER_SESSION_TTL_MS } from './http/routes/receiver.js';
import { startHub, type Hub } from './index.js';

/** The hub's status as the desktop tray shows it. */
export interface ChildStatus {
  /** Deliveries in the outbox still waiting to be sent (status `pending`). */
  pendingDeliveries: number;
}

/** A receiver the desktop app can show notifications for. */
export interface ChildReceiver {
  id: string;
  name: string;
  username: string;
}

/** Requests the parent may send, by method: their params and their result. */
export interface ChildMethods {
  status: { params: Record<string, never>; result: ChildStatus };
  receivers: { params: Record<string, never>; result: { users: ChildReceiver[] } };
  /**
   * A receiver session for the desktop receiver of user `userId` (the operator chose that user
   * in the tray; the main process already holds the data dir, so this grants nothing new).
   * `token`, when still a valid session of that user, is returned again instead of a new one.
   * Fails with `not_found` when the user no longer exists.
   */
  'receiver-session': { params: { userId: string; token?: string | null }; result: { token: string; user: { id: string; name: string } } };
}

/** A message from the parent. */
export type ParentToChild =
  | { type: 'stop' }
  | { [M in keyof ChildMethods]: { type: 'request'; id: number; method: M; params?: ChildMethods[M]['params'] } }[keyof ChildMethods];

/** A message to the parent. */
export type ChildToParent =
  | { type: 'ready'; url: string; port: number; dataDir: string; publicUrl: string | null }
  | { type: 'error'; message: string }
  | { type: 'reply'; id: number; ok: true; result: unknown }
  | { type: 'reply'; id: number; ok: false; error: { code: string; message: string } };

/** Electron's `process.parentPort` (a utility process), typed here because the server is built without Electron's types. */
interface ParentPortLike {
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

/** The two ways a parent talks to this process. */
interface ParentChannel {
  kind: 'electron' | 'node';
  post(message: ChildToParent): Promise<void>;
  onMessage(listener: (message: unknown) => void): void;
}

function parentChannel(): ParentChannel | null {
  const parentPort = (process as NodeJS.Process & { parentPort?: ParentPortLike }).parentPort;
  if (parentPort) {
    return {
      kind: 'electron',
      // postMessage hands the message to the Mojo pipe synchronously.
      post: async (message) => parentPort.postMessage(message),
      onMessage: (listener) => parentPort.on('message', (event) => listener(event.data)),
    };
  }
  if (process.send) {
    return {
      kind: 'node',
      post: (message) =>
        new Promise<void>((resolve) => {
          if (!process.connected) return resolve();
          process.send!(message, undefined, {}, () => resolve());
        }),
      onMessage: (listener) => process.on('message', listener),
    };
  }
  return null;
}

function readConfigFile(file: string | undefined): unknown {
  if (!file) return {};
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read the config file ${file} (PUSHHUB_CONFIG): ${(err as Error).message}`);
  }
}

class RequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Answers one request from the parent; throws RequestError for an expected refusal. */
function answer(hub: Hub, method: string, params: Record<string, unknown>): unknown {
  const { store } = hub;
  switch (method) {
    case 'status': {
      return { pendingDeliveries: store.outbox.depth() } satisfies ChildStatus;
    }
    case 'receivers':
      return {
        users: store.users.list().map((u) => ({ id: u.id, name: u.name, username: u.username })),
      } satisfies ChildMethods['receivers']['result'];
    case 'receiver-session': {
      const userId = typeof params.userId === 'string' ? params.userId : '';
      const user = userId ? store.users.get(userId) : undefined;
      if (!user) throw new RequestError('not_found', `no receiver has the id "${userId}"`);
      const previous = typeof params.token === 'string' ? params.token : null;
      const token =
        previous && store.auth.findSession(previous, 'receiver') === user.id
          ? previous
          : store.auth.createSession('receiver', user.id, RECEIVER_SESSION_TTL_MS);
      return { token, user: { id: user.id, name: user.name } } satisfies ChildMethods['receiver-session']['result'];
    }
    default:
      throw new RequestError('unknown_method', `unknown request "${method}"`);
  }
}

async function main(): Promise<void> {
  const parent = parentChannel();
  if (!parent) {
    process.stderr.write('server/child.ts runs under the desktop app or a forking Node parent; use `pushhub serve` to run the hub yourself.\n');
    process.exit(2);
  }

  let hub: Hub | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (code: number) => {
    stopping ??= (async () => {
      try {
        await hub?.close();
      } catch (err) {
        process.stderr.write(`pushhub child: closing failed: ${(err as Error).message}\n`);
        code = 1;
      }
      process.exit(code);
    })();
    return stopping;
  };
  const fail = async (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`pushhub child: ${message}\n`);
    await parent.post({ type: 'error', message });
    process.exit(1);
  };

  parent.onMessage((raw) => {
    const message = raw as Partial<ParentToChild> | null;
    if (!message || typeof message !== 'object') return;
    if (message.type === 'stop') {
      void stop(0);
      return;
    }
    if (message.type === 'request' && typeof message.id === 'number') {
      const id = message.id;
      if (!hub || stopping) {
        void parent.post({ type: 'reply', id, ok: false, error: { code: 'unavailable', message: 'the hub is not running' } });
        return;
      }
      try {
        const result = answer(hub, String(message.method), (message.params ?? {}) as Record<string, unknown>);
        void parent.post({ type: 'reply', id, ok: true, result });
      } catch (err) {
        const code = err instanceof RequestError ? err.code : 'internal';
        void parent.post({ type: 'reply', id, ok: false, error: { code, message: (err as Error).message } });
      }
    }
  });
  process.once('SIGTERM', () => void stop(0));
  process.once('SIGINT', () => void stop(0));
  // A Node parent that goes away takes the IPC channel with it: do not linger as an orphan.
  if (parent.kind === 'node') process.once('disconnect', () => void stop(0));
  process.on('uncaughtException', (err) => {
    if (hub) {
      process.stderr.write(`pushhub child: uncaught ${err.stack ?? err.message}\n`);
      process.exit(1);
    }
    void fail(err);
  });

  try {
    const config = loadConfig({ env: process.env, file: readConfigFile(process.env.PUSHHUB_CONFIG) });
    const logger = pino({ level: config.logLevel, base: { component: 'hub' } }, pino.destination({ fd: 1, sync: true }));
    hub = await startHub(config, { logger });
    if (stopping) return;
    logger.info({ url: hub.url, dataDir: config.dataDir }, 'hub ready (desktop child)');
    await parent.post({ type: 'ready', url: hub.url, port: hub.port, dataDir: config.dataDir, publicUrl: config.publicUrl ?? null });
  } catch (err) {
    await fail(err);
  }
}

void main();
