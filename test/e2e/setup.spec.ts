import { expect, test } from '@playwright/test';
import { shot, startE2eHub, watchForErrors, type E2eHub } from './hub.js';

// First run: the one-time setup URL, sign-in and sign-out, the session cookie (issue "Admin UI").

let e2e: E2eHub;
test.beforeAll(async () => {
  e2e = await startE2eHub({ withAdmin: false });
});
test.afterAll(async () => {
  await e2e.close();
});

test('a newcomer sets the hub up from the printed URL, signs out and in again', async ({ page, context }) => {
  const problems = watchForErrors(page);
  const setupUrl = e2e.hub.setupUrl!;
  expect(setupUrl).toMatch(/\/setup\?token=/);

  // Before setup, the sign-in page says where to go.
  await page.goto(e2e.url);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByText('This hub has no operator account yet')).toBeVisible();
  await shot(page, '01-sign-in-before-setup');

  await page.goto(setupUrl);
  await expect(page.getByRole('heading', { name: 'Set up Pushhub' })).toBeVisible();
  await page.getByLabel('Username').fill('operator');
  await page.getByLabel('Password', { exact: true }).fill('a long enough password');
  await page.getByLabel('Repeat the password').fill('a different password');
  await page.getByRole('button', { name: 'Create account and sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('The two passwords are different');
  await page.getByLabel('Repeat the password').fill('a long enough password');
  await shot(page, '02-setup');
  await page.getByRole('button', { name: 'Create account and sign in' }).click();

  // Signed in: the overview with its first steps.
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  await expect(page).toHaveURL(`${e2e.url}/`);
  await expect(page.getByRole('heading', { name: 'Get started' })).toBeVisible();
  await shot(page, '03-overview-first-run');

  // The session is an HttpOnly, SameSite=Strict cookie that scripts in the page cannot read.
  const [cookie] = await context.cookies();
  expect(cookie).toMatchObject({ name: 'pushhub_session', httpOnly: true, sameSite: 'Strict' });
  expect(await page.evaluate('document.cookie')).toBe('');
  expect(await page.evaluate('JSON.stringify({ ...localStorage, ...sessionStorage })')).toBe('{}');

  // The setup link works once.
  await page.goto(setupUrl);
  await page.getByLabel('Password', { exact: true }).fill('another long password');
  await page.getByLabel('Repeat the password').fill('another long password');
  await page.getByRole('button', { name: 'Create account and sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('already set up');

  // Sign out, then a wrong password, then the right one.
  await page.goto(`${e2e.url}/apps`);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByText('This hub has no operator account yet')).toHaveCount(0);
  expect(await context.cookies()).toHaveLength(0);

  await page.getByLabel('Username').fill('operator');
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('Wrong username or password.');
  await shot(page, '04-sign-in-wrong-password');

  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();

  // A deep link survives a reload (the hub answers index.html for console pages).
  await page.goto(`${e2e.url}/settings`);
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  await page.goto(`${e2e.url}/no/such/page`);
  await expect(page.getByRole('heading', { name: 'This page does not exist' })).toBeVisible();

  expect(problems).toEqual([]);
});
