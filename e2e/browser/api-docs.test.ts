import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from './support/browser.ts';
import { type ConsoleStack, startConsoleStack } from './support/stack.ts';

/**
 * The API reference as a newcomer opens it: at /docs and /docs/, on the API and through the
 * console's proxy, in Chromium — the page's script runs under the CSP it is served with and
 * lists the operations from /docs/openapi.json.
 */

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

let stack: ConsoleStack;
let browser: Browser;
beforeAll(async () => {
  [stack, browser] = await Promise.all([startConsoleStack(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('the API reference', () => {
  it.each([
    ['the API', '/docs'],
    ['the API', '/docs/'],
    ['the console', '/docs'],
    ['the console', '/docs/'],
  ])('renders every operation from %s at %s', async (server, path) => {
    const base = server === 'the API' ? stack.api.url : stack.console.url;
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      // The browser's own /favicon.ico request: the API serves no icon.
      if (message.location().url.endsWith('/favicon.ico')) return;
      if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
    });
    try {
      const response = await page.goto(base + path);
      expect(response?.status()).toBe(200);
      await page.locator('#ops h2').first().waitFor();
      const operations = await page.locator('#ops .op').count();
      const document = (await (await fetch(`${base}/docs/openapi.json`)).json()) as {
        paths: Record<string, Record<string, unknown>>;
      };
      const expected = Object.values(document.paths).reduce(
        (count, item) => count + Object.keys(item).filter((key) => METHODS.has(key)).length,
        0,
      );
      expect(operations).toBe(expected);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
