import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { databasePath } from '../../server/store/db.js';
import { pushhub, killChildren } from '../helpers/cli.js';
import { ADMIN_PASSWORD, seed, startTestHub, tempDataDir } from '../helpers/hub.js';
import { waitFor } from '../helpers/wait.js';

// The `pushhub` command as a user runs it: a real process, real signals, real HTTP.

async function adminToken(url: string) {
  const res = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  return ((await res.json()) as { token: string }).token;
}

afterEach(killChildren);

describe('pushhub serve and pushhub send', () => {
  it('serves, sends a push from the command line, and closes cleanly on SIGTERM', async () => {
    const dataDir = tempDataDir();
    const serve = pushhub(['serve', '--port', '0', '--data-dir', dataDir], { PUSHHUB_ADMIN_PASSWORD: ADMIN_PASSWORD });
    const [, url] = await serve.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect(serve.out()).not.toContain('setup URL');

    const token = await adminToken(url!);
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const app = (await (await fetch(`${url}/api/apps`, { method: 'POST', headers: auth, body: '{"name":"cli"}' })).json()) as { apiKey: string };
    const user = (await (
      await fetch(`${url}/api/users`, { method: 'POST', headers: auth, body: '{"name":"Cli","username":"cli","password":"cli password"}' })
    ).json()) as { userKey: string };

    const send = pushhub(['send', '--server', url!, '--api-key', app.apiKey, '--user-key', user.userKey, '--title', 'From CLI', '--body', 'hello', '--emoji', '💻']);
    expect(await send.exited).toBe(0);
    const id = send.out().trim();
    expect(id).toMatch(/^[0-9A-Z]{26}$/);
    const detail = (await (await fetch(`${url}/api/notifications/${id}`, { headers: auth })).json()) as { title: string; emoji: string };
    expect(detail).toMatchObject({ title: 'From CLI', emoji: '💻' });

    const denied = pushhub(['send', '--server', url!, '--api-key', 'pk_wrong', '--user-key', user.userKey, '--title', 't', '--body', 'b']);
    expect(await denied.exited).toBe(1);
    expect(denied.err()).toContain('401');

    const invalid = pushhub(['send', '--server', url!, '--api-key', app.apiKey, '--user-key', user.userKey, '--title', 't', '--body', 'b', '--url', 'not a url']);
    expect(await invalid.exited).toBe(1);
    expect(invalid.err()).toMatch(/400 invalid_field.*field url/);

    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    // Closed cleanly (exit 0, database closed): everything sent is in the file.
    const db = new Database(databasePath(dataDir), { readonly: true });
    expect(db.prepare('SELECT title FROM notifications').pluck().all()).toEqual(['From CLI']);
    db.close();
  });

  it('prints a one-time setup URL when there is no admin account', async () => {
    const serve = pushhub(['serve', '--port', '0', '--data-dir', tempDataDir()]);
    const [, setupUrl] = await serve.waitFor(/setup URL to create it: (\S+)/);
    const page = await fetch(setupUrl!);
    expect(page.status).toBe(200);
    serve.child.kill('SIGINT');
    expect(await serve.exited).toBe(0);
  });

  it('refuses a non-loopback address before an admin account exists', async () => {
    const serve = pushhub(['serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', tempDataDir()]);
    expect(await serve.exited).toBe(1);
    expect(serve.err()).toMatch(/refusing to listen on 0\.0\.0\.0.*PUSHHUB_ADMIN_PASSWORD/);
  });

  it('reports a bad setting and exits non-zero', async () => {
    const serve = pushhub(['serve', '--port', 'eighty', '--data-dir', tempDataDir()]);
    expect(await serve.exited).toBe(1);
    expect(serve.err()).toContain('port must be an integer');
  });

  it('send without a target says what is missing', async () => {
    const send = pushhub(['send', '--server', 'http://127.0.0.1:9', '--api-key', 'k', '--title', 't', '--body', 'b']);
    expect(await send.exited).toBe(1);
    expect(send.err()).toContain('--user-key or --group-key');
  });
});

describe('pushhub listen', () => {
  it('prints each notification as a JSON line, and after a restart what it missed, as one device', async () => {
    const t = await startTestHub();
    try {
      const keys = await seed(t, { user: 'dave' });
      const listen = () => pushhub(['listen', '--server', t.url, '--username', 'dave', '--password', 'receiver-pass']);
      const devices = async () => (await t.api('GET', `/api/users/${keys.userId}/devices`)).json as Array<{ channel: string }>;

      const first = listen();
      await waitFor(async () => (await devices()).length === 1, 10_000, 'the stream device');
      await waitFor(() => first.err().includes('connected'), 10_000, 'the stream');
      const live = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'Live', body: 'now', emoji: '📡' });
      const [line] = await first.waitFor(/^\{.*"Live".*\}$/m, 5000);
      expect(JSON.parse(line)).toMatchObject({ id: live.json.id, title: 'Live', body: 'now', emoji: '📡' });
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);

      const missed = await t.push({ apiKey: keys.apiKey, userKey: keys.userKey, title: 'Missed', body: 'while away' });
      const second = listen();
      const [again] = await second.waitFor(/^\{.*"Missed".*\}$/m, 10_000);
      expect(JSON.parse(again).id).toBe(missed.json.id);
      expect(await devices()).toEqual([expect.objectContaining({ channel: 'stream', platform: 'desktop' })]);
      second.child.kill('SIGTERM');
      await second.exited;
    } finally {
      await t.close();
    }
  });

  it('says so when the credentials are wrong', async () => {
    const t = await startTestHub();
    try {
      const run = pushhub(['listen', '--server', t.url, '--username', 'nobody', '--password', 'x']);
      expect(await run.exited).toBe(1);
      expect(run.err()).toContain('wrong username or password');
    } finally {
      await t.close();
    }
  });
});
