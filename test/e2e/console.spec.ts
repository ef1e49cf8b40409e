import crypto from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { openSse } from '../helpers/sse.js';
import { runCurlSnippet, shot, signIn, startE2eHub, watchForErrors, type E2eHub } from './hub.js';

// The definition of done of issue "Admin UI": create an app (key shown once, copied), a user
// and a group in the console, send a push with a real HTTP request (as curl would), inspect its
// deliveries in Notifications; send a test from the console; rotate the key (the old one gets
// 401); settings and overview. One hub and one signed-in page for the whole story.

test.describe.configure({ mode: 'serial' });

let e2e: E2eHub;
let page: Page;
let problems: string[];
const state: { apiKey?: string; userKey?: string; stream?: Awaited<ReturnType<typeof openSse>> } = {};

test.beforeAll(async ({ browser }) => {
  // Room in the app's rate limit for the paging test's burst of pushes.
  e2e = await startE2eHub({
    config: {
      rateLimit: { perApp: { burst: 500, refill: 100, intervalMs: 1000 }, authFailures: { burst: 30, refill: 1, intervalMs: 60_000 } },
    },
  });
  const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  page = await context.newPage();
  problems = watchForErrors(page);
  await signIn(page, e2e.url);
});

test.afterAll(async () => {
  await state.stream?.close();
  await page.context().close();
  await e2e.close();
});

/** The signed-in page's session cookie, to check the hub's state over HTTP. */
async function sessionCookie() {
  const c = (await page.context().cookies()).find((x) => x.name === 'pushhub_session');
  return `pushhub_session=${c?.value ?? ''}`;
}

/** Follows a link of the main navigation. */
const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

/** POST /v1/push as a script would: a plain HTTP request, no browser involved. */
async function curlPush(body: Record<string, string>) {
  const res = await fetch(`${e2e.url}/v1/push`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

test('Create app shows the API key once, with a copy button and ready-made examples', async () => {
  await nav('Apps');
  await expect(page.getByRole('heading', { name: 'No apps yet' })).toBeVisible();
  await shot(page, '10-apps-empty');

  await page.getByRole('button', { name: 'Create app' }).first().click();
  const create = page.getByRole('dialog', { name: 'Create app' });
  await create.getByLabel('Name', { exact: true }).fill('Home Assistant');
  await create.getByRole('button', { name: 'Create app' }).click();

  const keyDialog = page.getByRole('dialog', { name: 'Home Assistant is ready' });
  await expect(keyDialog).toBeVisible();
  await expect(keyDialog).toContainText('you will not see it again');
  const shown = await keyDialog.getByRole('textbox', { name: 'API key' }).inputValue();
  expect(shown).toMatch(/^pk_[0-9A-Za-z]{32}$/);
  await keyDialog.getByRole('button', { name: 'Copy API key' }).click();
  await expect(keyDialog.getByRole('button', { name: 'Copied', exact: true })).toBeVisible();
  state.apiKey = String(await page.evaluate('navigator.clipboard.readText()'));
  expect(state.apiKey).toBe(shown);
  // The curl example carries the key and the hub's address.
  await expect(keyDialog.getByLabel('curl command', { exact: true })).toContainText(`curl -s ${e2e.url}/v1/push`);
  await expect(keyDialog.getByLabel('curl command', { exact: true })).toContainText(shown);
  await shot(page, '11-app-key-shown-once');

  // Escape does not dismiss a key that must be acknowledged.
  await page.keyboard.press('Escape');
  await expect(keyDialog).toBeVisible();
  await keyDialog.getByRole('button', { name: 'I have copied the key' }).click();
  await expect(keyDialog).toBeHidden();

  const row = page.getByRole('row', { name: /Home Assistant/ });
  await expect(row).toContainText(`${shown.slice(0, 7)}`);
  await expect(row).toContainText('Never');
  // Nothing secret in browser storage.
  expect(await page.evaluate('JSON.stringify({ ...localStorage, ...sessionStorage })')).not.toContain('pk_');
});

test('create users and a User Group with the searchable member picker', async () => {
  for (const [name, username] of [
    ['Alice', 'alice'],
    ['Bob', 'bob'],
  ]) {
    await nav('Users');
    await page.getByRole('button', { name: 'Create user' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Create user' });
    await dialog.getByLabel('Name', { exact: true }).fill(name!);
    await dialog.getByLabel('Username').fill(username!);
    await dialog.getByLabel('Password').fill(`${username}-password`);
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await expect(page.getByRole('heading', { name: name!, level: 1 })).toBeVisible();
  }
  // Bob's page; go to Alice's.
  await nav('Users');
  await expect(page.getByRole('row')).toHaveCount(3);
  await shot(page, '12-users');
  await page.getByRole('link', { name: 'Alice' }).click();
  state.userKey = await page.getByRole('textbox', { name: 'User Key' }).inputValue();
  expect(state.userKey).toMatch(/^uk_/);
  await expect(page.locator('[data-slot="add-device"]')).toBeVisible();
  await expect(page.getByLabel('curl command', { exact: true })).toContainText(state.userKey);

  await nav('User Groups');
  await page.getByRole('button', { name: 'Create group' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Create User Group' });
  await dialog.getByLabel('Name', { exact: true }).fill('Family');
  await dialog.getByLabel('Search users').fill('ali');
  await expect(dialog.getByRole('checkbox')).toHaveCount(1);
  await dialog.getByRole('checkbox', { name: /Alice/ }).check();
  await expect(dialog.getByText('1 selected')).toBeVisible();
  await dialog.getByRole('button', { name: 'Create group' }).click();
  await expect(page.getByRole('heading', { name: 'Family', level: 1 })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Members' }).getByRole('listitem')).toHaveCount(1);

  await page.getByRole('button', { name: 'Add members' }).click();
  const add = page.getByRole('dialog', { name: 'Add members to Family' });
  await expect(add.getByRole('checkbox')).toHaveCount(1); // Alice is already a member
  await add.getByRole('checkbox', { name: /Bob/ }).check();
  await add.getByRole('button', { name: 'Add member' }).click();
  await expect(page.getByRole('list', { name: 'Members' }).getByRole('listitem')).toHaveCount(2);
  await expect(page.getByRole('textbox', { name: 'User Group Key' })).toHaveValue(/^gk_/);
  await shot(page, '13-group');
});

test('a push sent with curl shows in Notifications with its delivery rows', async () => {
  // Alice signs in on two devices through the receiver API: an iPhone (APNs is not configured
  // on this hub, so its delivery fails) and a desktop with an open live stream (delivered).
  const login = await fetch(`${e2e.url}/api/receiver/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'alice', password: 'alice-password' }),
  });
  const { token } = (await login.json()) as { token: string };
  const register = async (device: Record<string, string>) => {
    const res = await fetch(`${e2e.url}/api/receiver/devices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(device),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  await register({ name: 'Alice’s iPhone', platform: 'ios', channel: 'apns', token: 'ab'.repeat(32) });
  const desktop = await register({ name: 'Alice’s desktop', platform: 'desktop', channel: 'stream', token: 'desktop-client-1' });
  state.stream = await openSse(`${e2e.url}/api/receiver/stream?deviceId=${desktop}`, { authorization: `Bearer ${token}` });

  const sent = await curlPush({ apiKey: state.apiKey!, userKey: state.userKey!, title: 'Front door', body: 'The front door opened', emoji: '🚪', url: 'http://homeassistant.local:8123/' });
  expect(sent.status).toBe(200);
  const { id } = JSON.parse(sent.text) as { id: string };

  await nav('Notifications');
  const row = page.getByRole('row', { name: /🚪 Front door/ });
  await expect(row).toContainText('Home Assistant');
  await expect(row).toContainText('Alice');
  await expect(row).toContainText('1/2 delivered, 1 failed', { timeout: 15_000 });
  await shot(page, '14-notifications');

  await row.getByRole('link', { name: '🚪 Front door' }).click();
  await expect(page).toHaveURL(new RegExp(`/notifications/${id}$`));
  const detail = page.getByRole('complementary', { name: 'Notification details' });
  await expect(detail.getByRole('heading', { name: 'Front door' })).toBeVisible();
  await expect(detail).toContainText('The front door opened');
  await expect(detail.getByRole('link', { name: /homeassistant\.local/ })).toHaveAttribute('href', 'http://homeassistant.local:8123/');
  const deliveries = detail.getByRole('list', { name: 'Deliveries' }).getByRole('listitem');
  const iphone = deliveries.filter({ hasText: 'Alice’s iPhone' });
  await expect(iphone).toContainText('APNs');
  await expect(iphone).toContainText('Failed');
  await expect(iphone).toContainText('Last error: channel_not_configured');
  await expect(deliveries.filter({ hasText: 'Alice’s desktop' })).toContainText('Live stream');
  await expect(deliveries.filter({ hasText: 'Alice’s desktop' })).toContainText('Delivered');
  await shot(page, '15-notification-detail');

  // The app's "last used" changed; the user's devices show up on the user page.
  await nav('Users');
  await page.getByRole('link', { name: 'Alice' }).click();
  const devices = page.getByRole('region', { name: 'Devices' });
  await expect(devices.getByRole('row', { name: /Alice’s desktop/ })).toContainText('Active');
  await expect(devices.getByRole('row', { name: /Alice’s iPhone/ })).toContainText('iOS');
  await shot(page, '16-user-detail');
});

test('filters and search narrow the list', async () => {
  for (let i = 1; i <= 3; i++) {
    expect((await curlPush({ apiKey: state.apiKey!, userKey: state.userKey!, title: `Washing machine ${i}`, body: 'Laundry is done' })).status).toBe(200);
  }
  await nav('Notifications');
  await page.getByRole('button', { name: 'Refresh' }).click();
  const table = page.getByRole('table', { name: 'Notifications' });
  await expect(table.getByRole('row')).toHaveCount(5);
  await page.getByLabel('Search titles').fill('washing');
  await expect(table.getByRole('row')).toHaveCount(4);
  await expect(page).toHaveURL(/q=washing/);
  await page.getByLabel('Search titles').fill('nothing like this');
  await expect(page.getByRole('heading', { name: 'Nothing matches these filters' })).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByLabel('Status', { exact: true }).selectOption({ label: 'With failures' });
  await expect(table.getByRole('row')).toHaveCount(5, { timeout: 15_000 });
  await page.getByLabel('User', { exact: true }).selectOption({ label: 'Bob' });
  await expect(page.getByRole('heading', { name: 'Nothing matches these filters' })).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).click();
});

test('older notifications load as the list scrolls (pages of 50)', async () => {
  for (let i = 1; i <= 55; i++) {
    expect((await curlPush({ apiKey: state.apiKey!, userKey: state.userKey!, title: `Sensor reading ${i}`, body: `${20 + (i % 5)} °C` })).status).toBe(200);
  }
  await nav('Notifications');
  await page.getByRole('button', { name: 'Refresh' }).click();
  const rows = page.getByRole('table', { name: 'Notifications' }).getByRole('row');
  await expect(rows).toHaveCount(51); // header + the first page
  await page.locator('.list-footer').first().scrollIntoViewIfNeeded();
  await expect(rows).toHaveCount(1 + 55 + 4);
  await expect(page.getByText('That is all of them.')).toBeVisible();
  await expect(page.getByRole('link', { name: '🚪 Front door' })).toBeVisible();
});

test('Send test runs the push pipeline for the app and follows the deliveries', async () => {
  await nav('Send test');
  await page.getByLabel('From app').selectOption({ label: 'Home Assistant' });
  await page.getByLabel('To', { exact: true }).selectOption({ label: 'Family (group)' });
  await page.getByLabel(/Emoji/).fill('🧺');
  await page.getByLabel('Title', { exact: true }).fill('Dryer finished');
  await page.getByLabel('Body', { exact: true }).fill('Time to fold the laundry.');
  await page.getByLabel(/Link/).fill('https://example.com/laundry');
  await page.getByRole('button', { name: 'Send notification' }).click();
  await expect(page.getByText(/Accepted: .*2 deliveries queued/)).toBeVisible();
  const deliveries = page.getByRole('list', { name: 'Deliveries' }).getByRole('listitem');
  await expect(deliveries.filter({ hasText: 'Alice’s desktop' })).toContainText('Delivered');
  await expect(deliveries.filter({ hasText: 'Alice’s iPhone' })).toContainText('Failed');
  await shot(page, '17-send-test');

  // A field error is shown at the field.
  await page.getByLabel(/Emoji/).fill('not an emoji');
  await page.getByRole('button', { name: 'Send notification' }).click();
  await expect(page.getByRole('alert')).toContainText('emoji');
  await expect(page.getByLabel(/Emoji/)).toHaveAttribute('aria-invalid', 'true');
});

test('the overview counts apps, users and devices and charts notifications per day', async () => {
  await nav('Overview');
  await expect(page.getByRole('link', { name: /Apps\s*1/ })).toBeVisible();
  await expect(page.getByRole('link', { name: /Users\s*2/ })).toBeVisible();
  await expect(page.getByText('Active devices')).toBeVisible();
  await expect(page.locator('.recharts-bar-rectangle').first()).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Get started' })).toHaveCount(0);
  await shot(page, '18-overview');
});

test('settings: the hub address, push credentials and limits', async () => {
  await nav('Settings');
  await expect(page.getByRole('textbox', { name: 'Hub address' })).toHaveValue(e2e.url);
  await expect(page.getByRole('textbox', { name: 'VAPID public key' })).toHaveValue(/^B[A-Za-z0-9_-]{80,}$/);
  await page.getByLabel('Contact (subject)').fill('mailto:ops@example.com');
  await page.getByRole('region', { name: 'Web Push' }).getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('region', { name: 'Web Push' }).getByText('Saved')).toBeVisible();

  const apns = page.getByRole('region', { name: 'Apple Push Notification service' });
  await apns.getByLabel('Key ID').fill('ABC123DEFG');
  await apns.getByLabel('Team ID').fill('DEF123GHIJ');
  await apns.getByLabel(/Topic/).fill('com.example.pushhub');
  await apns.getByLabel('Signing key (.p8)').setInputFiles({ name: 'AuthKey.p8', mimeType: 'text/plain', buffer: Buffer.from('not a key') });
  await apns.getByRole('button', { name: 'Save' }).click();
  await expect(apns.getByRole('alert')).toContainText('privateKey');
  await expect(page.getByText('kept until deleted')).toBeVisible();
  await shot(page, '19-settings');

  // A real .p8 key is stored; then the operator removes the credentials again.
  const p8 = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' });
  await apns.getByLabel('Signing key (.p8)').setInputFiles({ name: 'AuthKey_ABC123DEFG.p8', mimeType: 'text/plain', buffer: Buffer.from(p8) });
  await apns.getByRole('button', { name: 'Save' }).click();
  await expect(apns.getByText('Saved')).toBeVisible();
  await expect(apns.getByText('Configured', { exact: true })).toBeVisible();
  await apns.getByRole('button', { name: 'Remove' }).click();
  const confirm = page.getByRole('dialog', { name: 'Remove the APNs credentials?' });
  await confirm.getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByText('APNs credentials removed')).toBeVisible();
  await expect(apns.getByText('Not configured')).toBeVisible();
  const stored = (await (await fetch(`${e2e.url}/api/settings/apns`, { headers: { cookie: await sessionCookie() } })).json()) as { configured: boolean };
  expect(stored.configured).toBe(false);
});

test('an app’s page shows its key prefix, examples and recent notifications; unknown ids say so', async () => {
  await nav('Apps');
  await page.getByRole('link', { name: 'Home Assistant' }).click();
  await expect(page.getByRole('heading', { name: 'Home Assistant', level: 1 })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Recent notifications' }).getByRole('listitem')).toHaveCount(5);
  await expect(page.getByLabel('Send to')).toHaveValue(/^user:/);
  await shot(page, '22-app-detail');

  await page.goto(`${e2e.url}/users/no-such-user`);
  await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();
  await expect(page.getByRole('alert')).toContainText('no user has the id');
  await shot(page, '23-user-not-found');
  await page.goto(`${e2e.url}/notifications/01ZZZZZZZZZZZZZZZZZZZZZZZZ`);
  await expect(page.getByRole('complementary', { name: 'Notification details' }).getByRole('heading', { name: 'Not found' })).toBeVisible();
});

test('rotating the key shows the new one once; the old key gets 401', async () => {
  await nav('Apps');
  await page.getByRole('button', { name: 'Rotate key of Home Assistant' }).click();
  const confirm = page.getByRole('dialog', { name: 'Rotate the key of Home Assistant?' });
  await expect(confirm).toContainText('401');
  await confirm.getByRole('button', { name: 'Rotate key', exact: true }).click();
  const keyDialog = page.getByRole('dialog', { name: 'New key for Home Assistant' });
  const newKey = await keyDialog.getByRole('textbox', { name: 'API key' }).inputValue();
  expect(newKey).toMatch(/^pk_/);
  expect(newKey).not.toBe(state.apiKey);
  await keyDialog.getByRole('button', { name: 'I have copied the key' }).click();

  // The curl command the user page offers, run by a shell: the old key gets 401 (curl prints
  // nothing), the new one 200 with the notification id.
  await nav('Users');
  await page.getByRole('link', { name: 'Alice' }).click();
  await page.getByRole('button', { name: 'Copy curl command' }).click();
  const snippet = String(await page.evaluate('navigator.clipboard.readText()'));
  expect(snippet).toContain(`${e2e.url}/v1/push`);
  expect(snippet).toContain(state.userKey!);
  expect(await runCurlSnippet(snippet.replace('pk_YOUR_API_KEY', state.apiKey!))).toBe('');
  expect(JSON.parse(await runCurlSnippet(snippet.replace('pk_YOUR_API_KEY', newKey)))).toEqual({ id: expect.any(String) });
  const old = await curlPush({ apiKey: state.apiKey!, userKey: state.userKey!, title: 'Old key', body: 'refused' });
  expect(old).toEqual({ status: 401, text: '' });

  // Delete it: its key stops working too, the list is empty again.
  await nav('Apps');
  await page.getByRole('button', { name: 'Delete Home Assistant' }).click();
  await page.getByRole('dialog', { name: 'Delete Home Assistant?' }).getByRole('button', { name: 'Delete app' }).click();
  await expect(page.getByRole('heading', { name: 'No apps yet' })).toBeVisible();
  expect((await curlPush({ apiKey: newKey, userKey: state.userKey!, title: 'x', body: 'y' })).status).toBe(401);
});

test('narrow screens and dark mode keep the console usable', async () => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await nav('Overview');
  await expect(page.locator('.recharts-bar-rectangle').first()).toBeVisible();
  await shot(page, '20-overview-dark');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: 'light' });
  await nav('Notifications');
  await page.getByRole('link', { name: '🧺 Dryer finished' }).click();
  await expect(page.getByRole('complementary', { name: 'Notification details' })).toBeVisible();
  await shot(page, '21-notification-narrow');
  await page.setViewportSize({ width: 1360, height: 860 });
});

test('no script errors or CSP violations on any page', async () => {
  expect(problems).toEqual([]);
});
