import fs from 'node:fs';
import path from 'node:path';
import { devices, expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { startFakePushService, type FakePushService } from '../fakes/webpush-fake.js';
import { testCertificate } from '../fakes/tls.js';
import { waitFor } from '../helpers/wait.js';
import { ADMIN_PASSWORD, shot, signIn, startE2eHub, watchForErrors, type E2eHub } from './hub.js';

// The web receiver (issue "Web receiver app"): sign in → "Your User Key" → inbox; a push sent
// with a plain HTTP request shows live; ⋮ → Settings shows the same key and turns Web Push on;
// a second device of the account gets the next push and a group push; the console's pairing
// link signs a new device in once. Phones are Chromium with a Pixel 7's viewport and user agent.
//
// Web Push cannot reach a real browser push service offline, so this browser's PushManager
// hands out a subscription of the fake push service (test/fakes/webpush-fake.ts); the hub then
// really encrypts and sends to it, and the decrypted message is given to the real service worker
// (DevTools' ServiceWorker.deliverPushMessage), which shows the notification.

test.describe.configure({ mode: 'serial' });

const PHONE = devices['Pixel 7'];
const shotsDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'test-results', 'screenshots');

let e2e: E2eHub;
let pushService: FakePushService;
let adminToken: string;
let apiKey: string;
const alice = { id: '', userKey: '', username: 'alice', password: 'alice-password' };
const bob = { id: '', userKey: '', username: 'bob', password: 'bob-password' };
let groupKey: string;
const contexts: BrowserContext[] = [];
const problems: string[] = [];
let phone: Page; // Alice's phone
let second: Page; // Alice's second device
let pairingUrl: string;
let paired: Page; // Bob's phone, signed in with the pairing link

async function admin(method: string, route: string, body?: unknown) {
  const res = await fetch(`${e2e.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as any) : undefined };
}

/** POST /v1/push as a script would: a plain HTTP request, no browser involved. */
async function push(fields: Record<string, string>): Promise<string> {
  const res = await fetch(`${e2e.url}/v1/push`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiKey, ...fields }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { id: string }).id;
}

/** Pictures a camera or an appliance would attach, served for https://camera.example/ by the browser context (CSP allows https images). */
const PICTURES: Record<string, string> = {
  '/front-door.svg': `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="360" viewBox="0 0 640 360">
<defs><linearGradient id="s" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#8fb8de"/><stop offset="1" stop-color="#dbe7f1"/></linearGradient></defs>
<rect width="640" height="360" fill="url(#s)"/><rect y="262" width="640" height="98" fill="#7d8f55"/><rect x="250" y="262" width="140" height="98" fill="#b9b2a5"/>
<rect x="150" y="100" width="340" height="170" fill="#eadfcb"/><polygon points="125,105 320,28 515,105" fill="#9c4f2e"/>
<rect x="285" y="150" width="70" height="120" fill="#6f4328"/><circle cx="343" cy="212" r="4" fill="#f2c14e"/>
<rect x="180" y="135" width="72" height="58" fill="#b7d3ea" stroke="#fff" stroke-width="6"/><rect x="388" y="135" width="72" height="58" fill="#b7d3ea" stroke="#fff" stroke-width="6"/>
<rect width="640" height="30" fill="#000" fill-opacity="0.45"/><text x="12" y="21" font-family="monospace" font-size="16" fill="#fff">FRONT DOOR · CAM 1 · 08:14:03</text></svg>`,
  '/laundry.svg': `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="360" viewBox="0 0 640 360">
<rect width="640" height="360" fill="#e9eef3"/><rect x="220" y="40" width="200" height="280" rx="18" fill="#fff" stroke="#c9d2dc" stroke-width="4"/>
<rect x="220" y="40" width="200" height="54" rx="18" fill="#f4f6f8" stroke="#c9d2dc" stroke-width="4"/><circle cx="255" cy="67" r="10" fill="#4f46e5"/>
<rect x="300" y="60" width="96" height="14" rx="7" fill="#12b76a"/><circle cx="320" cy="205" r="78" fill="#cfe0f0" stroke="#9aa8b6" stroke-width="10"/>
<circle cx="320" cy="205" r="52" fill="#a9c6e2"/><path d="M282 196q38 30 76 0" stroke="#fff" stroke-width="8" fill="none"/></svg>`,
};

/**
 * Replaces PushManager's subscribe/getSubscription in the page with ones that hand out `sub`
 * (made by the fake push service for the hub's VAPID key), and records the key it was asked for.
 */
const FAKE_PUSH_MANAGER = `(sub) => {
  let current = null;
  PushManager.prototype.subscribe = async function (options) {
    const key = new Uint8Array(options.applicationServerKey);
    window.__subscribedWith = btoa(String.fromCharCode(...key)).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
    current = {
      endpoint: sub.endpoint,
      expirationTime: null,
      options: { userVisibleOnly: true, applicationServerKey: key.slice().buffer },
      toJSON: () => sub,
      getKey: () => null,
      unsubscribe: async () => ((current = null), true),
    };
    return current;
  };
  PushManager.prototype.getSubscription = async () => current;
}`;

/** A phone-sized browser context; `stubPush` gives it the fake push service's subscriptions. */
async function newPhone(browser: Browser, stubPush = false): Promise<Page> {
  const context = await browser.newContext({ ...PHONE, locale: 'en-GB', timezoneId: 'Europe/Berlin' });
  contexts.push(context);
  if (stubPush) {
    const vapid = e2e.hub.store.settings.get<{ publicKey: string }>('webpush')!.publicKey;
    const { subscription } = pushService.subscribe(vapid);
    // What a browser's PushManager does, minus the browser vendor's push service. (A string:
    // this script runs in the page, and the tests' TypeScript setup has no DOM types.)
    await context.addInitScript({ content: `(${FAKE_PUSH_MANAGER})(${JSON.stringify(subscription)})` });
  }
  await context.route('https://camera.example/**', (route) =>
    route.fulfill({ contentType: 'image/svg+xml', body: PICTURES[new URL(route.request().url()).pathname] ?? '' }),
  );
  const page = await context.newPage();
  problems.push(...watchForErrors(page));
  return page;
}

/** A phone screenshot: test-results/screenshots/<name>.png, once nothing is loading. */
async function phoneShot(page: Page, name: string) {
  fs.mkdirSync(shotsDir, { recursive: true });
  await expect(page.locator('.loading')).toHaveCount(0);
  // Confirmations fade after a few seconds; the screenshot shows the screen without them.
  const dismiss = page.getByRole('button', { name: 'Dismiss' });
  for (let i = 0; i < 5 && (await dismiss.count()) > 0; i++) await dismiss.first().click({ timeout: 1000 }).catch(() => {});
  await page.evaluate('document.fonts.ready');
  await page.screenshot({ path: path.join(shotsDir, `${name}.png`), fullPage: true, animations: 'disabled' });
}

async function signInReceiver(page: Page, who: { username: string; password: string }) {
  await page.goto(`${e2e.url}/receiver/`);
  await page.getByLabel('Username').fill(who.username);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const note = (page: Page, title: string) => page.getByRole('article', { name: title });

test.beforeAll(async () => {
  pushService = await startFakePushService();
  e2e = await startE2eHub({ config: { extraCaFile: testCertificate().certFile } });
  const login = await fetch(`${e2e.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  adminToken = ((await login.json()) as { token: string }).token;
  apiKey = (await admin('POST', '/api/apps', { name: 'Home Assistant' })).json.apiKey;
  for (const [who, name] of [
    [alice, 'Alice'],
    [bob, 'Bob'],
  ] as const) {
    const created = (await admin('POST', '/api/users', { name, username: who.username, password: who.password })).json;
    who.id = created.id;
    who.userKey = created.userKey;
  }
  groupKey = (await admin('POST', '/api/groups', { name: 'Family', userIds: [alice.id, bob.id] })).json.groupKey;
});

test.afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await e2e?.close();
  await pushService?.close();
});

test('sign in, see the User Key, then the inbox; later visits open straight to the inbox', async ({ browser }) => {
  phone = await newPhone(browser, true);
  await phone.goto(`${e2e.url}/receiver/`);
  await expect(phone.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await phoneShot(phone, 'receiver-01-sign-in');

  await phone.getByLabel('Username').fill('alice');
  await phone.getByLabel('Password').fill('not her password');
  await phone.getByRole('button', { name: 'Sign in' }).click();
  await expect(phone.getByRole('alert')).toHaveText('Wrong username or password.');

  await phone.getByLabel('Password').fill(alice.password);
  await phone.getByRole('button', { name: 'Sign in' }).click();
  await expect(phone.getByRole('heading', { name: 'Your User Key' })).toBeVisible();
  await expect(phone.getByRole('status', { name: 'User Key' })).toHaveText(alice.userKey);
  await expect(phone.getByText('Signed in as Alice')).toBeVisible();
  await phone.getByRole('button', { name: 'Copy User Key' }).click();
  await expect(phone.getByRole('button', { name: /Copied|Select and copy/ })).toBeVisible();
  await phoneShot(phone, 'receiver-02-user-key');

  await phone.getByRole('button', { name: 'Continue to inbox' }).click();
  await expect(phone.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
  await expect(phone.getByRole('heading', { name: 'No notifications yet' })).toBeVisible();
  await expect(phone.getByText(alice.userKey)).toBeVisible();
  await expect(phone.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  await phoneShot(phone, 'receiver-03-inbox-empty');

  // The session is this device's: a reload (a later visit) opens the inbox at once.
  await phone.reload();
  await expect(phone.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
  await expect(phone.getByRole('heading', { name: 'Your User Key' })).toHaveCount(0);
  const stored = JSON.parse(String(await phone.evaluate("localStorage.getItem('pushhub.receiver.session')")));
  expect(stored).toMatchObject({ userKey: alice.userKey, keySeen: true, user: { id: alice.id, name: 'Alice' } });
});

test('a push sent with a plain HTTP request appears in the inbox within a second, with emoji, title, body, image and link', async () => {
  await expect(phone.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  const image = 'https://camera.example/front-door.svg';
  const started = Date.now();
  await push({
    userKey: alice.userKey,
    title: 'Front door',
    body: 'Someone rang the bell.\nThe camera took a picture.',
    emoji: '🚪',
    image,
    url: 'https://homeassistant.example/lovelace/door',
  });
  const item = note(phone, '🚪 Front door');
  await expect(item).toBeVisible({ timeout: 1000 });
  expect(Date.now() - started).toBeLessThan(1000);

  await expect(item.locator('.note-icon')).toHaveText('🚪');
  await expect(item.getByRole('heading', { level: 2 })).toHaveText('🚪 Front door');
  await expect(item).toContainText('Someone rang the bell.');
  await expect(item.locator('time')).toHaveText('just now');
  const img = item.locator('img.note-image');
  await expect(img).toHaveAttribute('src', image);
  await expect(img).toHaveJSProperty('naturalWidth', 640);
  await expect(item.getByRole('link', { name: /homeassistant\.example/ })).toHaveAttribute('href', 'https://homeassistant.example/lovelace/door');

  // Without emoji or extras the bell stands in; newest first.
  await push({ userKey: alice.userKey, title: 'Backup finished', body: 'Nightly backup of the NAS completed in 4 min.' });
  await expect(phone.getByRole('article').first()).toHaveAccessibleName('Backup finished');
  await expect(phone.getByRole('article')).toHaveCount(2);
  await phoneShot(phone, 'receiver-04-inbox');
  await phone.emulateMedia({ colorScheme: 'dark' });
  await phoneShot(phone, 'receiver-04-inbox-dark');
  await phone.emulateMedia({ colorScheme: 'light' });
});

test('⋮ → Settings shows the same User Key, and turns Web Push on for this device', async () => {
  await phone.getByRole('button', { name: 'More' }).click();
  await expect(phone.getByRole('menu', { name: 'More' })).toBeVisible();
  await expect(phone.getByRole('menuitem', { name: 'Settings' })).toBeFocused();
  await phone.screenshot({ path: path.join(shotsDir, 'receiver-05-menu.png'), animations: 'disabled' });
  await phone.keyboard.press('Escape');
  await expect(phone.getByRole('menu')).toHaveCount(0);
  await expect(phone.getByRole('button', { name: 'More' })).toBeFocused();
  await phone.getByRole('button', { name: 'More' }).click();
  await phone.getByRole('menuitem', { name: 'Settings' }).click();
  await expect(phone.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  await expect(phone).toHaveURL(`${e2e.url}/receiver/settings`);
  await expect(phone.getByRole('status', { name: 'User Key' })).toHaveText(alice.userKey);
  await expect(phone.getByRole('textbox', { name: 'Device name' })).toHaveValue('Chrome on Android');
  const pushSection = phone.getByRole('region', { name: 'Notifications on this device' });
  await expect(pushSection).toContainText('Not asked yet');
  await expect(pushSection).toContainText('Off');
  await expect(phone.getByRole('region', { name: 'Your devices' })).toContainText('None of your devices gets push notifications yet');
  await phoneShot(phone, 'receiver-06-settings');

  // Rename this device, then allow notifications and turn push on.
  await phone.getByRole('textbox', { name: 'Device name' }).fill('Alice’s Pixel');
  await phone.getByRole('button', { name: 'Save' }).click();
  await expect(phone.getByText('Device name saved')).toBeVisible();
  await phone.context().grantPermissions(['notifications'], { origin: e2e.url });
  await phone.getByRole('button', { name: 'Enable push notifications' }).click();
  await expect(phone.getByText('Push notifications are on')).toBeVisible();
  await expect(pushSection).toContainText('On');
  await expect(pushSection).toContainText('Allowed');
  const mine = phone.getByRole('list', { name: 'Devices' }).getByRole('listitem');
  await expect(mine).toHaveCount(1);
  await expect(mine).toContainText('Alice’s Pixel');
  await expect(mine).toContainText('This device');
  await expect(mine).toContainText('Web Push');

  // The subscription was made with the hub's VAPID key and registered as a webpush device.
  const vapid = e2e.hub.store.settings.get<{ publicKey: string }>('webpush')!.publicKey;
  expect(await phone.evaluate('window.__subscribedWith')).toBe(vapid);
  const registered = (await admin('GET', `/api/users/${alice.id}/devices`)).json as { name: string; channel: string; platform: string }[];
  expect(registered).toEqual([expect.objectContaining({ name: 'Alice’s Pixel', channel: 'webpush', platform: 'web' })]);
  const device = e2e.hub.store.devices.listForUser(alice.id)[0]!;
  expect((device.subscription as { endpoint: string }).endpoint).toMatch(new RegExp(`^${pushService.origin}/push/`));
  await phoneShot(phone, 'receiver-07-settings-push-on');
});

test('Web Push: the hub encrypts the next push for this device and the service worker shows it with the emoji', async () => {
  const before = pushService.requests.length;
  const id = await push({
    userKey: alice.userKey,
    title: 'Washing machine',
    body: 'Laundry is done.',
    emoji: '🧺',
    image: 'https://camera.example/laundry.svg',
    url: 'https://homeassistant.example/laundry',
  });
  await waitFor(() => pushService.requests.slice(before).some((r) => (r.payload as { id?: string })?.id === id), 10_000, 'the Web Push delivery');
  const delivered = pushService.requests.slice(before).find((r) => (r.payload as { id?: string })?.id === id)!;
  expect(delivered.status).toBe(201);
  expect(delivered.payload).toEqual({
    id,
    title: 'Washing machine',
    body: 'Laundry is done.',
    emoji: '🧺',
    image: 'https://camera.example/laundry.svg',
    url: 'https://homeassistant.example/laundry',
  });

  // Hand the decrypted message to the page's service worker, as the browser would.
  const cdp = await phone.context().newCDPSession(phone);
  const registrations: { registrationId: string; scopeURL: string }[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => registrations.push(...e.registrations));
  await cdp.send('ServiceWorker.enable');
  await waitFor(() => registrations.some((r) => r.scopeURL === `${e2e.url}/receiver/`), 5000, 'the service worker registration');
  const registrationId = registrations.find((r) => r.scopeURL === `${e2e.url}/receiver/`)!.registrationId;
  await cdp.send('ServiceWorker.deliverPushMessage', { origin: e2e.url, registrationId, data: delivered.text! });

  const shown = () =>
    phone.evaluate(`navigator.serviceWorker.getRegistration('/receiver/')
      .then((registration) => registration.getNotifications())
      .then((all) => all.map((n) => ({ title: n.title, body: n.body, tag: n.tag, icon: n.icon.slice(0, 22), image: n.image, data: n.data })))`);
  await expect.poll(shown).toEqual([
    {
      title: '🧺 Washing machine',
      body: 'Laundry is done.',
      tag: id,
      icon: 'data:image/png;base64,',
      image: 'https://camera.example/laundry.svg',
      data: { id, url: 'https://homeassistant.example/laundry' },
    },
  ]);
  await cdp.detach();
  // The same notification arrived live in the inbox as well.
  await phone.getByRole('button', { name: 'Back to inbox' }).click();
  await expect(note(phone, '🧺 Washing machine')).toBeVisible();
});

test('a second device of the account shows the same User Key and receives the next push and a group push too', async ({ browser }) => {
  second = await newPhone(browser);
  await signInReceiver(second, alice);
  await expect(second.getByRole('status', { name: 'User Key' })).toHaveText(alice.userKey);
  await second.getByRole('button', { name: 'Continue to inbox' }).click();
  // History from before this device signed in.
  await expect(note(second, '🚪 Front door')).toBeVisible();
  await expect(second.getByRole('article')).toHaveCount(3);
  await expect(second.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();

  await push({ userKey: alice.userKey, title: 'Garage', body: 'The garage door is still open.', emoji: '🚗' });
  await expect(note(phone, '🚗 Garage')).toBeVisible({ timeout: 1000 });
  await expect(note(second, '🚗 Garage')).toBeVisible({ timeout: 1000 });

  await push({ userGroupKey: groupKey, title: 'Dinner', body: 'Dinner is ready!', emoji: '🍝' });
  await expect(note(phone, '🍝 Dinner')).toBeVisible({ timeout: 1000 });
  await expect(note(second, '🍝 Dinner')).toBeVisible({ timeout: 1000 });
  await expect(second.getByRole('article').first()).toHaveAccessibleName('🍝 Dinner');
  await phoneShot(second, 'receiver-08-second-device');

  // Both show the same key in Settings.
  await second.getByRole('button', { name: 'More' }).click();
  await second.getByRole('menuitem', { name: 'Settings' }).click();
  await expect(second.getByRole('status', { name: 'User Key' })).toHaveText(alice.userKey);
  // This device has no push; the phone's Web Push device is listed.
  await expect(second.getByRole('list', { name: 'Devices' })).toContainText('Alice’s Pixel');
  await expect(second.getByRole('list', { name: 'Devices' })).not.toContainText('This device');
});

test('the console makes a pairing link with a QR code; it signs a new device in once and is refused the second time', async ({ browser }) => {
  const context = await browser.newContext();
  contexts.push(context);
  const console = await context.newPage();
  problems.push(...watchForErrors(console));
  await signIn(console, e2e.url);
  await console.goto(`${e2e.url}/users/${bob.id}`);
  const section = console.getByRole('region', { name: 'Add a device' });
  await section.getByRole('button', { name: 'Create pairing link' }).click();
  const link = section.getByRole('textbox', { name: 'Pairing link' });
  await expect(link).toHaveValue(new RegExp(`^${e2e.url}/receiver/#pair=[A-Za-z0-9_-]{43}$`));
  pairingUrl = await link.inputValue();
  const qr = section.getByRole('img', { name: 'QR code of the pairing link for Bob' });
  await expect.poll(async () => (await (await qr.elementHandle())!.getProperty('naturalWidth')).jsonValue()).toBeGreaterThan(0);
  await expect(section).toContainText('It works once');
  // The hub is on 127.0.0.1 here: the console warns that a phone cannot open that.
  await expect(section).toContainText('A phone cannot open this address');
  await shot(console, 'receiver-09-console-add-device');

  paired = await newPhone(browser);
  await paired.goto(pairingUrl);
  await expect(paired.getByRole('heading', { name: 'Your User Key' })).toBeVisible();
  await expect(paired.getByRole('status', { name: 'User Key' })).toHaveText(bob.userKey);
  await expect(paired.getByText('Signed in as Bob')).toBeVisible();
  // The token left the address bar.
  await expect(paired).toHaveURL(`${e2e.url}/receiver/`);
  await paired.getByRole('button', { name: 'Continue to inbox' }).click();
  await expect(note(paired, '🍝 Dinner')).toBeVisible();
  await push({ userKey: bob.userKey, title: 'Hello Bob', body: 'Sent from a script.', emoji: '👋' });
  await expect(note(paired, '👋 Hello Bob')).toBeVisible({ timeout: 1000 });
  await phoneShot(paired, 'receiver-10-paired-inbox');

  const again = await newPhone(browser);
  await again.goto(pairingUrl);
  await expect(again.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(again.getByRole('alert')).toContainText('This pairing link was already used');
  await expect(again).toHaveURL(`${e2e.url}/receiver/`);
  expect(await again.evaluate("localStorage.getItem('pushhub.receiver.session')")).toBeNull();
  await phoneShot(again, 'receiver-11-pairing-used');

  // A link past its 15 minutes says so.
  const late = (await admin('POST', `/api/users/${bob.id}/pairing`)).json.url as string;
  e2e.hub.store.db.prepare('UPDATE pairing_tokens SET expires_at = ? WHERE used_at IS NULL').run(Date.now() - 1000);
  await again.goto(late);
  await expect(again.getByRole('alert')).toContainText('This pairing link has expired');
  await expect(again.getByRole('alert')).toContainText('15 minutes');
});

test('older notifications load while scrolling; a failed load says so and retries', async () => {
  for (let i = 1; i <= 35; i++) await push({ userKey: bob.userKey, title: `Temperature ${i}`, body: `Living room: ${19 + (i % 4)} °C` });
  // Failing first, then working: the error state and its retry.
  await paired.route('**/api/receiver/notifications?*', (route) => route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":{"code":"unavailable","message":"the database does not answer"}}' }));
  await paired.reload();
  await expect(paired.getByRole('heading', { name: 'Your notifications could not be loaded' })).toBeVisible();
  await expect(paired.getByRole('alert')).toContainText('the database does not answer');
  await phoneShot(paired, 'receiver-12-inbox-error');
  await paired.unroute('**/api/receiver/notifications?*');
  await paired.getByRole('button', { name: 'Try again' }).click();

  const items = paired.getByRole('article');
  await expect(items).toHaveCount(30);
  await expect(items.first()).toHaveAccessibleName('Temperature 35');
  await paired.locator('.notes-end').scrollIntoViewIfNeeded();
  await expect(items).toHaveCount(35 + 2);
  await expect(paired.getByText('That is all of them.')).toBeVisible();
  await expect(items.last()).toHaveAccessibleName('🍝 Dinner');
});

test('sign out from Settings ends the session on this device only', async () => {
  await second.getByRole('button', { name: 'Sign out' }).click();
  await second.getByRole('dialog', { name: 'Sign out of Pushhub?' }).getByRole('button', { name: 'Sign out' }).click();
  await expect(second.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  expect(await second.evaluate("localStorage.getItem('pushhub.receiver.session')")).toBeNull();
  // The phone is still signed in and live.
  await push({ userKey: alice.userKey, title: 'Still here', body: 'The phone keeps receiving.' });
  await expect(note(phone, 'Still here')).toBeVisible({ timeout: 1000 });
  expect(problems).toEqual([]);
});
