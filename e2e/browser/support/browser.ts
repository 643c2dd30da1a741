import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs it); `CHROMIUM_PATH` points elsewhere. */
// Test wiring is the one place besides an app's Env that reads the environment.
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const SCREENSHOTS_DIR = fileURLToPath(new URL('../../screenshots/', import.meta.url));

/** Headless Chromium with nothing talking to the network but the pages under test. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A fresh browser context (its own sessionStorage) signed in with `token` before any page
 * script runs, so a test starts on the page it is about rather than on the sign-in form.
 */
export async function signedInContext(
  browser: Browser,
  token: string,
  options: { viewport?: { width: number; height: number } } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1440, height: 960 },
  });
  await context.addInitScript({
    content: `sessionStorage.setItem('toolgate.token', ${JSON.stringify(token)});`,
  });
  return context;
}

/** Saves a full-page screenshot to `e2e/screenshots/<name>.png` for a reviewer to look at. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS_DIR, { recursive: true });
  const path = `${SCREENSHOTS_DIR}${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Collects uncaught page errors and console errors, so a test can assert there were none. The
 * browser's own "Failed to load resource" lines are left out: a 4xx the page handles (a 422 of a
 * dry run, a 401 of a bad token) is an answer, not an error.
 */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      errors.push(`console: ${message.text()}`);
    }
  });
  return errors;
}
