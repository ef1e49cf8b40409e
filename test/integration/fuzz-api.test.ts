import crypto from 'node:crypto';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  anyJson,
  expectDocumentedApiAnswer,
  expectErrorBody,
  nastyString,
  nestedJson,
  rawClient,
  wellFormed,
  type RawAnswer,
} from '../helpers/fuzz.js';
import { seed, startTestHub, type TestHub } from '../helpers/hub.js';

// Property-based tests of the admin and receiver APIs' inputs against a real hub over real HTTP
// (issue 7, "Bad input"): ids in paths, paging cursors and limits, JSON bodies, settings uploads,
// device registrations, content types. Whatever arrives, the answer is a documented status with
// a JSON error body, never a 5xx, what is accepted reads back as it was sent, and the hub keeps
// serving.

const UNLIMITED = { burst: 1_000_000, refill: 1_000_000, intervalMs: 1000 };
const SEEDED_NOTIFICATIONS = 25;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

let t: TestHub;
let client: ReturnType<typeof rawClient>;
let keys: Awaited<ReturnType<typeof seed>>;
let receiverToken: string;
let groupId: string;
let patchUserId: string;
/** Lowercased usernames that exist (usernames are unique without regard to ASCII case). */
const usernames = new Set<string>();
/** Every user id, to tell which group members exist. */
const userIds = new Set<string>();

const admin = (): Array<[string, string]> => [['authorization', `Bearer ${t.adminToken}`]];
const receiver = (): Array<[string, string]> => [['authorization', `Bearer ${receiverToken}`]];
const jsonType: Array<[string, string]> = [['content-type', 'application/json']];

/** A JSON request as the admin (or with `auth`), checked against the documented answers. */
async function call(method: string, path: string, body?: unknown, auth = admin()): Promise<RawAnswer> {
  const res = await client.send({
    method,
    path,
    headers: [...auth, ...(body === undefined ? [] : jsonType)],
    ...(body === undefined ? {} : { body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  });
  expectDocumentedApiAnswer(res);
  return res;
}

/** Length in code points, as zod 4 counts a string's min and max (and as people count characters). */
const codePoints = (s: string) => [...s].length;

/** What the API keeps of a name (trimmed, 1–100 characters, after a UTF-8 round trip), or null when it refuses it. */
function acceptedName(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = wellFormed(v).trim();
  return codePoints(s) >= 1 && codePoints(s) <= 100 ? s : null;
}
const passwordOk = (v: unknown) => typeof v === 'string' && codePoints(v) >= 8 && codePoints(v) <= 1024;

/** A name: usually fine, otherwise an awkward string, a wrong type, or a length at the edge. */
const nameValue = fc.oneof(
  { weight: 4, arbitrary: nastyString(30) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 98, max: 102 }).map((n) => 'n'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 49, max: 51 }).map((n) => '😀'.repeat(n)) },
  { weight: 1, arbitrary: anyJson(2) },
);

/** Percent-encodes a path segment, or sends it as it is (ASCII only; see rawClient). */
function segment(id: string, mode: 'component' | 'raw'): string {
  if (mode === 'component') return encodeURIComponent(wellFormed(id));
  // Raw: '/', '?', '#', '%' and dots go through unescaped; what Node's parser would refuse does not.
  return [...id].map((c) => (/^[\x21-\x7e]$/.test(c) ? c : encodeURIComponent(wellFormed(c)))).join('');
}

describe('admin and receiver APIs with any input', () => {
  let p256Pem: string;
  let p384Pem: string;
  let rsa2048Pem: string;
  let rsa1024Pem: string;
  let ed25519Pem: string;
  let encryptedPem: string;
  let publicPem: string;
  let subscription: { endpoint: string; keys: { p256dh: string; auth: string } };

  beforeAll(async () => {
    t = await startTestHub({ config: { rateLimit: { perApp: UNLIMITED, authFailures: UNLIMITED } } });
    keys = await seed(t, { user: 'Alice' });
    const alice = await t.api('GET', `/api/users/${keys.userId}`);
    usernames.add(alice.json.username.toLowerCase());
    userIds.add(keys.userId);
    const patchMe = await t.api('POST', '/api/users', { name: 'Patch Me', username: 'patchme', password: 'patch-password' });
    patchUserId = patchMe.json.id;
    usernames.add('patchme');
    userIds.add(patchUserId);
    groupId = (await t.api('POST', '/api/groups', { name: 'Family', userIds: [keys.userId] })).json.id;
    for (let i = 0; i < SEEDED_NOTIFICATIONS; i++) {
      const res = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: `n${i}`, body: 'paging' });
      expect(res.status).toBe(200);
    }
    const login = await fetch(`${t.url}/api/receiver/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: alice.json.username, password: 'receiver-pass' }),
    });
    receiverToken = ((await login.json()) as { token: string }).token;
    client = rawClient(t.url);

    const pem = (k: crypto.KeyObject) => k.export({ type: 'pkcs8', format: 'pem' }).toString();
    p256Pem = pem(crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
    p384Pem = pem(crypto.generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey);
    rsa2048Pem = pem(crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    rsa1024Pem = pem(crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey);
    ed25519Pem = pem(crypto.generateKeyPairSync('ed25519').privateKey);
    const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    encryptedPem = ec.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'x' }).toString();
    publicPem = ec.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const ecdh = crypto.createECDH('prime256v1');
    ecdh.generateKeys();
    subscription = {
      endpoint: 'https://push.example.net/send/abc',
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: crypto.randomBytes(16).toString('base64url') },
    };
  });
  afterAll(async () => {
    client?.close();
    await t?.close();
  });
  // After every property: the hub answers, the database is intact, and what was seeded is still
  // there (no path, however odd, reached something it should not have).
  afterEach(async () => {
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    expect(t.hub.store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect((await t.api('GET', `/api/users/${keys.userId}`)).status).toBe(200);
    expect((await t.api('GET', `/api/groups/${groupId}`)).status).toBe(200);
    expect((await t.api('GET', '/api/apps')).json.some((a: { id: string }) => a.id === keys.appId)).toBe(true);
    expect((await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'still', body: 'alive' })).status).toBe(200);
  });

  /** A PEM-ish string: real keys of the wrong kind, damaged keys, garbage between the armour lines. */
  const pemValue = () =>
    fc.oneof(
      fc.constantFrom(p256Pem, p384Pem, rsa2048Pem, rsa1024Pem, ed25519Pem, encryptedPem, publicPem),
      fc.constantFrom(p256Pem, rsa2048Pem).map((k) => k.trim().replace(/\n/g, '\\n')), // pasted from an env variable
      fc.tuple(fc.constantFrom(p256Pem, rsa2048Pem), fc.nat(), fc.nat(3)).map(([k, at, how]) => {
        const i = at % k.length;
        return how === 0 ? k.slice(0, i) : how === 1 ? k.slice(0, i) + k.slice(i + 1) : how === 2 ? k.slice(0, i) + 'A' + k.slice(i) : k.replace(/[A-Za-z]/, '!');
      }),
      fc
        .tuple(fc.constantFrom('PRIVATE KEY', 'EC PRIVATE KEY', 'RSA PRIVATE KEY', 'CERTIFICATE', 'ENCRYPTED PRIVATE KEY'), fc.base64String({ maxLength: 400 }))
        .map(([label, b64]) => `-----BEGIN ${label}-----\n${b64.replace(/(.{64})/g, '$1\n')}\n-----END ${label}-----`),
      fc.uint8Array({ maxLength: 300 }).map((b) => `-----BEGIN PRIVATE KEY-----\n${Buffer.from(b).toString('base64')}\n-----END PRIVATE KEY-----`),
      nastyString(),
    );

  it('answers 404 not_found to any unknown id in a path, 400 to one that does not decode, and never reaches anything else', async () => {
    const routes: Array<{ method: string; path: (id: string) => string; body?: unknown; receiver?: boolean }> = [
      { method: 'GET', path: (id) => `/api/users/${id}` },
      { method: 'GET', path: (id) => `/api/users/${id}/devices` },
      { method: 'PATCH', path: (id) => `/api/users/${id}`, body: { name: 'renamed' } },
      { method: 'DELETE', path: (id) => `/api/users/${id}` },
      { method: 'DELETE', path: (id) => `/api/users/${id}/devices/${id}` },
      { method: 'DELETE', path: (id) => `/api/users/${encodeURIComponent(keys.userId)}/devices/${id}` },
      { method: 'POST', path: (id) => `/api/apps/${id}/rotate-key` },
      { method: 'DELETE', path: (id) => `/api/apps/${id}` },
      { method: 'GET', path: (id) => `/api/groups/${id}` },
      { method: 'DELETE', path: (id) => `/api/groups/${id}` },
      { method: 'PUT', path: (id) => `/api/groups/${id}/members`, body: { userIds: [] } },
      { method: 'GET', path: (id) => `/api/notifications/${id}` },
      { method: 'DELETE', path: (id) => `/api/receiver/devices/${id}`, receiver: true },
    ];
    const id = fc.oneof(
      { weight: 4, arbitrary: nastyString(60) },
      // Long, but within Node's 16 KiB for the request head (past it Node itself answers 431).
      { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 200, maxLength: 500 }) },
      { weight: 1, arbitrary: fc.integer({ min: 4000, max: 5000 }).map((n) => 'a'.repeat(n)) },
      {
        weight: 2,
        arbitrary: fc.constantFrom('..', '../..', '../../apps', '.', '~', '%2e%2e', '..%2F..%2Fsettings', 'a/b', '?x=1', '#frag', '%', '%zz', '%E0%A4%A', '%C0%AF', '%00', '%ff', '%2F', '*', '01ARZ3NDEKTSV4RRFFQ69G5FAV', "1' OR '1'='1", 'null', 'undefined'),
      },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), id, fc.constantFrom('component', 'raw') as fc.Arbitrary<'component' | 'raw'>, async (route, rawId, mode) => {
        fc.pre(rawId !== '');
        const path = route.path(segment(rawId, mode));
        const res = await call(route.method, path, route.body, route.receiver ? receiver() : admin());
        const sent = segment(rawId, mode);
        const oneSegment = !/[/?#]/.test(sent);
        const why = `${route.method} ${path.slice(0, 200)}: ${res.text.slice(0, 200)}`;
        if (oneSegment && decodes(sent)) {
          // One whole segment that names nothing.
          expect(res.status, why).toBe(404);
          expect(expectErrorBody(res).code).toBe('not_found');
        } else if (oneSegment) {
          // %-escapes that are not UTF-8: the path cannot be read.
          expect(res.status, why).toBe(400);
          expect(expectErrorBody(res).code).toBe('invalid_field');
        } else {
          // The id splits into more segments or starts a query or fragment: any documented answer.
          expect(res.status, why).toBeLessThan(500);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('pages GET /api/notifications and GET /api/receiver/notifications with any limit, cursor and filter: 200 with a consistent page, or 400', async () => {
    const limit = fc.oneof(
      fc.integer({ min: -5, max: 260 }).map(String),
      fc.constantFrom('', ' ', 'abc', '1e2', '0x10', ' 7 ', '7.5', 'Infinity', '-0', '１', '1,2', '9'.repeat(30), 'NaN', '+5', '0b11', '\u0000'),
    );
    const ids = t.hub.store.db.prepare('SELECT id FROM notifications').pluck().all() as string[];
    const cursor = fc.oneof(nastyString(40), fc.constantFrom('\uffff', '0', 'z', '01', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', ...ids));
    const param = fc.oneof(
      fc.tuple(fc.constant('limit'), limit),
      fc.tuple(fc.constant('before'), cursor),
      fc.tuple(fc.constant('appId'), fc.oneof(nastyString(20), fc.constant(keys.appId))),
      fc.tuple(fc.constant('userId'), fc.oneof(nastyString(20), fc.constant(keys.userId))),
      fc.tuple(nastyString(10), nastyString(10)),
    );
    const query = fc.record({
      params: fc.array(param, { maxLength: 5 }),
      junk: fc.option(fc.constantFrom('&', '&&', '=', 'limit', 'before=', '%', '%zz', 'limit=%E0%A4', '=x', '?'), { nil: undefined }),
      asReceiver: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(query, async ({ params, junk, asReceiver }) => {
        const parts = params.map(([k, v]) => `${encodeURIComponent(wellFormed(k))}=${encodeURIComponent(wellFormed(v))}`);
        if (junk !== undefined) parts.push(junk);
        const search = parts.join('&');
        const path = `${asReceiver ? '/api/receiver/notifications' : '/api/notifications'}${search ? `?${search}` : ''}`;
        const res = await call('GET', path, undefined, asReceiver ? receiver() : admin());
        expect([200, 400], res.text).toContain(res.status);

        // What the query means, read independently (the last value when repeated is not used: a
        // repeated name is an array, which is never a valid limit or id).
        const q = new Map<string, string[]>();
        for (const [k, v] of new URLSearchParams(wellFormed(search))) q.set(k, [...(q.get(k) ?? []), v]);
        const single = (k: string) => {
          const v = q.get(k);
          return v === undefined ? undefined : v.length === 1 ? v[0]! : null;
        };
        const known = asReceiver ? ['limit', 'before'] : ['limit', 'before', 'appId', 'userId'];
        const limitValue = single('limit');
        const limitOk = limitValue === undefined || (limitValue !== null && Number.isInteger(Number(limitValue)) && Number(limitValue) >= 1 && Number(limitValue) <= 200);
        const othersOk = known.filter((k) => k !== 'limit').every((k) => single(k) === undefined || (single(k) !== null && single(k) !== ''));
        if (res.status === 400) {
          expect(limitOk && othersOk, `400 for a valid query ${search}: ${res.text}`).toBe(false);
          const error = expectErrorBody(res);
          if (error.field !== undefined) expect(known).toContain(error.field);
          return;
        }
        expect(limitOk && othersOk, `200 for an invalid query ${search}`).toBe(true);
        const page = JSON.parse(res.text) as { items: Array<{ id: string; app?: { id: string | null } }>; next: string | null };
        expect(Object.keys(page).sort()).toEqual(['items', 'next']);
        const max = limitValue === undefined ? 50 : Number(limitValue);
        expect(page.items.length).toBeLessThanOrEqual(max);
        const ids = page.items.map((n) => n.id);
        expect(ids).toEqual([...ids].sort().reverse());
        expect(new Set(ids).size).toBe(ids.length);
        const before = single('before');
        // SQLite compares TEXT byte by byte (BINARY collation): compare the UTF-8 bytes here too.
        if (typeof before === 'string') for (const id of ids) expect(Buffer.compare(Buffer.from(id), Buffer.from(before))).toBeLessThan(0);
        if (!asReceiver && typeof single('appId') === 'string') for (const n of page.items) expect(n.app?.id).toBe(single('appId'));
        if (!asReceiver && typeof single('userId') === 'string' && single('userId') !== keys.userId) expect(page.items).toEqual([]);
        if (page.next !== null) {
          expect(page.items.length).toBe(max);
          expect(page.next).toBe(ids.at(-1));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('walks every page with the next cursor: each notification exactly once, newest first, for any page size', async () => {
    // Every notification of this hub is from the seeded app to the seeded user.
    const all = t.hub.store.db.prepare('SELECT id FROM notifications ORDER BY id DESC').pluck().all() as string[];
    expect(all.length).toBeGreaterThanOrEqual(SEEDED_NOTIFICATIONS);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 30 }), fc.constantFrom('admin', 'admin-app', 'admin-user', 'receiver'), async (limit, how) => {
        const base = how === 'receiver' ? '/api/receiver/notifications?' : '/api/notifications?';
        const filter = how === 'admin-app' ? `appId=${keys.appId}&` : how === 'admin-user' ? `userId=${keys.userId}&` : '';
        const seen: string[] = [];
        let next: string | null = null;
        for (let page = 0; page <= all.length; page++) {
          const res = await call('GET', `${base}${filter}limit=${limit}${next ? `&before=${encodeURIComponent(next)}` : ''}`, undefined, how === 'receiver' ? receiver() : admin());
          expect(res.status).toBe(200);
          const body = JSON.parse(res.text) as { items: Array<{ id: string }>; next: string | null };
          seen.push(...body.items.map((n) => n.id));
          next = body.next;
          if (next === null) break;
        }
        expect(next).toBeNull();
        expect(seen).toEqual(all);
      }),
      { numRuns: 40 },
    );
  });

  it('creates apps only from a name of 1–100 characters and reads the name back as it was sent', async () => {
    const body = fc.oneof(fc.record({ name: nameValue, extra: anyJson(1) }, { requiredKeys: [] }), anyJson(3));
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await call('POST', '/api/apps', JSON.stringify(b) ?? 'null');
        const name = isObject(b) ? acceptedName(b.name) : null;
        if (name === null) {
          expect(res.status, res.text).toBe(400);
          return;
        }
        expect(res.status, res.text).toBe(201);
        const created = JSON.parse(res.text) as { id: string; name: string; apiKey: string };
        expect(created.name).toBe(name);
        expect(created.apiKey).toMatch(/^pk_[0-9A-Za-z]{32}$/);
        // Read back from SQLite (the list grows with every run; the store reads one row).
        expect(t.hub.store.apps.get(created.id)?.name).toBe(name);
      }),
      { numRuns: 200 },
    );
  });

  it('creates users only from a valid name, username and password: 201, 409 for a taken username, else 400', async () => {
    const username = fc.oneof(
      fc.constantFrom('alice', 'ALICE', 'bob', 'Bob', ' bob ', 'carol.x', 'd@e', 'x'.repeat(64), 'x'.repeat(65), 'with space', 'ü', '', 'a/b', 'patchme', 'PatchMe'),
      fc.stringMatching(/^[A-Za-z0-9._@-]{1,12}$/),
      nastyString(20),
      anyJson(1),
    );
    const password = fc.oneof(
      fc.constantFrom('12345678', '1234567', 'p'.repeat(1024), 'p'.repeat(1025), '        ', '\ud800\ud800\ud800\ud800', ''),
      nastyString(20),
      anyJson(1),
    );
    await fc.assert(
      fc.asyncProperty(fc.record({ name: nameValue, username, password }, { requiredKeys: [] }), async (b) => {
        const res = await call('POST', '/api/users', b);
        const name = acceptedName(b.name);
        const user = typeof b.username === 'string' ? b.username.trim() : null;
        const valid =
          name !== null && user !== null && /^[A-Za-z0-9._@-]{1,64}$/.test(user) && passwordOk(b.password);
        if (!valid) {
          expect(res.status, res.text).toBe(400);
          return;
        }
        if (usernames.has(user.toLowerCase())) {
          expect(res.status, res.text).toBe(409);
          expect(expectErrorBody(res)).toMatchObject({ code: 'conflict', field: 'username' });
          return;
        }
        expect(res.status, res.text).toBe(201);
        const created = JSON.parse(res.text) as { id: string; name: string; username: string; userKey: string };
        expect(created).toMatchObject({ name, username: user });
        expect(created.userKey).toMatch(/^uk_[0-9A-Za-z]{30}$/);
        usernames.add(user.toLowerCase());
        userIds.add(created.id);
        expect((await t.api('GET', `/api/users/${created.id}`)).json.name).toBe(name);
      }),
      { numRuns: 120 },
    );
  });

  it('changes users with PATCH only to a valid name or password, and answers 400 otherwise', async () => {
    const body = fc.oneof(
      fc.record(
        { name: nameValue, password: fc.oneof(fc.constantFrom('12345678', 'short', 'p'.repeat(1025)), nastyString(12), anyJson(1)) },
        { requiredKeys: [] },
      ),
      anyJson(2),
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const before = (await t.api('GET', `/api/users/${patchUserId}`)).json.name as string;
        const res = await call('PATCH', `/api/users/${patchUserId}`, JSON.stringify(b) ?? 'null');
        const obj = isObject(b) ? b : null;
        const nameOk = obj !== null && (obj.name === undefined || acceptedName(obj.name) !== null);
        const passwordFine = obj !== null && (obj.password === undefined || passwordOk(obj.password));
        if (!(nameOk && passwordFine)) {
          expect(res.status, res.text).toBe(400);
          expect((await t.api('GET', `/api/users/${patchUserId}`)).json.name).toBe(before);
          return;
        }
        expect(res.status, res.text).toBe(200);
        const want = obj!.name === undefined ? before : acceptedName(obj!.name);
        expect(JSON.parse(res.text).name).toBe(want);
        expect((await t.api('GET', `/api/users/${patchUserId}`)).json.name).toBe(want);
      }),
      { numRuns: 150 },
    );
  });

  it('creates groups and sets their members only from ids of existing users', async () => {
    const memberId = fc.oneof(
      fc.constantFrom(...[...userIds]),
      nastyString(20),
      fc.constantFrom('', ' ', '01ARZ3NDEKTSV4RRFFQ69G5FAV'),
    );
    const members = fc.oneof({ weight: 4, arbitrary: fc.array(memberId, { maxLength: 6 }) }, { weight: 1, arbitrary: anyJson(2) });
    await fc.assert(
      fc.asyncProperty(fc.record({ name: nameValue, userIds: members }, { requiredKeys: [] }), fc.boolean(), async (b, replace) => {
        const membersOk = (v: unknown, optional: boolean) =>
          (optional && v === undefined) || (Array.isArray(v) && v.every((x) => typeof x === 'string' && x !== '' && userIds.has(x)));
        const want = (v: unknown) => [...new Set(Array.isArray(v) ? (v as string[]) : [])].sort();
        if (replace) {
          const res = await call('PUT', `/api/groups/${groupId}/members`, { userIds: b.userIds });
          if (!membersOk(b.userIds, false)) {
            expect(res.status, res.text).toBe(400);
            return;
          }
          expect(res.status, res.text).toBe(200);
          expect(JSON.parse(res.text).userIds).toEqual(want(b.userIds));
          // Keep the seeded member for the afterEach check and the other properties.
          await t.api('PUT', `/api/groups/${groupId}/members`, { userIds: [keys.userId] });
          return;
        }
        const res = await call('POST', '/api/groups', b);
        const name = acceptedName(b.name);
        if (name === null || !membersOk(b.userIds, true)) {
          expect(res.status, res.text).toBe(400);
          return;
        }
        expect(res.status, res.text).toBe(201);
        const created = JSON.parse(res.text) as { id: string; name: string; groupKey: string; userIds: string[] };
        expect(created).toMatchObject({ name, userIds: want(b.userIds) });
        expect(created.groupKey).toMatch(/^gk_[0-9A-Za-z]{30}$/);
        expect((await t.api('GET', `/api/groups/${created.id}`)).json).toMatchObject({ name, userIds: want(b.userIds) });
      }),
      { numRuns: 200 },
    );
  });

  it('takes APNs and FCM credentials only when they are usable, never echoes a key, and never fails with a 5xx', async () => {
    const appleId = fc.oneof(fc.constantFrom('TEAMID1234', 'ABC123DEFG', ' ABC123DEFG ', 'abc123defg', 'SHORT', ''), nastyString(12), anyJson(1));
    const apns = fc.oneof(
      fc.record(
        {
          teamId: appleId,
          keyId: appleId,
          privateKey: pemValue(),
          defaultTopic: fc.oneof(fc.constantFrom('com.example.receiver', 'x', 'com..x', `${'a'.repeat(250)}.com`), nastyString(20)),
          environment: fc.oneof(fc.constantFrom('production', 'sandbox', 'Production', ''), anyJson(1)),
        },
        { requiredKeys: [] },
      ),
      anyJson(3),
    );
    const serviceAccount = fc.oneof(
      fc.record(
        {
          type: fc.oneof(fc.constant('service_account'), nastyString(12)),
          project_id: fc.oneof(fc.constantFrom('my-project', 'x', '-bad', ''), nastyString(12)),
          client_email: fc.oneof(fc.constantFrom('hub@my-project.iam.gserviceaccount.com', 'not-an-email', ''), nastyString(12)),
          private_key: pemValue(),
          token_uri: fc.oneof(fc.constantFrom('https://oauth2.googleapis.com/token', 'http://insecure.example/token', 'nope'), nastyString(12)),
        },
        { requiredKeys: ['private_key'] },
      ),
      anyJson(3),
    );
    const fcm = fc.oneof(
      fc.record({ serviceAccount }, { requiredKeys: [] }),
      fc.record({ serviceAccount: serviceAccount.map((s) => JSON.stringify(s) ?? '') }),
      fc.record({ serviceAccount: nastyString(50) }),
      anyJson(2),
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(apns.map((b) => ['apns', b] as const), fcm.map((b) => ['fcm', b] as const)), async ([which, b]) => {
        const sent = JSON.stringify(b) ?? 'null';
        const res = await call('PUT', `/api/settings/${which}`, sent);
        expect([200, 400], res.text).toContain(res.status);
        if (res.status === 200) expect(JSON.parse(res.text).configured).toBe(true);
        const shown = await call('GET', `/api/settings/${which}`);
        expect(shown.status).toBe(200);
        // No key material comes back, in an error message or in the settings.
        for (const secret of keyMaterial(sent)) {
          expect(res.text).not.toContain(secret);
          expect(shown.text).not.toContain(secret);
        }
      }),
      { numRuns: 150 },
    );
    expect((await call('DELETE', '/api/settings/apns')).status).toBe(204);
    expect((await call('DELETE', '/api/settings/fcm')).status).toBe(204);
  });

  it('takes a Web Push subject only as a mailto: or https: URL', async () => {
    const subject = fc.oneof(
      fc.constantFrom('mailto:ops@example.net', 'https://example.net/contact', 'mailto:', 'mailto:nobody', 'http://example.net', 'https://', 'ftp://x', '', ' mailto:a@b '),
      fc.emailAddress().map((e) => `mailto:${e}`),
      fc.webUrl({ validSchemes: ['https', 'http'] }),
      nastyString(30),
      anyJson(2),
    );
    await fc.assert(
      fc.asyncProperty(
        subject,
        async (s) => {
          const res = await call('PUT', '/api/settings/webpush', { subject: s });
          expect([200, 400], res.text).toContain(res.status);
        },
      ),
      { numRuns: 150 },
    );
    expect((await call('PUT', '/api/settings/webpush', { subject: 'mailto:ops@example.net' })).status).toBe(200);
  });

  /** The receiver API's device rules, read independently (README "Receiver API", receiver.ts). */
  const deviceAccepted = (b: unknown): boolean => {
    if (!isObject(b) || acceptedName(b.name) === null) return false;
    if (!['ios', 'ipados', 'watchos', 'android', 'wearos', 'web', 'desktop'].includes(b.platform as string)) return false;
    if (!['apns', 'fcm', 'webpush', 'stream'].includes(b.channel as string)) return false;
    if (b.token !== undefined && (typeof b.token !== 'string' || codePoints(b.token) < 1 || codePoints(b.token) > 4096)) return false;
    if (b.topic !== undefined && (typeof b.topic !== 'string' || b.topic.length > 255 || !/^[A-Za-z0-9.-]+$/.test(b.topic))) return false;
    switch (b.channel) {
      case 'apns':
        return typeof b.token === 'string' && /^[0-9a-fA-F]{64,200}$/.test(b.token);
      case 'fcm':
        return typeof b.token === 'string';
      case 'webpush':
        return b.subscription === subscription || b.subscription === JSON.stringify(subscription);
      default:
        return true;
    }
  };

  it('registers a receiver device only with what its channel needs, and reads its name back as sent', async () => {
    const device = fc.oneof(
      fc.record(
        {
          name: nameValue,
          platform: fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom('ios', 'ipados', 'watchos', 'android', 'wearos', 'web', 'desktop', 'IOS', 'windows', '') },
            { weight: 1, arbitrary: anyJson(1) },
          ),
          channel: fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom('apns', 'fcm', 'webpush', 'stream', 'stream', 'APNS', 'sms', '') },
            { weight: 1, arbitrary: anyJson(1) },
          ),
          token: fc.oneof(
            fc.stringMatching(/^[0-9a-fA-F]{64}$/),
            fc.integer({ min: 63, max: 201 }).map((n) => 'a'.repeat(n)),
            fc.integer({ min: 4095, max: 4097 }).map((n) => 't'.repeat(n)),
            nastyString(40),
            anyJson(1),
          ),
          topic: fc.oneof(fc.constantFrom('com.example.app', 'com.example.app.watchkitapp', 'bad topic', '', 'x'.repeat(256)), nastyString(12)),
          subscription: fc.oneof(
            fc.constant(subscription),
            fc.constant(JSON.stringify(subscription)),
            fc.constant({ ...subscription, endpoint: 'http://insecure.example/x' }),
            fc.constant({ ...subscription, keys: { ...subscription.keys, auth: 'AAAA' } }),
            fc.constant({ ...subscription, keys: { p256dh: Buffer.alloc(65, 4).toString('base64url'), auth: subscription.keys.auth } }),
            fc.constant({ endpoint: `https://x.example/${'e'.repeat(5000)}`, keys: subscription.keys }),
            anyJson(3),
            nastyString(30),
          ),
        },
        { requiredKeys: ['name', 'platform', 'channel'] },
      ),
      anyJson(3),
    );
    await fc.assert(
      fc.asyncProperty(device, async (b) => {
        const res = await call('POST', '/api/receiver/devices', JSON.stringify(b) ?? 'null', receiver());
        const ok = deviceAccepted(b);
        expect(res.status, `${res.text} for ${JSON.stringify(b).slice(0, 300)}`).toBe(ok ? 201 : 400);
        if (!ok) return;
        const { id } = JSON.parse(res.text) as { id: string };
        const me = await call('GET', '/api/receiver/me', undefined, receiver());
        const listed = (JSON.parse(me.text) as { devices: Array<{ id: string; name: string; channel: string }> }).devices.find((d) => d.id === id);
        expect(listed?.name).toBe(acceptedName((b as Json).name));
        expect(listed?.channel).toBe((b as Json).channel);
      }),
      { numRuns: 200 },
    );
  });

  it('answers raw bodies of any kind with a documented status: bad JSON, bad UTF-8, deep nesting, duplicate keys, past the limit', async () => {
    const raw = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
      fc.string({ maxLength: 100 }).map((s) => Buffer.from(s)),
      fc.tuple(fc.integer({ min: 1, max: 9000 }), fc.constantFrom('array', 'object') as fc.Arbitrary<'array' | 'object'>).map(([d, k]) => Buffer.from(`{"name":${nestedJson(d, k)}}`)),
      fc.tuple(fc.integer({ min: 1, max: 9000 }), fc.constantFrom('array', 'object') as fc.Arbitrary<'array' | 'object'>).map(([d, k]) => Buffer.from(nestedJson(d, k))),
      fc.array(fc.tuple(fc.constantFrom('name', 'userIds', 'x'), fc.oneof(nastyString(10), anyJson(1))), { maxLength: 6 }).map((members) =>
        Buffer.from(`{${members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`),
      ),
      fc.constantFrom(Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), Buffer.from('{"name":"\\ud800"}'), Buffer.from('{"name":"x"'), Buffer.from('\ufeff{"name":"bom"}')),
      fc.integer({ min: 16 * 1024 - 20, max: 16 * 1024 + 20 }).map((n) => Buffer.from(`{"name":"${'n'.repeat(Math.max(0, n - 11))}"}`)),
    );
    const target = fc.constantFrom('/api/apps', '/api/users', '/api/groups', `/api/groups/GROUP/members`, '/api/settings/apns', '/api/settings/fcm', '/api/settings/webpush', '/api/receiver/devices', '/api/receiver/login', '/api/auth/login');
    const method = (path: string) => (path.includes('/members') || path.includes('/settings/') ? 'PUT' : 'POST');
    await fc.assert(
      fc.asyncProperty(raw, target, async (body, path0) => {
        const path = path0.replace('GROUP', groupId);
        const res = await client.send({ method: method(path), path, headers: [...(path.startsWith('/api/receiver/devices') ? receiver() : admin()), ...jsonType], body });
        expectDocumentedApiAnswer(res);
        if (body.length > 16 * 1024) expect(res.status).toBe(413);
      }),
      { numRuns: 250 },
    );
  });

  it('answers any content type, charset, content encoding and origin with a documented status', async () => {
    const gzip = zlib.gzipSync(Buffer.from('{"name":"gzipped"}'));
    const br = zlib.brotliCompressSync(Buffer.from('{"name":"brotli"}'));
    const variant = fc.record({
      type: fc.option(fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'APPLICATION/JSON', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/*', ''), { nil: undefined }),
      encoding: fc.option(fc.constantFrom('identity', 'gzip', 'br', 'deflate', 'x-gzip', 'compress', 'gzip, br', 'IDENTITY'), { nil: undefined }),
      body: fc.constantFrom('plain', 'gzip', 'br', 'garbage') as fc.Arbitrary<'plain' | 'gzip' | 'br' | 'garbage'>,
      origin: fc.option(fc.constantFrom('null', 'http://evil.example', 'http://127.0.0.1', 'https://127.0.0.1', 'file://', 'not a url', ''), { nil: undefined }),
      fetchSite: fc.option(fc.constantFrom('cross-site', 'same-origin', 'same-site', 'none'), { nil: undefined }),
      chunked: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(variant, async (v) => {
        const body = v.body === 'gzip' ? gzip : v.body === 'br' ? br : v.body === 'garbage' ? Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02]) : Buffer.from('{"name":"plain"}');
        const headers: Array<[string, string]> = [...admin()];
        if (v.type !== undefined) headers.push(['content-type', v.type]);
        if (v.encoding !== undefined) headers.push(['content-encoding', v.encoding]);
        if (v.origin !== undefined) headers.push(['origin', v.origin]);
        if (v.fetchSite !== undefined) headers.push(['sec-fetch-site', v.fetchSite]);
        const res = await client.send({ method: 'POST', path: '/api/apps', headers, body, chunked: v.chunked });
        expectDocumentedApiAnswer(res);
      }),
      { numRuns: 200 },
    );
  });

  it('answers 401 unauthorized JSON to any other credentials, and keeps admin and receiver sessions apart', async () => {
    const credential = fc.oneof(
      fc.string({ unit: 'binary-ascii', maxLength: 60 }).filter((s) => /^[\x20-\x7e]*$/.test(s)).map((s) => ['authorization', s] as [string, string]),
      fc.base64String({ maxLength: 60 }).map((s) => ['authorization', `Bearer ${s}`] as [string, string]),
      fc.constant(['authorization', `Bearer ${receiverToken}`] as [string, string]),
      fc.constant(['authorization', `Basic ${Buffer.from(`admin:${t.adminToken}`).toString('base64')}`] as [string, string]),
      fc.base64String({ maxLength: 60 }).map((s) => ['cookie', `pushhub_session=${s}`] as [string, string]),
      fc.string({ unit: 'binary-ascii', maxLength: 60 }).filter((s) => /^[\x20-\x7e]*$/.test(s)).map((s) => ['cookie', s] as [string, string]),
    );
    const route = fc.constantFrom(
      ['GET', '/api/apps', false],
      ['GET', '/api/users', false],
      ['POST', '/api/apps', false],
      ['GET', '/api/notifications', false],
      ['GET', '/api/settings/apns', false],
      ['GET', '/api/receiver/me', true],
      ['GET', '/api/receiver/notifications', true],
    ) as fc.Arbitrary<[string, string, boolean]>;
    await fc.assert(
      fc.asyncProperty(credential, route, async (cred, [method, path, forReceiver]) => {
        // The one credential that is valid somewhere: the receiver token on the receiver API.
        fc.pre(!(forReceiver && cred[1] === `Bearer ${receiverToken}`));
        const res = await client.send({ method, path, headers: [cred, ...jsonType], body: method === 'POST' ? '{"name":"x"}' : undefined });
        expectDocumentedApiAnswer(res);
        expect(res.status, res.text).toBe(401);
        expect(expectErrorBody(res).code).toBe('unauthorized');
      }),
      { numRuns: 200 },
    );
  });

  // Regression examples: inputs the properties above found.

  it('answers 400 JSON, not 500, to a path whose percent-encoding does not decode', async () => {
    for (const path of ['/api/users/%E0%A4%A', '/api/groups/%zz', '/api/notifications/%', '/api/apps/%C0%AF/rotate-key']) {
      const res = await call(path.endsWith('rotate-key') ? 'POST' : 'GET', path);
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      expect(expectErrorBody(res).code).toBe('invalid_field');
    }
  });

  it('answers 400 JSON, not 500, to a body that does not decompress as its Content-Encoding says', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await client.send({ method: 'POST', path: '/api/apps', headers: [...admin(), ...jsonType, ['content-encoding', encoding]], body: '{"name":"x"}' });
      expectDocumentedApiAnswer(res);
      expect(res.status, `${encoding}: ${res.text}`).toBe(400);
      expect(expectErrorBody(res).code).toBe('malformed_json');
    }
  });

  it('stores a name with a lone surrogate as U+FFFD, the same in the answer and when read back', async () => {
    // Before: the answer echoed "\ud800" while SQLite kept the bytes ED A0 80, read back as three U+FFFD.
    const res = await call('POST', '/api/apps', '{"name":"a\\ud800b"}');
    expect(res.status).toBe(201);
    const { id, name } = JSON.parse(res.text) as { id: string; name: string };
    expect(name).toBe('a\ufffdb');
    expect((await t.api('GET', '/api/apps')).json.find((a: { id: string }) => a.id === id).name).toBe('a\ufffdb');
  });

  it('stores a device name with a lone surrogate as U+FFFD', async () => {
    const res = await call('POST', '/api/receiver/devices', '{"name":"Desk\\udc00top","platform":"desktop","channel":"stream"}', receiver());
    expect(res.status, res.text).toBe(201);
    const { id } = JSON.parse(res.text) as { id: string };
    expect(t.hub.store.devices.get(id)?.name).toBe('Desk\ufffdtop');
  });

  it('words a 400 for a body of the wrong shape without "undefined"', async () => {
    const res = await call('POST', '/api/apps', '[]');
    expect(res.status).toBe(400);
    expect(expectErrorBody(res).message).not.toMatch(/undefined/);
  });

  it('answers 400 to a mailto: subject with a broken %-escape (was 500)', async () => {
    const res = await client.send({ method: 'PUT', path: '/api/settings/webpush', headers: [...admin(), ...jsonType], body: '{"subject":"mailto:%E0%A4@example.net"}' });
    expect(res.status, res.text).toBe(400);
  });
});

/** Runs of base64 in a request that carried a key: what must never be echoed. */
function keyMaterial(sent: string): string[] {
  return [...sent.replace(/\\n/g, '\n').matchAll(/[A-Za-z0-9+/=]{40,}/g)].map((m) => m[0]);
}

/** True when decodeURIComponent accepts every %-escape of `s`. */
function decodes(s: string): boolean {
  try {
    decodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}
