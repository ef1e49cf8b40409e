import fs from 'node:fs';
import path from 'node:path';

/** The hub's log file: the child's output plus the desktop app's lifecycle lines. */
export interface LogFile {
  /** Absolute path of the current file. */
  path: string;
  /** Where the child's stdout and stderr are piped. */
  stream: NodeJS.WritableStream;
  /** Appends `[ISO time] desktop: text`. */
  line(text: string): void;
  close(): Promise<void>;
}

/**
 * Opens `dir/name` for appending (creating `dir`). A file already over `maxBytes` is moved to
 * `name.1` first (one old file is kept), so the log never grows without bound.
 */
export function openLogFile(dir: string, name = 'hub.log', maxBytes = 5 * 1024 * 1024): LogFile {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  try {
    if (fs.statSync(file).size > maxBytes) fs.renameSync(file, `${file}.1`);
  } catch {
    // no file yet
  }
  const stream = fs.createWriteStream(file, { flags: 'a', mode: 0o600 });
  stream.on('error', () => {
    // a full disk must not take the app down; the log is best effort
  });
  return {
    path: file,
    stream,
    line(text) {
      stream.write(`[${new Date().toISOString()}] desktop: ${text}\n`);
    },
    close: () => new Promise<void>((resolve) => stream.end(resolve)),
  };
}
