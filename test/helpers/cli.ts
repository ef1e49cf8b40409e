import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const children: ChildProcess[] = [];

/**
 * Runs the `pushhub` command from the TypeScript sources as a real process, with a clean
 * environment plus `env`; collects its output and can wait for a line on stdout.
 */
export function pushhub(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'server/cli.ts'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PUSHHUB_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    out: () => stdout,
    err: () => stderr,
    /** Resolves with the first stdout match of `re`, or rejects when the process exits first. */
    waitFor(re: RegExp, ms = 15_000): Promise<RegExpMatchArray> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timeout waiting for ${re}; stdout=${stdout} stderr=${stderr}`)), ms);
        const check = () => {
          const m = stdout.match(re);
          if (m) {
            clearTimeout(timer);
            resolve(m);
          }
        };
        child.stdout!.on('data', check);
        exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
        check();
      });
    },
  };
}

/** Kills every `pushhub` process a test started and left running (call in afterEach). */
export function killChildren(): void {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
}

