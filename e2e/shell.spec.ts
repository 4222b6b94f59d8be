// The shell: Spanish by default, the language switch, the skip link, and what a bad or missing session link shows.
import { expect, openApp, test } from './fixtures';
import { version as packageVersion } from '../package.json';
import { ADMIN, ORG } from './data';

test('Spanish by default; the switch turns the UI to English and back', async ({ page, state }) => {
  await openApp(page, state);
  await expect(page.locator('html')).toHaveAttribute('lang', 'es');
  await expect(page.getByTestId('lang-switch')).toHaveAttribute('data-lang', 'es');
  await expect(page.getByTestId('nav-consulta')).toHaveText('Consulta');
  await expect(page.getByTestId('nav-claves')).toHaveText('Claves de API');
  await expect(page).toHaveTitle(/Consulta · Titular/);
  await expect(page.getByTestId('app-version')).toHaveText(`Versión ${packageVersion}`);

  await page.getByTestId('lang-switch').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(page.getByTestId('nav-consulta')).toHaveText('Lookup');
  await expect(page.getByTestId('nav-historial')).toHaveText('History');
  await expect(page.getByTestId('session-role')).toHaveText('Administrator');
  await expect(page.getByTestId('app-version')).toHaveText(`Version ${packageVersion}`);

  // Kept across a reload.
  await page.reload();
  await expect(page.getByTestId('nav-consulta')).toHaveText('Lookup');
  await page.getByTestId('lang-switch').click();
  await expect(page.getByTestId('nav-consulta')).toHaveText('Consulta');
});

test('English writes dates day first, as the Spanish screens and the date pickers (the system es-AR) do', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'usuarios');
  const since = page.getByTestId('user-since').first();
  await expect(since).toHaveText(/^\d{2}\/\d{2}\/\d{4}$/);
  const spanish = await since.textContent();
  await page.getByTestId('lang-switch').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  // en-US would write 11/24/2026 for 24/11/2026.
  await expect(since).toHaveText(spanish!);
  await page.getByTestId('lang-switch').click();
});

test('a narrow window (1024 px) keeps the screens wide: icon-only navigation that still names each screen', async ({ page, state }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await openApp(page, state, 'admin', 'usuarios');
  const sidebar = await page.locator('.sidebar').boundingBox();
  expect(sidebar!.width).toBeLessThan(100);
  await expect(page.getByRole('link', { name: 'Historial' })).toBeVisible();
  await expect(page.getByTestId('nav-historial')).toHaveAttribute('title', 'Historial');
  // The signed-in user's name is hidden at this width (only the initials): it is on hover, whole.
  await expect(page.getByTestId('session-me')).toHaveAttribute('title', `${ADMIN.name} · Administrador`);
  await expect(page.getByTestId('session-org')).toHaveAttribute('title', ORG);
  // The role select is no longer cut off by the members table's edge.
  const select = await page.getByTestId('user-role-select').first().boundingBox();
  const card = await page.getByTestId('user-role-select').first().locator('xpath=ancestor::section[1] | ancestor::div[contains(@class,"card")][1]').first().boundingBox();
  expect(select!.x + select!.width).toBeLessThanOrEqual(card!.x + card!.width);
  await page.getByTestId('nav-historial').click();
  await expect(page.locator('h1.page-title')).toHaveText('Historial de consultas');
});

test('a large monitor (1920 px) gives the screens more width, not an empty half', async ({ page, state }) => {
  await page.setViewportSize({ width: 1920, height: 1000 });
  await openApp(page, state, 'admin', 'historial');
  const content = (await page.locator('.content').boundingBox())!;
  const sidebar = (await page.locator('.sidebar').boundingBox())!;
  // At most 1,440 px of screen, and most of what the sidebar leaves (1,140 px before: 66 %).
  expect(content.width).toBeGreaterThan(0.8 * (1920 - sidebar.width));
  expect(content.width).toBeLessThanOrEqual(1440);
});

test('a 2,560 px monitor keeps the language switch over the content, not at the far edge', async ({ page, state }) => {
  await page.setViewportSize({ width: 2560, height: 1200 });
  await openApp(page, state, 'admin', 'historial');
  const content = (await page.locator('.content').boundingBox())!;
  const title = (await page.locator('h1.page-title').boundingBox())!;
  const toggle = (await page.getByTestId('lang-switch').boundingBox())!;
  // The switch's right edge lines up with the content's (its padding inside .content: 32 px).
  expect(Math.abs(toggle.x + toggle.width - (content.x + content.width - 32))).toBeLessThanOrEqual(2);
  expect(toggle.x).toBeGreaterThan(title.x);
  // At a common width nothing moves: the switch sits 32 px from the top bar's right edge.
  await page.setViewportSize({ width: 1280, height: 800 });
  const bar = (await page.locator('.topbar').boundingBox())!;
  const narrow = (await page.getByTestId('lang-switch').boundingBox())!;
  expect(Math.abs(narrow.x + narrow.width - (bar.x + bar.width - 32))).toBeLessThanOrEqual(2);
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

test('a skip link, first in Tab order and hidden until focused, takes the keyboard to the screen', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'historial');
  const skip = page.getByTestId('skip-link');
  await expect(skip).not.toBeInViewport();
  // A fresh load (nothing focused yet): the first Tab.
  await page.reload();
  await expect(page.getByTestId('history-table')).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(skip).toBeFocused();
  await expect(skip).toHaveText('Saltar al contenido');
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.locator('main#content')).toBeFocused();
  // The route is kept (the link does not follow its #content href).
  await expect(page).toHaveURL(/#\/historial$/);
  // The next Tab lands inside the screen, past the sidebar.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.querySelector('main#content')!.contains(document.activeElement))).toBe(true);
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
