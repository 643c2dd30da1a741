import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { inEachColorScheme } from './browser.ts';

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

export interface AxeViolation {
  id: string;
  impact: string | null | undefined;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core (injected from the npm package) on the page as it is now; returns the serious
 * and critical violations of WCAG 2.x A/AA, each with the elements it found.
 */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  // Page-side code is given as text: this package is typed for Node, not the DOM.
  const loaded = await page.evaluate('typeof window.axe === "object"');
  // Evaluated through the DevTools protocol, not as an inline <script>: the console's CSP
  // (script-src 'self') rightly refuses inline scripts, and the test must not weaken it.
  if (!loaded) await page.evaluate(axe.source);
  const results = (await page.evaluate(`(async () => {
    const result = await window.axe.run(document, {
      runOnly: { type: 'tag', values: ${JSON.stringify(AXE_TAGS)} },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    }));
  })()`)) as AxeViolation[];
  return results.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Throws with a readable list when the page has serious or critical accessibility violations,
 * in either colour scheme (light and dark are both checked: contrast differs between them).
 */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const found: string[] = [];
  await inEachColorScheme(page, async (scheme) => {
    for (const v of await seriousA11yViolations(page)) {
      found.push(
        `  [${v.impact}] (${scheme}) ${v.id}: ${v.help}\n      ${v.targets.join('\n      ')}`,
      );
    }
  });
  if (found.length > 0) {
    throw new Error(`accessibility violations on ${what}:\n${found.join('\n')}`);
  }
}
