// Browser end-to-end tests of the desktop UI, served by the headless server (`serve.js --ui`).
// e2e/global-setup.ts seeds a temporary data directory with the CLI and starts two servers on it
// (an admin session and an operator session); e2e/global-teardown.ts stops them and removes it.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 5_000 },
  // Every test shares one data directory: a run must end well within the budget (the whole run takes
  // about 6 min on the 2-core CI machine; 11 leaves room for a host running slow, as this one sometimes
  // does by 1.7 times, without letting a hang run on past CI's 20 minutes).
  globalTimeout: 11 * 60_000,
  reporter: 'list',
  outputDir: 'test-results',
  globalSetup: './e2e/global-setup.ts',
  globalTeardown: './e2e/global-teardown.ts',
  use: {
    viewport: { width: 1280, height: 800 },
    locale: 'es-AR',
    timezoneId: 'America/Argentina/Buenos_Aires',
    actionTimeout: 10_000,
    navigationTimeout: 15_000,
    trace: 'off',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // Chromium on Linux takes its own widgets' locale (the date pickers' dd/mm/aaaa) from the
      // environment, not from `locale` above nor --lang; the es-AR user's desktop has es_AR (with
      // Debian's chromium-l10n, which .ci/run installs).
      env: { ...process.env, LANGUAGE: 'es_AR', LANG: 'es_AR.UTF-8' },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-dev-shm-usage',
      ],
    },
  },
});
