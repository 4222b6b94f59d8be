// Saldo: a purchase recorded by the admin raises the balance by its amount (the notice is scrolled into
// view); a repeated reference does not.
import { expect, openApp, readBalance, test, showBalance } from './fixtures';

test('a purchase increases the CBU balance by its amount', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'saldo');
  await expect(page.getByTestId('balance-card-informes')).toBeVisible();
  const before = await readBalance(page, 'cbu');
  const purchasedBefore = Number(await page.getByTestId('balance-purchased-cbu').innerText().then((t) => t.replace(/\D/g, '')));

  const reference = `FAC-E2E-${Date.now()}`;
  await page.getByTestId('purchase-amount').fill('250');
  await page.getByTestId('purchase-reference').fill(reference);
  await page.getByTestId('purchase-submit').click();

  await expect(page.getByTestId('balance-card-cbu')).toHaveAttribute('data-balance', String(before + 250));
  await expect(page.getByTestId('balance-available-cbu')).toHaveText((before + 250).toLocaleString('es-AR'));
  await expect(page.getByTestId('balance-purchased-cbu')).toHaveText((purchasedBefore + 250).toLocaleString('es-AR'));
  await expect(page.getByTestId('purchase-result')).toContainText('Se acreditaron 250 créditos. Nuevo saldo:');
  // Below the button, under the fold of a 1280x800 window: scrolled into view, not left unseen.
  await expect(page.getByTestId('purchase-result')).toBeInViewport({ ratio: 1 });
  // The form is cleared for the next purchase.
  await expect(page.getByTestId('purchase-amount')).toHaveValue('');

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
  await page.getByTestId('purchase-submit').click();
  const error = page.getByTestId('purchase-error');
  await expect(error).toContainText(`La referencia "${reference}" ya se usó en una compra de 250 créditos.`);
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
