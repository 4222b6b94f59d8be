// axe-core's WCAG 2.1 A and AA rules on the page as it is, every violation as one line (rule, impact,
// element, why); no rule switched off. Used by e2e/accessibility.spec.ts and the start-up screens' spec.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

export async function wcagViolations(page: Page): Promise<string[]> {
  await expect(page.locator('.skeleton')).toHaveCount(0);
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}) at ${n.target.join(' ')}: ${n.failureSummary ?? v.help}`));
}
