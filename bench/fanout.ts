// Benchmark 2 (issue 7): group fan-out. POST /v1/push to a User Group of 100 receivers with one
// device each (100 delivery rows per push), 50 connections, durable commits, next to the bare
// reference (bench/reference-server.ts: node:http + one `INSERT … SELECT` per push + group
// commit) in the same run. Servers on core 0, the load generator on core 1. Both serve the same
// rows, seeded through the hub's store modules. The hub also does what the reference does not:
// its dispatcher (a worker thread on the same core) tries each delivery — the receivers' stream
// devices are not connected, so each is rescheduled — as it would in production.
// Usage: npx tsx bench/fanout.ts [seconds]
import Database from 'better-sqlite3';
import { databasePath } from '../server/store/db.js';
import {
  benchScript,
  busyMachineNote,
  cpuSeconds,
  hubArgs,
  hubCores,
  hubEnv,
  isMain,
  load,
  pct,
  peakRss,
  pinSelf,
  printChecks,
  removeDir,
  secondsArg,
  seedStore,
  startProcess,
  table,
  tempDir,
  writeResult,
  type Check,
} from './lib.js';

const GROUP_SIZE = 100;

/** Rows written by a run: notifications and delivery rows (the warm-up included). */
function countRows(dataDir: string) {
  const db = new Database(databasePath(dataDir), { readonly: true });
  try {
    const notifications = db.prepare('SELECT count(*) FROM notifications').pluck().get() as number;
    const deliveries = db.prepare('SELECT count(*) FROM deliveries').pluck().get() as number;
    return { notifications, deliveries };
  } finally {
    db.close();
  }
}

async function measure(kind: 'hub' | 'reference', seconds: number) {
  const dataDir = tempDir(`fanout-${kind}`);
  // The same rows for both, written through the hub's store modules (100 users, 1 stream device each, 1 group).
  const keys = await seedStore(dataDir, { users: GROUP_SIZE });
  // The stream devices are not connected, so every delivery stays pending: keep the outbox's
  // backpressure limit (1,000,000 by default) from answering 503 during the run.
  const env = { ...hubEnv, PUSHHUB_MAX_OUTBOX_DEPTH: String(1e9) };
  const server =
    kind === 'hub'
      ? await startProcess(hubArgs(dataDir), env, hubCores)
      : await startProcess(benchScript('reference-server.ts', dataDir), {}, hubCores);
  const body = { apiKey: keys.apiKey, userGroupKey: keys.groupKey, title: 'Alarm', body: 'The smoke detector in the kitchen went off', emoji: '🔥' };
  await load(`${server.url}/v1/push`, body, Math.min(2, seconds)); // warm-up
  const cpu0 = cpuSeconds(server.child.pid!);
  const t0 = performance.now();
  const { result, rssMiB } = await peakRss(server.child.pid!, load(`${server.url}/v1/push`, body, seconds));
  const cpuPct = Math.round(((cpuSeconds(server.child.pid!) - cpu0) * 1000 * 100) / (performance.now() - t0));
  await server.stop();
  const rows = countRows(dataDir);
  removeDir(dataDir);
  const rowsPerPush = rows.notifications ? rows.deliveries / rows.notifications : 0;
  return { server: kind, ...result, rowsPerPush, rowsPerSec: Math.round(result.reqPerSec * rowsPerPush), cpuPct, rssMiB };
}

/** Runs benchmark 2 and returns its checks (hub/reference ≥ 50%, 100 rows per push). */
export async function runFanout(seconds = 10): Promise<Check[]> {
  pinSelf(); // the load generator (and this orchestrator) on core 1, away from the hub
  console.log(`\n== fan-out: POST /v1/push to a group of ${GROUP_SIZE} users × 1 device, 50 connections, ${seconds} s ==`);
  const reference = await measure('reference', seconds);
  const hub = await measure('hub', seconds);
  const ratio = hub.reqPerSec / reference.reqPerSec;
  table([reference, hub]);
  const checks: Check[] = [
    {
      benchmark: 'fanout',
      metric: 'hub / reference req/s',
      value: `${pct(ratio)} (${hub.reqPerSec} / ${reference.reqPerSec}; ${hub.rowsPerSec} / ${reference.rowsPerSec} rows/s)`,
      target: '≥ 50%',
      pass: ratio >= 0.5,
    },
    {
      benchmark: 'fanout',
      metric: 'delivery rows per push',
      value: `${hub.rowsPerPush} / ${reference.rowsPerPush}`,
      target: String(GROUP_SIZE),
      pass: hub.rowsPerPush === GROUP_SIZE && reference.rowsPerPush === GROUP_SIZE,
    },
    { benchmark: 'fanout', metric: 'errors / non-2xx', value: `${hub.errors + reference.errors} / ${hub.non2xx + reference.non2xx}`, target: '0', pass: hub.errors + reference.errors + hub.non2xx + reference.non2xx === 0 },
  ];
  printChecks(checks);
  const note = busyMachineNote('the reference server', reference.cpuPct);
  if (note) console.log(note);
  console.log('written to', writeResult('fanout', { seconds, connections: 50, groupSize: GROUP_SIZE, reference, hub, ratio }));
  return checks;
}

if (isMain(import.meta.url)) await runFanout(secondsArg(process.argv[2]));
