// Shared helpers of the e2e specs: open the app with a session, move between routes, look up an
// identifier through the UI, read balances, and call the localhost API.
import { expect, test as base, type Page } from '@playwright/test';
import { readState, type E2eState } from './state';

export type Role = 'admin' | 'operator';
export type Route = 'consulta' | 'saldo' | 'historial' | 'lotes' | 'claves' | 'usuarios' | 'ajustes';

export const test = base.extend<{ state: E2eState }>({
  state: async ({}, use) => {
    await use(readState());
  },
});
export { expect };

/**
 * Loads the app with the role's `#session=` link (the token is read from the fragment on load and
 * kept in sessionStorage), waits for the shell, then goes to `route`.
 */
export async function openApp(page: Page, state: E2eState, role: Role = 'admin', route: Route = 'consulta'): Promise<void> {
  const server = role === 'admin' ? state.admin : state.operator;
  await page.goto(server.url);
  await expect(page.getByTestId('session-user')).toBeVisible();
  // The token must not stay in the address bar.
  expect(page.url()).not.toContain('session=');
  if (route !== 'consulta') await goTo(page, route);
}

/** Client-side navigation: sets the hash as a link click would. */
export async function goTo(page: Page, route: Route): Promise<void> {
  await page.evaluate((r) => {
    window.location.hash = `#/${r}`;
  }, route);
  await expect(page).toHaveURL(new RegExp(`#/${route}$`));
}

/** Types an identifier in Consulta and submits it; waits for the result card or the error banner. */
export async function lookup(page: Page, identifier: string): Promise<'result' | 'error'> {
  const input = page.getByTestId('lookup-input');
  await input.fill(identifier);
  const submit = page.getByTestId('lookup-submit');
  await expect(submit).toBeEnabled();
  // Wait for this lookup's answer, not a previous one still on screen.
  const answered = page.waitForResponse((r) => r.url().endsWith('/bridge/lookup.account') && r.request().method() === 'POST');
  await submit.click();
  await answered;
  const outcome = page.getByTestId('lookup-result').or(page.getByTestId('lookup-error'));
  await expect(outcome.first()).toBeVisible();
  await expect(page.getByTestId('lookup-submit')).toBeEnabled();
  return (await page.getByTestId('lookup-result').isVisible()) ? 'result' : 'error';
}

/** The available balance shown on Saldo's card for a product (from its data-balance attribute). */
/** Tables that need a sideways scrollbar at this size ("history-table: 908 px in 890"): none may. */
export async function overflowingTables(page: Page): Promise<string[]> {
  return page.$$eval('.table-wrap', (wraps) =>
    wraps.filter((w) => w.scrollWidth > w.clientWidth + 1).map((w) => `${w.querySelector('table')?.dataset.testid ?? 'table'}: ${w.scrollWidth} px in ${w.clientWidth}`),
  );
}

/**
 * The screens see the real balances with one product's set to `balance`: a state (no credits, one
 * credit) the shared seed does not have, without spending or buying for it.
 */
export async function showBalance(page: Page, product: 'cbu' | 'informes', balance: number): Promise<void> {
  await page.route('**/bridge/balance.get', async (route) => {
    const response = await route.fetch();
    const json = await response.json();
    for (const b of json.value.balances) if (b.productSlug === product) b.balance = balance;
    await route.fulfill({ response, json });
  });
}

export async function readBalance(page: Page, product: 'cbu' | 'informes'): Promise<number> {
  const card = page.getByTestId(`balance-card-${product}`);
  await expect(card).toHaveAttribute('data-balance', /^\d+$/);
  return Number(await card.getAttribute('data-balance'));
}

/** GET on the localhost API with a Bearer key; answers status and parsed body. */
export async function apiGet(state: E2eState, pathAndQuery: string, key: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${state.admin.origin}${pathAndQuery}`, {
    headers: { Authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(5_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body };
}

/**
 * The core's answer when the balance ran out after the screen read it (another operator, a batch, an
 * API client spent the last one): `channel` answers 402, nothing charged, and from then on the
 * product's balance reads 0 (only after the request, so that the screen's button can be pressed).
 */
export async function creditsRunOutOn(page: Page, channel: 'lookup.account' | 'lookup.creditReport', product: 'cbu' | 'informes'): Promise<void> {
  let ranOut = false;
  await page.route(`**/bridge/${channel}`, async (route) => {
    ranOut = true;
    await route.fulfill({
      json: {
        ok: true,
        value: {
          status: 402,
          body: {
            success: false,
            error: { code: 'INSUFFICIENT_CREDITS', message: 'No credits left for this product; purchase more to continue' },
            credits_remaining: 0,
            request_id: 'req_0123456789abcdef0123456789abcdef',
          },
        },
      },
    });
  });
  await page.route('**/bridge/balance.get', async (route) => {
    const response = await route.fetch();
    const json = await response.json();
    if (ranOut) for (const b of json.value.balances) if (b.productSlug === product) b.balance = 0;
    await route.fulfill({ response, json });
  });
}
