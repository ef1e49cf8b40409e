import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { databasePath } from '../../server/store/db.js';
import { pushhub, killChildren } from '../helpers/cli.js';
import { ADMIN_PASSWORD, tempDataDir } from '../helpers/hub.js';

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
