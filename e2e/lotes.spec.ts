// Consultas masivas in the browser: paste a list, review it (repeated and invalid rows counted, no
// credit spent), run it, watch the progress reach 100 %, export the CSV; and the screenshot
// e2e/screenshots/lotes.png at 1280×800.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { ACCOUNTS, BAD_CHECK_DIGIT_CBU, NOT_FOUND_CBU, REPORTS } from './data';
import { DISK_FULL_MESSAGE } from '../src/main/core/db/disk-full';
import { expect, goTo, openApp, overflowingTables, readBalance, test, showBalance } from './fixtures';
import { wcagViolations } from './axe';

const SCREENSHOT = path.join(__dirname, 'screenshots', 'lotes.png');

/** Pastes a list, reviews it and returns the job's panel once it shows the new job. */
async function prepare(page: Page, list: string[]) {
  const rowCount = list.length === 1 ? '1 fila' : `${list.length} filas`;
  await page.getByTestId('bulk-source-paste').click();
  await page.getByTestId('bulk-input').fill(list.join('\n'));
  await expect(page.getByTestId('bulk-line-count')).toHaveText(rowCount);
  const created = page.waitForResponse((r) => r.url().endsWith('/bridge/bulk.create'));
  await page.getByTestId('bulk-prepare').click();
  const body = await (await created).json();
  expect(body.ok, JSON.stringify(body)).toBe(true);
  const panel = page.locator(`[data-testid="bulk-panel"][data-job-id="${body.value.job.id}"]`);
  await expect(panel).toBeVisible();
  return panel;
}

/** Today in the page's time zone as YYYY-MM-DD: the day an export's file name carries. */
function localDay(page: Page): Promise<string> {
  return page.evaluate(() => new Date().toLocaleDateString('sv-SE'));
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
  // The products by the names every other screen gives them.
  await expect(page.getByTestId('bulk-product-cbu')).toHaveText('Consulta CBU');
  await expect(page.getByTestId('bulk-product-informes')).toHaveText('Informe crediticio');

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

  // The results on screen, row by row in the list's order, as the export has them (in Spanish).
  await panel.getByTestId('bulk-results-toggle').click();
  // Below the panels, the screen's full width: holders' names need the room.
  const card = page.getByTestId('bulk-results');
  const results = card.getByTestId('bulk-result-row');
  await expect(results).toHaveCount(list.length);
  await expect(card.getByTestId('bulk-results-shown')).toHaveText(`${list.length} de ${list.length} filas`);
  await expect(card.getByTestId('bulk-results-more')).toHaveCount(0);
  await expect(results.nth(0)).toHaveAttribute('data-status', 'SUCCESS');
  await expect(results.nth(0)).toContainText('Encontrado');
  await expect(results.nth(0)).toContainText(ACCOUNTS.nacion.holder);
  await expect(results.nth(0)).toContainText(ACCOUNTS.nacion.taxId);
  await expect(results.nth(0)).toContainText(ACCOUNTS.nacion.bank);
  // The same account pasted again: its first row's outcome, and no second charge.
  await expect(results.nth(2)).toContainText('Encontrado');
  await expect(results.nth(2)).toContainText('Repite la fila 2 (sin otro cargo)');
  await expect(results.nth(2)).not.toContainText(ACCOUNTS.galicia.holder);
  await expect(results.nth(6)).toHaveAttribute('data-status', 'ERROR');
  // Its Resultado says it all: no sentence repeated on every not-found row of a long list.
  await expect(results.nth(6)).toContainText('PA011 Sin resultados');
  await expect(results.nth(6)).not.toContainText('No encontramos');
  await expect(results.nth(7)).toHaveAttribute('data-status', 'INVALID');
  await expect(results.nth(7)).toContainText('El dígito verificador del segundo bloque (dígito 22) del CBU no es válido.');
  await panel.getByTestId('bulk-results-toggle').click();
  await expect(card).toHaveCount(0);

  // The export: one row per pasted line, in order, with status and code.
  const downloading = page.waitForEvent('download');
  await panel.getByTestId('bulk-export').click();
  const download = await downloading;
  // Named after the batch with the day it was made as AAAA-MM-DD, as Historial's file: the day the name
  // says in the screen's order (23/11/2026) is rewritten in place, so the files sort by date.
  expect(download.suggestedFilename()).toMatch(new RegExp(`^titular-lote-Lista-pegada-${await localDay(page)}-\\d{2}-\\d{2}-\\d{2}\\.csv$`));
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

test('the results of a long batch come 50 rows at a time, the rest on asking, and fit the screen at 1024, 1280 and 1920 px', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'lotes');
  // 55 rows of one account (one lookup, one credit), another account, and an invalid one.
  const panel = await prepare(page, [...Array.from({ length: 55 }, () => ACCOUNTS.company.cbu), ACCOUNTS.nacion.cbu, BAD_CHECK_DIGIT_CBU]);
  await expect(panel.getByTestId('bulk-results-toggle')).toHaveCount(0);
  await runToEnd(page, panel);
  await panel.getByTestId('bulk-results-toggle').click();
  const card = page.getByTestId('bulk-results');
  const results = card.getByTestId('bulk-result-row');
  await expect(results).toHaveCount(50);
  await expect(card.getByTestId('bulk-results-shown')).toHaveText('50 de 57 filas');
  await expect(results.nth(0)).toContainText('07202102 00000456789014');
  // From the keyboard: once the last page is in, focus goes on to the first new row, not back to the page's start.
  await card.getByTestId('bulk-results-more').focus();
  await page.keyboard.press('Enter');
  await expect(results).toHaveCount(57);
  await expect(card.getByTestId('bulk-results-more')).toHaveCount(0);
  await expect(results.nth(50)).toBeFocused();
  await expect(results.nth(54)).toContainText('Repite la fila 1');
  await expect(results.nth(55)).toContainText(ACCOUNTS.nacion.holder);
  await expect(results.nth(56)).toHaveAttribute('data-status', 'INVALID');
  expect(await wcagViolations(page)).toEqual([]);
  for (const width of [1920, 1280, 1024]) {
    await page.setViewportSize({ width, height: 800 });
    expect(await overflowingTables(page), `${width} px`).toEqual([]);
    // The holder's name whole, not cut at the table's edge.
    const cut = await results.nth(55).locator('td').evaluateAll((cells) => cells.filter((c) => c.scrollWidth > c.clientWidth + 1).length);
    expect(cut, `${width} px`).toBe(0);
  }
  // The column names stay in view while the rows scroll.
  await page.setViewportSize({ width: 1280, height: 800 });
  const box = card.locator('.table-wrap');
  await box.evaluate((el) => el.scrollTo(0, 400));
  const head = (await card.locator('thead th').first().boundingBox())!;
  const wrap = (await box.boundingBox())!;
  expect(Math.abs(head.y - wrap.y)).toBeLessThanOrEqual(2);
  await box.evaluate((el) => el.scrollTo(0, 0));
  // The picture: the results in the middle of the window, clear of the top bar.
  await card.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await page.mouse.move(0, 0);
  await page.screenshot({ path: path.join(__dirname, 'screenshots', 'lotes-resultados.png'), animations: 'disabled', caret: 'hide' });
});

test('an Informes batch says each report\'s figures: worst situation, total debt in pesos, bounced checks', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'lotes');
  // The screen says it takes CUITs too (a list of them for credit reports), not only CBUs and aliases.
  await expect(page.locator('.page-header')).toContainText('o de CUIT para informes');
  await page.getByTestId('bulk-product-informes').click();
  const panel = await prepare(page, [REPORTS.company.taxId, REPORTS.clean.taxId]);
  await runToEnd(page, panel);
  await panel.getByTestId('bulk-results-toggle').click();
  const card = page.getByTestId('bulk-results');
  await expect(card.locator('thead')).toContainText('Informe o detalle');
  const results = card.getByTestId('bulk-result-row');
  await expect(results.nth(0)).toContainText(`${REPORTS.company.name} · ${REPORTS.company.taxId}`);
  await expect(results.nth(0).getByTestId('bulk-result-report')).toHaveText('Peor situación: 3 · Deuda total $ 59.250.500,00 · Cheques rechazados: 2');
  await expect(results.nth(1).getByTestId('bulk-result-report')).toHaveText('Sin deudas informadas · Deuda total $ 0,00');
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

test('one identifier is said in the singular: the cost, the start button and the cancel dialog, in Spanish and in English', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'lotes');
  const panel = await prepare(page, [ACCOUNTS.inactive.cbu]);
  await expect(panel).toHaveAttribute('data-status', 'pending');
  await expect(panel.getByTestId('bulk-cost')).toContainText('Este lote consume hasta 1 crédito. Disponibles:');
  await expect(panel.getByTestId('bulk-start')).toHaveText('Iniciar (1 crédito como máximo)');
  await panel.getByTestId('bulk-cancel').click();
  await expect(page.getByRole('dialog')).toContainText('El identificador pendiente no se va a consultar.');
  await page.getByRole('dialog').getByTestId('confirm-cancel').click();

  await page.getByTestId('lang-switch').click();
  await expect(panel.getByTestId('bulk-cost')).toContainText('This batch spends up to 1 credit. Available:');
  await expect(panel.getByTestId('bulk-start')).toHaveText('Start (up to 1 credit)');
  await panel.getByTestId('bulk-cancel').click();
  await expect(page.getByRole('dialog')).toContainText('The pending identifier will not be looked up.');
  await page.getByRole('dialog').getByTestId('confirm-ok').click();
  await expect(panel).toHaveAttribute('data-status', 'cancelled');
});

test('the batch\'s name and an invalid CBU are whole at 1024, 1280 and 1920 px, where the panel has room for them, and no table scrolls sideways', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'lotes');
  const panel = await prepare(page, [ACCOUNTS.cvu.alias, BAD_CHECK_DIGIT_CBU, `${ACCOUNTS.company.cbu}9`]);
  await panel.getByTestId('bulk-invalid-toggle').click();
  const table = panel.getByTestId('bulk-invalid-table');
  await expect(table).toContainText(BAD_CHECK_DIGIT_CBU);
  const cut = (locator: ReturnType<Page['locator']>) => locator.evaluateAll((els) => els.filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent));
  for (const width of [1920, 1280, 1024]) {
    await page.setViewportSize({ width, height: 800 });
    // "Lista pegada 23/11/2026, 14:05:37", not "Lista pegada 23/11…".
    await expect(panel.getByTestId('bulk-panel-name')).toHaveText(/^Lista pegada \d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}:\d{2}$/);
    expect(await cut(panel.getByTestId('bulk-panel-name')), `${width} px`).toEqual([]);
    // The 22 digits of a CBU, and the 23 typed by mistake, never cut.
    expect(await cut(table.locator('td')), `${width} px`).toEqual([]);
    // No table of the screen (the batches, the invalid rows) needs a sideways scrollbar.
    expect(await overflowingTables(page), `${width} px`).toEqual([]);
  }
  await panel.getByTestId('bulk-cancel').click();
  await page.getByRole('dialog').getByTestId('confirm-ok').click();
  await expect(panel).toHaveAttribute('data-status', 'cancelled');
});

test('two lists pasted in the same minute get names that tell them apart, kept as they were made; their files carry the day', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'lotes');
  // Two moments of one minute, 20 s apart (the page's clock only: the core still dates the jobs).
  const at = new Date();
  at.setSeconds(10, 0);
  await page.clock.setFixedTime(at);
  const first = await prepare(page, [ACCOUNTS.inactive.cbu, ACCOUNTS.company.alias]);
  const firstName = await first.getByTestId('bulk-panel-name').innerText();
  const firstRow = page.locator(`[data-testid="bulk-job-row"][data-job-id="${await first.getAttribute('data-job-id')}"]`);
  await page.clock.setFixedTime(new Date(at.getTime() + 20_000));
  const second = await prepare(page, [ACCOUNTS.inactive.alias, ACCOUNTS.nacion.alias]);
  const secondName = await second.getByTestId('bulk-panel-name').innerText();
  const secondRow = page.locator(`[data-testid="bulk-job-row"][data-job-id="${await second.getAttribute('data-job-id')}"]`);
  expect(firstName).toMatch(/^Lista pegada \d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}:10$/);
  expect(secondName).toMatch(/^Lista pegada \d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}:30$/);
  expect(secondName.slice(0, -3)).toBe(firstName.slice(0, -3));
  await expect(firstRow.locator('td').first()).toHaveText(firstName);
  await expect(secondRow.locator('td').first()).toHaveText(secondName);

  // A name is stored as it was written: in English the lists still say what they were called.
  await page.getByTestId('lang-switch').click();
  await expect(second.getByTestId('bulk-panel-name')).toHaveText(secondName);
  await expect(firstRow.locator('td').first()).toHaveText(firstName);
  // The English file, with the day the batch was made.
  const downloading = page.waitForEvent('download');
  await second.getByTestId('bulk-export').click();
  expect((await downloading).suggestedFilename()).toMatch(new RegExp(`^titular-batch-Lista-pegada-${await localDay(page)}-\\d{2}-\\d{2}-\\d{2}\\.csv$`));

  for (const [panel, row] of [[second, secondRow], [first, firstRow]] as const) {
    await row.click();
    await panel.getByTestId('bulk-cancel').click();
    await page.getByRole('dialog').getByTestId('confirm-ok').click();
    await expect(panel).toHaveAttribute('data-status', 'cancelled');
  }
});

test('with no credits the start button is disabled and says why, as Consulta does', async ({ page, state }) => {
  await showBalance(page, 'cbu', 0);
  await openApp(page, state, 'admin', 'lotes');
  const panel = await prepare(page, [ACCOUNTS.company.alias, ACCOUNTS.cvu.cbu]);
  await expect(panel.getByTestId('bulk-cost')).toHaveText('Este lote consume hasta 2 créditos. Disponibles: 0.');
  await expect(panel.getByTestId('bulk-start')).toBeDisabled();
  await expect(panel.getByTestId('bulk-no-credits')).toHaveText('No te quedan créditos de Consulta CBU. Un administrador puede registrar una compra en Saldo.');
  await panel.getByTestId('bulk-cancel').click();
  await page.getByRole('dialog').getByTestId('confirm-ok').click();
  await expect(panel).toHaveAttribute('data-status', 'cancelled');
});

test('a batch stopped for lack of credits says, once there are credits again, to resume it', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'lotes');
  const panel = await prepare(page, [ACCOUNTS.galicia.cbu]);
  const jobId = await panel.getAttribute('data-job-id');
  // The job as the core reports one that ran out of credits, and no credits at first.
  let credits: number | null = 0;
  await page.route('**/bridge/bulk.get', async (route) => {
    const response = await route.fetch();
    const json = await response.json();
    if (json.value?.job?.id === jobId) json.value.job.status = 'out_of_credits';
    await route.fulfill({ response, json });
  });
  await page.route('**/bridge/balance.get', async (route) => {
    const response = await route.fetch();
    const json = await response.json();
    for (const b of json.value.balances) if (b.productSlug === 'cbu' && credits !== null) b.balance = credits;
    await route.fulfill({ response, json });
  });
  await page.reload();
  const stopped = page.locator(`[data-testid="bulk-panel"][data-job-id="${jobId}"]`);
  await expect(stopped).toHaveAttribute('data-status', 'out_of_credits');
  const notice = stopped.getByTestId('bulk-out-of-credits');
  await expect(notice).toContainText('Se agotaron los créditos');
  await expect(notice).toContainText('Queda 1 identificador sin consultar (hasta 1 crédito de Consulta CBU). Un administrador puede registrar una compra en Saldo');
  await expect(stopped.getByTestId('bulk-resume')).toBeDisabled();

  // A purchase in Saldo: the batch's notice now says there are credits, and to resume it.
  credits = null;
  await goTo(page, 'saldo');
  await page.getByTestId('purchase-amount').fill('5');
  await page.getByTestId('purchase-reference').fill(`FAC-LOTE-${Date.now()}`);
  await page.getByTestId('purchase-submit').click();
  await expect(page.getByTestId('purchase-result')).toContainText('Se acreditaron 5 créditos');
  // The balance the purchase left (the card read before it was the 0 above).
  await expect(page.getByTestId('balance-card-cbu')).not.toHaveAttribute('data-balance', '0');
  const available = await readBalance(page, 'cbu');
  await goTo(page, 'lotes');
  await expect(notice).toContainText('Ya hay créditos para seguir');
  await expect(notice).toContainText(`Falta consultar 1 identificador y hay ${available.toLocaleString('es-AR')} créditos de Consulta CBU disponibles. Reanudá el lote para terminarlo`);
  await expect(notice).not.toContainText('Un administrador puede registrar una compra');
  await expect(stopped.getByTestId('bulk-resume')).toBeEnabled();
  await page.getByTestId('lang-switch').click();
  await expect(notice).toContainText('There are credits to go on');
  await expect(notice).toContainText(`1 identifier is still to look up and ${available.toLocaleString('en-US')} CBU Lookup credits are available. Resume the batch`);

  // Back to what the core says (pending), and cancelled so that nothing of it is left to run.
  await page.unrouteAll();
  await page.reload();
  await expect(stopped).toHaveAttribute('data-status', 'pending');
  await stopped.getByTestId('bulk-cancel').click();
  await page.getByRole('dialog').getByTestId('confirm-ok').click();
  await expect(stopped).toHaveAttribute('data-status', 'cancelled');
});

test('a batch stopped by a full disk says so in Spanish, and can be resumed', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'lotes');
  const panel = await prepare(page, [ACCOUNTS.galicia.cbu]);
  const jobId = await panel.getAttribute('data-job-id');
  // The job as the core reports one whose run stopped on a full disk (test/reliability/disk-full.test.ts).
  await page.route('**/bridge/bulk.get', async (route) => {
    const response = await route.fetch();
    const json = await response.json();
    if (json.value?.job?.id === jobId) Object.assign(json.value.job, { status: 'paused', lastError: DISK_FULL_MESSAGE });
    await route.fulfill({ response, json });
  });
  await page.reload();
  const stopped = page.locator(`[data-testid="bulk-panel"][data-job-id="${jobId}"]`);
  await expect(stopped).toHaveAttribute('data-status', 'paused');
  const banner = stopped.getByRole('alert');
  await expect(banner).toContainText('El disco donde Titular guarda sus datos está lleno. Lo que falló no se registró ni se cobró: liberá espacio y volvé a intentar.');
  await expect(banner).not.toContainText('The disk holding');
  await expect(stopped.getByTestId('bulk-resume')).toBeEnabled();
  await page.screenshot({ path: test.info().outputPath('lotes-disk-full.png') });
});

test('from the keyboard, reviewing and starting a batch leave the focus on its panel, not on <body>', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'lotes');
  await page.getByTestId('bulk-source-paste').click();
  await page.getByTestId('bulk-input').fill([ACCOUNTS.company.alias, ACCOUNTS.inactive.cbu].join('\n'));
  const created = page.waitForResponse((r) => r.url().endsWith('/bridge/bulk.create'));
  // "Revisar lote" empties the list and disables itself: the reviewed batch's title takes the focus.
  await page.getByTestId('bulk-prepare').press('Enter');
  const body = await (await created).json();
  expect(body.ok, JSON.stringify(body)).toBe(true);
  const panel = page.locator(`[data-testid="bulk-panel"][data-job-id="${body.value.job.id}"]`);
  await expect(panel.getByTestId('bulk-panel-name')).toBeFocused();

  // "Iniciar" disables itself while it is sent and leaves once the batch runs: focus stays on the panel.
  await panel.getByTestId('bulk-start').press('Enter');
  await expect(panel).toHaveAttribute('data-status', 'completed', { timeout: 20_000 });
  await expect(panel.getByTestId('bulk-panel-name')).toBeFocused();
});

test('Nuevo lote quotes the CSV column names with “ ” in Spanish, as the other Spanish screens do; English keeps straight quotes', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'lotes');
  await expect(page.getByText('Uno por línea, o un CSV con una columna “identifier” (y opcional “type”).')).toBeVisible();
  // No word between straight double quotes anywhere on the Spanish screen.
  expect(await page.locator('main').innerText()).not.toMatch(/"[\p{L}\p{N} ._-]+"/u);
  await page.getByTestId('lang-switch').click();
  await expect(page.getByText('One per line, or a CSV with an "identifier" column (and an optional "type").')).toBeVisible();
  await page.getByTestId('lang-switch').click();
  await expect(page.getByTestId('lang-switch')).toHaveAttribute('data-lang', 'es');
});

test('Nuevo lote: product and source are single choices, one radio group each, the Arrow keys moving the choice', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'lotes');
  const product = page.getByRole('radiogroup', { name: 'Producto' });
  await expect(product.getByRole('radio')).toHaveCount(2);
  await expect(page.getByTestId('bulk-product-cbu')).toHaveAttribute('aria-checked', 'true');
  await page.getByTestId('bulk-product-cbu').focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('bulk-product-informes')).toBeFocused();
  await expect(page.getByTestId('bulk-product-informes')).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByText('CUIT o CUIL', { exact: true })).toBeVisible();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('bulk-product-cbu')).toHaveAttribute('aria-checked', 'true');
  // One Tab stop per group: from the product's checked option, Tab goes to the source's.
  await page.keyboard.press('Tab');
  const source = page.getByRole('radiogroup', { name: 'Origen' });
  await expect(source.locator('[aria-checked="true"]')).toBeFocused();
});
