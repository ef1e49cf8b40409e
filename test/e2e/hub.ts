import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { pino } from 'pino';
import { loadConfig, type HubConfig } from '../../server/config/config.js';
import { startHub, type Hub } from '../../server/index.js';

/** The operator password of hubs started with an admin account. */
export const ADMIN_PASSWORD = 'correct horse battery';

/** A running hub for a browser test, with its temporary data directory. */
export interface E2eHub {
  hub: Hub;
  url: string;
  close(): Promise<void>;
}

/**
 * Starts a real hub on 127.0.0.1:0 with a temporary data directory, serving the built renderer.
 * `withAdmin: false` leaves it unset, with a one-time setup URL.
 */
export async function startE2eHub(options: { withAdmin?: boolean; config?: Partial<HubConfig> } = {}): Promise<E2eHub> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pushhub-e2e-'));
  const base = loadConfig({
    flags: { port: 0, host: '127.0.0.1', dataDir },
    env: { PUSHHUB_LOG_LEVEL: 'silent', ...(options.withAdmin === false ? {} : { PUSHHUB_ADMIN_PASSWORD: ADMIN_PASSWORD }) },
  });
  const hub = await startHub(Object.freeze({ ...base, ...options.config }), { logger: pino({ level: 'silent' }) });
  return {
    hub,
    url: hub.url,
    async close() {
      await hub.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const shotsDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'test-results', 'screenshots');

/** Saves a full-page screenshot as test-results/screenshots/<name>.png (after fonts and animations settle). */
export async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(shotsDir, { recursive: true });
  await page.waitForLoadState('networkidle').catch(() => {});
  await expect(page.locator('.loading')).toHaveCount(0);
  // Confirmations fade after a few seconds; a screenshot shows the page without them.
  for (const dismiss of await page.getByRole('button', { name: 'Dismiss' }).all()) await dismiss.click({ timeout: 500 }).catch(() => {});
  // The sidebar is sticky: from the top, a full-page shot shows it where a person sees it.
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(shotsDir, `${name}.png`), fullPage: true, animations: 'disabled' });
}

/**
 * Collects what would make the console look broken: uncaught errors, console errors (which
 * include Content-Security-Policy violations) and failed same-origin requests other than those
 * a test provokes on purpose.
 */
export function watchForErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    // 4xx answers the test provokes (wrong password, refused requests) are logged by Chromium too.
    if (msg.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())) {
      problems.push(`console: ${msg.text()}`);
    }
  });
  return problems;
}

/** Signs in through the sign-in page. */
export async function signIn(page: Page, url: string, password = ADMIN_PASSWORD, username = 'admin'): Promise<void> {
  await page.goto(`${url}/login`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
}

/**
 * Runs a curl command copied from the console as a shell would, and returns what curl prints.
 * Without a curl binary on the machine, sends the same request (URL and -d body of the snippet)
 * with fetch.
 */
export async function runCurlSnippet(snippet: string): Promise<string> {
  if (fs.existsSync('/usr/bin/curl')) {
    return new Promise((resolve, reject) =>
      execFile('bash', ['-c', snippet], { timeout: 10_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
    );
  }
  const url = /curl -s (\S+)/.exec(snippet)?.[1];
  const body = /-d '([\s\S]*)'\s*$/.exec(snippet)?.[1];
  if (!url || body === undefined) throw new Error(`not a curl snippet: ${snippet}`);
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return res.text();
}
