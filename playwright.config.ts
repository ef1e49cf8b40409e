import { defineConfig } from '@playwright/test';

/**
 * Browser tests of the console (issue "Admin UI"): Debian's Chromium (DESIGN.md "The machine":
 * never a downloaded browser), one worker, one browser. Each spec starts its own hub
 * (test/e2e/hub.ts) serving the built renderer; global-setup builds it when it is stale.
 * Screenshots of the main pages land in test-results/screenshots/.
 */
export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results/playwright',
  globalSetup: './test/e2e/global-setup.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1360, height: 860 },
    locale: 'en-GB',
    timezoneId: 'Europe/Berlin',
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: {
      executablePath: process.env.PUSHHUB_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        // A hostname that resolves to this machine: the DNS rebinding test needs one.
        '--host-resolver-rules=MAP rebind.test 127.0.0.1',
      ],
    },
  },
});
