// The shell: Spanish by default, the language switch, and what a bad or missing session link shows.
import { expect, openApp, test } from './fixtures';

test('Spanish by default; the switch turns the UI to English and back', async ({ page, state }) => {
  await openApp(page, state);
  await expect(page.locator('html')).toHaveAttribute('lang', 'es');
  await expect(page.getByTestId('lang-switch')).toHaveAttribute('data-lang', 'es');
  await expect(page.getByTestId('nav-consulta')).toHaveText('Consulta');
  await expect(page.getByTestId('nav-claves')).toHaveText('Claves de API');
  await expect(page).toHaveTitle(/Consulta · Titular/);

  await page.getByTestId('lang-switch').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(page.getByTestId('nav-consulta')).toHaveText('Lookup');
  await expect(page.getByTestId('nav-historial')).toHaveText('History');
  await expect(page.getByTestId('session-role')).toHaveText('Administrator');

  // Kept across a reload.
  await page.reload();
  await expect(page.getByTestId('nav-consulta')).toHaveText('Lookup');
  await page.getByTestId('lang-switch').click();
  await expect(page.getByTestId('nav-consulta')).toHaveText('Consulta');
});

test('the navigation moves between the five screens', async ({ page, state }) => {
  await openApp(page, state);
  const screens = [
    ['nav-saldo', /#\/saldo$/, 'Saldo de créditos'],
    ['nav-historial', /#\/historial$/, 'Historial de consultas'],
    ['nav-claves', /#\/claves$/, 'Claves de API'],
    ['nav-usuarios', /#\/usuarios$/, 'Usuarios'],
    ['nav-consulta', /#\/consulta$/, 'Consulta de titularidad'],
  ] as const;
  for (const [nav, url, title] of screens) {
    await page.getByTestId(nav).click();
    await expect(page).toHaveURL(url);
    await expect(page.getByTestId(nav)).toHaveAttribute('aria-current', 'page');
    await expect(page.locator('h1.page-title')).toHaveText(title);
  }
});

test('a wrong session link opens nothing and says so', async ({ page, state }) => {
  await page.goto(`${state.admin.origin}/#session=${'x'.repeat(43)}`);
  await expect(page.getByText('No pudimos abrir tu sesión')).toBeVisible();
  await expect(page.getByTestId('session-error')).toHaveAttribute('data-error-code', 'UNAUTHORIZED');
  await expect(page.getByTestId('session-user')).toHaveCount(0);
  await expect(page.getByTestId('nav-consulta')).toHaveCount(0);
});

test('without a session link nothing is shown either', async ({ page, state }) => {
  await page.goto(state.admin.origin);
  await expect(page.getByText('No pudimos abrir tu sesión')).toBeVisible();
  await expect(page.getByTestId('session-user')).toHaveCount(0);
});
