// A key whose stored IP whitelist cannot be read, and an audit entry whose details cannot be read
// (damaged cells: written by another tool, or cut by a disk fault that left SQLite's pages valid).
// Each used to fail the whole Claves screen: the key list and the audit trail with it, so an admin
// could not even revoke the key. Now the key is listed with a red "Lista de IP ilegible" (it is
// refused from every address) and can be revoked, and the entry says "Detalle ilegible". The key is
// made for this test and revoked by it; the audit entry is put back after it.
import path from 'node:path';
import Database from 'better-sqlite3';
import { pastAppendOnlyGuard } from '../test/support/append-only';
import { expect, goTo, openApp, test } from './fixtures';
import { wcagViolations } from './axe';

test('a key with an unreadable IP whitelist is listed, marked and revoked; an audit entry with unreadable details says so', async ({ page, state }) => {
  // The screens keep what they read for 15 s: the clock is moved past that instead of waiting.
  await page.clock.install();
  await openApp(page, state, 'admin', 'claves');
  const name = `IP ilegible ${Date.now().toString(36)}`;
  await expect(page.getByTestId('key-create-submit')).toBeVisible();
  await page.getByTestId('key-create-name').fill(name);
  await page.getByTestId('key-create-scope-balance').check();
  await page.getByTestId('key-create-submit').click();
  await expect(page.getByTestId('key-secret')).toBeVisible();
  const row = page.getByTestId('key-row').filter({ hasText: name });
  const keyId = await row.getAttribute('data-key-id');
  await expect(row.getByTestId('key-whitelist-damaged')).toHaveCount(0);

  const db = new Database(path.join(state.dataDir, 'titular.db'));
  const entry = db.prepare("SELECT id, details FROM audit_log WHERE action = 'key.created' AND target_id = ?").get(keyId) as { id: string; details: string };
  try {
    db.prepare('UPDATE api_keys SET ip_whitelist = ? WHERE id = ?').run('["10.0.', keyId);
    pastAppendOnlyGuard(db, () => db.prepare('UPDATE audit_log SET details = ? WHERE id = ?').run(entry.details.slice(0, 5), entry.id));
    // Away and back, 15 s later: the screen reads the key list and the audit trail again.
    await goTo(page, 'consulta');
    await page.clock.fastForward(16_000);
    await goTo(page, 'claves');
    const badge = row.getByTestId('key-whitelist-damaged');
    await expect(badge).toContainText('Lista de IP ilegible');
    await expect(badge).toHaveAttribute('title', /ninguna dirección puede usarla\. Revóquela y cree una nueva\./);
    // Only that key is marked.
    await expect(page.getByTestId('key-whitelist-damaged')).toHaveCount(1);
    const audit = page.getByTestId('audit-table');
    const damagedEntry = audit.getByTestId('audit-row').filter({ hasText: 'Detalle ilegible (dañado en la base de datos)' });
    await expect(damagedEntry).toHaveCount(1);
    // Both in the picture: the key's row above the audit trail's first rows.
    await damagedEntry.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(__dirname, 'screenshots', 'claves-lista-ip-ilegible.png') });
    expect(await wcagViolations(page)).toEqual([]);

    // Revoking is what the admin is told to do, and it works.
    await row.getByTestId('key-revoke').click();
    await page.getByTestId('confirm-ok').click();
    await expect(row).toHaveAttribute('data-status', 'revoked');
    await expect(row.getByTestId('key-whitelist-damaged')).toHaveCount(0);
  } finally {
    pastAppendOnlyGuard(db, () => db.prepare('UPDATE audit_log SET details = ? WHERE id = ?').run(entry.details, entry.id));
    db.close();
  }
});
