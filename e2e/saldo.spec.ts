// Saldo: a purchase recorded by the admin raises the balance by its amount (the notice is scrolled into
// view); a repeated reference does not. The balance bar shows what is left; the chart's scale is round.
import { expect, openApp, readBalance, test, showBalance } from './fixtures';

test('a purchase increases the CBU balance by its amount', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'saldo');
  await expect(page.getByTestId('balance-card-informes')).toBeVisible();
  const before = await readBalance(page, 'cbu');
  const purchasedBefore = Number(await page.getByTestId('balance-purchased-cbu').innerText().then((t) => t.replace(/\D/g, '')));

  const reference = `FAC-E2E-${Date.now()}`;
  await page.getByTestId('purchase-amount').fill('250');
  await page.getByTestId('purchase-reference').fill(reference);
  // From the keyboard: the button disables itself while the purchase is recorded (and after it, the
  // amount emptied); focus goes to the amount for the next one, not to <body>.
  await page.getByTestId('purchase-submit').press('Enter');

  await expect(page.getByTestId('balance-card-cbu')).toHaveAttribute('data-balance', String(before + 250));
  await expect(page.getByTestId('balance-available-cbu')).toHaveText((before + 250).toLocaleString('es-AR'));
  await expect(page.getByTestId('balance-purchased-cbu')).toHaveText((purchasedBefore + 250).toLocaleString('es-AR'));
  await expect(page.getByTestId('purchase-result')).toContainText('Se acreditaron 250 créditos. Nuevo saldo:');
  // Below the button, under the fold of a 1280x800 window: scrolled into view, not left unseen.
  await expect(page.getByTestId('purchase-result')).toBeInViewport({ ratio: 1 });
  // The form is cleared for the next purchase, and the amount has the focus.
  await expect(page.getByTestId('purchase-amount')).toHaveValue('');
  await expect(page.getByTestId('purchase-amount')).toBeFocused();

  // The same reference again is not added twice.
  await page.getByTestId('purchase-amount').fill('250');
  await page.getByTestId('purchase-reference').fill(reference);
  await page.getByTestId('purchase-submit').click();
  await expect(page.getByTestId('purchase-result')).toContainText('ya estaba registrada');
  await expect(page.getByTestId('purchase-result')).toBeInViewport({ ratio: 1 });
  await expect(page.getByTestId('balance-card-cbu')).toHaveAttribute('data-balance', String(before + 250));

  // The same reference with another amount is refused, in words a back office reads: no
  // "INVALID_PARAMETER · 400" beside them.
  await page.getByTestId('purchase-amount').fill('300');
  await page.getByTestId('purchase-reference').fill(reference);
  await page.getByTestId('purchase-submit').press('Enter');
  const error = page.getByTestId('purchase-error');
  await expect(error).toContainText(`La referencia “${reference}” ya se usó en una compra de 250 créditos.`);
  // Back on the button, beside the error.
  await expect(page.getByTestId('purchase-submit')).toBeFocused();
  await expect(error).toHaveAttribute('data-error-code', 'INVALID_PARAMETER');
  await expect(error).not.toContainText('INVALID_PARAMETER');
  await expect(page.getByTestId('balance-card-cbu')).toHaveAttribute('data-balance', String(before + 250));
});

test('an invalid amount cannot be submitted', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'saldo');
  await page.getByTestId('purchase-amount').fill('0');
  await expect(page.getByTestId('purchase-submit')).toBeDisabled();
  await page.getByTestId('purchase-amount').fill('12,5');
  await expect(page.getByTestId('purchase-submit')).toBeDisabled();
  await page.getByTestId('purchase-amount').fill('999999999');
  await expect(page.getByTestId('purchase-submit')).toBeDisabled();
  await expect(page.getByText('Una compra puede sumar hasta 100.000.000 créditos.')).toBeVisible();
});

test('an amount written with the thousands separator of es-AR (1.000) is a thousand', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'saldo');
  const before = await readBalance(page, 'cbu');
  await page.getByTestId('purchase-amount').fill('1.000');
  await page.getByTestId('purchase-reference').fill(`FAC-MIL-${Date.now()}`);
  await page.getByTestId('purchase-submit').click();
  await expect(page.getByTestId('balance-card-cbu')).toHaveAttribute('data-balance', String(before + 1000));
});

test('one credit is said in the singular: the purchase notice and the balance card, in Spanish and in English', async ({ page, state }) => {
  // The real balances, with the Informes credits at 1 (the seed has more).
  await showBalance(page, 'informes', 1);
  await openApp(page, state, 'admin', 'saldo');
  const informes = page.getByTestId('balance-card-informes');
  await expect(informes).toHaveAttribute('data-balance', '1');
  await expect(informes.locator('.balance-main')).toHaveText('1disponible');
  // The product's name as the rest of the Spanish writes it: "Informe crediticio", not "Informe Crediticio".
  await expect(informes.locator('.card-title')).toHaveText('Informe crediticio');
  await expect(page.getByTestId('chart-product-informes')).toHaveText('Informe crediticio');
  await expect(page.getByTestId('balance-card-cbu').locator('.balance-main')).toHaveText(/^[\d.]+disponibles$/);

  const before = await readBalance(page, 'cbu');
  await page.getByTestId('purchase-amount').fill('1');
  await page.getByTestId('purchase-reference').fill(`FAC-UNO-${Date.now()}`);
  await page.getByTestId('purchase-submit').click();
  await expect(page.getByTestId('purchase-result')).toHaveText(`Se acreditó 1 crédito. Nuevo saldo: ${(before + 1).toLocaleString('es-AR')}.`);

  await page.getByTestId('lang-switch').click();
  await expect(page.getByTestId('purchase-result')).toHaveText(`1 credit added. New balance: ${(before + 1).toLocaleString('en-US')}.`);
  await expect(informes.locator('.balance-main')).toHaveText('1available');
  await expect(informes.locator('.card-title')).toHaveText('Credit Report');
});

test('the balance bar shows the share of the purchased credits that is left, and says so', async ({ page, state }) => {
  // 150 of 200 Informes credits spent: a quarter is left.
  await page.route('**/bridge/balance.get', async (route) => {
    const response = await route.fetch();
    const json = await response.json();
    for (const b of json.value.balances) if (b.productSlug === 'informes') Object.assign(b, { totalPurchased: 200, totalConsumed: 150, balance: 50 });
    await route.fulfill({ response, json });
  });
  await openApp(page, state, 'admin', 'saldo');
  const meter = page.getByTestId('balance-meter-informes');
  await expect(meter).toHaveAttribute('aria-valuenow', '25');
  await expect(meter).toHaveAccessibleName('Créditos que quedan de lo comprado');
  await expect(meter).toHaveAttribute('aria-valuetext', 'Queda el 25%');
  await expect(page.getByTestId('balance-left-informes')).toHaveText('Queda el 25%');
  // The filled part is what is left, not what was used.
  const filled = await meter.evaluate((el) => el.firstElementChild!.getBoundingClientRect().width / el.getBoundingClientRect().width);
  expect(filled).toBeCloseTo(0.25, 2);

  await page.getByTestId('lang-switch').click();
  await expect(meter).toHaveAccessibleName('Credits left of those purchased');
  await expect(page.getByTestId('balance-left-informes')).toHaveText('25% left');
});

test('the consumption chart counts in steps of 1, 2 or 5 × 10ⁿ and labels its days evenly, ending today', async ({ page, state }) => {
  // 23 credits on one day: the scale used to top at 25 with only 0 and 25 on it.
  await page.route('**/bridge/balance.dailyConsumption', async (route) => {
    const response = await route.fetch();
    const json = await response.json();
    // Whatever the other specs spent today, only this day counts.
    for (const day of json.value.days) day.consumed = 0;
    json.value.days[json.value.days.length - 3].consumed = 23;
    await route.fulfill({ response, json });
  });
  await openApp(page, state, 'admin', 'saldo');
  // dd/mm as the rest of the app writes dates (03/11/2026): es-AR's own short form is "3/11".
  const today = await page.evaluate(() => {
    const d = new Date();
    return `${String(d.getDate()).padStart(2, '0')}/${String(d.getMonth() + 1).padStart(2, '0')}`;
  });
  for (const width of [1024, 1280, 1920]) {
    await page.setViewportSize({ width, height: 800 });
    const chart = page.getByTestId('consumption-chart');
    await expect(chart.getByTestId('chart-y-tick').last()).toHaveText('30');
    const ticks = (await chart.getByTestId('chart-y-tick').allTextContents()).map((t) => Number(t.replace(/\./g, '')));
    const step = ticks[1]! - ticks[0]!;
    expect(ticks, `${width} px`).toEqual(ticks.map((_, i) => i * step));
    expect(ticks.length, `${width} px`).toBeGreaterThanOrEqual(3);
    expect([1, 2, 5], `${width} px: a step of ${step}`).toContain(step / 10 ** Math.floor(Math.log10(step)));
    // The chart redraws once a ResizeObserver has seen its new width: measure that drawing, not the
    // one before (labels it removes would keep their old places and read as uneven).
    await expect
      .poll(() => chart.evaluate((card) => card.querySelector('svg.chart')!.getAttribute('width') === String(Math.round(card.querySelector('.chart-wrap')!.getBoundingClientRect().width))), { message: `${width} px` })
      .toBe(true);
    // The days' labels at one distance from each other, the last one today's; read in one step.
    const xs = await chart.evaluate((card) => [...card.querySelectorAll('[data-testid="chart-x-label"]')].map((el) => Number(el.getAttribute('x'))));
    const gaps = xs.slice(1).map((x, i) => x - xs[i]!);
    expect(Math.max(...gaps) - Math.min(...gaps), `${width} px: gaps ${gaps.join(', ')}`).toBeLessThan(0.5);
    expect(xs.length, `${width} px`).toBeGreaterThanOrEqual(5);
    await expect(chart.getByTestId('chart-x-label').last()).toHaveText(today);
    // Thirty days always take in a 1st to 9th: "03/11", never "3/11" beside "28/10".
    for (const label of await chart.getByTestId('chart-x-label').allTextContents()) expect(label, `${width} px`).toMatch(/^\d{2}\/\d{2}$/);
  }
});
