// Historial: lookups are listed; status, source, text and date filters; the detail drawer shows the
// stored response; the pager's ends and focus; "Exportar CSV" downloads the filtered history.
import { readFileSync } from 'node:fs';
import type { Locator, Page } from '@playwright/test';
import { ACCOUNTS, ADMIN, NOT_FOUND_CBU, REPORTS } from './data';
import { apiGet, expect, goTo, lookup, openApp, overflowingTables, test } from './fixtures';
import { readState } from './state';

const rows = (page: Page) => page.getByTestId('history-row');

function ymd(offsetDays: number): string {
  const d = new Date(Date.now() + offsetDays * 86_400_000);
  return d.toISOString().slice(0, 10);
}

/** Waits until the table shows fresh rows for the current filters (not the previous page's). */
async function settled(page: Page): Promise<void> {
  await expect(page.getByTestId('history-table')).not.toHaveClass(/is-stale/);
  await expect(page.locator('.skeleton-row')).toHaveCount(0);
}

test.beforeAll(async ({ browser }) => {
  // Lookups of this spec: two that resolve (a CBU and an alias) and one not found (ERROR).
  const state = readState();
  const page = await browser.newPage();
  try {
    await openApp(page, state);
    expect(await lookup(page, ACCOUNTS.company.cbu)).toBe('result');
    expect(await lookup(page, NOT_FOUND_CBU)).toBe('error');
    expect(await lookup(page, ACCOUNTS.cvu.alias)).toBe('result');
  } finally {
    await page.close();
  }
});

test('the latest lookups are listed, newest first, with their outcome', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'historial');
  await settled(page);
  await expect(rows(page).first()).toBeVisible();
  const firstThree = rows(page).locator('td:nth-child(2)');
  await expect(firstThree.nth(0)).toHaveText(ACCOUNTS.cvu.alias);
  await expect(firstThree.nth(1)).toHaveText(NOT_FOUND_CBU);
  await expect(firstThree.nth(2)).toHaveText(ACCOUNTS.company.cbu);

  const ok = rows(page).nth(0);
  await expect(ok).toHaveAttribute('data-status', 'SUCCESS');
  await expect(ok).toContainText('Exitosa');
  await expect(ok).toContainText('Martín Rodríguez');
  await expect(ok).toContainText(ADMIN.name);
  const notFound = rows(page).nth(1);
  await expect(notFound).toHaveAttribute('data-status', 'ERROR');
  // The code with what it means, and its whole sentence on hover.
  const result = notFound.getByTestId('history-result-error');
  await expect(result).toHaveText('PA011 Sin resultados');
  await expect(result).toHaveAttribute('title', 'No encontramos ninguna cuenta para ese identificador.');
  await expect(page.getByTestId('history-total')).toContainText('resultados');
});

test('filtering by status ERROR shows only error rows; by source only that source', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'historial');
  await settled(page);
  const total = await rows(page).count();

  await page.getByTestId('history-filter-status').selectOption('ERROR');
  await settled(page);
  await expect(rows(page).first()).toHaveAttribute('data-status', 'ERROR');
  const statuses = await rows(page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-status')));
  expect(statuses.length).toBeGreaterThan(0);
  expect(statuses.length).toBeLessThan(total);
  expect(new Set(statuses)).toEqual(new Set(['ERROR']));
  await expect(rows(page).filter({ hasText: NOT_FOUND_CBU }).first()).toBeVisible();
  await expect(rows(page).filter({ hasText: ACCOUNTS.company.cbu })).toHaveCount(0);

  await page.getByTestId('history-filter-status').selectOption('SUCCESS');
  await settled(page);
  await expect(rows(page).first()).toHaveAttribute('data-status', 'SUCCESS');
  const successes = await rows(page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-status')));
  expect(new Set(successes)).toEqual(new Set(['SUCCESS']));

  // Every lookup of this run was made from the UI: source "Escritorio"; none through the API.
  await page.getByTestId('history-filter-status').selectOption('');
  await page.getByTestId('history-filter-source').selectOption('API');
  await settled(page);
  await expect(rows(page)).toHaveCount(0);
  await expect(page.getByText('Ninguna consulta coincide con los filtros.')).toBeVisible();
  await page.getByTestId('history-filter-source').selectOption('WEB');
  await settled(page);
  await expect(rows(page).first()).toBeVisible();
  const sources = await rows(page).locator('td:nth-child(6)').allInnerTexts();
  expect(new Set(sources)).toEqual(new Set(['Escritorio']));
});

test('the text search narrows the list to matching identifiers', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'historial');
  await settled(page);
  const total = await rows(page).count();
  expect(total).toBeGreaterThan(1);

  await page.getByTestId('history-filter-q').fill('07202102');
  await expect(rows(page)).toHaveCount(1);
  await settled(page);
  const identifiers = await rows(page).locator('td:nth-child(2)').allInnerTexts();
  expect(identifiers).toEqual([ACCOUNTS.company.cbu]);

  // Pasted in groups, as the screens copy it: searched as its digits.
  await page.getByTestId('history-filter-q').fill('0720-2102');
  await settled(page);
  expect(await rows(page).locator('td:nth-child(2)').allInnerTexts()).toEqual([ACCOUNTS.company.cbu]);

  await page.getByTestId('history-filter-q').fill('rodriguez');
  await expect(rows(page).first()).toContainText(ACCOUNTS.cvu.alias);
  await settled(page);
  for (const id of await rows(page).locator('td:nth-child(2)').allInnerTexts()) expect(id).toContain('rodriguez');

  await page.getByTestId('history-filter-q').fill('no.existe.nada');
  await expect(rows(page)).toHaveCount(0);
  await expect(page.getByText('Ninguna consulta coincide con los filtros.')).toBeVisible();

  // From the keyboard: the button disables itself once nothing is filtered, and focus goes to the
  // first filter rather than to <body> (which sent a keyboard user back to the sidebar).
  await page.getByTestId('history-filter-clear').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('history-filter-q')).toHaveValue('');
  await expect(page.getByTestId('history-filter-clear')).toBeDisabled();
  await expect(page.getByTestId('history-filter-from')).toBeFocused();
  await expect(rows(page)).toHaveCount(total);
});

test('a sandbox key\'s lookups are apart: listed under "Pruebas (sandbox)" with the key they came through, never among the live ones', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'historial');
  await settled(page);
  // An integration being built: a sandbox key looks up a sample account through the API.
  const bridge = (channel: string, body: unknown) =>
    page.evaluate(
      async ([name, payload]) => {
        const token = window.sessionStorage.getItem('titular.session');
        const response = await fetch(`/bridge/${name}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Session ${token}` }, body: JSON.stringify(payload) });
        return response.json();
      },
      [channel, body] as const,
    );
  const created = await bridge('keys.create', { name: `Integración ${Date.now().toString(36)}`, product: 'cbu', scopes: ['lookup'], environment: 'sandbox' });
  expect(created.ok).toBe(true);
  try {
    const answer = await apiGet(state, `/api/v1/lookup?identifier=${ACCOUNTS.inactive.cbu}&type=cbu`, created.value.secret);
    expect(answer.status).toBe(200);

    await page.reload();
    await settled(page);
    await expect(rows(page).filter({ hasText: ACCOUNTS.inactive.cbu })).toHaveCount(0);
    await page.getByTestId('history-filter-environment').selectOption('sandbox');
    await settled(page);
    await expect(rows(page).first().locator('td:nth-child(2)')).toHaveText(ACCOUNTS.inactive.cbu);
    await expect(rows(page).first()).toContainText('API');
    // The key it came through: named under its owner in the row, with its prefix in the detail.
    const { name, prefix } = created.value.key as { name: string; prefix: string };
    await expect(rows(page).first().getByTestId('history-row-key')).toHaveText(`Clave de API: ${name}`);
    await rows(page).first().click();
    await expect(page.getByTestId('history-detail-key')).toHaveText(`${name} ${prefix}`);
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('history-detail')).toHaveCount(0);
    // None of the live lookups of this spec is among them.
    await expect(rows(page).filter({ hasText: ACCOUNTS.company.cbu })).toHaveCount(0);
    // "Limpiar filtros" goes back to the live lookups.
    await page.getByTestId('history-filter-clear').click();
    await expect(page.getByTestId('history-filter-environment')).toHaveValue('live');
    await settled(page);
    await expect(rows(page).filter({ hasText: ACCOUNTS.company.cbu }).first()).toBeVisible();
  } finally {
    expect((await bridge('keys.revoke', { id: created.value.key.id })).ok).toBe(true);
  }
});

test('date filters: a range in the future is empty, one around today lists the lookups', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'historial');
  await settled(page);
  await page.getByTestId('history-filter-from').fill(ymd(2));
  await expect(rows(page)).toHaveCount(0);
  await expect(page.getByText('Ninguna consulta coincide con los filtros.')).toBeVisible();

  await page.getByTestId('history-filter-from').fill(ymd(-2));
  await page.getByTestId('history-filter-to').fill(ymd(2));
  await settled(page);
  await expect(rows(page).filter({ hasText: ACCOUNTS.company.cbu }).first()).toBeVisible();
});

test('a range the wrong way round is said under "Desde" and "Hasta" and tied to both, at 1024, 1280 and 1920 px, in both languages', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'historial');
  await settled(page);
  const from = page.getByTestId('history-filter-from');
  const to = page.getByTestId('history-filter-to');
  await from.fill(ymd(2));
  await to.fill(ymd(-2));
  const said = { es: '“Desde” no puede ser posterior a “Hasta”.', en: '“From” cannot be after “To”.' };
  for (const lang of ['es', 'en'] as const) {
    if (lang === 'en') {
      await page.getByTestId('lang-switch').click();
      await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    }
    // Found by its words in the filters' card, wherever the screen puts it.
    const message = page.locator('.filters-card').getByText(said[lang]);
    await expect(message).toBeVisible();
    for (const width of [1024, 1280, 1920]) {
      await page.setViewportSize({ width, height: 800 });
      const place = async (l: Locator) => (await l.boundingBox())!;
      const box = await place(message);
      const fromBox = await place(from);
      const toBox = await place(to);
      const status = await place(page.getByTestId('history-filter-status'));
      const environment = await place(page.getByTestId('history-filter-environment'));
      const where = `${lang}, ${width} px`;
      // Under the two dates, across their columns: not under the second row's Entorno, below them.
      expect(box.y, where).toBeGreaterThanOrEqual(Math.max(fromBox.y + fromBox.height, toBox.y + toBox.height) - 1);
      expect(box.y + box.height, where).toBeLessThanOrEqual(environment.y);
      expect(box.x, where).toBeGreaterThanOrEqual(fromBox.x - 1);
      expect(box.x, where).toBeLessThan(toBox.x + toBox.width);
      // The fields beside the dates stay level with them.
      expect(Math.abs(status.y - fromBox.y), where).toBeLessThanOrEqual(1);
    }
    // Tied to both dates: a screen reader says it with either of them.
    const messageId = await message.getAttribute('id');
    expect(messageId).toBeTruthy();
    for (const input of [from, to]) {
      await expect(input).toHaveAttribute('aria-invalid', 'true');
      await expect(input).toHaveAttribute('aria-describedby', new RegExp(`(^| )${messageId!.replace(/[^\w-]/g, '\\$&')}( |$)`));
    }
  }
  await page.getByTestId('lang-switch').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'es');
  // Put the right way round: the message goes, and the dates are no longer marked.
  await to.fill(ymd(2));
  await from.fill(ymd(-2));
  await expect(page.locator('.filters-card').getByText(said.es)).toHaveCount(0);
  await expect(from).toHaveAttribute('aria-invalid', 'false');
  await expect(from).not.toHaveAttribute('aria-describedby', /./);
});

test('a credit report\'s Tipo is CUIL or CUIT as its report says, CUIT when nothing says it (not found, damaged)', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'consulta');
  // The history's inputType is CUIT for every report (the API's contract): the reports themselves
  // say CUIL for María Laura González (27-…) and CUIT for ACME; a CUIT without a report says neither.
  const answers = await page.evaluate(async (taxIds) => {
    const token = window.sessionStorage.getItem('titular.session');
    const statuses: number[] = [];
    for (const tax_id of taxIds) {
      const r = await fetch('/bridge/lookup.creditReport', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Session ${token}` }, body: JSON.stringify({ tax_id }) });
      statuses.push((await r.json()).value.status);
    }
    return statuses;
  }, [REPORTS.clean.taxId, REPORTS.company.taxId, REPORTS.notFound.taxId]);
  expect(answers).toEqual([200, 200, 404]);

  await goTo(page, 'historial');
  await page.getByTestId('history-product-informes').click();
  await settled(page);
  const types = () => rows(page).getByTestId('history-row-type').allInnerTexts();
  const search = page.getByTestId('history-filter-q');
  for (const [taxId, type] of [
    [REPORTS.clean.taxId, 'CUIL'],
    [REPORTS.company.taxId, 'CUIT'],
    [REPORTS.notFound.taxId, 'CUIT'],
  ] as const) {
    await search.fill(taxId);
    await expect(rows(page).first().locator('td:nth-child(2)')).toHaveText(taxId);
    await settled(page);
    expect(new Set(await types()), taxId).toEqual(new Set([type]));
    // The detail says the same.
    await rows(page).first().click();
    await expect(page.getByTestId('history-detail').locator('.detail-head .badge').first()).toHaveText(type);
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('history-detail')).toHaveCount(0);
  }

  // An entry whose stored report cannot be read says nothing of its subject: CUIT, as the API has it.
  await page.route('**/bridge/history.list', async (route) => {
    const response = await route.fetch();
    const json = await response.json();
    for (const entry of json.value.data) if (entry.inputIdentifier === REPORTS.clean.taxId.replace(/-/g, '')) entry.responseData = { damaged: true };
    await route.fulfill({ response, json });
  });
  await page.reload();
  await page.getByTestId('history-product-informes').click();
  await search.fill(REPORTS.clean.taxId);
  await expect(rows(page).first().getByTestId('history-result-damaged')).toHaveText('Contenido dañado');
  await settled(page);
  expect(new Set(await types())).toEqual(new Set(['CUIT']));
});

test('the pager has first and last page buttons, and focus stays on the button used', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'historial');
  // At least three pages of 10: the lookups that are missing, made through the bridge as the screen makes them.
  await page.evaluate(async (cbu) => {
    const token = window.sessionStorage.getItem('titular.session');
    const call = async (channel: string, body: unknown) => {
      const r = await fetch(`/bridge/${channel}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Session ${token}` }, body: JSON.stringify(body) });
      return r.json();
    };
    const list = await call('history.list', { page: 1, per_page: 10 });
    for (let n = list.value.pagination.total; n < 21; n++) await call('lookup.account', { identifier: cbu, type: 'cbu' });
  }, ACCOUNTS.nacion.cbu);
  await page.reload();
  await settled(page);
  const label = page.getByTestId('page-label');
  await expect(label).toHaveText(/^Página 1 de \d+$/);
  const pages = Number(/de (\d+)/.exec(await label.innerText())![1]);
  expect(pages).toBeGreaterThanOrEqual(3);
  await expect(page.getByTestId('page-first')).toBeDisabled();
  await expect(page.getByTestId('page-prev')).toBeDisabled();
  await expect(page.getByTestId('page-last')).toHaveText('Última');

  // By keyboard: focus stays on "Siguiente" through the load (it no longer drops to <body>).
  await page.getByTestId('page-next').focus();
  await page.keyboard.press('Enter');
  await expect(label).toHaveText(`Página 2 de ${pages}`);
  await settled(page);
  await expect(page.getByTestId('page-next')).toBeFocused();

  // "Última" goes to the end, where it is disabled: focus moves to "Anterior", the nearest way back.
  await page.getByTestId('page-last').click();
  await expect(label).toHaveText(`Página ${pages} de ${pages}`);
  await settled(page);
  await expect(page.getByTestId('page-last')).toBeDisabled();
  await expect(page.getByTestId('page-next')).toBeDisabled();
  await expect(page.getByTestId('page-prev')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(label).toHaveText(`Página ${pages - 1} de ${pages}`);
  await settled(page);
  await expect(page.getByTestId('page-prev')).toBeFocused();

  // "Primera" back to the start: focus moves on to "Siguiente".
  await page.getByTestId('page-first').click();
  await expect(label).toHaveText(`Página 1 de ${pages}`);
  await settled(page);
  await expect(page.getByTestId('page-first')).toBeDisabled();
  await expect(page.getByTestId('page-next')).toBeFocused();
});

test('the detail shows the stored response of a lookup', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'historial');
  await settled(page);
  await page.getByTestId('history-filter-q').fill(ACCOUNTS.company.cbu);
  // The newest lookup of the account (at least this spec's; a retried run adds another).
  await settled(page);
  await expect(rows(page).first()).toContainText(ACCOUNTS.company.cbu);
  await rows(page).first().click();

  const detail = page.getByTestId('history-detail');
  await expect(detail).toBeVisible();
  await expect(detail).toContainText(ACCOUNTS.company.cbu);
  await expect(detail.getByTestId('lookup-result')).toContainText(ACCOUNTS.company.holder);
  await expect(detail.getByTestId('lookup-result')).toContainText('Persona jurídica');
  await expect(detail.getByTestId('holder-tax-id')).toHaveText(ACCOUNTS.company.taxId);
  const json = JSON.parse(await detail.getByTestId('history-detail-json').innerText());
  expect(json.holders[0]).toMatchObject({ full_name: ACCOUNTS.company.holder, tax_id: '30712345671', tax_id_type: 'CUIT', is_individual: false });
  expect(json.account).toEqual({ scheme: 'CBU', number: ACCOUNTS.company.cbu });

  // Escape closes it.
  await page.keyboard.press('Escape');
  await expect(detail).toHaveCount(0);

  // An error entry shows the stored error.
  await page.getByTestId('history-filter-q').fill(NOT_FOUND_CBU);
  await expect(rows(page).first()).toContainText(NOT_FOUND_CBU);
  await settled(page);
  await rows(page).first().click();
  // Said once: the stored sentence ("No account was found for this identifier") only repeats the title.
  await expect(detail.getByTestId('history-detail-error')).toHaveText('No encontramos ninguna cuenta para ese identificador. PA011');
  await expect(detail.getByTestId('lookup-result')).toHaveCount(0);
  const errorJson = JSON.parse(await detail.getByTestId('history-detail-json').innerText());
  expect(errorJson.error.code).toBe('PA011');
  await page.keyboard.press('Escape');
  await page.getByTestId('lang-switch').click();
  await rows(page).first().click();
  await expect(detail.getByTestId('history-detail-error')).toHaveText('No account was found for that identifier. PA011');
});

test('an error\'s meaning in the Resultado column is read whole at 1280 and 1024 px, not cut', async ({ page, state }) => {
  // The real rows, the newest one answered as an invalid identifier (PA006, which the screens never
  // send: it comes through the API).
  await page.route('**/bridge/history.list', async (route) => {
    const response = await route.fetch();
    const json = await response.json();
    const entry = json.value.data[0];
    entry.status = 'ERROR';
    entry.responseData = { error: { code: 'PA006', message: 'CBU check digit of the second block (digit 22) is invalid' } };
    await route.fulfill({ response, json });
  });
  await openApp(page, state, 'admin', 'historial');
  await settled(page);
  const result = rows(page).first().getByTestId('history-result-error');
  await expect(result).toHaveText('PA006 Identificador inválido');
  for (const width of [1280, 1024]) {
    await page.setViewportSize({ width, height: 800 });
    const clipped = await result.locator('.clamp-2').evaluate((el) => el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1);
    expect(clipped, `${width} px`).toBe(false);
    expect(await overflowingTables(page), `${width} px`).toEqual([]);
  }
});

test('a long user name takes two lines, then an ellipsis with the whole name in its tooltip; the table never scrolls sideways', async ({ page, state }) => {
  const LONG = 'María de los Ángeles Fernández de la Torre y Ocampo Benítez';
  // The real rows, the newest one made by a user named at length.
  await page.route('**/bridge/history.list', async (route) => {
    const response = await route.fetch();
    const json = await response.json();
    json.value.data[0].user.name = LONG;
    await route.fulfill({ response, json });
  });
  await openApp(page, state, 'admin', 'historial');
  await settled(page);
  const long = rows(page).first().getByTestId('history-row-user');
  const admin = page.locator(`[data-testid="history-row-user"][title="${ADMIN.name}"]`).first();
  await expect(long).toHaveAttribute('title', LONG);
  await expect(admin).toHaveText(ADMIN.name);
  const lines = (el: Element) => Math.round(el.clientHeight / parseFloat(getComputedStyle(el).lineHeight));
  const cut = (el: Element) => el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1;
  for (const width of [1024, 1280, 1920]) {
    await page.setViewportSize({ width, height: 800 });
    expect(await overflowingTables(page), `${width} px`).toEqual([]);
    expect(await long.evaluate(lines), `${width} px`).toBeLessThanOrEqual(2);
    // A name as long as real ones are reads whole where the table has room (at 1024 px it gives way to Resultado).
    if (width > 1024) expect(await admin.evaluate(cut), `${width} px`).toBe(false);
  }
});

test('CSV export downloads the filtered history for a Spanish spreadsheet', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'historial');
  await settled(page);
  const shown = await rows(page).count();

  let download = page.waitForEvent('download');
  await page.getByTestId('history-export').click();
  const raw = readFileSync((await (await download).path())!, 'utf8');
  // One BOM, so Excel reads the file as UTF-8.
  expect(raw.startsWith('\uFEFFID de consulta;')).toBe(true);
  let csv = raw.replace(/^\uFEFF/, '');
  const lines = csv.split(/\r?\n/).filter((l) => l !== '');
  // Cells split at ";" (Excel set to es-AR), Spanish headers and words, local dd/mm/aaaa times.
  expect(lines[0]).toBe('ID de consulta;Fecha;Identificador;Tipo;Estado;Origen;Créditos;Demora de la fuente (ms);Usuario;Clave de API;Titulares;Código de error');
  expect(lines.length - 1).toBeGreaterThanOrEqual(shown);
  expect(csv).toContain(ACCOUNTS.company.cbu);
  expect(csv).toContain(NOT_FOUND_CBU);
  expect(csv).toContain('ACME Logística S.A.');
  const companyRow = lines.find((l) => l.includes(ACCOUNTS.company.cbu))!;
  // The CBU as ="…" (text, all 22 digits, not a number Excel would round).
  expect(companyRow).toMatch(/;\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2};"=""\d{22}""";CBU;Exitosa;Escritorio;1;\d+;ada@acme\.test;;ACME Logística S\.A\.;$/);
  // The times the table shows: the browser's zone (Buenos Aires here), whatever the server's is.
  const firstShown = (await rows(page).first().locator('td').first().innerText()).replace(', ', ' ');
  expect(lines[1]!.split(';')[1]!.slice(0, 16)).toBe(firstShown);
  expect((await download).suggestedFilename()).toMatch(/^titular-historial-\d{4}-\d{2}-\d{2}\.csv$/);

  // With the ERROR filter the export has only error rows.
  await page.getByTestId('history-filter-status').selectOption('ERROR');
  await settled(page);
  download = page.waitForEvent('download');
  await page.getByTestId('history-export').click();
  csv = readFileSync((await (await download).path())!, 'utf8').replace(/^\uFEFF/, '');
  const errorLines = csv.split(/\r?\n/).filter((l) => l !== '').slice(1);
  expect(errorLines.length).toBeGreaterThan(0);
  for (const line of errorLines) expect(line.split(';')[4]).toBe('Error');
  expect(csv).not.toContain(ACCOUNTS.company.cbu);

  // With the screen in English, the file is in English: commas, English headers and words.
  await page.getByTestId('lang-switch').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  download = page.waitForEvent('download');
  await page.getByTestId('history-export').click();
  csv = readFileSync((await (await download).path())!, 'utf8').replace(/^\uFEFF/, '');
  expect(csv.split('\r\n')[0]).toBe('Lookup ID,Date,Identifier,Type,Status,Source,Credits,Source latency (ms),User,API key,Holders,Error code');
  expect(csv.split('\r\n')[1]).toMatch(/^[0-9a-f-]{36},\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},[^,]*,(CBU|CVU|ALIAS),Error,(Desktop|API|Batch),/);
  expect((await download).suggestedFilename()).toMatch(/^titular-history-\d{4}-\d{2}-\d{2}\.csv$/);
  await page.getByTestId('lang-switch').click();

  // Each export is in the audit trail (Claves), in words: who took how many lookups of which product out.
  await goTo(page, 'claves');
  const exported = page.getByTestId('audit-table').locator('[data-testid="audit-row"][data-action="history.exported"]').first();
  await expect(exported).toContainText('Exportó el historial');
  await expect(exported).toContainText(ADMIN.name);
  await expect(exported).toContainText(/\d+ consultas? · Consulta CBU · Producción · CSV/);
});

// The table shows local times, so the date filters must mean local days (the UI sends their exact
// bounds as instants). Run in a time zone whose date differs from UTC's right now, so a UTC-day
// filter would deterministically hide the row.
// The title must not name the zone: the runner and the worker each load this file, up to minutes apart,
// and a title that changed between them (across 11:00 or 00:00 UTC) fails as "Test not found".
const OFFSET_TZ = new Date().getUTCHours() < 11 ? 'Etc/GMT+12' : 'Pacific/Kiritimati';
test.describe("date filters in a zone whose date is not UTC's", () => {
  test.use({ timezoneId: OFFSET_TZ });

  test('filtering by the date a row shows keeps that row', async ({ page, state }) => {
    await openApp(page, state, 'admin', 'historial');
    await settled(page);
    const row = rows(page).first();
    await expect(row).toBeVisible();
    const id = await row.getAttribute('data-history-id');
    // Today in the browser's time zone: the day the newest row (made minutes ago) shows.
    const localDay = await page.evaluate(() => {
      const d = new Date();
      const pad = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
    });

    await page.getByTestId('history-filter-from').fill(localDay);
    await page.getByTestId('history-filter-to').fill(localDay);
    await settled(page);
    await expect(page.locator(`[data-testid="history-row"][data-history-id="${id}"]`)).toHaveCount(1, { timeout: 3_000 });
  });
});
