// Shared pieces of the benchmarks: start processes pinned to a core, seed a hub over HTTP or
// through its own store modules, run autocannon, sample RSS, print a table and write JSON results.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { systemClock } from '../server/domain/clock.js';
import { hashPassword } from '../server/domain/passwords.js';
import { openDatabase } from '../server/store/db.js';
import type { Channel, Platform } from '../server/store/device-store.js';
import { createStore } from '../server/store/index.js';
import { apnsToken } from './apns-common.js';

export const root = path.resolve(import.meta.dirname, '..');
export const ADMIN_PASSWORD = 'bench-password';
const hasTaskset = fs.existsSync('/usr/bin/taskset');

/** A started server process and the URL it printed. */
export interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The CPUs the hub under test is pinned to: core 0 (PUSHHUB_BENCH_HUB_CORES overrides, e.g.
 * "0,1" to let its dispatcher thread use the second core, at the price of sharing it with the
 * load generator or the fake push service).
 */
export const hubCores = process.env.PUSHHUB_BENCH_HUB_CORES ?? '0';
/** The CPU of the load generator and the fake push services. */
export const loadCore = '1';

/** Pins this process (all its threads) to `cores` — the load generator's core — when taskset exists. */
export function pinSelf(cores = loadCore): void {
  if (hasTaskset) spawnSync('taskset', ['-a', '-p', '-c', cores, String(process.pid)], { stdio: 'ignore' });
}

/** Starts `node <args>` (pinned to `core` when taskset exists) and waits for "listening on URL" (http or https). */
export function startProcess(args: string[], env: Record<string, string>, core: number | string = 0): Promise<Server> {
  const cmd = hasTaskset ? 'taskset' : process.execPath;
  const argv = hasTaskset ? ['-c', String(core), process.execPath, ...args] : args;
  const child = spawn(cmd, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (https?:\/\/\S+)/.exec(out);
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

/**
 * Runs `node <args>` to completion (pinned to `core` when taskset exists) and returns the last
 * line it printed to stdout, parsed as JSON.
 */
export function runProcess(args: string[], env: Record<string, string>, core: number | string = 0): Promise<any> {
  const cmd = hasTaskset ? 'taskset' : process.execPath;
  const argv = hasTaskset ? ['-c', String(core), process.execPath, ...args] : args;
  const child = spawn(cmd, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}: ${out}`));
      try {
        resolve(JSON.parse(last));
      } catch {
        reject(new Error(`${args.join(' ')} printed no JSON result: ${out}`));
      }
    });
  });
}

/** CPU time (user + system, seconds) a process has used so far, from /proc; 0 when it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

/** CPU time (seconds) per thread of a process, keyed `name#tid`, from /proc/<pid>/task. */
export function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(`${name}#${tid}`, (Number(fields[11]) + Number(fields[12])) / 100);
      } catch {
        // thread gone
      }
    }
  } catch {
    // process gone
  }
  return out;
}

/** Threads that used CPU between two {@link threadCpu} snapshots, busiest first (seconds). */
export function threadCpuDelta(before: Map<string, number>, after: Map<string, number>): Array<{ thread: string; cpuS: number }> {
  return [...after.entries()]
    .map(([thread, s]) => ({ thread, cpuS: Math.round((s - (before.get(thread) ?? 0)) * 100) / 100 }))
    .filter((t) => t.cpuS > 0)
    .sort((a, b) => b.cpuS - a.cpuS);
}

/** The newest modification time (ms) of the files under `dir`, 0 when it does not exist. */
function newestMtime(dir: string, ext: RegExp): number {
  if (!fs.existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && ext.test(entry.name)) {
      newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

let hubCli: string[] | undefined;
/**
 * How to run the hub's CLI: the compiled JavaScript, as `npm start` runs it. dist/ is used when
 * it is at least as new as every source under server/; otherwise the sources are compiled once
 * into bench/results/build/ (git-ignored; dist/ is left alone) — a stale build would measure old
 * code, and running through tsx would add its loader threads and memory to the figures. If that
 * compilation fails, the sources run through tsx.
 */
export function hubCliArgs(): string[] {
  if (hubCli) return hubCli;
  const sources = newestMtime(path.join(root, 'server'), /\.(ts|sql)$/);
  for (const dir of ['dist', 'bench/results/build']) {
    const cli = path.join(root, dir, 'server/cli.js');
    if (fs.existsSync(cli) && newestMtime(path.join(root, dir, 'server'), /\.(js|sql)$/) >= sources) return (hubCli = [cli]);
  }
  const out = path.join(root, 'bench/results/build');
  console.log('(compiling server/ into bench/results/build: dist/ is missing or older than the sources)');
  fs.rmSync(out, { recursive: true, force: true });
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', out], {
    cwd: root,
    encoding: 'utf8',
  });
  const cli = path.join(out, 'server/cli.js');
  if (!fs.existsSync(cli)) {
    console.log(`(compilation failed, running the hub through tsx)\n${tsc.stdout}`);
    return (hubCli = ['--import', 'tsx', path.join(root, 'server/cli.ts')]);
  }
  if (tsc.status !== 0) console.log(`(server/ has type errors; benchmarking the emitted JavaScript anyway)\n${tsc.stdout.slice(0, 2000)}`);
  fs.cpSync(path.join(root, 'server/store/migrations'), path.join(out, 'server/store/migrations'), { recursive: true });
  return (hubCli = [cli]);
}

/** Arguments that start the hub's CLI serving `dataDir` on a free port (see {@link hubCliArgs}). */
export function hubArgs(dataDir: string): string[] {
  return [...hubCliArgs(), 'serve', '--port', '0', '--data-dir', dataDir];
}

/** `node --import tsx <bench/file>` arguments for a helper process of the benchmarks. */
export function benchScript(file: string, ...args: string[]): string[] {
  return ['--import', 'tsx', path.join(root, 'bench', file), ...args];
}

/** A JSON config file for the hub (`PUSHHUB_CONFIG`), e.g. `{delivery: {concurrency: 1000}}`. */
export function writeHubConfig(dir: string, config: unknown): string {
  const file = path.join(dir, 'bench-config.json');
  fs.writeFileSync(file, JSON.stringify(config));
  return file;
}

/** True when the module at `moduleUrl` is the script node was started with (run directly, not imported). */
export function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(path.resolve(script)).href === moduleUrl;
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

/** Removes a directory made by {@link tempDir} (kept when PUSHHUB_BENCH_KEEP=1, to look into it). */
export function removeDir(dir: string): void {
  if (process.env.PUSHHUB_BENCH_KEEP === '1') console.log(`(kept ${dir})`);
  else fs.rmSync(dir, { recursive: true, force: true });
}

/** A JSON request (body optional); throws on a non-2xx answer. */
export async function json(url: string, method: string, body?: unknown, token?: string): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
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

/** Signs in as the benchmark admin (created by the hub from PUSHHUB_ADMIN_PASSWORD) and returns the bearer token. */
export async function adminLogin(url: string): Promise<string> {
  const { token } = await json(`${url}/api/auth/login`, 'POST', { username: 'admin', password: ADMIN_PASSWORD });
  return token as string;
}

/** What {@link seedStore} wrote. */
export interface Seeded {
  apiKey: string;
  appId: string;
  userKey: string;
  groupKey: string;
  userIds: string[];
  deviceIds: string[];
}

export { apnsToken } from './apns-common.js';

/**
 * Seeds a hub's data directory before the hub starts, through the hub's own store modules (the
 * same rows the admin and receiver APIs would write, without 2 argon2 hashes and 4 HTTP calls per
 * user): an app, `users` receivers with one device each on `channel`, and a User Group of them
 * all. All receivers share one password hash. The admin account is made by the hub on start.
 */
export async function seedStore(
  dataDir: string,
  options: { users: number; channel?: Channel; topic?: string },
): Promise<Seeded> {
  const channel = options.channel ?? 'stream';
  const platform: Platform = channel === 'apns' ? 'ios' : channel === 'fcm' ? 'android' : channel === 'webpush' ? 'web' : 'desktop';
  const passwordHash = await hashPassword('bench-password');
  const db = openDatabase(dataDir);
  try {
    db.pragma('synchronous = OFF'); // seeding only: the hub reopens with its own pragmas
    const store = createStore(db, systemClock);
    return store.transaction(() => {
      const { app, apiKey } = store.apps.create('bench');
      const users = Array.from({ length: options.users }, (_, i) => store.users.create({ name: `u${i}`, username: `u${i}`, passwordHash }));
      const deviceIds = users.map(
        (u, i) =>
          store.devices.register({
            userId: u.id,
            name: `d${i}`,
            platform,
            channel,
            ...(channel === 'apns' ? { token: apnsToken(i), ...(options.topic ? { topic: options.topic } : {}) } : {}),
            ...(channel === 'stream' ? { token: `bench-${i}` } : {}),
            ...(channel === 'fcm' ? { token: `fcm-bench-${i}` } : {}),
          }).id,
      );
      const group = store.groups.create({ name: 'all', userIds: users.map((u) => u.id) });
      return { apiKey, appId: app.id, userKey: users[0]!.userKey, groupKey: group.groupKey, userIds: users.map((u) => u.id), deviceIds };
    });
  } finally {
    db.close();
  }
}

/** Resident set size of a process now (MiB), from /proc; 0 when it is gone. */
export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
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

/** One line of a benchmark's verdict: a measured figure next to its target. */
export interface Check {
  benchmark: string;
  metric: string;
  value: string;
  target: string;
  /** null for a figure shown for information, without a target. */
  pass: boolean | null;
}

/**
 * A warning when a process that should have been CPU-bound used less than `min`% of its core:
 * it waited for the CPU (the machine was busy with other work) or for the disk, so rates and
 * their ratios say more about the machine than about the code.
 */
export function busyMachineNote(what: string, cpuPct: number, min = 80): string | null {
  return cpuPct < min
    ? `note: ${what} used only ${cpuPct}% of its core (it waited for the CPU — other work on the machine — or the disk), so the rates and their ratio are unreliable in this run`
    : null;
}

/** Percent with no decimals, e.g. `0.734 → "73%"`. */
export const pct = (ratio: number) => `${Math.round(ratio * 100)}%`;

/** Prints checks as `metric  value  target  PASS|FAIL`. */
export function printChecks(checks: Check[]): void {
  console.log('');
  table(checks.map((c) => ({ benchmark: c.benchmark, metric: c.metric, value: c.value, target: c.target, result: c.pass === null ? 'info' : c.pass ? 'PASS' : 'FAIL' })));
}

/** Parses the optional `seconds` argument (default 10). */
export function secondsArg(value: string | undefined, fallback = 10): number {
  const n = Number(value ?? fallback);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`seconds must be a positive number, got "${value}"`);
  return n;
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
