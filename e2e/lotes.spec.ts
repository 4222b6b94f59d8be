// Consultas masivas in the browser: paste a list, review it (repeated and invalid rows counted, no
// credit spent), run it, watch the progress reach 100 %, export the CSV; and the screenshot
// e2e/screenshots/lotes.png at 1280×800.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { ACCOUNTS, BAD_CHECK_DIGIT_CBU, NOT_FOUND_CBU } from './data';
import { expect, goTo, openApp, readBalance, test } from './fixtures';

const SCREENSHOT = path.join(__dirname, 'screenshots', 'lotes.png');

/** Pastes a list, reviews it and returns the job's panel once it shows the new job. */
async function prepare(page: Page, list: string[]) {
  await page.getByTestId('bulk-source-paste').click();
  await page.getByTestId('bulk-input').fill(list.join('\n'));
  await expect(page.getByTestId('bulk-line-count')).toHaveText(`${list.length} filas`);
  const created = page.waitForResponse((r) => r.url().endsWith('/bridge/bulk.create'));
  await page.getByTestId('bulk-prepare').click();
  const body = await (await created).json();
  expect(body.ok, JSON.stringify(body)).toBe(true);
  const panel = page.locator(`[data-testid="bulk-panel"][data-job-id="${body.value.job.id}"]`);
  await expect(panel).toBeVisible();
  return panel;
}

async function runToEnd(page: Page, panel: ReturnType<Page['locator']>) {
  await panel.getByTestId('bulk-start').click();
  await expect(panel).toHaveAttribute('data-status', 'completed', { timeout: 20_000 });
  // es-AR's percent format (Intl), no space: "100%".
  await expect(panel.getByTestId('bulk-percent')).toHaveText('100%');
}

test('paste a list, review it, run it to 100 % and export the results', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'saldo');
  const before = await readBalance(page, 'cbu');
  await goTo(page, 'lotes');
  await expect(page.getByRole('heading', { name: 'Consultas masivas' })).toBeVisible();

  // A first, small batch so the list below has more than one job.
  const first = await prepare(page, [ACCOUNTS.nacion.cbu, ACCOUNTS.galicia.alias, ACCOUNTS.cvu.cbu]);
  await runToEnd(page, first);

  const list = [
    ACCOUNTS.nacion.cbu,
    ACCOUNTS.galicia.cbu,
    // The same account pasted with separators: looked up (and charged) once.
    `${ACCOUNTS.galicia.cbu.slice(0, 4)} ${ACCOUNTS.galicia.cbu.slice(4, 8)}-${ACCOUNTS.galicia.cbu.slice(8)}`,
    ACCOUNTS.cvu.alias,
    ACCOUNTS.company.cbu,
    ACCOUNTS.inactive.alias.toUpperCase(),
    NOT_FOUND_CBU,
    BAD_CHECK_DIGIT_CBU,
  ];
  const panel = await prepare(page, list);
  await expect(panel).toHaveAttribute('data-status', 'pending');
  await expect(panel.getByTestId('bulk-distinct')).toHaveText('6');
  await expect(panel.getByTestId('bulk-invalid')).toHaveText('1');
  await expect(panel.getByTestId('bulk-progress')).toHaveAttribute('data-done', '0');
  await expect(panel.getByTestId('bulk-cost')).toContainText('hasta 6 créditos');
  // The invalid row is listed with its reason.
  await panel.getByTestId('bulk-invalid-toggle').click();
  await expect(panel.getByTestId('bulk-invalid-table')).toContainText(BAD_CHECK_DIGIT_CBU);
  // The reason is said in Spanish (the core stores it in English).
  await expect(panel.getByTestId('bulk-invalid-table')).toContainText('El dígito verificador del segundo bloque (dígito 22) del CBU no es válido.');

  await runToEnd(page, panel);
  await expect(panel.getByTestId('bulk-progress')).toHaveAttribute('data-done', '6');
  await expect(panel.getByTestId('bulk-progress')).toHaveAttribute('aria-valuenow', '100');
  await expect(panel.getByTestId('bulk-charged')).toHaveText('6');
  await expect(panel.getByTestId('bulk-not-found')).toHaveText('1');
  await expect(panel.getByTestId('bulk-remaining')).toHaveText('0');
  await expect(panel.getByTestId('bulk-completed')).toBeVisible();
  expect(await page.getByTestId('bulk-job-row').count()).toBeGreaterThanOrEqual(2);
  await expect(page.locator(`[data-testid="bulk-job-row"][data-job-id="${await panel.getAttribute('data-job-id')}"]`)).toContainText('Completado');

  // The picture: the finished batch selected, the list below (before the export's toast).
  await panel.getByTestId('bulk-invalid-toggle').click();
  await expect(panel.getByTestId('bulk-invalid-table')).toHaveCount(0);
  await expect(page.locator('.skeleton')).toHaveCount(0);
  await page.mouse.move(0, 0);
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: SCREENSHOT, fullPage: false, animations: 'disabled', caret: 'hide' });

  // The export: one row per pasted line, in order, with status and code.
  const downloading = page.waitForEvent('download');
  await panel.getByTestId('bulk-export').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^titular-lote-Lista-pegada.*\.csv$/);
  const csv = readFileSync(await download.path(), 'utf8').replace(/^\uFEFF/, '');
  const lines = csv.trim().split('\r\n');
  expect(lines[0]).toBe('Fila;Entrada;Identificador;Tipo;Estado;HTTP;Código;Mensaje;Créditos;Repite la fila;Titulares;CUIT/CUIL;Banco;ID de consulta');
  expect(lines).toHaveLength(list.length + 1);
  const statuses = lines.slice(1).map((l) => l.split(';')[4]);
  expect(statuses).toEqual(['Exitosa', 'Exitosa', 'Exitosa', 'Exitosa', 'Exitosa', 'Exitosa', 'Error', 'Inválida']);
  expect(lines[7]).toContain(';404;PA011;No encontramos ninguna cuenta para ese identificador.;');
  expect(lines[8]).toContain(';Inválida;;;El dígito verificador del segundo bloque (dígito 22) del CBU no es válido.;');

  // Two batches of 3 and 6 distinct identifiers: 9 credits, visible in Saldo.
  await goTo(page, 'saldo');
  await expect.poll(() => readBalance(page, 'cbu')).toBe(before - 9);
});

test('a pasted CSV counts its rows, not its header, before and after the review', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'lotes');
  await page.getByTestId('bulk-source-paste').click();
  const csv = ['identifier,type', `${ACCOUNTS.company.cbu},cbu`, `${ACCOUNTS.cvu.alias},alias`, `${ACCOUNTS.inactive.cbu},cbu`].join('\n');
  await page.getByTestId('bulk-input').fill(csv);
  await expect(page.getByTestId('bulk-line-count')).toHaveText('3 filas');
  const created = page.waitForResponse((r) => r.url().endsWith('/bridge/bulk.create'));
  await page.getByTestId('bulk-prepare').click();
  const body = await (await created).json();
  expect(body.ok, JSON.stringify(body)).toBe(true);
  const panel = page.locator(`[data-testid="bulk-panel"][data-job-id="${body.value.job.id}"]`);
  // The review's "Filas" (the core's count) says the same.
  await expect(panel.getByTestId('bulk-rows')).toHaveText('3');
  await page.getByTestId('bulk-input').fill(ACCOUNTS.nacion.cbu);
  await expect(page.getByTestId('bulk-line-count')).toHaveText('1 fila');
});

test('a list already run says, next to the start button, that it charges again; cancelling it asks first', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'lotes');
  // The first batch of the test above, pasted again.
  const panel = await prepare(page, [ACCOUNTS.nacion.cbu, ACCOUNTS.galicia.alias, ACCOUNTS.cvu.cbu]);
  await expect(panel).toHaveAttribute('data-status', 'pending');
  await expect(panel.getByTestId('bulk-percent')).toHaveText('0%');
  // Still there once the toast is gone.
  await page.waitForTimeout(2_500);
  await expect(panel.getByTestId('bulk-ran-before')).toContainText('Esta lista ya se consultó el');
  await expect(panel.getByTestId('bulk-ran-before')).toContainText('se vuelve a cobrar');
  await expect(panel.getByTestId('bulk-start')).toBeVisible();

  // Cancel it (nothing is charged): the dialog's way out is not a second "Cancelar", and has the focus.
  await panel.getByTestId('bulk-cancel').click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('confirm-cancel')).toHaveText('Volver');
  await expect(dialog.getByTestId('confirm-cancel')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(panel).toHaveAttribute('data-status', 'pending');
  await panel.getByTestId('bulk-cancel').click();
  await dialog.getByTestId('confirm-ok').click();
  await expect(panel).toHaveAttribute('data-status', 'cancelled');
  await expect(panel.getByTestId('bulk-ran-before')).toHaveCount(0);
  // Nothing of it will run: the three rows are "not looked up", not "pending".
  await expect(panel.getByTestId('bulk-remaining')).toHaveText('3');
  await expect(panel.locator('dt', { hasText: 'Sin consultar' })).toHaveCount(1);
  await expect(panel.locator('dt', { hasText: 'Pendientes' })).toHaveCount(0);
});

test('an operator sees the screen and only their own batches', async ({ page, state }) => {
  await openApp(page, state, 'operator', 'lotes');
  await expect(page.getByTestId('nav-lotes')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Consultas masivas' })).toBeVisible();
  // The admin's batches from the test above are not the operator's.
  await expect(page.getByTestId('bulk-job-row')).toHaveCount(0);
  await expect(page.getByTestId('bulk-prepare')).toBeDisabled();
});
