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

export type ColorScheme = 'light' | 'dark';
export const COLOR_SCHEMES: readonly ColorScheme[] = ['light', 'dark'];

/** The colour scheme the page currently sees (the system preference, as emulated). */
export async function colorSchemeOf(page: Page): Promise<ColorScheme> {
  const dark = await page.evaluate('matchMedia("(prefers-color-scheme: dark)").matches');
  return dark ? 'dark' : 'light';
}

/**
 * Runs `check` once with the system preference light and once dark (Playwright's colorScheme
 * emulation; the console follows it unless its theme toggle pins one), then puts back the scheme
 * the page had.
 */
export async function inEachColorScheme(
  page: Page,
  check: (scheme: ColorScheme) => Promise<void>,
): Promise<void> {
  const before = await colorSchemeOf(page);
  try {
    for (const scheme of COLOR_SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      await check(scheme);
    }
  } finally {
    await page.emulateMedia({ colorScheme: before });
  }
}

/**
 * Saves full-page screenshots to `e2e/screenshots/<name>.png` (light) and `<name>.dark.png`
 * (dark) for a reviewer to look at; returns the light one's path.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS_DIR, { recursive: true });
  await inEachColorScheme(page, async (scheme) => {
    const suffix = scheme === 'dark' ? '.dark' : '';
    await page.screenshot({ path: `${SCREENSHOTS_DIR}${name}${suffix}.png`, fullPage: true });
  });
  return `${SCREENSHOTS_DIR}${name}.png`;
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
