// The APNs clients the hub is compared with in the dispatch benchmark (issue 7, benchmark 3).
// Sends `count` notifications to the APNs-like server at `origin` with `inflight` requests in
// flight, the same requests the hub's APNs sender makes (POST /3/device/<token>, ES256 provider
// token, apns-topic, apns-push-type alert, apns-priority 10, apns-expiration, an alert payload):
// - `raw`: node:http2, one session, `inflight` streams at once — the ceiling of one client process;
// - `node-apn`: @parse/node-apn's Provider (one multiplexed session), `inflight` sends at once;
// - `hub-sender`: the hub's own APNs sender (server/delivery/senders/apns-sender.ts: apns2 with
//   its undici pool replaced by our node:http2 transport), `inflight` sends at once, without the dispatcher and the database —
//   what the transport alone costs.
// Each mode loads only its own library, connects and sends one notification before the timed
// span starts (a sender is long-lived in the hub, so its setup is not per-delivery work).
// Prints one JSON line: {mode, count, ok, failed, ms, cpuMs} for the timed span.
// Usage: node --import tsx bench/apns-client.ts raw|node-apn|hub-sender <origin> <ca.pem> <count> <inflight>
import crypto from 'node:crypto';
import fs from 'node:fs';
import http2 from 'node:http2';
import type { DeliveryJob } from '../server/delivery/types.js';
import { apnsToken, KEY_ID, TEAM_ID, TOPIC } from './apns-common.js';

const [mode, origin, caFile, countArg, inflightArg] = process.argv.slice(2);
if (!['raw', 'node-apn', 'hub-sender'].includes(mode ?? '') || !origin || !caFile) {
  throw new Error('usage: apns-client.ts raw|node-apn|hub-sender <origin> <ca.pem> <count> <inflight>');
}
const count = Number(countArg);
const inflight = Math.min(Number(inflightArg), count);
const ca = fs.readFileSync(caFile, 'utf8');
const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const alert = { title: '🔥 Alarm', body: 'The smoke detector in the kitchen went off' };
const notificationId = (i: number) => `01JBENCH${String(i).padStart(18, '0')}`;
const expiration = () => Math.floor(Date.now() / 1000) + 24 * 3600;

/** Sends notification `i`; resolves true when it was accepted (200). */
type SendOne = (i: number) => Promise<boolean>;

/** An ES256 provider token (Apple, "Establishing a token-based connection to APNs"), made once as a real client caches it. */
function providerToken(): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = `${enc({ alg: 'ES256', kid: KEY_ID })}.${enc({ iss: TEAM_ID, iat: Math.floor(Date.now() / 1000) })}`;
  const sig = crypto.sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${sig.toString('base64url')}`;
}

async function setupRaw(): Promise<{ send: SendOne; close: () => Promise<void> }> {
  const session = http2.connect(origin!, { ca });
  session.on('error', (err) => console.error('session error', err));
  await new Promise<void>((resolve, reject) => {
    session.once('remoteSettings', () => resolve());
    session.once('error', reject);
  });
  const jwt = providerToken();
  const send: SendOne = (i) =>
    new Promise((resolve) => {
      const req = session.request({
        ':method': 'POST',
        ':path': `/3/device/${apnsToken(i % 1000)}`,
        authorization: `bearer ${jwt}`,
        'apns-push-type': 'alert',
        'apns-topic': TOPIC,
        'apns-priority': '10',
        'apns-expiration': String(expiration()),
        'content-type': 'application/json',
      });
      let status = 0;
      req.on('response', (h) => (status = Number(h[':status'])));
      req.on('data', () => undefined);
      req.on('error', () => undefined);
      req.on('close', () => resolve(status === 200));
      req.end(JSON.stringify({ aps: { alert, sound: 'default' }, notificationId: notificationId(i) }));
    });
  return { send, close: () => new Promise<void>((r) => session.close(() => r())) };
}

async function setupNodeApn(): Promise<{ send: SendOne; close: () => Promise<void> }> {
  const { default: apn } = await import('@parse/node-apn');
  const url = new URL(origin!);
  const provider = new apn.Provider({
    token: { key: pem, keyId: KEY_ID, teamId: TEAM_ID },
    address: url.hostname,
    port: Number(url.port), // passed on to http2.connect's options, where it wins over the URL's port
    ca: [ca],
    production: false,
    requestTimeout: 10_000,
  });
  let reported = false;
  const send: SendOne = async (i) => {
    const note = new apn.Notification({ alert, sound: 'default', topic: TOPIC, pushType: 'alert', priority: 10, expiry: expiration(), payload: { notificationId: notificationId(i) } });
    const result = await provider.send(note, apnsToken(i % 1000));
    if (result.sent.length !== 1 && !reported) {
      reported = true;
      console.error('node-apn failure:', JSON.stringify(result.failed[0]));
    }
    return result.sent.length === 1;
  };
  return { send, close: () => provider.shutdown() };
}

async function setupHubSender(): Promise<{ send: SendOne; close: () => Promise<void> }> {
  const { createApnsSender, parseApnsSettings } = await import('../server/delivery/senders/apns-sender.js');
  const { pino } = await import('pino');
  const sender = createApnsSender({
    settings: parseApnsSettings({ teamId: TEAM_ID, keyId: KEY_ID, privateKey: pem, defaultTopic: TOPIC, environment: 'sandbox' }),
    origin: origin!,
    transport: { extraCa: [ca], requestTimeoutMs: 10_000 },
    logger: pino({ level: 'silent' }),
  });
  const createdAt = Date.now();
  let reported = false;
  const send: SendOne = async (i) => {
    const job: DeliveryJob = {
      deliveryId: i,
      attempts: 0,
      notification: { id: notificationId(i), title: 'Alarm', body: alert.body, emoji: '🔥', image: null, url: null, createdAt },
      device: { id: `d${i % 1000}`, userId: `u${i % 1000}`, platform: 'ios', channel: 'apns', token: apnsToken(i % 1000), topic: null, subscription: null },
    };
    const outcome = await sender.send(job);
    if (outcome.kind !== 'delivered' && !reported) {
      reported = true;
      console.error('hub sender failure:', JSON.stringify(outcome));
    }
    return outcome.kind === 'delivered';
  };
  return { send, close: () => sender.close() };
}

const client = mode === 'raw' ? await setupRaw() : mode === 'node-apn' ? await setupNodeApn() : await setupHubSender();
if (!(await client.send(count))) throw new Error(`${mode}: the warm-up notification was not accepted`);

const cpu0 = process.cpuUsage();
const t0 = performance.now();
let next = 0;
let ok = 0;
const worker = async () => {
  while (next < count) if (await client.send(next++)) ok++;
};
await Promise.all(Array.from({ length: inflight }, worker));
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
await client.close();
process.stdout.write(`${JSON.stringify({ mode, count, ok, failed: count - ok, ms: Math.round(ms), cpuMs: Math.round((cpu.user + cpu.system) / 1000) })}\n`);
process.exit(0);
