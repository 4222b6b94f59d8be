// Every screen, in Spanish and in English, checked with axe-core against WCAG 2.1 A and AA (contrast,
// names and labels, roles, structure). Rules are not switched off: a screen that breaks one fails here
// with the rule, the element and why, as axe says it.
import { ACCOUNTS, NOT_FOUND_CBU } from './data';
import { expect, goTo, lookup, openApp, test, type Route } from './fixtures';
import { wcagViolations as violations } from './axe';

const ROUTES: Route[] = ['consulta', 'saldo', 'historial', 'lotes', 'claves', 'usuarios', 'ajustes'];


for (const route of ROUTES) {
  test(`${route}: no WCAG 2.1 AA violation, in Spanish and in English`, async ({ page, state }) => {
    await openApp(page, state, 'admin', route);
    expect(await violations(page)).toEqual([]);
    await page.getByTestId('lang-switch').click();
    await expect(page.getByTestId('lang-switch')).toHaveAttribute('data-lang', 'en');
    expect(await violations(page)).toEqual([]);
    // Back to Spanish for the specs that follow (the choice is remembered).
    await page.getByTestId('lang-switch').click();
    await expect(page.getByTestId('lang-switch')).toHaveAttribute('data-lang', 'es');
  });
}

test('a result card, an error banner and an open confirmation dialog: no WCAG 2.1 AA violation', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'consulta');
  expect(await lookup(page, ACCOUNTS.nacion.cbu)).toBe('result');
  expect(await violations(page)).toEqual([]);
  expect(await lookup(page, NOT_FOUND_CBU)).toBe('error');
  expect(await violations(page)).toEqual([]);
  await goTo(page, 'claves');
  // A key of our own to open its revoke dialog on (this spec may run before any other made one).
  await page.getByTestId('key-create-name').fill(`A11y ${Date.now().toString(36)}`);
  await page.getByTestId('key-create-scope-lookup').check();
  await page.getByTestId('key-create-submit').click();
  await expect(page.getByTestId('key-secret')).toBeVisible();
  expect(await violations(page)).toEqual([]);
  await page.getByTestId('key-revoke').first().click();
  await expect(page.getByTestId('confirm-cancel')).toBeFocused();
  expect(await violations(page)).toEqual([]);
  await page.getByTestId('confirm-cancel').click();
});
