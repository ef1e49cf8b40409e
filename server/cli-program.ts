import fs from 'node:fs';
import os from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { ConfigError, loadConfig, type ConfigFlags } from './config/config.js';
import { startHub, type Hub } from './index.js';
import { createReceiverClient } from './receiver-client.js';

/** Where the CLI writes; tests pass their own. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Called once the hub serves, so the process can wire its signals (SIGINT/SIGTERM). */
  onServing?: (hub: Hub) => void;
  /** Called when `listen` starts, with the function that stops it (wired to SIGINT/SIGTERM). */
  onListening?: (stop: () => void) => void;
}

function readConfigFile(path: string | undefined): unknown {
  if (!path) return {};
  try {
    return JSON.parse(fs.readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read the config file ${path}: ${(err as Error).message}`);
  }
}

function absoluteUrl(value: string): string {
  try {
    return new URL(value).toString();
  } catch {
    throw new InvalidArgumentError('expected a URL such as http://127.0.0.1:8780');
  }
}

/** The answer of a failed push, as one line for a person. */
export function describePushFailure(status: number, text: string): string {
  if (status === 401) return 'error 401: the API key is missing, unknown or revoked';
  try {
    const { error } = JSON.parse(text) as { error: { code: string; message: string; field?: string } };
    return `error ${status} ${error.code}: ${error.message}${error.field ? ` (field ${error.field})` : ''}`;
  } catch {
    return `error ${status}: ${text.slice(0, 200)}`;
  }
}

/**
 * The `pushhub` command (issue "Hub core" / "CLI and configuration"):
 * - `serve [--host] [--port] [--data-dir] [--config FILE]` runs the hub and prints
 *   `listening on http://HOST:PORT`;
 * - `send --server URL --api-key K (--user-key U | --group-key G) --title T --body B [--emoji E]
 *   [--image URL] [--url URL]` calls POST /v1/push and prints the notification id;
 * - `listen --server URL --username U --password P` signs in as a receiver, registers a
 *   `desktop`/`stream` device and prints each notification as one JSON line.
 */
export function createProgram(io: CliIo): Command {
  const program = new Command('pushhub')
    .description('Self-hosted push hub')
    .configureOutput({ writeOut: (s) => io.stdout(s.trimEnd()), writeErr: (s) => io.stderr(s.trimEnd()) })
    .exitOverride();

  program
    .command('serve')
    .description('run the hub')
    .option('--host <host>', 'interface to listen on (PUSHHUB_HOST, default 127.0.0.1)')
    .option('--port <port>', 'TCP port, 0 for a free one (PUSHHUB_PORT, default 8780)')
    .option('--data-dir <dir>', 'where the database lives (PUSHHUB_DATA_DIR, default $XDG_DATA_HOME/pushhub)')
    .option('--config <file>', 'a JSON config file (PUSHHUB_CONFIG)')
    .action(async (opts: ConfigFlags & { config?: string }) => {
      const config = loadConfig({ flags: opts, env: io.env, file: readConfigFile(opts.config ?? io.env.PUSHHUB_CONFIG) });
      const logger = pino({ level: config.logLevel }, pino.destination(2));
      const hub = await startHub(config, { logger });
      io.stdout(`Pushhub listening on ${hub.url} (data in ${config.dataDir})`);
      if (hub.setupUrl) {
        io.stdout(`No admin account yet. Open this one-time setup URL to create it: ${hub.setupUrl}`);
      }
      io.onServing?.(hub);
    });

  program
    .command('send')
    .description('send a notification through a hub (POST /v1/push)')
    .requiredOption('--server <url>', 'the hub, e.g. http://127.0.0.1:8780', absoluteUrl)
    .requiredOption('--api-key <key>', 'the app\'s API key (PUSHHUB_API_KEY)', io.env.PUSHHUB_API_KEY)
    .option('--user-key <key>', 'User Key of the receiver')
    .option('--group-key <key>', 'User Group Key of the receivers')
    .requiredOption('--title <text>', 'notification title')
    .requiredOption('--body <text>', 'notification body')
    .option('--emoji <emoji>', 'one emoji, shown in the title and as the icon')
    .option('--image <url>', 'image URL')
    .option('--url <url>', 'URL shown with the notification')
    .action(async (o: Record<string, string | undefined>) => {
      if (!o.userKey && !o.groupKey) throw new ConfigError('give --user-key or --group-key (or both)');
      const payload = {
        apiKey: o.apiKey,
        userKey: o.userKey,
        userGroupKey: o.groupKey,
        title: o.title,
        body: o.body,
        emoji: o.emoji,
        image: o.image,
        url: o.url,
      };
      const res = await fetch(new URL('/v1/push', o.server), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      });
      const text = await res.text();
      if (res.status !== 200) throw new ConfigError(describePushFailure(res.status, text));
      io.stdout((JSON.parse(text) as { id: string }).id);
    });

  program
    .command('listen')
    .description('receive notifications as a stream device and print each as one JSON line')
    .requiredOption('--server <url>', 'the hub, e.g. http://127.0.0.1:8780', absoluteUrl)
    .requiredOption('--username <name>', 'the receiver account')
    .requiredOption('--password <password>', 'its password (PUSHHUB_PASSWORD)', io.env.PUSHHUB_PASSWORD)
    .option('--device-name <name>', 'how this device is listed', `${os.hostname()} (pushhub listen)`)
    .action(async (o: { server: string; username: string; password: string; deviceName: string }) => {
      const client = createReceiverClient(o.server);
      const { token, userKey } = await client.login(o.username, o.password);
      const deviceId = await client.registerStreamDevice(token, o.deviceName, `listen:${os.hostname()}:${o.username}`);
      io.stderr(`listening as ${o.username} (User Key ${userKey}); Ctrl-C to stop`);
      const stop = new AbortController();
      io.onListening?.(() => stop.abort());
      await client.follow({
        token,
        deviceId,
        signal: stop.signal,
        onNotification: (n) => io.stdout(JSON.stringify(n)),
        onStatus: (status, detail) => io.stderr(`${status}${detail ? `: ${detail}` : ''}`),
      });
    });

  return program;
}
