// Benchmark 1 (issue 7): ingest. /v1/push with durable commits (synchronous=FULL), 50
// connections, one user with one device, next to the bare reference (node:http + the same SQL +
// group commit) in the same run. Servers on core 0, the load generator on core 1.
// Usage: npm run bench:ingest [-- seconds]
import path from 'node:path';
import { hubArgs, hubEnv, load, peakRss, root, seedHub, startProcess, table, tempDir, writeResult } from './lib.js';

const seconds = Number(process.argv[2] ?? 10);

async function measure(kind: 'hub' | 'reference') {
  const dataDir = tempDir(kind);
  // Seed through the real hub (same schema and rows for both), then serve with the one measured.
  const seeder = await startProcess(hubArgs(dataDir), hubEnv);
  const keys = await seedHub(seeder.url);
  await seeder.stop();
  const server =
    kind === 'hub'
      ? await startProcess(hubArgs(dataDir), hubEnv)
      : await startProcess(['--import', 'tsx', path.join(root, 'bench/reference-server.ts'), dataDir], {});
  const body = { apiKey: keys.apiKey, userKey: keys.userKey, title: 'Motion', body: 'Someone is at the front door', emoji: '🚶' };
  await load(`${server.url}/v1/push`, body, 2); // warm-up
  const { result, rssMiB } = await peakRss(server.child.pid!, load(`${server.url}/v1/push`, body, seconds));
  await server.stop();
  return { server: kind, ...result, rssMiB };
}

const reference = await measure('reference');
const hub = await measure('hub');
const ratio = hub.reqPerSec / reference.reqPerSec;
table([reference, hub]);
console.log(`\nhub / reference: ${(ratio * 100).toFixed(0)}% (target ≥ 60%), hub p99 ${hub.p99ms} ms (target ≤ 25 ms)`);
console.log('written to', writeResult('ingest', { seconds, connections: 50, reference, hub, ratio }));
