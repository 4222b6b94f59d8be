// The operator's session (second server, `--user oscar@acme.test`, same data directory): no admin
// screens, no key vault even by typing the route, but Consulta, Saldo and Historial work.
import { ACCOUNTS, OPERATOR } from './data';
import { expect, lookup, openApp, test } from './fixtures';

test('the operator sees no Claves/Usuarios in the navigation', async ({ page, state }) => {
  await openApp(page, state, 'operator');
  await expect(page.getByTestId('session-user')).toHaveText(OPERATOR.name);
  await expect(page.getByTestId('session-role')).toHaveText('Operador');
  await expect(page.getByTestId('nav-consulta')).toBeVisible();
  await expect(page.getByTestId('nav-saldo')).toBeVisible();
  await expect(page.getByTestId('nav-historial')).toBeVisible();
  await expect(page.getByTestId('nav-claves')).toHaveCount(0);
  await expect(page.getByTestId('nav-usuarios')).toHaveCount(0);
  await expect(page.getByText('Administración', { exact: true })).toHaveCount(0);
});

for (const route of ['claves', 'usuarios'] as const) {
  test(`typing #/${route} shows no admin screen to the operator`, async ({ page, state }) => {
    const adminCalls: string[] = [];
    page.on('request', (r) => {
      if (/\/bridge\/(keys|users|audit)\./.test(r.url())) adminCalls.push(r.url());
    });
    await openApp(page, state, 'operator');
    // A full load straight on the admin route (the session is in sessionStorage by now).
    await page.goto(`${state.operator.origin}/#/${route}`);
    await page.reload();
    await expect(page.getByTestId('session-user')).toHaveText(OPERATOR.name);
    // Redirected to Consulta.
    await expect(page).toHaveURL(/#\/consulta$/);
    await expect(page.getByTestId('lookup-input')).toBeVisible();
    await expect(page.getByTestId('key-create-submit')).toHaveCount(0);
    await expect(page.getByTestId('key-row')).toHaveCount(0);
    await expect(page.getByTestId('key-secret')).toHaveCount(0);
    await expect(page.getByTestId('audit-table')).toHaveCount(0);
    await expect(page.getByTestId('user-row')).toHaveCount(0);

    // Client-side navigation is guarded too.
    await page.evaluate((r) => {
      window.location.hash = `#/${r}`;
    }, route);
    await expect(page).toHaveURL(/#\/consulta$/);
    await expect(page.getByTestId('key-create-submit')).toHaveCount(0);
    await expect(page.getByTestId('user-row')).toHaveCount(0);
    // The admin screens were never rendered: nothing asked for keys, users or the audit log.
    expect(adminCalls).toEqual([]);
    // Consulta says why they landed there (the link may have come from an admin); the notice goes
    // once they move on.
    await expect(page.getByTestId('restricted-notice')).toHaveText('Esta sección es solo para administradores.');
    await page.getByTestId('nav-historial').click();
    await expect(page.getByTestId('restricted-notice')).toHaveCount(0);
    await page.getByTestId('nav-consulta').click();
    await expect(page).toHaveURL(/#\/consulta$/);
    await expect(page.getByTestId('restricted-notice')).toHaveCount(0);
  });
}

test('the bridge refuses admin channels to the operator even when called directly', async ({ page, state }) => {
  await openApp(page, state, 'operator');
  const answers = await page.evaluate(async () => {
    const token = window.sessionStorage.getItem('titular.session');
    const call = async (channel: string, body: unknown) => {
      const r = await fetch(`/bridge/${channel}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Session ${token}` }, body: JSON.stringify(body) });
      return { http: r.status, body: await r.json() };
    };
    return {
      keys: await call('keys.list', {}),
      users: await call('users.list', {}),
      purchase: await call('credits.purchase', { product: 'cbu', amount: 1000 }),
    };
  });
  for (const answer of Object.values(answers)) {
    expect(answer.body.ok).toBe(false);
    expect(answer.body.error.code).toBe('FORBIDDEN');
  }
});

test('Consulta works for the operator, and their lookup is in the history under their name', async ({ page, state }) => {
  await openApp(page, state, 'operator');
  expect(await lookup(page, ACCOUNTS.inactive.cbu)).toBe('result');
  const result = page.getByTestId('lookup-result');
  await expect(result).toContainText(ACCOUNTS.inactive.holder);
  await expect(result).toContainText('Inactiva');
  await expect(result).toContainText('La cuenta figura inactiva');
  await expect(result.getByTestId('credits-left')).toHaveAttribute('data-credits', /^\d+$/);

  await page.getByTestId('nav-historial').click();
  const row = page.getByTestId('history-row').filter({ hasText: ACCOUNTS.inactive.cbu }).first();
  await expect(row).toContainText(OPERATOR.name);

  // Saldo without the purchase form.
  await page.getByTestId('nav-saldo').click();
  await expect(page.getByTestId('balance-card-cbu')).toHaveAttribute('data-balance', /^\d+$/);
  await expect(page.getByTestId('purchase-submit')).toHaveCount(0);
});
