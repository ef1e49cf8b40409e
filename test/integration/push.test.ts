import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addDevice, seed, startTestHub, type TestHub } from '../helpers/hub.js';

// POST /v1/push against a real hub on a real port with a real SQLite database
// (spec "Endpoints / Send push notification" and DESIGN.md "Contracts the spec leaves open").

let t: TestHub;
let keys: Awaited<ReturnType<typeof seed>>;

beforeEach(async () => {
  t = await startTestHub();
  keys = await seed(t);
});
afterEach(() => t.close());

const countRows = (table: string) =>
  (t.hub.store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('accepted pushes', () => {
  it('answers 200 {"id"} to a JSON push and stores the notification with one delivery per device', async () => {
    const phone = addDevice(t, keys.userId, 'apns');
    const watch = addDevice(t, keys.userId, 'fcm');
    const res = await t.push({
      apiKey: keys.apiKey,
      userKey: keys.userKey,
      title: 'Front door',
      body: 'The front door opened',
      emoji: '🚪',
      image: 'https://example.org/door.jpg',
      url: 'https://ha.local/lovelace/doors',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.json)).toEqual(['id']);
    expect(typeof res.json.id).toBe('string');

    const detail = await t.api('GET', `/api/notifications/${res.json.id}`);
    expect(detail.status).toBe(200);
    expect(detail.json).toMatchObject({
      id: res.json.id,
      title: 'Front door',
      body: 'The front door opened',
      emoji: '🚪',
      image: 'https://example.org/door.jpg',
      url: 'https://ha.local/lovelace/doors',
      app: { id: keys.appId, name: 'Home Assistant' },
      target: { userId: keys.userId, groupId: null, label: 'Alice' },
      summary: { total: 2 },
    });
    // One outbox row per device (what happens to them next is the dispatcher's business).
    expect(detail.json.deliveries.map((d: { deviceId: string }) => d.deviceId).sort()).toEqual([phone.id, watch.id].sort());
    expect(detail.json.deliveries.map((d: { channel: string }) => d.channel).sort()).toEqual(['apns', 'fcm']);
  });

  it('accepts the same fields form-encoded, as curl -d / --data-urlencode sends them', async () => {
    const form = new URLSearchParams({
      apiKey: keys.apiKey,
      userKey: keys.userKey,
      title: 'Washer',
      body: 'Laundry is done — 42 min',
      emoji: '🧺',
    });
    const res = await fetch(`${t.url}/v1/push`, { method: 'POST', body: form });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    const list = await t.api('GET', '/api/notifications');
    expect(list.json.items).toHaveLength(1);
    expect(list.json.items[0]).toMatchObject({ id, title: 'Washer', body: 'Laundry is done — 42 min', emoji: '🧺' });
  });

  it('ignores unknown extra fields and treats empty optional fields as absent', async () => {
    const res = await t.push({
      apiKey: keys.apiKey,
      userKey: keys.userKey,
      userGroupKey: '',
      title: 't',
      body: 'b',
      emoji: '',
      priority: 2,
      sound: 'siren',
    });
    expect(res.status).toBe(200);
    const detail = await t.api('GET', `/api/notifications/${res.json.id}`);
    expect(detail.json.emoji).toBeNull();
  });

  it('stores a push to a user without devices: it is in the history, with no deliveries', async () => {
    const res = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'Hi', body: 'No devices yet' });
    expect(res.status).toBe(200);
    const history = await t.api('GET', `/api/notifications?userId=${keys.userId}`);
    expect(history.json.items.map((n: { id: string }) => n.id)).toEqual([res.json.id]);
    expect(history.json.items[0].summary.total).toBe(0);
    expect(countRows('deliveries')).toBe(0);
  });

  it('sends to the union of userKey and userGroupKey: a user in both gets one delivery per device', async () => {
    const bob = await t.api('POST', '/api/users', { name: 'Bob', username: 'bob', password: 'bob-password' });
    const alicePhone = addDevice(t, keys.userId, 'apns');
    const aliceBrowser = addDevice(t, keys.userId, 'webpush');
    const bobPhone = addDevice(t, bob.json.id, 'fcm');
    const group = await t.api('POST', '/api/groups', { name: 'Family', userIds: [keys.userId, bob.json.id] });

    const res = await t.push({
      apiKey: keys.apiKey,
      userKey: keys.userKey,
      userGroupKey: group.json.groupKey,
      title: 'Dinner',
      body: 'Ready in 5',
    });
    expect(res.status).toBe(200);
    const detail = await t.api('GET', `/api/notifications/${res.json.id}`);
    expect(detail.json.recipients).toBe(2);
    expect(detail.json.target.label).toBe('Alice + Family');
    const deviceIds = detail.json.deliveries.map((d: { deviceId: string }) => d.deviceId).sort();
    expect(deviceIds).toEqual([alicePhone.id, aliceBrowser.id, bobPhone.id].sort());
  });

  it('fans a group push out to every member device, skipping deactivated devices', async () => {
    const phone = addDevice(t, keys.userId, 'apns');
    const old = addDevice(t, keys.userId, 'fcm');
    t.hub.store.db.prepare('UPDATE devices SET deactivated_at = 1 WHERE id = ?').run(old.id);
    const group = await t.api('POST', '/api/groups', { name: 'Solo', userIds: [keys.userId] });
    const res = await t.push({ apiKey: keys.apiKey, userGroupKey: group.json.groupKey, title: 'x', body: 'y' });
    expect(res.status).toBe(200);
    const detail = await t.api('GET', `/api/notifications/${res.json.id}`);
    expect(detail.json.deliveries.map((d: { deviceId: string }) => d.deviceId)).toEqual([phone.id]);
  });

  it('records when the app last sent', async () => {
    expect((await t.api('GET', '/api/apps')).json[0].lastUsedAt).toBeNull();
    await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' });
    expect((await t.api('GET', '/api/apps')).json[0].lastUsedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});

describe('authentication: 401 with an empty body, before anything else', () => {
  const expectEmpty401 = async (res: Response) => {
    expect(res.status).toBe(401);
    expect(await res.text()).toBe('');
    expect(res.headers.get('content-length')).toBe('0');
  };
  const post = (body: unknown) =>
    fetch(`${t.url}/v1/push`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('refuses a request without apiKey, even when everything else is wrong too', async () => {
    await expectEmpty401(await post({ userKey: keys.userKey, title: 'x', body: 'y' }));
    await expectEmpty401(await post({}));
    await expectEmpty401(await post({ userKey: 'uk_unknown' }));
  });

  it('refuses an unknown, malformed or non-string apiKey', async () => {
    await expectEmpty401(await post({ apiKey: 'pk_' + 'A'.repeat(32), userKey: keys.userKey, title: 'x', body: 'y' }));
    await expectEmpty401(await post({ apiKey: 'nonsense', userKey: keys.userKey, title: 'x', body: 'y' }));
    await expectEmpty401(await post({ apiKey: 42, userKey: keys.userKey, title: 'x', body: 'y' }));
    await expectEmpty401(await post({ apiKey: '', title: '' }));
    await expectEmpty401(await fetch(`${t.url}/v1/push`, { method: 'POST', body: new URLSearchParams({ title: 'x' }) }));
  });

  it('refuses the old key right after rotation and accepts the new one', async () => {
    const rotated = await t.api('POST', `/api/apps/${keys.appId}/rotate-key`);
    expect(rotated.status).toBe(200);
    expect(rotated.json.apiKey).not.toBe(keys.apiKey);
    await expectEmpty401(await post({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' }));
    const ok = await post({ apiKey: rotated.json.apiKey, userKey: keys.userKey, title: 'x', body: 'y' });
    expect(ok.status).toBe(200);
  });

  it('refuses the key of a deleted (revoked) app', async () => {
    expect((await t.api('DELETE', `/api/apps/${keys.appId}`)).status).toBe(204);
    await expectEmpty401(await post({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'x', body: 'y' }));
  });
});

describe('validation: 400 with {"error":{"code","message","field"}} and nothing stored', () => {
  const bad = async (fields: Record<string, unknown>, code: string, field?: string) => {
    const res = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'ok', body: 'ok', ...fields });
    expect(res.status, JSON.stringify(fields).slice(0, 80)).toBe(400);
    expect(res.json.error.code).toBe(code);
    expect(typeof res.json.error.message).toBe('string');
    if (field) expect(res.json.error.field).toBe(field);
    return res;
  };

  afterEach(() => {
    expect(countRows('notifications')).toBe(0);
  });

  it('requires title and body', async () => {
    await bad({ title: undefined }, 'missing_field', 'title');
    await bad({ body: undefined }, 'missing_field', 'body');
    await bad({ title: '' }, 'missing_field', 'title');
    await bad({ body: '   ' }, 'missing_field', 'body');
  });

  it('requires userKey or userGroupKey', async () => {
    await bad({ userKey: undefined }, 'missing_field', 'userKey');
    await bad({ userKey: '', userGroupKey: '' }, 'missing_field', 'userKey');
  });

  it('rejects fields of the wrong type', async () => {
    await bad({ title: 5 }, 'invalid_field', 'title');
    await bad({ body: { text: 'x' } }, 'invalid_field', 'body');
    await bad({ userKey: ['uk_a'] }, 'invalid_field', 'userKey');
    await bad({ url: true }, 'invalid_field', 'url');
  });

  it('rejects an unknown User Key or User Group Key', async () => {
    await bad({ userKey: 'uk_' + 'x'.repeat(30) }, 'unknown_user_key', 'userKey');
    await bad({ userKey: undefined, userGroupKey: 'gk_' + 'x'.repeat(30) }, 'unknown_user_group_key', 'userGroupKey');
    // A valid user does not excuse an unknown group: the push is all or nothing.
    await bad({ userGroupKey: 'gk_nope' }, 'unknown_user_group_key', 'userGroupKey');
  });

  it('limits the title to 250 characters', async () => {
    const ok = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: '🔔'.repeat(250), body: 'b' });
    expect(ok.status).toBe(200);
    t.hub.store.db.exec('DELETE FROM notifications');
    await bad({ title: 'a'.repeat(251) }, 'too_long', 'title');
  });

  it('limits the body to 4096 bytes of UTF-8', async () => {
    const ok = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 't', body: 'é'.repeat(2048) });
    expect(ok.status).toBe(200);
    t.hub.store.db.exec('DELETE FROM notifications');
    await bad({ body: 'é'.repeat(2048) + 'a' }, 'too_long', 'body');
  });

  it('accepts exactly one emoji grapheme', async () => {
    for (const emoji of ['🔥', '👨‍👩‍👧', '🇩🇪', '⚠️', '⚠', '1️⃣', '👍🏽']) {
      const res = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 't', body: 'b', emoji });
      expect(res.status, emoji).toBe(200);
    }
    t.hub.store.db.exec('DELETE FROM notifications');
    await bad({ emoji: '🔥🔥' }, 'invalid_field', 'emoji');
    await bad({ emoji: 'a' }, 'invalid_field', 'emoji');
    await bad({ emoji: '1' }, 'invalid_field', 'emoji');
    await bad({ emoji: ':fire:' }, 'invalid_field', 'emoji');
  });

  it('accepts absolute http(s) image and url up to 2048 characters', async () => {
    const edge = 'https://example.org/' + 'a'.repeat(2048 - 'https://example.org/'.length);
    expect(edge).toHaveLength(2048);
    const ok = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 't', body: 'b', image: edge, url: edge });
    expect(ok.status).toBe(200);
    t.hub.store.db.exec('DELETE FROM notifications');
    await bad({ url: edge + 'a' }, 'too_long', 'url');
    await bad({ image: edge + 'a' }, 'too_long', 'image');
    await bad({ url: 'ftp://example.org/x' }, 'invalid_field', 'url');
    await bad({ url: '/relative/path' }, 'invalid_field', 'url');
    await bad({ image: 'javascript:alert(1)' }, 'invalid_field', 'image');
  });
});

describe('transport errors', () => {
  it('answers 400 malformed_json to a broken JSON body', async () => {
    const res = await t.push('{"apiKey": "pk_');
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('malformed_json');
  });

  it('answers 413 to a body over 16 KiB, and accepts one just under', async () => {
    const filler = (n: number) => ({ apiKey: keys.apiKey, userKey: keys.userKey, title: 't', body: 'b', pad: 'x'.repeat(n) });
    const size = (n: number) => Buffer.byteLength(JSON.stringify(filler(n)));
    const under = 16 * 1024 - size(0);
    expect(size(under)).toBe(16 * 1024);
    expect((await t.push(filler(under))).status).toBe(200);
    const over = await t.push(filler(under + 1));
    expect(over.status).toBe(413);
    expect(over.json.error.code).toBe('payload_too_large');
    expect(countRows('notifications')).toBe(1);
  });

  it('answers 415 to other content types', async () => {
    for (const type of ['text/plain', 'multipart/form-data; boundary=x', 'application/xml']) {
      const res = await fetch(`${t.url}/v1/push`, { method: 'POST', headers: { 'content-type': type }, body: 'apiKey=x' });
      expect(res.status, type).toBe(415);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type');
    }
  });

  it('answers 404 JSON to other methods and paths under /v1', async () => {
    const res = await fetch(`${t.url}/v1/pushes`, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});
