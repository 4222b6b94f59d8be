// Usuarios: add a member, validation, role changes (confirmed first), the last admin cannot be demoted, audit trail.
import type { Page } from '@playwright/test';
import { ADMIN } from './data';
import { expect, openApp, overflowingTables, test } from './fixtures';

const stamp = Date.now().toString(36);
const NEW_USER = { name: 'Lucía Legales', email: `lucia.${stamp}@acme.test` };

const userRow = (page: Page, text: string) => page.getByTestId('user-row').filter({ hasText: text });

test.describe.serial('members', () => {
  test('an admin adds an operator', async ({ page, state }) => {
    await openApp(page, state, 'admin', 'usuarios');
    await expect(userRow(page, ADMIN.email)).toHaveCount(1);

    // Validation before anything is sent.
    await page.getByTestId('user-add-submit').click();
    await expect(page.getByText('Ingresá el nombre.')).toBeVisible();
    await page.getByTestId('user-add-name').fill(NEW_USER.name);
    await page.getByTestId('user-add-email').fill('lucia-en-acme');
    await page.getByTestId('user-add-submit').click();
    await expect(page.getByText('Ingresá un email válido.')).toBeVisible();
    await expect(userRow(page, 'lucia-en-acme')).toHaveCount(0);

    await page.getByTestId('user-add-email').fill(NEW_USER.email);
    await page.getByTestId('user-add-role').selectOption('operator');
    // From the keyboard: the button disables itself while the user is added; focus goes to the name
    // for the next one, not to <body>.
    await page.getByTestId('user-add-submit').press('Enter');
    const row = userRow(page, NEW_USER.email);
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(NEW_USER.name);
    await expect(row).toHaveAttribute('data-role', 'operator');
    // "Alta" as every other date in the app: dd/mm/aaaa, not "22 nov 2026".
    await expect(row.locator('td').nth(3)).toHaveText(/^\d{2}\/\d{2}\/\d{4}$/);
    await expect(page.getByTestId('user-add-name')).toHaveValue('');
    await expect(page.getByTestId('user-add-name')).toBeFocused();

    // The audit trail (filtered to users on this screen) names it.
    const audit = page.getByTestId('audit-table');
    await expect(audit.getByTestId('audit-row').filter({ hasText: NEW_USER.name }).first()).toHaveAttribute('data-action', 'user.created');
  });

  test('the same email cannot be added twice', async ({ page, state }) => {
    await openApp(page, state, 'admin', 'usuarios');
    await page.getByTestId('user-add-name').fill('Otra Lucía');
    await page.getByTestId('user-add-email').fill(NEW_USER.email.toUpperCase());
    await page.getByTestId('user-add-submit').press('Enter');
    // Said in Spanish: the core's English answer is translated, not shown as it came.
    await expect(page.getByTestId('user-add-error')).toContainText(`Ya existe un usuario con el email ${NEW_USER.email.toLowerCase()}`);
    // Focus is back on the button beside the error, not on <body>.
    await expect(page.getByTestId('user-add-submit')).toBeFocused();
    await expect(page.getByTestId('user-add-error')).not.toContainText('already exists');
    await expect(userRow(page, 'Otra Lucía')).toHaveCount(0);
  });

  test('your own role change asks first, with a warning, and the last admin is refused in Spanish', async ({ page, state }) => {
    await openApp(page, state, 'admin', 'usuarios');
    const me = userRow(page, ADMIN.email);
    await expect(me).toContainText('Vos');
    const dialog = page.getByRole('dialog');

    // Picking "Operador" changes nothing yet: a dialog asks, and says what you lose.
    await me.getByTestId('user-role-select').selectOption('operator');
    await expect(dialog).toContainText('¿Dejar de ser administrador?');
    await expect(dialog.getByTestId('user-role-own-warning')).toContainText('Es tu propio rol');
    await expect(dialog.getByTestId('confirm-ok')).toHaveText('Pasarme a Operador');
    // Destructive: focus starts on the safe button.
    await expect(dialog.getByTestId('confirm-cancel')).toBeFocused();
    await expect(me.getByTestId('user-role-select')).toHaveValue('admin');
    await dialog.getByTestId('confirm-cancel').click();
    await expect(dialog).toHaveCount(0);
    await expect(me.getByTestId('user-role-select')).toHaveValue('admin');
    await expect(page.getByTestId('user-role-error')).toHaveCount(0);

    // Confirmed: the core refuses (the only admin), and the banner gives its reason, not "check the data".
    await me.getByTestId('user-role-select').selectOption('operator');
    await dialog.getByTestId('confirm-ok').click();
    await expect(dialog).toHaveCount(0);
    const error = page.getByTestId('user-role-error');
    await expect(error).toContainText('La organización necesita al menos un administrador.');
    await expect(error).not.toContainText('Revisá los datos ingresados');
    await expect(me).toHaveAttribute('data-role', 'admin');
    await expect(me.getByTestId('user-role-select')).toHaveValue('admin');
    await expect(page.getByTestId('session-role')).toHaveText('Administrador');
  });

  test('roles can be changed after a confirmation, and the change is audited', async ({ page, state }) => {
    await openApp(page, state, 'admin', 'usuarios');
    const row = userRow(page, NEW_USER.email);
    const dialog = page.getByRole('dialog');
    // A refused change first: its banner goes once a later change works.
    await userRow(page, ADMIN.email).getByTestId('user-role-select').selectOption('operator');
    await dialog.getByTestId('confirm-ok').click();
    await expect(page.getByTestId('user-role-error')).toBeVisible();

    await row.getByTestId('user-role-select').selectOption('admin');
    await expect(dialog).toContainText(`¿Cambiar el rol de ${NEW_USER.name}?`);
    await expect(dialog).toContainText(`${NEW_USER.name} pasa de Operador a Administrador.`);
    await expect(dialog.getByTestId('user-role-own-warning')).toHaveCount(0);
    await expect(row).toHaveAttribute('data-role', 'operator');
    await dialog.getByTestId('confirm-ok').click();
    await expect(row).toHaveAttribute('data-role', 'admin');
    await expect(page.getByTestId('user-role-error')).toHaveCount(0);
    await row.getByTestId('user-role-select').selectOption('operator');
    await dialog.getByTestId('confirm-ok').click();
    await expect(row).toHaveAttribute('data-role', 'operator');

    const changes = page.getByTestId('audit-table').locator('[data-testid="audit-row"][data-action="user.role_changed"]').filter({ hasText: NEW_USER.name });
    await expect(changes).toHaveCount(2);
    await expect(changes.nth(0)).toContainText('Administrador → Operador');
    await expect(changes.nth(1)).toContainText('Operador → Administrador');
    await expect(changes.nth(0)).toContainText('Cambió un rol');
  });
});

test('long names and emails are whole in the members\' table and the audit trail at 1024, 1280 and 1920 px', async ({ page, state }) => {
  const long = { name: 'Juan Operador Fernández de la Torre', email: `juan.operador.fernandez.${stamp}@cooperativadellitoral.test` };
  await openApp(page, state, 'admin', 'usuarios');
  await page.getByTestId('user-add-name').fill(long.name);
  await page.getByTestId('user-add-email').fill(long.email);
  await page.getByTestId('user-add-submit').click();
  const row = userRow(page, long.email);
  await expect(row).toHaveCount(1);
  await expect(page.getByTestId('audit-table').getByTestId('audit-row').filter({ hasText: long.name }).first()).toBeVisible();
  for (const width of [1024, 1280, 1920]) {
    await page.setViewportSize({ width, height: 800 });
    await expect(row.getByTestId('user-name')).toHaveText(long.name);
    await expect(row.getByTestId('user-email')).toHaveText(long.email);
    // Nothing cut with an ellipsis (nor hidden) while the table fits its card, and no sideways scrollbar.
    const cut = await page.$$eval('[data-testid="users-table"] td, [data-testid="users-table"] .cell-title, [data-testid="audit-table"] td', (cells) =>
      cells.filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent),
    );
    expect(cut, `${width} px`).toEqual([]);
    expect(await overflowingTables(page), `${width} px`).toEqual([]);
  }
});
