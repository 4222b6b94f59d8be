// Saldo: a purchase recorded by the admin raises the balance by its amount (the notice is scrolled into
// view); a repeated reference does not.
import { expect, openApp, readBalance, test } from './fixtures';

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
  await expect(page.getByTestId('purchase-result')).toContainText('Se acreditaron 250 créditos');
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
