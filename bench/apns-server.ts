// A minimal APNs-like HTTP/2 server for the dispatch benchmark (issue 7, benchmark 3). It answers
// every `POST /3/device/:token` with 200 and an `apns-id` a fixed delay after the request body
// arrived (real APNs is tens of ms away, so concurrency decides the rate) and verifies nothing:
// the correctness of what the hub sends is test/fakes/apns-fake.ts's job, whose respond() is
// synchronous and which keeps every request in memory. Like Apple's servers it advertises a
// limit of concurrent streams per connection (default 1000).
// `GET /stats` answers {answered, sessions, maxInFlight, maxSessionInFlight}; `GET /stats?reset=1`
// also zeroes them.
// Usage: node --import tsx bench/apns-server.ts <key.pem> <cert.pem> [delayMs=25] [maxStreams=1000]
import crypto from 'node:crypto';
import fs from 'node:fs';
import http2 from 'node:http2';

const [keyFile, certFile, delayArg = '25', streamsArg = '1000'] = process.argv.slice(2);
if (!keyFile || !certFile) throw new Error('usage: apns-server.ts <key.pem> <cert.pem> [delayMs] [maxStreams]');
const delayMs = Number(delayArg);
const maxStreams = Number(streamsArg);

let answered = 0;
let sessions = 0;
let inFlight = 0;
let maxInFlight = 0;
let maxSessionInFlight = 0;
const sessionInFlight = new WeakMap<http2.Http2Session, number>();

const server = http2.createSecureServer({
  key: fs.readFileSync(keyFile),
  cert: fs.readFileSync(certFile),
  settings: { maxConcurrentStreams: maxStreams },
  maxSessionMemory: 100, // MB: 1,000 streams in flight fit easily
});
server.on('session', (session) => {
  sessions++;
  sessionInFlight.set(session, 0);
  session.on('error', () => undefined);
});
server.on('stream', (stream, headers) => {
  stream.on('error', () => undefined);
  const path = String(headers[':path']);
  if (path.startsWith('/stats')) {
    const stats = { answered, sessions, maxInFlight, maxSessionInFlight, delayMs, maxStreams };
    if (path.includes('reset=1')) answered = sessions = maxInFlight = maxSessionInFlight = 0;
    stream.respond({ ':status': 200, 'content-type': 'application/json' });
    stream.end(JSON.stringify(stats));
    return;
  }
  const session = stream.session!;
  const inSession = (sessionInFlight.get(session) ?? 0) + 1;
  sessionInFlight.set(session, inSession);
  maxSessionInFlight = Math.max(maxSessionInFlight, inSession);
  inFlight++;
  maxInFlight = Math.max(maxInFlight, inFlight);
  stream.resume(); // the body is not looked at
  stream.on('end', () => {
    const apnsId = typeof headers['apns-id'] === 'string' ? headers['apns-id'] : crypto.randomUUID();
    setTimeout(() => {
      inFlight--;
      sessionInFlight.set(session, (sessionInFlight.get(session) ?? 1) - 1);
      if (stream.destroyed || stream.closed) return;
      const ok = headers[':method'] === 'POST' && path.startsWith('/3/device/');
      answered += ok ? 1 : 0;
      stream.respond({ ':status': ok ? 200 : 404, 'apns-id': apnsId });
      stream.end();
    }, delayMs);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on https://127.0.0.1:${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
