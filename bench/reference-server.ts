// The bare reference for the ingest benchmark (issue 7): node:http + JSON.parse + the same SQL
// the hub runs for a push, with group commit (every request that arrived in one event-loop turn
// is committed in one transaction, each answered after the commit). No framework, no validation
// beyond finding the keys: the ceiling the hub is measured against.
import http from 'node:http';
import { monotonicFactory } from 'ulid';
import { hashApiKey } from '../server/domain/keys.js';
import { openDatabase } from '../server/store/db.js';

const dataDir = process.argv[2]!;
const db = openDatabase(dataDir, { synchronous: 'FULL' });
const newId = monotonicFactory();

const appByHash = db.prepare('SELECT id, name FROM apps WHERE key_hash = ?');
const userByKey = db.prepare('SELECT id, name FROM users WHERE user_key = ?');
const insertNotification = db.prepare(
  `INSERT INTO notifications (id, app_id, app_name, target_user_id, target_group_id, target_label, title, body, emoji, image, url, created_at)
   VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)`,
);
const insertRecipient = db.prepare('INSERT OR IGNORE INTO notification_recipients (user_id, notification_id) VALUES (?, ?)');
const insertGroupRecipients = db.prepare(
  'INSERT OR IGNORE INTO notification_recipients (user_id, notification_id) SELECT user_id, ? FROM group_members WHERE group_id = ?',
);
const groupByKey = db.prepare('SELECT id, name FROM groups WHERE group_key = ?');
const insertDeliveries = db.prepare(
  `INSERT INTO deliveries (notification_id, device_id, channel, status, attempts, next_attempt_at, created_at, updated_at)
   SELECT r.notification_id, d.id, d.channel, 'pending', 0, ?, ?, ? FROM notification_recipients r JOIN devices d ON d.user_id = r.user_id
    WHERE r.notification_id = ? AND d.deactivated_at IS NULL`,
);
const touchApp = db.prepare('UPDATE apps SET last_used_at = ? WHERE id = ?');

type Pending = { body: any; res: http.ServerResponse };
let batch: Pending[] = [];

const flush = db.transaction((items: Pending[]) => {
  const out: Array<[http.ServerResponse, number, string]> = [];
  for (const { body, res } of items) {
    const app = appByHash.get(hashApiKey(String(body.apiKey))) as { id: string; name: string } | undefined;
    if (!app) {
      out.push([res, 401, '']);
      continue;
    }
    const now = Date.now();
    const id = newId(now);
    const user = body.userKey ? (userByKey.get(body.userKey) as { id: string; name: string } | undefined) : undefined;
    const group = body.userGroupKey ? (groupByKey.get(body.userGroupKey) as { id: string; name: string } | undefined) : undefined;
    insertNotification.run(id, app.id, app.name, user?.id ?? null, user?.name ?? group?.name ?? '', body.title, body.body, body.emoji ?? null, body.image ?? null, body.url ?? null, now);
    if (user) insertRecipient.run(user.id, id);
    if (group) insertGroupRecipients.run(id, group.id);
    insertDeliveries.run(now, now, now, id);
    touchApp.run(now, app.id);
    out.push([res, 200, JSON.stringify({ id })]);
  }
  return out;
});

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    batch.push({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')), res });
    if (batch.length === 1) {
      setImmediate(() => {
        const items = batch;
        batch = [];
        for (const [r, status, text] of flush(items)) {
          r.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
          r.end(text);
        }
      });
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}\n`);
});
