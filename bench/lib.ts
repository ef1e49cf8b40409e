// Shared pieces of the benchmarks: start processes pinned to a core, seed a hub over HTTP,
// run autocannon, sample RSS, print a table and write JSON results.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

export const root = path.resolve(import.meta.dirname, '..');
export const ADMIN_PASSWORD = 'bench-password';
const hasTaskset = fs.existsSync('/usr/bin/taskset');

/** A started server process and the URL it printed. */
export interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `node <args>` (pinned to `core` when taskset exists) and waits for "listening on URL". */
export function startProcess(args: string[], env: Record<string, string>, core = 0): Promise<Server> {
  const cmd = hasTaskset ? 'taskset' : process.execPath;
  const argv = hasTaskset ? ['-c', String(core), process.execPath, ...args] : args;
  const child = spawn(cmd, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        resolve({
          url: m[1]!,
          child,
          stop: () =>
            new Promise<void>((r) => {
              child.once('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${out}`)));
  });
}

/** The hub's CLI: the built one when present (as `npm start` runs it), else the sources through tsx. */
export function hubArgs(dataDir: string): string[] {
  const built = path.join(root, 'dist/server/cli.js');
  const cli = fs.existsSync(built) ? [built] : ['--import', 'tsx', path.join(root, 'server/cli.ts')];
  return [...cli, 'serve', '--port', '0', '--data-dir', dataDir];
}

/** Environment for a benchmark hub: durable commits, quiet logs, rate limits out of the way. */
export const hubEnv = {
  PUSHHUB_ADMIN_PASSWORD: ADMIN_PASSWORD,
  PUSHHUB_LOG_LEVEL: 'warn',
  PUSHHUB_RATE_LIMIT_BURST: '1000000000',
  PUSHHUB_RATE_LIMIT_PER_SECOND: '1000000000',
};

export function tempDir(name: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `pushhub-bench-${name}-`));
}

async function json(url: string, method: string, body: unknown, token?: string): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** Creates an app, `users` receivers with one stream device each, and a group of them all. */
export async function seedHub(url: string, users = 1) {
  const { token } = await json(`${url}/api/auth/login`, 'POST', { username: 'admin', password: ADMIN_PASSWORD });
  const app = await json(`${url}/api/apps`, 'POST', { name: 'bench' }, token);
  const userIds: string[] = [];
  let userKey = '';
  for (let i = 0; i < users; i++) {
    const u = await json(`${url}/api/users`, 'POST', { name: `u${i}`, username: `u${i}`, password: 'bench-password' }, token);
    userIds.push(u.id);
    userKey ||= u.userKey;
    const r = await json(`${url}/api/receiver/login`, 'POST', { username: `u${i}`, password: 'bench-password' });
    await json(`${url}/api/receiver/devices`, 'POST', { name: `d${i}`, platform: 'desktop', channel: 'stream', token: `bench-${i}` }, r.token);
  }
  const group = await json(`${url}/api/groups`, 'POST', { name: 'all', userIds }, token);
  return { apiKey: app.apiKey as string, userKey, groupKey: group.groupKey as string, adminToken: token as string };
}

/** Peak resident set size of a process while `during` runs (MiB), sampled every 100 ms from /proc. */
export async function peakRss<T>(pid: number, during: Promise<T>): Promise<{ result: T; rssMiB: number }> {
  let peak = 0;
  const sample = () => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) / 1024);
    } catch {
      // process gone
    }
  };
  const timer = setInterval(sample, 100);
  try {
    const result = await during;
    sample();
    return { result, rssMiB: Math.round(peak) };
  } finally {
    clearInterval(timer);
  }
}

/** One autocannon run of POSTs with a JSON body. */
export async function load(url: string, body: unknown, seconds: number, connections = 50) {
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    reqPerSec: Math.round(result.requests.average),
    p50ms: result.latency.p50,
    p99ms: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** Prints rows as an aligned table. */
export function table(rows: Array<Record<string, string | number>>): void {
  const cols = Object.keys(rows[0] ?? {});
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(width[i]!)).join('  ');
  console.log(line(cols));
  for (const r of rows) console.log(line(cols.map((c) => String(r[c]))));
}

/** Writes a result file under bench/results/ with the machine and the date. */
export function writeResult(name: string, data: unknown): string {
  const dir = path.join(root, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model, ...((data as object) ?? {}) }, null, 2),
  );
  return file;
}
