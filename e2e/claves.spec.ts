// Claves: a key created in the UI is shown once and works on the localhost API; reveal (after a
// confirmation) shows the same secret; rotate replaces it (old 401, new 200); revoke (confirmed)
// applies to the very next request; the audit trail names every action. Also: create-form
// restrictions (IP whitelist, sandbox) and the active-key limit.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { apiGet, expect, openApp, test } from './fixtures';
import type { E2eState } from './state';
import { ADMIN } from './data';
import { wcagViolations } from './axe';

const KEY_NAME = `ERP e2e ${Date.now().toString(36)}`;
let keyId = '';
let firstSecret = '';
let rotatedSecret = '';

function cliEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.TITULAR_PASSPHRASE;
  delete env.TITULAR_DATA_DIR;
  return env;
}

const rowOf = (page: Page, name: string) => page.getByTestId('key-row').filter({ hasText: name });

async function openClaves(page: Page, state: E2eState): Promise<void> {
  await openApp(page, state, 'admin', 'claves');
  await expect(page.getByTestId('key-create-submit')).toBeVisible();
  await expect(page.locator('[data-testid="keys-table"] .skeleton-row')).toHaveCount(0);
}

test.describe.serial('key lifecycle', () => {
  test('create: the secret is shown once and works on the API', async ({ page, state }) => {
    await openClaves(page, state);
    const submit = page.getByTestId('key-create-submit');
    // No scope chosen: cannot be created, and the form says why.
    await page.getByTestId('key-create-name').fill(KEY_NAME);
    await expect(submit).toBeDisabled();
    await expect(page.getByTestId('key-create-scopes-hint')).toHaveText('Elegí al menos un permiso.');

    await page.getByTestId('key-create-product').selectOption('cbu');
    await page.getByTestId('key-create-environment').selectOption('live');
    await page.getByTestId('key-create-scope-lookup').check();
    await page.getByTestId('key-create-scope-balance').check();
    await page.getByTestId('key-create-scope-history').check();
    await page.getByTestId('key-create-rate').fill('25');
    await expect(submit).toBeEnabled();
    await expect(page.getByTestId('key-create-scopes-hint')).toHaveCount(0);
    await submit.click();

    const secret = page.getByTestId('key-secret');
    await expect(secret).toBeVisible();
    await expect(page.getByTestId('key-secret-box')).toHaveAttribute('data-kind', 'created');
    firstSecret = (await secret.innerText()).trim();
    expect(firstSecret).toMatch(/^sk_live_\S{20,}$/);

    const row = rowOf(page, KEY_NAME);
    await expect(row).toHaveCount(1);
    await expect(row).toHaveAttribute('data-status', 'active');
    await expect(row).toContainText('Consulta CBU');
    await expect(row).toContainText('Producción');
    await expect(row).toContainText('Consultas');
    await expect(row).toContainText('Saldo');
    await expect(row).toContainText('Historial');
    await expect(row).toContainText('Activa');
    await expect(row).toContainText(ADMIN.name);
    // The list shows a prefix, never the secret.
    await expect(row).not.toContainText(firstSecret);
    keyId = (await row.getAttribute('data-key-id'))!;
    // A name cut by the column's ellipsis is whole in the tooltip; each row's buttons name their key.
    await expect(row.locator('.cell-title')).toHaveAttribute('title', KEY_NAME);
    await expect(row.getByTestId('key-reveal')).toHaveAccessibleName(`Revelar la clave ${KEY_NAME}`);
    await expect(row.getByTestId('key-rotate')).toHaveAccessibleName(`Rotar la clave ${KEY_NAME}`);
    await expect(row.getByTestId('key-revoke')).toHaveAccessibleName(`Revocar la clave ${KEY_NAME}`);
    expect(keyId).toBeTruthy();
    // The form is reset for the next key.
    await expect(page.getByTestId('key-create-name')).toHaveValue('');
    await expect(page.getByTestId('key-create-scope-lookup')).not.toBeChecked();

    const balance = await apiGet(state, '/api/v1/balance', firstSecret);
    expect(balance.status).toBe(200);
    expect(balance.body.balances.map((b: { productSlug: string }) => b.productSlug)).toContain('cbu');
    const history = await apiGet(state, '/api/v1/history?per_page=5', firstSecret);
    expect(history.status).toBe(200);

    // Dismissed, it is gone for good: a fresh load does not show it again.
    await page.getByTestId('key-secret-dismiss').click();
    await expect(page.getByTestId('key-secret')).toHaveCount(0);
    await page.reload();
    await expect(rowOf(page, KEY_NAME)).toHaveCount(1);
    await expect(page.getByTestId('key-secret')).toHaveCount(0);
    await expect(page.getByText(firstSecret)).toHaveCount(0);
  });

  test('reveal asks for confirmation and shows the same secret', async ({ page, state }) => {
    await openClaves(page, state);
    const row = page.locator(`[data-testid="key-row"][data-key-id="${keyId}"]`);

    // Cancel reveals nothing.
    await row.getByTestId('key-reveal').click();
    await expect(page.getByRole('dialog')).toContainText(KEY_NAME);
    await page.getByTestId('confirm-cancel').click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(page.getByTestId('key-secret')).toHaveCount(0);

    await row.getByTestId('key-reveal').click();
    await page.getByTestId('confirm-ok').click();
    await expect(page.getByTestId('key-secret-box')).toHaveAttribute('data-kind', 'revealed');
    await expect(page.getByTestId('key-secret')).toHaveText(firstSecret);
    await expect(page.getByRole('dialog')).toHaveCount(0);
  });

  test('rotate gives a new secret: the old one is refused, the new one works', async ({ page, state }) => {
    await openClaves(page, state);
    const row = page.locator(`[data-testid="key-row"][data-key-id="${keyId}"]`);
    await row.getByTestId('key-rotate').click();
    await expect(page.getByRole('dialog')).toContainText(KEY_NAME);
    await page.getByTestId('confirm-ok').click();

    await expect(page.getByTestId('key-secret-box')).toHaveAttribute('data-kind', 'rotated');
    rotatedSecret = (await page.getByTestId('key-secret').innerText()).trim();
    expect(rotatedSecret).toMatch(/^sk_live_\S{20,}$/);
    expect(rotatedSecret).not.toBe(firstSecret);
    // Same key (same id), still active.
    await expect(row).toHaveAttribute('data-status', 'active');

    const old = await apiGet(state, '/api/v1/balance', firstSecret);
    expect(old.status).toBe(401);
    expect(old.body.error.code).toBe('UNAUTHORIZED');
    const fresh = await apiGet(state, '/api/v1/balance', rotatedSecret);
    expect(fresh.status).toBe(200);
  });

  test('revoke, once confirmed, refuses the key on the very next request', async ({ page, state }) => {
    await openClaves(page, state);
    const row = page.locator(`[data-testid="key-row"][data-key-id="${keyId}"]`);

    // Cancelling keeps the key working.
    await row.getByTestId('key-revoke').click();
    await expect(page.getByRole('dialog')).toContainText('no se puede deshacer');
    await page.getByTestId('confirm-cancel').click();
    await expect(row).toHaveAttribute('data-status', 'active');
    expect((await apiGet(state, '/api/v1/balance', rotatedSecret)).status).toBe(200);

    await row.getByTestId('key-revoke').click();
    await page.getByTestId('confirm-ok').click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(row).toHaveAttribute('data-status', 'revoked');
    await expect(row).toContainText('Revocada');
    await expect(row.getByTestId('key-reveal')).toHaveCount(0);
    await expect(row.getByTestId('key-rotate')).toHaveCount(0);
    await expect(row.getByTestId('key-revoke')).toHaveCount(0);

    const refused = await apiGet(state, '/api/v1/balance', rotatedSecret);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
    expect((await apiGet(state, `/api/v1/lookup?identifier=0110001300000012345674&type=cbu`, rotatedSecret)).status).toBe(401);
  });

  test('the audit trail lists create, reveal, rotate and revoke of the key', async ({ page, state }) => {
    await openClaves(page, state);
    const audit = page.getByTestId('audit-table');
    await expect(audit).toBeVisible();
    const ours = audit.getByTestId('audit-row').filter({ hasText: KEY_NAME });
    await expect(ours).toHaveCount(4);
    const actions = await ours.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')));
    // Newest first.
    expect(actions).toEqual(['key.revoked', 'key.rotated', 'key.revealed', 'key.created']);
    await expect(ours.nth(0)).toContainText('Revocó una clave');
    await expect(ours.nth(1)).toContainText('Rotó una clave');
    await expect(ours.nth(2)).toContainText('Reveló una clave');
    await expect(ours.nth(3)).toContainText('Creó una clave');
    for (let i = 0; i < 4; i++) await expect(ours.nth(i)).toContainText(ADMIN.name);
    // The secret is in no audit row.
    await expect(audit).not.toContainText(rotatedSecret);
    await expect(audit).not.toContainText(firstSecret);

    // The "Claves" filter keeps them; "Usuarios" hides them.
    await page.getByTestId('audit-filter-api_key').click();
    await expect(ours).toHaveCount(4);
    await page.getByTestId('audit-filter-user').click();
    await expect(ours).toHaveCount(0);
  });
});

test('a key restricted to another IP is refused from localhost; a sandbox key is sk_test_', async ({ page, state }) => {
  await openClaves(page, state);
  const name = `Solo oficina ${Date.now().toString(36)}`;
  await page.getByTestId('key-create-name').fill(name);
  await page.getByTestId('key-create-environment').selectOption('sandbox');
  await page.getByTestId('key-create-scope-balance').check();
  await page.getByTestId('key-create-ip').fill('203.0.113.10\n10.0.0.0/24');
  await page.getByTestId('key-create-submit').click();
  const secret = (await page.getByTestId('key-secret').innerText()).trim();
  expect(secret).toMatch(/^sk_test_/);
  const row = rowOf(page, name);
  await expect(row).toContainText('Pruebas');

  const refused = await apiGet(state, '/api/v1/balance', secret);
  expect(refused.status).toBe(403);
  expect(refused.body.error.code).toBe('FORBIDDEN');

  // Clean up: revoke it so the active-key count stays low.
  await row.getByTestId('key-revoke').click();
  await page.getByTestId('confirm-ok').click();
  await expect(row).toHaveAttribute('data-status', 'revoked');
});

test('at the active-key limit the form is disabled and says why', async ({ page, state }) => {
  const cli = (...args: string[]) =>
    execFileSync(process.execPath, [path.resolve(__dirname, '..', 'out', 'main', 'cli.js'), ...args, '--data-dir', state.dataDir, '--json'], {
      encoding: 'utf8',
      timeout: 15_000,
      env: cliEnv(),
    });
  const active = (JSON.parse(cli('keys', 'list')) as { keys: { id: string; status: string }[] }).keys.filter((k) => k.status === 'active').length;
  const created: string[] = [];
  try {
    for (let i = active; i < 10; i++) created.push((JSON.parse(cli('keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--name', `Relleno ${i}`)) as { id: string }).id);

    await openClaves(page, state);
    await expect(page.getByTestId('key-limit-notice')).toContainText('límite de 10 claves activas');
    await expect(page.getByTestId('key-active-count')).toContainText('10 de 10');
    await expect(page.getByTestId('key-create-submit')).toBeDisabled();
    await expect(page.getByTestId('key-create-name')).toBeDisabled();
    // The limit is the one reason given: not also "Elegí al menos un permiso" for a form no one can fill.
    await expect(page.getByTestId('key-create-scopes-hint')).toHaveCount(0);
    await page.getByTestId('key-limit-notice').scrollIntoViewIfNeeded();
  } finally {
    for (const id of created) cli('keys', 'revoke', id);
  }
  await page.reload();
  await expect(page.getByTestId('key-create-submit')).toBeVisible();
  await expect(page.getByTestId('key-limit-notice')).toHaveCount(0);
});

test('a locked vault keeps the API working, and unlocks again from the screen', async ({ page, state }) => {
  await openClaves(page, state);
  const name = `Bóveda ${Date.now().toString(36)}`;
  await page.getByTestId('key-create-name').fill(name);
  await page.getByTestId('key-create-scope-balance').check();
  await page.getByTestId('key-create-submit').click();
  const secret = (await page.getByTestId('key-secret').innerText()).trim();
  await page.getByTestId('key-secret-dismiss').click();
  const row = rowOf(page, name);

  try {
    // From the keyboard: the button that was pressed leaves the page, and focus goes to the one that
    // takes its place (it dropped to <body>, sending a keyboard user back to the sidebar).
    await page.getByTestId('vault-lock').focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('vault-locked')).toBeVisible();
    await expect(page.getByTestId('vault-locked')).toContainText('bloqueada');
    await expect(page.getByTestId('vault-lock')).toHaveCount(0);
    await expect(page.getByTestId('vault-unlock')).toBeFocused();
    // Authentication does not need the vault: the key keeps working.
    expect((await apiGet(state, '/api/v1/balance', secret)).status).toBe(200);

    // Revealing needs it: the screen does not offer it, and the core refuses it anyway.
    await expect(row.getByTestId('key-reveal')).toBeDisabled();
    const refused = await bridgeCall(page, 'keys.reveal', { id: await row.getAttribute('data-key-id'), confirm: true });
    expect(refused).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    expect(JSON.stringify(refused)).not.toContain(secret);

    await page.keyboard.press('Enter');
    await expect(page.getByTestId('vault-locked')).toHaveCount(0);
    await expect(page.getByTestId('vault-lock')).toBeVisible();
    await expect(page.getByTestId('vault-lock')).toBeFocused();
    await row.getByTestId('key-reveal').click();
    await page.getByTestId('confirm-ok').click();
    await expect(page.getByTestId('key-secret')).toHaveText(secret);
  } finally {
    // Never leave the admin server's vault locked for the specs that follow.
    await bridge(page, 'vault.unlock');
  }
  await row.getByTestId('key-revoke').click();
  await page.getByTestId('confirm-ok').click();
  await expect(row).toHaveAttribute('data-status', 'revoked');
});

/** Calls a bridge channel as the page's session, outside the screens (what the desktop's auto-lock does in its main process). */
async function bridge(page: Page, channel: string): Promise<number> {
  return page.evaluate(async (name) => {
    const token = window.sessionStorage.getItem('titular.session');
    const response = await fetch(`/bridge/${name}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Session ${token}` }, body: '{}' });
    return response.status;
  }, channel);
}

/** Like `bridge`, with an input, answering the channel's `{ ok, value }` or `{ ok: false, error }`. */
async function bridgeCall(page: Page, channel: string, input: unknown = {}): Promise<any> {
  return page.evaluate(
    async ([name, body]) => {
      const token = window.sessionStorage.getItem('titular.session');
      const response = await fetch(`/bridge/${name}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Session ${token}` }, body });
      return response.json();
    },
    [channel, JSON.stringify(input)] as const,
  );
}

test('a key on screen leaves it when the vault locks on its own, and the banner says why', async ({ page, state }) => {
  await openClaves(page, state);
  const name = `Auto-lock ${Date.now().toString(36)}`;
  await page.getByTestId('key-create-name').fill(name);
  await page.getByTestId('key-create-environment').selectOption('sandbox');
  await page.getByTestId('key-create-scope-balance').check();
  await page.getByTestId('key-create-submit').click();
  await expect(page.getByTestId('key-secret')).toBeVisible();
  const row = rowOf(page, name);
  try {
    expect(await bridge(page, 'vault.lock')).toBe(200);
    // Nothing on the screen was touched: the screen finds out by itself, within a few seconds.
    await expect(page.getByTestId('key-secret')).toHaveCount(0, { timeout: 15_000 });
    await expect(page.getByTestId('vault-locked')).toBeVisible();
    await expect(page.getByTestId('vault-secret-hidden')).toHaveText(
      'La clave que estaba a la vista se ocultó al bloquearse la bóveda. Desbloqueala y volvé a revelarla si la necesitás.',
    );
    await page.getByTestId('vault-unlock').click();
    await expect(page.getByTestId('vault-locked')).toHaveCount(0);
    // A lock by hand needs no explanation: the banner comes back without it.
    await row.getByTestId('key-reveal').click();
    await page.getByTestId('confirm-ok').click();
    await expect(page.getByTestId('key-secret')).toBeVisible();
    await page.getByTestId('vault-lock').click();
    await expect(page.getByTestId('key-secret')).toHaveCount(0);
    await expect(page.getByTestId('vault-locked')).toBeVisible();
    await expect(page.getByTestId('vault-secret-hidden')).toHaveCount(0);
  } finally {
    // Never leave the admin server's vault locked for the specs that follow.
    expect(await bridge(page, 'vault.unlock')).toBe(200);
  }
  await page.reload();
  await row.getByTestId('key-revoke').click();
  await page.getByTestId('confirm-ok').click();
  await expect(row).toHaveAttribute('data-status', 'revoked');
});

/** Creates a sandbox key with one scope through the form and returns its row (the secret dismissed). */
async function createKey(page: Page, name: string) {
  await page.getByTestId('key-create-name').fill(name);
  await page.getByTestId('key-create-environment').selectOption('sandbox');
  await page.getByTestId('key-create-scope-balance').check();
  await page.getByTestId('key-create-submit').click();
  await page.getByTestId('key-secret-dismiss').click();
  const row = rowOf(page, name);
  await expect(row).toHaveAttribute('data-status', 'active');
  return row;
}

test('the revoke dialog starts on the safe button: Enter closes it, Tab stays inside, focus goes back', async ({ page, state }) => {
  await openClaves(page, state);
  const row = await createKey(page, `Foco ${Date.now().toString(36)}`);

  await row.getByTestId('key-revoke').click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('confirm-cancel')).toBeFocused();
  // Tab cycles between the dialog's two buttons, never out to the page behind it.
  await page.keyboard.press('Tab');
  await expect(dialog.getByTestId('confirm-ok')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(dialog.getByTestId('confirm-cancel')).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(dialog.getByTestId('confirm-ok')).toBeFocused();
  await page.keyboard.press('Shift+Tab');

  // A stray Enter dismisses: the key is not revoked, and focus is back on the button that opened it.
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(row).toHaveAttribute('data-status', 'active');
  await expect(row.getByTestId('key-revoke')).toBeFocused();

  // Rotating (the current secret stops working) starts on the safe button too.
  await row.getByTestId('key-rotate').click();
  await expect(dialog.getByTestId('confirm-cancel')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);

  await row.getByTestId('key-revoke').click();
  await dialog.getByTestId('confirm-ok').click();
  await expect(row).toHaveAttribute('data-status', 'revoked');
});

test('a wrong passphrase is "not correct" whatever its length, on reveal and on unlock', async ({ page, state }) => {
  // The e2e vault is a key file; these answers are a passphrase vault's, word for word
  // (src/main/core/ipc/handlers.ts, src/main/core/vault/passphrase-attempts.ts): a short one is as
  // wrong as a long one.
  const refusal = (passphrase: string | undefined) => (passphrase === undefined ? 'Enter the vault passphrase to reveal a key' : 'Wrong passphrase');
  const refuse = (message: string) => ({ json: { ok: false, error: { code: 'UNAUTHORIZED', message, status: 401 } } });
  await page.route('**/bridge/keys.reveal', (route) => route.fulfill(refuse(refusal(route.request().postDataJSON().passphrase))));
  await openClaves(page, state);
  const row = await createKey(page, `Frase ${Date.now().toString(36)}`);

  await row.getByTestId('key-reveal').click();
  await page.getByTestId('confirm-ok').click();
  await expect(page.getByTestId('key-passphrase')).toBeFocused();
  await page.getByTestId('key-passphrase').fill('no es la frase correcta');
  await page.getByTestId('confirm-ok').click();
  const error = page.getByTestId('key-action-error');
  await expect(error).toContainText('La frase de acceso no es correcta.');
  const long = await error.innerText();
  await page.getByTestId('key-passphrase').fill('corta');
  await page.getByTestId('confirm-ok').click();
  await expect(error).toContainText('La frase de acceso no es correcta.');
  await expect(error).not.toContainText('sesión');
  expect(await error.innerText()).toBe(long);
  await page.getByTestId('confirm-cancel').click();

  // The locked vault's banner, on a passphrase vault.
  await page.route('**/bridge/vault.status', (route) => route.fulfill({ json: { ok: true, value: { locked: true, protection: 'passphrase', autoLockMinutes: 15 } } }));
  await page.route('**/bridge/vault.unlock', (route) => route.fulfill(refuse(refusal(route.request().postDataJSON().passphrase))));
  await page.reload();
  await page.getByTestId('vault-passphrase').fill('corta');
  await page.getByTestId('vault-unlock').click();
  await expect(page.getByTestId('vault-locked')).toContainText('La frase de acceso no es correcta.');
  await expect(page.getByTestId('vault-locked')).not.toContainText('sesión');
  await page.unrouteAll();
  await page.reload();
  await row.getByTestId('key-revoke').click();
  await page.getByTestId('confirm-ok').click();
  await expect(row).toHaveAttribute('data-status', 'revoked');
});

test('with the vault locked, create, rotate and reveal are disabled and say why; revoke still works', async ({ page, state }) => {
  await openClaves(page, state);
  const row = await createKey(page, `Bloqueada ${Date.now().toString(36)}`);
  // A form ready to send.
  const submit = page.getByTestId('key-create-submit');
  await page.getByTestId('key-create-name').fill(`No se crea ${Date.now().toString(36)}`);
  await page.getByTestId('key-create-scope-lookup').check();
  await expect(submit).toBeEnabled();
  await expect(row.getByTestId('key-reveal')).toBeEnabled();
  await expect(row.getByTestId('key-rotate')).toBeEnabled();
  await expect(page.getByTestId('key-create-locked-hint')).toHaveCount(0);
  await expect(page.getByTestId('keys-locked-hint')).toHaveCount(0);
  const why = 'Desbloqueá la bóveda para crear, rotar o revelar claves.';
  try {
    await page.getByTestId('vault-lock').click();
    await expect(page.getByTestId('vault-locked')).toBeVisible();
    // Nothing that needs the vault is offered: no passphrase asked, no error after the fact.
    await expect(submit).toBeDisabled();
    await expect(page.getByTestId('key-create-locked-hint')).toHaveText(why);
    await expect(submit).toHaveAccessibleDescription(why);
    await expect(page.getByTestId('keys-locked-hint')).toHaveText(why);
    for (const action of ['key-reveal', 'key-rotate']) {
      await expect(row.getByTestId(action)).toBeDisabled();
      await expect(row.getByTestId(action)).toHaveAccessibleDescription(why);
    }
    // Enter in a field does not send the form either.
    await page.getByTestId('key-create-name').press('Enter');
    await expect(page.getByTestId('key-create-error')).toHaveCount(0);
    await expect(page.getByTestId('key-secret')).toHaveCount(0);

    // Revoking only marks the key (src/main/core/keys/api-keys.ts): it needs no vault, and works.
    await expect(row.getByTestId('key-revoke')).toBeEnabled();
    await row.getByTestId('key-revoke').click();
    await page.getByTestId('confirm-ok').click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(row).toHaveAttribute('data-status', 'revoked');

    // Unlocked, the form is offered again as it was left.
    await page.getByTestId('vault-unlock').click();
    await expect(page.getByTestId('vault-locked')).toHaveCount(0);
    await expect(submit).toBeEnabled();
    await expect(page.getByTestId('key-create-locked-hint')).toHaveCount(0);
    await expect(page.getByTestId('keys-locked-hint')).toHaveCount(0);
  } finally {
    // Never leave the admin server's vault locked for the specs that follow.
    expect(await bridge(page, 'vault.unlock')).toBe(200);
  }
});

test('the lock banner says a lock by hand here, else that it was by hand or on its own', async ({ page, state }) => {
  await openClaves(page, state);
  const banner = page.getByTestId('vault-locked');
  try {
    // Locked elsewhere (another admin, or the auto-lock): the screen cannot tell which.
    expect(await bridge(page, 'vault.lock')).toBe(200);
    await page.reload();
    await expect(banner).toBeVisible();
    await expect(banner).toContainText(/Se bloqueó a mano, o sola tras \d+ min sin uso\./);
    await expect(banner).not.toContainText('Se bloquea sola');
    await page.getByTestId('vault-unlock').click();
    await expect(banner).toHaveCount(0);

    // Locked with the screen's own button: it says so.
    await page.getByTestId('vault-lock').click();
    await expect(banner).toContainText('La bloqueaste vos. Desbloqueala para crear, rotar o revelar claves.');
    await expect(banner).not.toContainText('sola');
    await page.getByTestId('vault-unlock').click();
    await expect(banner).toHaveCount(0);

    // A later lock from elsewhere is not "yours" any more.
    expect(await bridge(page, 'vault.lock')).toBe(200);
    await page.reload();
    await expect(banner).toContainText(/a mano, o sola/);
  } finally {
    expect(await bridge(page, 'vault.unlock')).toBe(200);
  }
});

/** Waits for the smooth scrolling of the page (inside .main) to end; answers how far `testId`'s top is below the sticky top bar. */
async function gapBelowTopBar(page: Page, testId: string): Promise<number> {
  return page.evaluate(async (id) => {
    const main = document.querySelector('.main')!;
    let last = -1;
    for (let same = 0; same < 12; ) {
      await new Promise((resolve) => requestAnimationFrame(resolve));
      same = main.scrollTop === last ? same + 1 : 0;
      last = main.scrollTop;
    }
    const bar = document.querySelector('.topbar')!.getBoundingClientRect().bottom;
    return document.querySelector(`[data-testid="${id}"]`)!.getBoundingClientRect().top - bar;
  }, testId);
}

test('the secret panel opens below the top bar and takes focus; "Ya la guardé" hands it back', async ({ page, state }) => {
  await openClaves(page, state);
  const name = `Panel ${Date.now().toString(36)}`;
  await page.getByTestId('key-create-name').fill(name);
  await page.getByTestId('key-create-environment').selectOption('sandbox');
  await page.getByTestId('key-create-scope-balance').check();
  await page.getByTestId('key-create-submit').click();
  const box = page.getByTestId('key-secret-box');
  await expect(box).toHaveAttribute('data-kind', 'created');
  expect(await gapBelowTopBar(page, 'key-secret-box')).toBeGreaterThanOrEqual(0);
  // Focus is on the panel's heading (not dropped to <body> as the submit button is disabled again).
  const heading = page.getByTestId('key-secret-title');
  await expect(heading).toBeFocused();
  await expect(heading).toHaveText('Tu clave secreta');
  await page.getByTestId('key-secret-dismiss').click();
  await expect(box).toHaveCount(0);
  await expect(page.getByTestId('keys-list-heading')).toBeFocused();

  // Rotated from a row: the same, and focus goes back to that row's button.
  const row = rowOf(page, name);
  await row.getByTestId('key-rotate').click();
  await page.getByTestId('confirm-ok').click();
  await expect(box).toHaveAttribute('data-kind', 'rotated');
  expect(await gapBelowTopBar(page, 'key-secret-box')).toBeGreaterThanOrEqual(0);
  await expect(heading).toBeFocused();
  await expect(heading).toHaveText('Nueva clave secreta (rotada)');
  // From the keyboard too: Tab to "Copiar", Tab to "Ya la guardé".
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('key-secret-dismiss')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(box).toHaveCount(0);
  await expect(row.getByTestId('key-rotate')).toBeFocused();

  await row.getByTestId('key-revoke').click();
  await page.getByTestId('confirm-ok').click();
  await expect(row).toHaveAttribute('data-status', 'revoked');
});

test.describe('in Buenos Aires', () => {
  test.use({ timezoneId: 'America/Argentina/Buenos_Aires' });

  test('a key set to expire on a day works until the end of that day here, not in UTC', async ({ page, state }) => {
    await openClaves(page, state);
    const name = `Vence ${Date.now().toString(36)}`;
    const year = new Date().getFullYear() + 1;
    const day = `${year}-11-30`;
    const expires = page.getByTestId('key-create-expires');
    await expect(expires).toHaveAttribute('title', 'Opcional. Vence al final de ese día, en la hora de esta computadora.');
    await page.getByTestId('key-create-name').fill(name);
    await page.getByTestId('key-create-environment').selectOption('sandbox');
    await page.getByTestId('key-create-scope-balance').check();
    await expires.fill(day);
    await page.getByTestId('key-create-submit').click();
    await page.getByTestId('key-secret-dismiss').click();
    const row = rowOf(page, name);
    await expect(row).toContainText(`Vence: 30/11/${year}`);

    // 30/11 23:59:59.999 in Buenos Aires (UTC−3, no daylight saving) is 1/12 02:59:59.999 UTC,
    // not 30/11 23:59:59.999 UTC (20:59 here).
    const list = await bridgeCall(page, 'keys.list');
    const key = list.value.keys.find((k: { name: string | null }) => k.name === name);
    expect(key.expiresAt).toBe(new Date(`${day}T23:59:59.999-03:00`).toISOString());
    expect(key.expiresAt).toBe(`${year}-12-01T02:59:59.999Z`);

    await row.getByTestId('key-revoke').click();
    await page.getByTestId('confirm-ok').click();
    await expect(row).toHaveAttribute('data-status', 'revoked');
  });
});

test('an error on the create form goes away as soon as a field is edited', async ({ page, state }) => {
  await openClaves(page, state);
  const submit = page.getByTestId('key-create-submit');
  const error = page.getByTestId('key-create-error');
  const ip = page.getByTestId('key-create-ip');
  await page.getByTestId('key-create-name').fill(`IP mala ${Date.now().toString(36)}`);
  await page.getByTestId('key-create-scope-balance').check();
  await ip.fill('999.1.1.1');
  await submit.click();
  await expect(error).toBeVisible();

  // Editing the field it is about.
  await ip.press('Backspace');
  await expect(error).toHaveCount(0);
  await submit.click();
  await expect(error).toBeVisible();
  // Any other field.
  await page.getByTestId('key-create-scope-lookup').check();
  await expect(error).toHaveCount(0);
  await submit.click();
  await expect(error).toBeVisible();
  await page.getByTestId('key-create-name').fill('Otro nombre');
  await expect(error).toHaveCount(0);
  await submit.click();
  await expect(error).toBeVisible();
  // Emptied.
  await ip.fill('');
  await expect(error).toHaveCount(0);
  await expect(page.getByTestId('key-secret')).toHaveCount(0);
});

test('an Informes key cannot take the history scope, which it could never use: the box is disabled and says why', async ({ page, state }) => {
  await openClaves(page, state);
  const history = page.getByTestId('key-create-scope-history');
  const hint = page.getByTestId('key-create-history-hint');
  await history.check();
  await page.getByTestId('key-create-scope-lookup').check();
  await expect(hint).toHaveCount(0);
  // The products as the rest of the screens name them: "Informe crediticio" (not "Informe Crediticio"); in English "Credit Report", as "CBU Lookup".
  await expect(page.getByTestId('key-create-product').locator('option')).toHaveText(['Consulta CBU', 'Informe crediticio']);
  // Switching to Informes drops the ticked history scope, and the box says why it is off.
  await page.getByTestId('key-create-product').selectOption('informes');
  await expect(history).toBeDisabled();
  await expect(history).not.toBeChecked();
  await expect(hint).toHaveText('El historial por API es solo para claves de Consulta CBU.');
  await expect(history).toHaveAttribute('aria-describedby', (await hint.getAttribute('id'))!);
  expect(await wcagViolations(page)).toEqual([]);
  // Back on CBU it can be ticked again.
  await page.getByTestId('key-create-product').selectOption('cbu');
  await expect(history).toBeEnabled();
  await expect(hint).toHaveCount(0);
  await expect(page.getByTestId('key-secret')).toHaveCount(0);
  await page.getByTestId('lang-switch').click();
  await expect(page.getByTestId('key-create-product').locator('option')).toHaveText(['CBU Lookup', 'Credit Report']);
  await page.getByTestId('key-create-product').selectOption('informes');
  await expect(hint).toHaveText('The history over the API is for CBU Lookup keys only.');
});
