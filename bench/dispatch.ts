// Benchmark 3 (issue 7): dispatch. 20,000 APNs deliveries through the real hub to an APNs-like
// server that answers 200 after a fixed 25 ms (bench/apns-server.ts), measured from "accepted"
// (the first notification's created_at) to "delivered" (the last delivery's updated_at), next to
// the same requests sent by (a) a raw node:http2 client over one session with 1,000 streams in
// flight, (b) @parse/node-apn with 1,000 sends in flight and (c) the hub's own APNs sender
// without the dispatcher and the database (bench/apns-client.ts), in the same run. The hub and
// the clients run on core 0 (the hub with all its threads), the APNs-like server on core 1.
// Besides the rate, each sender's CPU time per delivery is reported: on a shared machine it is
// steadier than the rate, and it says what the rate would be on one free core.
//
// The hub runs once per APNs concurrency (config `delivery.channelConcurrency.apns`, given
// through a PUSHHUB_CONFIG file): by default only the shipped 1,000, which matches the raw
// client's streams in flight; --concurrency=64,1000 adds others for comparison.
//
// Usage: npx tsx bench/dispatch.ts [seconds] [--deliveries=N] [--concurrency=64,1000] [--repeat=N]
//                                  [--skip-node-apn] [--profile]
//   seconds (default 10) scales the work: 2,000 deliveries per second of it (20,000 at 10 s), and
//   each run is cut off after 3 × seconds. --repeat runs every sender N times, interleaved, and
//   compares the best of each. --profile writes the hub's CPU profiles (--cpu-prof, one per
//   thread) under bench/results/profiles/, prints their heaviest functions and the hub's CPU
//   time per thread.
import fs from 'node:fs';
import http2 from 'node:http2';
import path from 'node:path';
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import { databasePath } from '../server/store/db.js';
import { testCertificate } from '../test/fakes/tls.js';
import {
  adminLogin,
  benchScript,
  busyMachineNote,
  cpuSeconds,
  hubArgs,
  hubCores,
  hubEnv,
  isMain,
  json,
  pct,
  peakRss,
  pinSelf,
  loadCore,
  printChecks,
  removeDir,
  root,
  runProcess,
  secondsArg,
  seedStore,
  startProcess,
  table,
  tempDir,
  threadCpu,
  threadCpuDelta,
  writeHubConfig,
  writeResult,
  type Check,
  type Server,
} from './lib.js';
import { KEY_ID, TEAM_ID, TOPIC } from './apns-common.js';
import { summarizeProfile } from './profile-summary.js';

const DELAY_MS = 25;
/** The hub's default APNs concurrency (config `delivery.channelConcurrency.apns`). */
const DEFAULT_APNS_CONCURRENCY = 1000;
const INFLIGHT = 1000;
/** Receivers (one APNs device each) in the group the hub's pushes go to. */
const GROUP_USERS = 1000;

/** One measured sender: what it delivered, how fast, and what it cost. */
export interface DispatchRow {
  sender: string;
  deliveries: number;
  delivered: number;
  failed: number;
  seconds: number;
  perSec: number;
  /** CPU of the sender's process over the run, % of one core. */
  cpuPct: number;
  /**
   * CPU time of the sender's process (all threads) per delivery, µs: what the rate would be
   * limited by on one free core (1e6 / this). Steadier than the rate on a shared machine.
   */
  cpuUsPer: number;
  /** CPU of the APNs-like server over the run, % of one core (near 100 means it was the limit). */
  fakeCpuPct: number;
  /** HTTP/2 connections the server saw, and the most streams it had open at once (all, one connection). */
  sessions: number;
  maxInFlight: number;
  maxSessionInFlight: number;
  rssMiB: number | null;
  /** Hub only: ms from the first to the last push accepted (the pushes are sent all at once). */
  acceptMs: number | null;
}

interface FakeStats {
  answered: number;
  sessions: number;
  maxInFlight: number;
  maxSessionInFlight: number;
}

/** GET /stats of the APNs-like server (and zero its counters when `reset`). */
function fakeStats(origin: string, ca: string, reset = false): Promise<FakeStats> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(origin, { ca });
    session.on('error', reject);
    const req = session.request({ ':path': `/stats${reset ? '?reset=1' : ''}` });
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      session.close();
      resolve(JSON.parse(body) as FakeStats);
    });
    req.on('error', reject);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client from bench/apns-client.ts, run to completion on the hub's core. */
async function clientRun(mode: 'raw' | 'node-apn' | 'hub-sender', fake: Server, ca: string, caFile: string, count: number): Promise<DispatchRow> {
  await fakeStats(fake.url, ca, true);
  const fakeCpu0 = cpuSeconds(fake.child.pid!);
  const r = (await runProcess(benchScript('apns-client.ts', mode, fake.url, caFile, String(count), String(INFLIGHT)), {}, hubCores)) as {
    ok: number;
    failed: number;
    ms: number;
    cpuMs: number;
  };
  const fakeCpu = cpuSeconds(fake.child.pid!) - fakeCpu0;
  const stats = await fakeStats(fake.url, ca);
  return {
    sender: {
      raw: `raw node:http2 (${INFLIGHT} streams)`,
      'node-apn': `@parse/node-apn (${INFLIGHT} in flight)`,
      'hub-sender': `hub's APNs sender alone (${INFLIGHT} in flight)`,
    }[mode],
    deliveries: count,
    delivered: r.ok,
    failed: r.failed,
    seconds: r.ms / 1000,
    perSec: Math.round(r.ok / (r.ms / 1000)),
    cpuPct: Math.round((r.cpuMs / r.ms) * 100),
    cpuUsPer: Math.round((r.cpuMs * 1000) / Math.max(1, r.ok)),
    // The server's CPU includes a little before and after the client's timed span.
    fakeCpuPct: Math.round(((fakeCpu * 1000) / r.ms) * 100),
    sessions: stats.sessions - 1, // not the connection that asked for the stats
    maxInFlight: stats.maxInFlight,
    maxSessionInFlight: stats.maxSessionInFlight,
    rssMiB: null,
    acceptMs: null,
  };
}

/**
 * The real hub: seeds a group of {@link GROUP_USERS} receivers with one APNs device each through
 * the store modules, starts the hub (core 0) with `concurrency` for APNs, configures APNs through
 * PUT /api/settings/apns with a fresh P-256 key, sends pushes to the group until `deliveries`
 * rows are queued, and polls the database until none is pending (or `limitMs` passed).
 */
async function hubRun(
  fake: Server,
  ca: string,
  caFile: string,
  deliveries: number,
  concurrency: number,
  limitMs: number,
  profileDir: string | null,
): Promise<DispatchRow> {
  const dataDir = tempDir('dispatch-hub');
  const users = Math.min(GROUP_USERS, deliveries);
  const pushes = Math.ceil(deliveries / users);
  const keys = await seedStore(dataDir, { users, channel: 'apns' });
  const env = {
    ...hubEnv,
    PUSHHUB_APNS_ORIGIN: fake.url,
    PUSHHUB_EXTRA_CA_FILE: caFile,
    PUSHHUB_CONFIG: writeHubConfig(dataDir, { delivery: { channelConcurrency: { apns: concurrency } } }),
  };
  const profArgs = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const server = await startProcess([...profArgs, ...hubArgs(dataDir)], env, hubCores);
  const pid = server.child.pid!;
  const before = profileDir ? new Set(fs.readdirSync(profileDir)) : new Set<string>();
  try {
    const token = await adminLogin(server.url);
    const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await json(
      `${server.url}/api/settings/apns`,
      'PUT',
      { teamId: TEAM_ID, keyId: KEY_ID, privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), defaultTopic: TOPIC, environment: 'sandbox' },
      token,
    );
    await fakeStats(fake.url, ca, true);
    const db = new Database(databasePath(dataDir), { readonly: true });
    const pendingCount = db.prepare("SELECT count(*) FROM deliveries WHERE status = 'pending'").pluck();
    const cpu0 = cpuSeconds(pid);
    const threads0 = threadCpu(pid);
    const fakeCpu0 = cpuSeconds(fake.child.pid!);
    const t0 = performance.now();
    const body = { apiKey: keys.apiKey, userGroupKey: keys.groupKey, title: 'Alarm', body: 'The smoke detector in the kitchen went off', emoji: '🔥' };
    // All pushes at once, as an alarm system would fire them; each is answered after its commit.
    await Promise.all(Array.from({ length: pushes }, () => json(`${server.url}/v1/push`, 'POST', body)));
    const { rssMiB } = await peakRss(
      pid,
      (async () => {
        while ((pendingCount.get() as number) > 0 && performance.now() - t0 < limitMs) await sleep(20);
      })(),
    );
    const wallMs = performance.now() - t0;
    const cpu = cpuSeconds(pid) - cpu0;
    if (profileDir) {
      console.log(`\nCPU per thread of the hub at concurrency ${concurrency} (s, over ${Math.round(performance.now() - t0)} ms):`);
      table(threadCpuDelta(threads0, threadCpu(pid)));
    }
    const fakeCpu = cpuSeconds(fake.child.pid!) - fakeCpu0;
    const counts = Object.fromEntries(
      (db.prepare('SELECT status, count(*) AS n FROM deliveries GROUP BY status').all() as Array<{ status: string; n: number }>).map((r) => [r.status, r.n]),
    ) as Record<string, number>;
    const acceptedAt = db.prepare('SELECT min(created_at) FROM notifications').pluck().get() as number;
    const lastAcceptedAt = db.prepare('SELECT max(created_at) FROM notifications').pluck().get() as number;
    const lastDelivered = db.prepare("SELECT max(updated_at) FROM deliveries WHERE status = 'delivered'").pluck().get() as number | null;
    const pending = counts.pending ?? 0;
    const delivered = counts.delivered ?? 0;
    // Cut off with deliveries still pending: the rate is what was delivered until now.
    const spanMs = pending > 0 ? Date.now() - acceptedAt : (lastDelivered ?? Date.now()) - acceptedAt;
    db.close();
    const stats = await fakeStats(fake.url, ca);
    return {
      sender: `hub (APNs concurrency ${concurrency}${concurrency === DEFAULT_APNS_CONCURRENCY ? ', the default' : ''})`,
      deliveries: users * pushes,
      delivered,
      failed: (counts.failed ?? 0) + (counts.expired ?? 0) + pending,
      seconds: spanMs / 1000,
      perSec: Math.round(delivered / (spanMs / 1000)),
      cpuPct: Math.round((cpu * 1000 * 100) / wallMs),
      cpuUsPer: Math.round((cpu * 1e6) / Math.max(1, delivered)),
      fakeCpuPct: Math.round((fakeCpu * 1000 * 100) / wallMs),
      sessions: stats.sessions - 1, // not the connection that asked for the stats
      maxInFlight: stats.maxInFlight,
      maxSessionInFlight: stats.maxSessionInFlight,
      rssMiB,
      acceptMs: lastAcceptedAt - acceptedAt,
    };
  } finally {
    await server.stop();
    removeDir(dataDir);
    if (profileDir) {
      // One profile per thread (the HTTP thread, the dispatcher's worker thread, tsx's loader thread).
      const files = fs.readdirSync(profileDir).filter((f) => !before.has(f) && f.startsWith('CPU.') && f.endsWith('.cpuprofile')).sort();
      files.forEach((file, i) => {
        const renamed = path.join(profileDir, `dispatch-hub-c${concurrency}-thread${i + 1}.cpuprofile`);
        fs.renameSync(path.join(profileDir, file), renamed);
        console.log(`\nCPU profile of the hub at concurrency ${concurrency}, thread ${i + 1}: ${renamed}`);
        summarizeProfile(renamed, 25, 40);
      });
    }
  }
}

/** Options of {@link runDispatch}. */
export interface DispatchOptions {
  deliveries?: number;
  concurrencies?: number[];
  profile?: boolean;
  /** Runs of every sender, interleaved; the best of each is compared (default 1). */
  repeat?: number;
  skipNodeApn?: boolean;
}

/** Runs benchmark 3 and returns its checks (each hub configuration ≥ 70% of the raw client). */
export async function runDispatch(seconds = 10, options: DispatchOptions = {}): Promise<Check[]> {
  pinSelf(); // the load generator (and this orchestrator) on core 1, away from the hub
  const deliveries = options.deliveries ?? Math.max(1000, Math.round(2000 * seconds));
  const concurrencies = options.concurrencies ?? [DEFAULT_APNS_CONCURRENCY];
  const limitMs = 3 * seconds * 1000;
  const repeat = options.repeat ?? 1;
  console.log(`\n== dispatch: ${deliveries} APNs deliveries, server answering after ${DELAY_MS} ms ==`);
  const cert = testCertificate();
  const tlsDir = tempDir('dispatch-tls');
  const keyFile = path.join(tlsDir, 'key.pem');
  fs.writeFileSync(keyFile, cert.key, { mode: 0o600 });
  const profileDir = options.profile ? path.join(root, 'bench/results/profiles') : null;
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });

  const fake = await startProcess(benchScript('apns-server.ts', keyFile, cert.certFile, String(DELAY_MS), String(INFLIGHT)), {}, loadCore);
  const rows: DispatchRow[] = [];
  try {
    // Interleaved, so that a change in the machine's load (it is shared) hits every sender alike.
    for (let round = 0; round < repeat; round++) {
      rows.push(await clientRun('raw', fake, cert.cert, cert.certFile, deliveries));
      if (!options.skipNodeApn) rows.push(await clientRun('node-apn', fake, cert.cert, cert.certFile, deliveries));
      rows.push(await clientRun('hub-sender', fake, cert.cert, cert.certFile, deliveries));
      for (const c of concurrencies) rows.push(await hubRun(fake, cert.cert, cert.certFile, deliveries, c, limitMs, profileDir));
    }
  } finally {
    await fake.stop();
    removeDir(tlsDir);
  }
  table(rows.map((r) => ({ ...r, seconds: r.seconds.toFixed(2), rssMiB: r.rssMiB ?? '', acceptMs: r.acceptMs ?? '' })));
  // With repeats, each sender's best run (the one least disturbed by other work on the machine).
  const best = [...rows.reduce((m, r) => (r.perSec > (m.get(r.sender)?.perSec ?? -1) ? m.set(r.sender, r) : m), new Map<string, DispatchRow>()).values()];
  const raw = best.find((r) => r.sender.startsWith('raw'))!;
  const nodeApn = best.find((r) => r.sender.startsWith('@parse/node-apn'));
  const hubSender = best.find((r) => r.sender.startsWith("hub's APNs sender"))!;
  const hubs = best.filter((r) => r.sender.startsWith('hub ('));
  const info = (r: DispatchRow, what: string): Check => ({
    benchmark: 'dispatch',
    metric: `${what} / raw (rate; CPU per delivery)`,
    value: `${pct(r.perSec / raw.perSec)} (${r.perSec} / ${raw.perSec} /s); ${pct(raw.cpuUsPer / r.cpuUsPer)} (${raw.cpuUsPer} / ${r.cpuUsPer} µs)`,
    target: '(info)',
    pass: r.delivered === r.deliveries ? null : false,
  });
  const checks: Check[] = [
    ...(nodeApn ? [info(nodeApn, '@parse/node-apn')] : []),
    info(hubSender, "hub's APNs sender alone"),
    ...hubs.map((h) => ({
      benchmark: 'dispatch',
      metric: `${h.sender} / raw`,
      value: `${pct(h.perSec / raw.perSec)} (${h.perSec} / ${raw.perSec} /s)`,
      // The target is the hub as shipped; other concurrencies are for comparison.
      target: h.sender.includes('the default') ? '≥ 70%' : '(info)',
      pass: h.sender.includes('the default') ? h.perSec / raw.perSec >= 0.7 && h.delivered === h.deliveries : null,
    })),
    ...hubs.map((h) => ({
      benchmark: 'dispatch',
      metric: `${h.sender}: CPU per delivery, raw / hub`,
      value: `${pct(raw.cpuUsPer / h.cpuUsPer)} (${raw.cpuUsPer} / ${h.cpuUsPer} µs)`,
      target: '(info)',
      pass: null,
    })),
  ];
  printChecks(checks);
  const note = busyMachineNote('the raw client', raw.cpuPct);
  if (note) console.log(`${note}; CPU per delivery is the steadier comparison`);
  console.log('written to', writeResult('dispatch', { deliveries, delayMs: DELAY_MS, inflight: INFLIGHT, repeat, best, rows }));
  return checks;
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const seconds = secondsArg(args.find((a) => !a.startsWith('--')));
  await runDispatch(seconds, {
    ...(flag('deliveries') ? { deliveries: Number(flag('deliveries')) } : {}),
    ...(flag('concurrency') ? { concurrencies: flag('concurrency')!.split(',').map(Number) } : {}),
    profile: args.includes('--profile'),
    skipNodeApn: args.includes('--skip-node-apn'),
    ...(flag('repeat') ? { repeat: Number(flag('repeat')) } : {}),
  });
}
