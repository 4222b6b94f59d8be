// On a passphrase vault, creating and rotating a key ask for the vault's passphrase, as revealing
// one does: a new or rotated key is as good as a revealed one to whoever sits at an unlocked desktop.
// The e2e vault is a key file: the core's answers of a passphrase vault are played word for word
// (src/main/core/ipc/handlers.ts askAgain, vault/passphrase-attempts.ts) until the right passphrase
// is sent, which goes through to the real server (a key-file vault ignores it). Checked: the field
// appears only after the core asks, a wrong passphrase is said in Spanish, nothing is created or
// rotated until the right one, and the right one is what was sent.
import path from 'node:path';
import type { Page, Route } from '@playwright/test';
import { apiGet, expect, openApp, test } from './fixtures';
import { wcagViolations } from './axe';

const RIGHT = 'la frase correcta de la bóveda';

/** Fills in the create form (a name and the balance scope) and sends it. */
async function submitKeyForm(page: Page, name: string): Promise<void> {
  await page.getByTestId('key-create-name').fill(name);
  await page.getByTestId('key-create-scope-balance').check();
  await page.getByTestId('key-create-submit').click();
}

/** Plays a passphrase vault on `channel`: asks for the passphrase, refuses a wrong one, lets the right one through. Answers the passphrases sent. */
async function passphraseVault(page: Page, channel: 'keys.create' | 'keys.rotate', verb: string): Promise<(string | undefined)[]> {
  const sent: (string | undefined)[] = [];
  const refuse = (route: Route, message: string) => route.fulfill({ json: { ok: false, error: { code: 'UNAUTHORIZED', message, status: 401 } } });
  await page.route(`**/bridge/${channel}`, (route) => {
    const passphrase = route.request().postDataJSON().passphrase as string | undefined;
    sent.push(passphrase);
    if (passphrase === undefined) return refuse(route, `Enter the vault passphrase to ${verb}`);
    if (passphrase !== RIGHT) return refuse(route, 'Wrong passphrase');
    return route.continue();
  });
  return sent;
}

test('creating a key asks for the passphrase in a dialog; a wrong one is said, the right one creates it', async ({ page, state }) => {
  const sent = await passphraseVault(page, 'keys.create', 'create a key');
  await openApp(page, state, 'admin', 'claves');
  const name = `Frase al crear ${Date.now().toString(36)}`;
  await submitKeyForm(page, name);

  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Confirmar la nueva clave');
  await expect(dialog).toContainText(`Crear “${name}”: quien tenga la clave nueva puede consultar en nombre de la organización.`);
  await expect(dialog).toContainText('Ingresala para crear la clave.');
  await expect(page.getByTestId('key-passphrase')).toBeFocused();
  // The form itself shows no error for the question.
  await expect(page.getByTestId('key-create-error')).toHaveCount(0);
  await expect(dialog.getByTestId('confirm-ok')).toBeDisabled();

  await page.getByTestId('key-passphrase').fill('no es la frase');
  await dialog.getByTestId('confirm-ok').click();
  await expect(dialog.getByTestId('key-action-error')).toContainText('La frase de acceso no es correcta.');
  await expect(page.getByTestId('key-row').filter({ hasText: name })).toHaveCount(0);
  await page.screenshot({ path: path.join(__dirname, 'screenshots', 'claves-crear-con-frase.png') });
  // The dialog with its field and its error, as axe-core sees it (WCAG 2.1 A and AA).
  expect(await wcagViolations(page)).toEqual([]);

  await page.getByTestId('key-passphrase').fill(RIGHT);
  await dialog.getByTestId('confirm-ok').click();
  await expect(dialog).toHaveCount(0);
  const secret = (await page.getByTestId('key-secret').innerText()).trim();
  expect(secret).toMatch(/^sk_live_\S{20,}$/);
  expect(sent).toEqual([undefined, 'no es la frase', RIGHT]);
  expect((await apiGet(state, '/api/v1/balance', secret)).status).toBe(200);

  // Cancelling the question creates nothing and leaves the form as filled in.
  const other = `Frase cancelada ${Date.now().toString(36)}`;
  await submitKeyForm(page, other);
  await dialog.getByTestId('confirm-cancel').click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('key-create-name')).toHaveValue(other);
  await expect(page.getByTestId('key-create-error')).toHaveCount(0);
  await expect(page.getByTestId('key-row').filter({ hasText: other })).toHaveCount(0);

  const row = page.getByTestId('key-row').filter({ hasText: name });
  await page.unrouteAll();
  await row.getByTestId('key-revoke').click();
  await page.getByTestId('confirm-ok').click();
  await expect(row).toHaveAttribute('data-status', 'revoked');
});

test('rotating a key asks for the passphrase in its dialog; a wrong one is said and rotates nothing, the right one rotates', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'claves');
  const name = `Frase al rotar ${Date.now().toString(36)}`;
  await submitKeyForm(page, name);
  const first = (await page.getByTestId('key-secret').innerText()).trim();
  await page.getByTestId('key-secret-dismiss').click();

  const sent = await passphraseVault(page, 'keys.rotate', 'rotate a key');
  const row = page.getByTestId('key-row').filter({ hasText: name });
  await row.getByTestId('key-rotate').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('confirm-ok').click();
  await expect(page.getByTestId('key-passphrase')).toBeFocused();
  await expect(dialog).toContainText('Ingresala para rotar la clave.');
  // Asking is not an error.
  await expect(dialog.getByTestId('key-action-error')).toHaveCount(0);

  await page.getByTestId('key-passphrase').fill('tampoco es');
  await dialog.getByTestId('confirm-ok').click();
  await expect(dialog.getByTestId('key-action-error')).toContainText('La frase de acceso no es correcta.');
  expect((await apiGet(state, '/api/v1/balance', first)).status).toBe(200);

  await page.getByTestId('key-passphrase').fill(RIGHT);
  await dialog.getByTestId('confirm-ok').click();
  await expect(dialog).toHaveCount(0);
  const rotated = (await page.getByTestId('key-secret').innerText()).trim();
  expect(rotated).not.toBe(first);
  expect(sent).toEqual([undefined, 'tampoco es', RIGHT]);
  expect((await apiGet(state, '/api/v1/balance', first)).status).toBe(401);
  expect((await apiGet(state, '/api/v1/balance', rotated)).status).toBe(200);

  await page.unrouteAll();
  await page.getByTestId('key-secret-dismiss').click();
  await row.getByTestId('key-revoke').click();
  await page.getByTestId('confirm-ok').click();
  await expect(row).toHaveAttribute('data-status', 'revoked');
});

test('a confirmation declined at the OS prompt (the desktop, keychain vaults) is said as such, not as a missing permission', async ({ page, state }) => {
  // The Electron shell's answer word for word (core/ipc/handlers.ts askAgain); the browser mode has no OS prompt.
  await page.route('**/bridge/keys.rotate', (route) =>
    route.fulfill({ json: { ok: false, error: { code: 'FORBIDDEN', message: 'Rotation cancelled at the confirmation prompt', status: 403 } } }),
  );
  await openApp(page, state, 'admin', 'claves');
  const name = `Aviso cancelado ${Date.now().toString(36)}`;
  await submitKeyForm(page, name);
  await page.getByTestId('key-secret-dismiss').click();
  const row = page.getByTestId('key-row').filter({ hasText: name });
  await row.getByTestId('key-rotate').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('confirm-ok').click();
  const error = dialog.getByTestId('key-action-error');
  await expect(error).toContainText('Cancelaste la confirmación: no se mostró, creó ni rotó ninguna clave.');
  await expect(error).not.toContainText('permiso');
  await expect(page.getByTestId('key-passphrase')).toHaveCount(0);
  await dialog.getByTestId('confirm-cancel').click();
  await page.unrouteAll();
  await row.getByTestId('key-revoke').click();
  await page.getByTestId('confirm-ok').click();
  await expect(row).toHaveAttribute('data-status', 'revoked');
});
