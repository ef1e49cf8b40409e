import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startHub } from '../../server/index.js';
import { databasePath, openDatabase } from '../../server/store/db.js';
import { DatabaseTooNewError, loadMigrations, migrate } from '../../server/store/migrate.js';
import { addDevice, seed, startTestHub, tempDataDir, testConfig, type TestHub } from '../helpers/hub.js';

let t: TestHub | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('the database survives a restart', () => {
  it('keeps apps, keys, users, groups, notifications and the outbox', async () => {
    t = await startTestHub();
    const keys = await seed(t);
    addDevice(t, keys.userId, 'apns');
    const group = await t.api('POST', '/api/groups', { name: 'Family', userIds: [keys.userId] });
    const sent = await t.push({ apiKey: keys.apiKey, userGroupKey: group.json.groupKey, title: 'Before', body: 'restart' });
    expect(sent.status).toBe(200);
    const dataDir = t.dataDir;
    await t.close();

    t = await startTestHub({ dataDir });
    const detail = await t.api('GET', `/api/notifications/${sent.json.id}`);
    expect(detail.status).toBe(200);
    expect(detail.json).toMatchObject({ title: 'Before', body: 'restart', summary: { total: 1 } });
    expect((await t.api('GET', '/api/groups')).json[0]).toMatchObject({ groupKey: group.json.groupKey, userIds: [keys.userId] });
    expect((await t.api('GET', '/api/users')).json[0].userKey).toBe(keys.userKey);
    // The API key from before the restart still authenticates.
    const again = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'After', body: 'restart' });
    expect(again.status).toBe(200);
    const integrity = t.hub.store.db.pragma('integrity_check', { simple: true });
    expect(integrity).toBe('ok');
  });

  it('stores API keys only as hashes', async () => {
    t = await startTestHub();
    const keys = await seed(t);
    await t.close();
    const raw = fs.readFileSync(databasePath(t.dataDir));
    const wal = path.join(t.dataDir, 'pushhub.db-wal');
    const all = Buffer.concat([raw, fs.existsSync(wal) ? fs.readFileSync(wal) : Buffer.alloc(0)]);
    expect(all.includes(Buffer.from(keys.apiKey))).toBe(false);
    expect(all.includes(Buffer.from(keys.userKey))).toBe(true);
  });
});

describe('migrations', () => {
  it('builds the whole schema from an empty database, one version per migration', () => {
    const db = new Database(':memory:');
    const version = migrate(db);
    expect(version).toBe(loadMigrations().length);
    expect(db.pragma('user_version', { simple: true })).toBe(version);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(
      expect.arrayContaining(['admins', 'apps', 'deliveries', 'devices', 'group_members', 'groups', 'notification_recipients', 'notifications', 'sessions', 'settings', 'users']),
    );
    // Running again is a no-op.
    expect(migrate(db)).toBe(version);
    db.close();
  });

  it('sets WAL, foreign keys and a busy timeout when opening', () => {
    const dir = tempDataDir();
    const db = openDatabase(dir);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    db.close();
  });

  it('applies pending migrations in order on an older database', () => {
    const db = new Database(':memory:');
    const all = loadMigrations();
    const extra = { version: all.length + 1, name: 'add-test-column', sql: 'ALTER TABLE apps ADD COLUMN note TEXT;' };
    migrate(db, all);
    expect(migrate(db, [...all, extra])).toBe(all.length + 1);
    expect(db.prepare('SELECT note FROM apps').all()).toEqual([]);
    db.close();
  });

  it('rolls back a failing migration as a whole', () => {
    const db = new Database(':memory:');
    const all = loadMigrations();
    migrate(db, all);
    const broken = { version: all.length + 1, name: 'broken', sql: 'CREATE TABLE half (x); SELECT * FROM no_such_table;' };
    expect(() => migrate(db, [...all, broken])).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(all.length);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'half'").pluck().get()).toBe(0);
    db.close();
  });

  it('refuses to open a database written by a newer Pushhub, and leaves it untouched', async () => {
    const dir = tempDataDir();
    const db = new Database(databasePath(dir));
    db.pragma('user_version = 999');
    db.close();
    await expect(startHub(testConfig(dir), { logger: pino({ level: 'silent' }) })).rejects.toBeInstanceOf(DatabaseTooNewError);
    const after = new Database(databasePath(dir));
    expect(after.pragma('user_version', { simple: true })).toBe(999);
    expect(after.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'").pluck().get()).toBe(0);
    after.close();
  });
});
