// A history entry whose stored answer cannot be read (a damaged cell: written by another tool, or cut
// by a disk fault that left SQLite's pages valid) is listed with the rest of what it holds, marked in
// Spanish, and the CSV export says how many it met. It used to fail the whole Historial screen. The
// row is damaged in the shared data directory for this test only, and put back after it.
import path from 'node:path';
import Database from 'better-sqlite3';
import { pastAppendOnlyGuard } from '../test/support/append-only';
import { ACCOUNTS } from './data';
import { expect, goTo, lookup, openApp, test } from './fixtures';

test('a damaged entry is listed and marked, its detail says what is intact, and the export says it met one', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'consulta');
  expect(await lookup(page, ACCOUNTS.nacion.cbu)).toBe('result');
  const db = new Database(path.join(state.dataDir, 'titular.db'));
  const newest = db.prepare("SELECT id, response_data AS data FROM lookups WHERE environment = 'live' AND product = 'cbu' ORDER BY id DESC LIMIT 1").get() as { id: string; data: string };
  try {
    // Cut in the middle, as a torn write leaves it.
    pastAppendOnlyGuard(db, () => db.prepare('UPDATE lookups SET response_data = ? WHERE id = ?').run(newest.data.slice(0, 20), newest.id));
    await goTo(page, 'historial');
    const first = page.getByTestId('history-row').first();
    await expect(first.getByTestId('history-result-damaged')).toHaveText('Contenido dañado');
    // The rest of the entry as recorded: its identifier is there.
    await expect(first).toContainText(ACCOUNTS.nacion.cbu.slice(-6));
    await first.click();
    await expect(page.getByTestId('history-detail-damaged')).toContainText('está dañada y no se puede leer');
    // The drawer slides in: the picture once it has.
    await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished)));
    await page.screenshot({ path: path.join(__dirname, 'screenshots', 'historial-contenido-danado.png') });
    await page.keyboard.press('Escape');

    const download = page.waitForEvent('download');
    await page.getByTestId('history-export').click();
    await download;
    await expect(page.getByTestId('toast').filter({ hasText: newest.id })).toBeVisible();
  } finally {
    pastAppendOnlyGuard(db, () => db.prepare('UPDATE lookups SET response_data = ? WHERE id = ?').run(newest.data, newest.id));
    db.close();
  }
});

// A status and a source outside their sets (written by another tool): the screen failed whole, its
// channel refusing the page. The entry is listed, marked, those two fields said unreadable; its
// answer, intact, is still shown in the detail.
test('an entry whose status and source cannot be read is listed and marked, its detail names them and shows its answer', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'consulta');
  expect(await lookup(page, ACCOUNTS.nacion.cbu)).toBe('result');
  const db = new Database(path.join(state.dataDir, 'titular.db'));
  const newest = db.prepare("SELECT id, status, source FROM lookups WHERE environment = 'live' AND product = 'cbu' ORDER BY id DESC LIMIT 1").get() as { id: string; status: string; source: string };
  try {
    pastAppendOnlyGuard(db, () => db.prepare('UPDATE lookups SET status = ?, source = ? WHERE id = ?').run('PENDING', 'CLI', newest.id));
    await goTo(page, 'historial');
    const first = page.getByTestId('history-row').first();
    await expect(first).toHaveAttribute('data-history-id', newest.id);
    await expect(first.getByTestId('history-result-damaged')).toHaveText('Contenido dañado');
    await expect(first.getByTestId('history-row-status')).toHaveText('Ilegible');
    await expect(first.getByTestId('history-row-source')).toHaveText('Ilegible');
    await expect(first).toContainText(ACCOUNTS.nacion.cbu.slice(-6));
    // The other entries as they were.
    await expect(page.getByTestId('history-row').nth(1).getByTestId('history-row-status')).not.toHaveText('Ilegible');
    await first.click();
    await expect(page.getByTestId('history-detail-damaged')).toHaveText(
      'Estos datos de la consulta están dañados y no se pueden leer: estado y origen. El resto de la consulta está como se registró.',
    );
    await expect(page.getByTestId('history-detail')).toContainText(ACCOUNTS.nacion.holder);
    await page.keyboard.press('Escape');

    const download = page.waitForEvent('download');
    await page.getByTestId('history-export').click();
    await download;
    await expect(page.getByTestId('toast').filter({ hasText: `tiene datos dañados (ID ${newest.id}: estado y origen)` })).toBeVisible();
  } finally {
    pastAppendOnlyGuard(db, () => db.prepare('UPDATE lookups SET status = ?, source = ? WHERE id = ?').run(newest.status, newest.source, newest.id));
    db.close();
  }
});
