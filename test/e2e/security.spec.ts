import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { shot, signIn, startE2eHub, type E2eHub } from './hub.js';

// The console's defences seen from a real browser (issue "Admin UI" / "Security of a local web
// console"); each rule is also checked over HTTP in test/integration/security.test.ts.

let e2e: E2eHub;
let attacker: http.Server;
let attackerUrl: string;

test.beforeAll(async () => {
  e2e = await startE2eHub();
  // Another web page on this machine (same site as 127.0.0.1, different origin) that posts a
  // form to the hub as soon as it loads: the classic cross-site request forgery.
  attacker = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><form id="f" method="post" action="${e2e.url}/api/auth/logout"></form>
<script>document.getElementById('f').submit()</script>`);
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
});

test.afterAll(async () => {
  await new Promise((resolve) => attacker.close(resolve));
  await e2e.close();
});

test('a name that rebinds to the hub is refused; localhost and IPs are served', async ({ page }) => {
  const port = new URL(e2e.url).port;
  // Chromium resolves rebind.test to 127.0.0.1 (playwright.config.ts), as a rebinding attacker's DNS would.
  const refused = await page.goto(`http://rebind.test:${port}/`);
  expect(refused?.status()).toBe(403);
  await expect(page.getByRole('heading', { name: /This address is not one of the hub/ })).toBeVisible();
  await expect(page.getByText('PUSHHUB_PUBLIC_URL')).toBeVisible();
  await shot(page, '30-rebinding-refused');

  for (const origin of [`http://localhost:${port}`, e2e.url]) {
    const served = await page.goto(`${origin}/`);
    expect(served?.status()).toBe(200);
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  }
});

test('a forged form post from another origin is refused and the session survives', async ({ page }) => {
  await signIn(page, e2e.url);
  const forged = page.waitForResponse((res) => res.url() === `${e2e.url}/api/auth/logout`);
  await page.goto(attackerUrl);
  expect((await forged).status()).toBe(403);
  await page.goto(`${e2e.url}/apps`);
  await expect(page.getByRole('heading', { name: 'Apps', level: 1 })).toBeVisible();
});

test('without the session cookie the console asks to sign in; the cookie is invisible to scripts', async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${e2e.url}/apps`);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Signed in, on the page the link pointed to.
  await expect(page.getByRole('heading', { name: 'Apps', level: 1 })).toBeVisible();
  await expect(page).toHaveURL(`${e2e.url}/apps`);
  expect(await page.evaluate('document.cookie')).toBe('');
  await context.close();
});

test('the Content-Security-Policy stops injected inline script', async ({ page }) => {
  const res = await page.goto(`${e2e.url}/login`);
  expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
  const violations: string[] = [];
  page.on('console', (msg) => {
    if (msg.text().includes('Content Security Policy')) violations.push(msg.text());
  });
  const ran = await page.evaluate(`new Promise((resolve) => {
    window.__injected = false;
    const s = document.createElement('script');
    s.textContent = 'window.__injected = true';
    document.body.append(s);
    setTimeout(() => resolve(window.__injected), 100);
  })`);
  expect(ran).toBe(false);
  expect(violations.length).toBeGreaterThan(0);
});
