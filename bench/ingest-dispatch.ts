// Benchmark 4 (issue 7): ingest while dispatching. The dispatcher runs off the request path (a
// worker thread, on the second core), so /v1/push under a full outbox — tens of thousands of APNs
// deliveries being sent to an APNs-like server answering after 25 ms — keeps ≥ 80% of the rate it
// has when the dispatcher is idle. Both rates are measured on the same hub in the same run; the
// pushes measured go to a receiver without devices, so they add no work of their own to the outbox.
// The hub may use both cores here (that is the point); the load generator and the APNs-like server
// share them, so the idle rate is measured under the same arrangement.
// Usage: npx tsx bench/ingest-dispatch.ts [seconds] [--deliveries=N]
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { databasePath } from '../server/store/db.js';
import { testCertificate } from '../test/fakes/tls.js';
import { KEY_ID, TEAM_ID, TOPIC } from './apns-common.js';
import {
  adminLogin,
  benchScript,
  hubArgs,
  hubEnv,
  isMain,
  json,
  load,
  pct,
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

const DELAY_MS = 25;

/** Runs benchmark 4 and returns its check (busy / idle ingest rate ≥ 80%). */
export async function runIngestDispatch(seconds = 10, options: { deliveries?: number } = {}): Promise<Check[]> {
  const deliveries = options.deliveries ?? 100_000;
  console.log(`\n== ingest while dispatching: POST /v1/push, 50 connections, ${seconds} s idle, then ${seconds} s with ${deliveries} APNs deliveries queued ==`);
  const cert = testCertificate();
  const tlsDir = tempDir('ingest-dispatch-tls');
  const keyFile = path.join(tlsDir, 'key.pem');
  fs.writeFileSync(keyFile, cert.key, { mode: 0o600 });
  const fake = await startProcess(benchScript('apns-server.ts', keyFile, cert.certFile, String(DELAY_MS), '1000'), {}, '0,1');
  const dataDir = tempDir('ingest-dispatch');
  const seeded = await seedStore(dataDir, { users: 1000, channel: 'apns' });
  const hub = await startProcess(
    hubArgs(dataDir),
    { ...hubEnv, PUSHHUB_APNS_ORIGIN: fake.url, PUSHHUB_EXTRA_CA_FILE: cert.certFile, PUSHHUB_MAX_OUTBOX_DEPTH: '100000000' },
    '0,1',
  );
  try {
    const token = await adminLogin(hub.url);
    const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await json(
      `${hub.url}/api/settings/apns`,
      'PUT',
      { teamId: TEAM_ID, keyId: KEY_ID, privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), defaultTopic: TOPIC, environment: 'sandbox' },
      token,
    );
    const quiet = await json(`${hub.url}/api/users`, 'POST', { name: 'Quiet', username: 'quiet', password: 'bench-password' }, token);
    const body = { apiKey: seeded.apiKey, userKey: quiet.userKey, title: 'Motion', body: 'Someone is at the front door' };
    await load(`${hub.url}/v1/push`, body, Math.min(2, seconds)); // warm-up
    const idle = await load(`${hub.url}/v1/push`, body, seconds);

    // Fill the outbox: group pushes, 1,000 APNs deliveries each.
    const group = { apiKey: seeded.apiKey, userGroupKey: seeded.groupKey, title: 'Alarm', body: 'Smoke in the kitchen' };
    await Promise.all(Array.from({ length: Math.ceil(deliveries / 1000) }, () => json(`${hub.url}/v1/push`, 'POST', group)));
    const db = new Database(databasePath(dataDir), { readonly: true });
    const pending = () => db.prepare("SELECT count(*) FROM deliveries WHERE status = 'pending'").pluck().get() as number;
    const before = pending();
    const busy = await load(`${hub.url}/v1/push`, body, seconds);
    const after = pending();
    db.close();
    const sent = before - after;
    const ratio = busy.reqPerSec / idle.reqPerSec;
    table([
      { phase: 'dispatcher idle', ...idle, pending: '' },
      { phase: 'dispatcher busy', ...busy, pending: `${before} → ${after} (${Math.round(sent / seconds)}/s sent meanwhile)` },
    ]);
    const checks: Check[] = [
      { benchmark: 'ingest+dispatch', metric: 'busy / idle req/s', value: `${pct(ratio)} (${busy.reqPerSec} / ${idle.reqPerSec})`, target: '≥ 80%', pass: ratio >= 0.8 },
      { benchmark: 'ingest+dispatch', metric: 'deliveries sent during the busy run', value: `${sent}`, target: '> 0', pass: sent > 0 },
    ];
    printChecks(checks);
    console.log('written to', writeResult('ingest-dispatch', { seconds, deliveries, idle, busy, pendingBefore: before, pendingAfter: after, ratio }));
    return checks;
  } finally {
    await hub.stop();
    await fake.stop();
    removeDir(dataDir);
    removeDir(tlsDir);
  }
}

if (isMain(import.meta.url)) {
  const deliveries = process.argv.find((a) => a.startsWith('--deliveries='))?.split('=')[1];
  await runIngestDispatch(secondsArg(process.argv.slice(2).find((a) => !a.startsWith('--'))), deliveries ? { deliveries: Number(deliveries) } : {});
}
