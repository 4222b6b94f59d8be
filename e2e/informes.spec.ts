// Informes: a credit report requested from Consulta's second tab and read on screen (subject,
// situation per institution with its BCRA classification, amounts in thousands of pesos, period,
// totals — the total debt in full pesos —, bounced checks), a clean record, a CUIT with a bad check
// digit caught before any credit is spent, a CUIT without a report (PA011, charged), and credits that
// ran out since the screen read them (said once, without a code). Saves e2e/screenshots/informe.png.
import path from 'node:path';
import type { Page } from '@playwright/test';
import { REPORTS } from './data';
import { creditsRunOutOn, expect, goTo, openApp, readBalance, test, showBalance } from './fixtures';

const SCREENSHOT = path.join(__dirname, 'screenshots', 'informe.png');

/** Opens the report tab, types a CUIT/CUIL and submits it; waits for the answer on screen. */
async function requestReport(page: Page, taxId: string): Promise<void> {
  await page.getByTestId('tab-report').click();
  await page.getByTestId('report-input').fill(taxId);
  await expect(page.getByTestId('report-feedback')).toHaveAttribute('data-valid', 'true');
  const answered = page.waitForResponse((r) => r.url().endsWith('/bridge/lookup.creditReport') && r.request().method() === 'POST');
  await page.getByTestId('report-submit').click();
  await answered;
  await expect(page.getByTestId('report-result').or(page.getByTestId('report-error')).first()).toBeVisible();
}

test('a company with debts and bounced checks: subject, institutions, classifications, totals and checks; one credit', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'saldo');
  const before = await readBalance(page, 'informes');
  await goTo(page, 'consulta');
  await requestReport(page, REPORTS.company.taxId.replace(/-/g, ''));

  const report = page.getByTestId('report-result');
  await expect(report.getByTestId('report-subject')).toHaveText(REPORTS.company.name);
  await expect(report.getByTestId('report-tax-id')).toHaveText(REPORTS.company.taxId);
  await expect(report).toContainText('CUIT');
  await expect(report).toContainText('Persona jurídica');
  await expect(report.getByTestId('report-period')).toHaveText('octubre de 2026');

  // One row per institution, worst first, each with its classification in words.
  const rows = report.getByTestId('situation-row');
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText('Banco Santander Argentina S.A.');
  await expect(rows.nth(0).getByTestId('classification')).toHaveText('3 · Con problemas / Riesgo medio');
  // Money with its two decimals in every row, so a column reads alike (not 48.200 above 1.250,5).
  await expect(rows.nth(0).getByTestId('situation-amount')).toHaveText('48.200,00');
  await expect(rows.nth(0)).toContainText('120');
  await expect(rows.nth(1)).toContainText('Tarjeta Naranja S.A.');
  await expect(rows.nth(1).getByTestId('classification')).toHaveText('2 · Con seguimiento especial / Riesgo bajo');
  await expect(rows.nth(1).getByTestId('situation-amount')).toHaveText('1.250,50');
  await expect(rows.nth(2).getByTestId('classification')).toHaveText('1 · Normal');
  await expect(rows.nth(2).getByTestId('situation-amount')).toHaveText('9.800,00');

  // Totals are computed on import: 48.200 + 9.800 + 1.250,5 thousand pesos at 3 institutions. The
  // total is said in full pesos: "$ 59.250,50 mil" was read as 59 thousand pesos, not 59 million.
  await expect(report.getByTestId('total-amount')).toHaveText('$ 59.250.500,00');
  // Only the table keeps the registry's unit, and says it in its header; the note under it says which is which.
  await expect(report.locator('thead').first()).toContainText('Deuda (miles de $)');
  await expect(report).toContainText('Deuda por entidad en miles de pesos, como la informa la Central de Deudores del BCRA; deuda total y cheques en pesos.');
  await expect(report.getByTestId('total-institutions')).toHaveText('3');
  await expect(report.getByTestId('worst-classification')).toHaveText('3 · Con problemas / Riesgo medio');

  const checks = report.getByTestId('check-row');
  await expect(checks).toHaveCount(2);
  await expect(checks.nth(0)).toContainText('00012391');
  await expect(checks.nth(0)).toContainText('30/09/2026');
  await expect(checks.nth(0)).toContainText('$ 1.200.000,00');
  await expect(checks.nth(1)).toContainText('$ 350.000,00');
  await expect(checks.nth(0)).toContainText('Impago');
  await expect(checks.nth(1)).toContainText('Pagado');

  await expect(report.getByTestId('credits-left')).toContainText(`Te quedan ${(before - 1).toLocaleString('es-AR')} créditos de Informe crediticio`);
  // This CUIT's report is on screen: asking for it again costs another credit, and the button says so.
  await expect(page.getByTestId('report-submit')).toHaveText('Pedir de nuevo (otro crédito)');
  await page.getByTestId('report-submit').blur();
  await page.evaluate(() => document.fonts.ready);
  // The whole report in the picture: scrolled as a reader would, the form still in view above it.
  await report.evaluate((el) => el.scrollIntoView({ block: 'end' }));
  await page.screenshot({ path: SCREENSHOT, fullPage: false, animations: 'disabled', caret: 'hide' });

  // In English the same two decimals, with its separators.
  await page.getByTestId('lang-switch').click();
  await expect(rows.nth(0).getByTestId('situation-amount')).toHaveText('48,200.00');
  await expect(rows.nth(2).getByTestId('situation-amount')).toHaveText('9,800.00');
  await expect(report.getByTestId('total-amount')).toHaveText('$59,250,500.00');
  await expect(report).toContainText('total debt and checks in pesos');
  await expect(report.getByTestId('credits-left')).toContainText('Credit Report credits left');
  await page.getByTestId('lang-switch').click();

  await goTo(page, 'saldo');
  expect(await readBalance(page, 'informes')).toBe(before - 1);
});

test('a clean record says so: no debts, no bounced checks', async ({ page, state }) => {
  await openApp(page, state);
  await requestReport(page, REPORTS.clean.taxId);
  const report = page.getByTestId('report-result');
  await expect(report.getByTestId('report-subject')).toHaveText(REPORTS.clean.name);
  await expect(report).toContainText('CUIL');
  await expect(report).toContainText('Sin deudas informadas en el sistema financiero.');
  await expect(report).toContainText('Sin cheques rechazados.');
  await expect(report.getByTestId('situation-row')).toHaveCount(0);
  await expect(report.getByTestId('worst-classification')).toHaveText('Sin deudas');
  // Nothing owed is "$ 0,00", not "$ 0,00 mil".
  await expect(report.getByTestId('total-amount')).toHaveText('$ 0,00');

  // Another CUIT typed over it: the report leaves the screen with the number it described.
  await page.getByTestId('report-input').fill(REPORTS.company.taxId);
  await expect(page.getByTestId('report-result')).toHaveCount(0);
  await expect(page.getByText(REPORTS.clean.name)).toHaveCount(0);
});

test('with no Informes credits left "Pedir informe" is disabled and says why', async ({ page, state }) => {
  // The real balance, with the Informes credits at 0 (the seed has some).
  await showBalance(page, 'informes', 0);
  await openApp(page, state);
  await page.getByTestId('tab-report').click();
  await page.getByTestId('report-input').fill(REPORTS.clean.taxId);
  await expect(page.getByTestId('report-feedback')).toHaveAttribute('data-valid', 'true');
  await expect(page.getByTestId('report-submit')).toBeDisabled();
  await expect(page.getByTestId('report-no-credits')).toHaveText('No te quedan créditos de Informe crediticio. Un administrador puede registrar una compra en Saldo.');
});

test('a CUIT with a bad check digit is caught while typing and cannot be submitted (PA006 costs nothing here)', async ({ page, state }) => {
  await openApp(page, state);
  await page.getByTestId('tab-report').click();
  await page.getByTestId('report-input').fill(REPORTS.badCheckDigit);
  const feedback = page.getByTestId('report-feedback');
  await expect(feedback).toHaveAttribute('data-valid', 'false');
  await expect(feedback).toContainText('El dígito verificador del CUIT/CUIL no es válido');
  await expect(page.getByTestId('report-submit')).toBeDisabled();
});

test('a valid CUIT without a report: PA011, and the credit it used is shown', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'saldo');
  const before = await readBalance(page, 'informes');
  await goTo(page, 'consulta');
  await requestReport(page, REPORTS.notFound.taxId);
  const error = page.getByTestId('report-error');
  await expect(error).toContainText('No encontramos un informe para ese CUIT/CUIL.');
  // A not-found keeps its code, as a product code support can be told (unlike running out of credits).
  await expect(error.locator('.code-chip')).toHaveText('PA011 · 404');
  await expect(error.getByTestId('credits-left')).toContainText(`Te quedan ${(before - 1).toLocaleString('es-AR')} créditos de Informe crediticio`);
  await expect(page.getByTestId('report-result')).toHaveCount(0);
  await expect(page.getByTestId('report-submit')).toHaveText('Pedir de nuevo (otro crédito)');
  // Another CUIT typed: nothing of it is on screen, so nothing is asked twice.
  await page.getByTestId('report-input').fill(REPORTS.clean.taxId);
  await expect(page.getByTestId('report-submit')).toHaveText('Pedir informe');
});

test('Historial shows credit reports under their own product view', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'consulta');
  await requestReport(page, REPORTS.clean.taxId);
  await goTo(page, 'historial');
  await page.getByTestId('history-product-informes').click();
  await expect(page.getByTestId('history-product-informes')).toHaveAttribute('aria-checked', 'true');
  const row = page.getByTestId('history-row').first();
  // Written as the screens write a CUIT (27-31234567-1), stored as its 11 digits.
  await expect(row).toContainText(REPORTS.clean.taxId);
  // The account-lookup view lists no CUIT.
  await page.getByTestId('history-product-cbu').click();
  await expect(page.getByTestId('history-product-cbu')).toHaveAttribute('aria-checked', 'true');
  await expect(page.locator('.skeleton')).toHaveCount(0);
  await expect(page.getByTestId('history-row').filter({ hasText: REPORTS.clean.taxId })).toHaveCount(0);
});

test('Informes credits that run out mid-session are said once, in words, without a developer code', async ({ page, state }) => {
  await creditsRunOutOn(page, 'lookup.creditReport', 'informes');
  await openApp(page, state);
  await requestReport(page, REPORTS.clean.taxId);
  const error = page.getByTestId('report-error');
  await expect(error).toHaveAttribute('data-error-code', 'INSUFFICIENT_CREDITS');
  await expect(error).toHaveText('No te quedan créditos de Informe crediticio. Un administrador puede registrar una compra en Saldo.');
  // No "INSUFFICIENT_CREDITS · 402" chip (PA011 keeps its code), and no "Te quedan 0 créditos".
  await expect(error.locator('.code-chip')).toHaveCount(0);
  await expect(error.getByTestId('credits-left')).toHaveCount(0);
  // The refreshed balance disables the button; the banner is the one place that says why.
  await expect(page.getByTestId('report-submit')).toBeDisabled();
  await expect(page.getByTestId('report-no-credits')).toHaveCount(0);
  await expect(page.getByText(/No te quedan créditos/)).toHaveCount(1);
  // Another CUIT typed: the banner goes, and the note under the form says it instead.
  await page.getByTestId('report-input').fill(REPORTS.company.taxId);
  await expect(error).toHaveCount(0);
  await expect(page.getByTestId('report-no-credits')).toBeVisible();
  await expect(page.getByText(/No te quedan créditos/)).toHaveCount(1);
});
