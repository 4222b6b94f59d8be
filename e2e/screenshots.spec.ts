// Screenshots of the five screens in Spanish at 1280×800 (viewport, not full page), with data in
// them: e2e/screenshots/{consulta,saldo,historial,claves,usuarios}.png. They are for people to look
// at; the assertions make sure each screen has its data before the picture is taken, and that no
// table needs a sideways scrollbar at 1024, 1280 or 1920 px.
import path from 'node:path';
import type { Page } from '@playwright/test';
import { ACCOUNTS, NOT_FOUND_CBU } from './data';
import { expect, goTo, lookup, openApp, overflowingTables, test, type Route } from './fixtures';
import { readState } from './state';

const DIR = path.join(__dirname, 'screenshots');

test.beforeAll(async ({ browser }) => {
  // Some data of our own, so the pictures do not depend on which specs ran before.
  const state = readState();
  const page = await browser.newPage();
  try {
    await openApp(page, state);
    await lookup(page, ACCOUNTS.galicia.cbu);
    await lookup(page, NOT_FOUND_CBU);
    await lookup(page, ACCOUNTS.company.alias);

    await goTo(page, 'saldo');
    await page.getByTestId('purchase-amount').fill('1000');
    await page.getByTestId('purchase-reference').fill(`FAC-0001-${Date.now().toString().slice(-8)}`);
    await page.getByTestId('purchase-submit').click();
    await expect(page.getByTestId('purchase-result')).toBeVisible();

    await goTo(page, 'claves');
    await page.getByTestId('key-create-name').fill('ERP producción');
    await page.getByTestId('key-create-scope-lookup').check();
    await page.getByTestId('key-create-scope-balance').check();
    await page.getByTestId('key-create-submit').click();
    await expect(page.getByTestId('key-secret')).toBeVisible();
  } finally {
    await page.close();
  }
});

async function noSkeletons(page: Page): Promise<void> {
  await expect(page.locator('.skeleton')).toHaveCount(0);
}

async function shoot(page: Page, route: Route): Promise<void> {
  await noSkeletons(page);
  // Every table fits its card at the narrowest and the widest window people use, not only at the
  // picture's size.
  const pictureSize = page.viewportSize() ?? { width: 1280, height: 800 };
  for (const width of [1024, 1920, pictureSize.width]) {
    await page.setViewportSize({ width, height: pictureSize.height });
    expect(await overflowingTables(page), `${route} at ${width} px`).toEqual([]);
  }
  // Let the fonts and any entry transition settle.
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(DIR, `${route}.png`), fullPage: false, animations: 'disabled', caret: 'hide' });
}

test('consulta.png: a result card', async ({ page, state }) => {
  await openApp(page, state);
  expect(await lookup(page, ACCOUNTS.nacion.cbu)).toBe('result');
  await expect(page.getByTestId('lookup-result')).toContainText(ACCOUNTS.nacion.holder);
  await page.getByTestId('lookup-submit').blur();
  await shoot(page, 'consulta');
});

test('saldo.png: balances, chart and purchase form', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'saldo');
  await expect(page.getByTestId('balance-card-cbu')).toHaveAttribute('data-balance', /^\d+$/);
  await expect(page.getByTestId('balance-card-informes')).toHaveAttribute('data-balance', /^\d+$/);
  await shoot(page, 'saldo');
});

test('historial.png: rows', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'historial');
  await expect(page.getByTestId('history-row').first()).toBeVisible();
  expect(await page.getByTestId('history-row').count()).toBeGreaterThanOrEqual(3);
  await shoot(page, 'historial');
});

test('claves.png: the key list and the audit trail', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'claves');
  await expect(page.getByTestId('key-row').filter({ hasText: 'ERP producción' }).first()).toBeVisible();
  await expect(page.getByTestId('audit-row').first()).toBeVisible();
  await shoot(page, 'claves');
});

test('usuarios.png: the members', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'usuarios');
  await expect(page.getByTestId('user-row')).not.toHaveCount(0);
  await expect(page.getByTestId('user-row').filter({ hasText: 'Oscar Operador' })).toBeVisible();
  await shoot(page, 'usuarios');
});
