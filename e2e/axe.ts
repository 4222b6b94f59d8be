// axe-core's WCAG 2.1 A and AA rules on the page as it is, every violation as one line (rule, impact,
// element, why); no rule switched off. Used by e2e/accessibility.spec.ts and the start-up screens' spec.
// Axe reads computed colours, so it waits for opening animations (a dialog fades in over 0.14 s) to end:
// mid-fade, text is measured against a half-transparent backdrop (CI once saw 2.99:1 that way). Endless
// ones (a spinner) are left running; the skeleton wait below covers loading.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

export async function wcagViolations(page: Page): Promise<string[]> {
  await expect(page.locator('.skeleton')).toHaveCount(0);
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.effect?.getComputedTiming().endTime !== Infinity)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}) at ${n.target.join(' ')}: ${n.failureSummary ?? v.help}`));
}
