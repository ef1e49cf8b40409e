// Benchmark 1 (issue 7): ingest. /v1/push with durable commits (synchronous=FULL), 50
// connections, one user with one device, next to the bare reference (node:http + the same SQL +
// group commit) in the same run. Servers on core 0, the load generator on core 1.
// Usage: npx tsx bench/ingest.ts [seconds]
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
  seedHub,
  startProcess,
  table,
  tempDir,
  writeResult,
  type Check,
} from './lib.js';

async function measure(kind: 'hub' | 'reference', seconds: number) {
  const dataDir = tempDir(kind);
  // Seed through the real hub (same schema and rows for both), then serve with the one measured.
  const seeder = await startProcess(hubArgs(dataDir), hubEnv, hubCores);
  const keys = await seedHub(seeder.url);
  await seeder.stop();
  const server =
    kind === 'hub'
      ? await startProcess(hubArgs(dataDir), hubEnv, hubCores)
      : await startProcess(benchScript('reference-server.ts', dataDir), {}, hubCores);
  const body = { apiKey: keys.apiKey, userKey: keys.userKey, title: 'Motion', body: 'Someone is at the front door', emoji: '🚶' };
  await load(`${server.url}/v1/push`, body, Math.min(2, seconds)); // warm-up
  const cpu0 = cpuSeconds(server.child.pid!);
  const t0 = performance.now();
  const { result, rssMiB } = await peakRss(server.child.pid!, load(`${server.url}/v1/push`, body, seconds));
  const cpuPct = Math.round(((cpuSeconds(server.child.pid!) - cpu0) * 1000 * 100) / (performance.now() - t0));
  await server.stop();
  removeDir(dataDir);
  return { server: kind, ...result, cpuPct, rssMiB };
}

/** Runs benchmark 1 and returns its checks (hub/reference ≥ 60%, hub p99 ≤ 25 ms). */
export async function runIngest(seconds = 10): Promise<Check[]> {
  pinSelf(); // the load generator (and this orchestrator) on core 1, away from the hub
  console.log(`\n== ingest: POST /v1/push, 1 user × 1 device, 50 connections, ${seconds} s ==`);
  const reference = await measure('reference', seconds);
  const hub = await measure('hub', seconds);
  const ratio = hub.reqPerSec / reference.reqPerSec;
  table([reference, hub]);
  const checks: Check[] = [
    { benchmark: 'ingest', metric: 'hub / reference req/s', value: `${pct(ratio)} (${hub.reqPerSec} / ${reference.reqPerSec})`, target: '≥ 60%', pass: ratio >= 0.6 },
    { benchmark: 'ingest', metric: 'hub p99', value: `${hub.p99ms} ms`, target: '≤ 25 ms', pass: hub.p99ms <= 25 },
    { benchmark: 'ingest', metric: 'errors / non-2xx', value: `${hub.errors + reference.errors} / ${hub.non2xx + reference.non2xx}`, target: '0', pass: hub.errors + reference.errors + hub.non2xx + reference.non2xx === 0 },
  ];
  printChecks(checks);
  const note = busyMachineNote('the reference server', reference.cpuPct);
  if (note) console.log(note);
  console.log('written to', writeResult('ingest', { seconds, connections: 50, reference, hub, ratio }));
  return checks;
}

if (isMain(import.meta.url)) await runIngest(secondsArg(process.argv[2]));
