// Ajustes: "Guardar cambios" with a field the screen refuses. The button sits below the cards, so at
// 1024×640 a port of 80 was said only far above, off-screen, and the click seemed to do nothing. A
// refused save must take focus (and the view) to the first field to fix, its message tied to it for
// screen readers, and save nothing. The shared data directory's settings are read first and put back
// if anything changed, so the specs after this one see the same settings.
import type { Page } from '@playwright/test';
import { expect, openApp, test } from './fixtures';

async function bridge(page: Page, channel: string, body: unknown): Promise<any> {
  return page.evaluate(
    async ([name, payload]) => {
      const token = window.sessionStorage.getItem('titular.session');
      const response = await fetch(`/bridge/${name}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Session ${token}` }, body: JSON.stringify(payload) });
      return response.json();
    },
    [channel, body] as const,
  );
}

/** The stored values a save would write (not the API's running port nor the remote source's state). */
const stored = (s: any) => ({ apiPort: s.apiPort, autoLockMinutes: s.autoLockMinutes, resolvers: s.resolvers, remote: { baseUrl: s.remote.baseUrl, timeoutMs: s.remote.timeoutMs } });

/** Scrolls the screen to its end, where "Guardar cambios" is, as the admin does before clicking it. */
async function scrollToEnd(page: Page): Promise<void> {
  await page.getByTestId('settings-save').scrollIntoViewIfNeeded();
  await page.mouse.wheel(0, 5_000);
  await expect(page.getByTestId('settings-port')).not.toBeInViewport();
}

/** The text of the elements named by `aria-describedby` of the locator's element. */
async function description(page: Page, testId: string): Promise<string> {
  return page.getByTestId(testId).evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent?.trim() ?? '')
      .join(' '),
  );
}

/** The port's hint, which describes it while it is valid. */
const PORT_HINT = 'Entre 1024 y 65535. El cambio se aplica al reiniciar Titular.';

test.use({ viewport: { width: 1024, height: 640 } });

test('a refused save takes focus to the first field to fix, says why to screen readers, and saves nothing', async ({ page, state }) => {
  await openApp(page, state, 'admin', 'ajustes');
  const before = await bridge(page, 'settings.get', {});
  expect(before.ok).toBe(true);
  let saves = 0;
  page.on('request', (r) => {
    if (r.url().endsWith('/bridge/settings.update')) saves++;
  });
  try {
    const port = page.getByTestId('settings-port');
    await expect(port).toHaveAttribute('aria-invalid', 'false');
    await port.fill('80');
    await scrollToEnd(page);
    await page.getByTestId('settings-save').click();
    await expect(port).toBeFocused();
    await expect(port).toBeInViewport();
    await expect(page.getByTestId('settings-port-error')).toBeInViewport();
    await expect(port).toHaveAttribute('aria-invalid', 'true');
    expect(await description(page, 'settings-port')).toBe('Ingresá un puerto entre 1024 y 65535.');
    // Nothing was sent, and no notice says it was saved.
    await expect(page.getByText('Ajustes guardados.')).toHaveCount(0);
    expect(saves).toBe(0);

    // With two fields to fix, the first in the screen's order is focused; once the port is fixed, the next one.
    await page.getByTestId('settings-remote-timeout').fill('99');
    await scrollToEnd(page);
    await page.getByTestId('settings-save').click();
    await expect(port).toBeFocused();
    await port.fill(String(before.value.apiPort));
    // Fixed: no longer marked, and described by its hint again.
    await expect(port).toHaveAttribute('aria-invalid', 'false');
    expect(await description(page, 'settings-port')).toBe(PORT_HINT);
    await scrollToEnd(page);
    await page.getByTestId('settings-save').click();
    const timeout = page.getByTestId('settings-remote-timeout');
    await expect(timeout).toBeFocused();
    await expect(timeout).toBeInViewport();
    await expect(timeout).toHaveAttribute('aria-invalid', 'true');
    expect(await description(page, 'settings-remote-timeout')).toBe('Ingresá de 100 a 60.000 ms.');

    // In English too, the message follows the language and stays tied to the field.
    await page.getByTestId('lang-switch').click();
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await page.getByTestId('settings-autolock').fill('2000');
    await scrollToEnd(page);
    await page.getByTestId('settings-save').click();
    const lock = page.getByTestId('settings-autolock');
    await expect(lock).toBeFocused();
    await expect(lock).toBeInViewport();
    expect(await description(page, 'settings-autolock')).toBe('Enter 0 to 1,440 minutes.');
    await page.getByTestId('lang-switch').click();
    await expect(page.locator('html')).toHaveAttribute('lang', 'es');

    expect(saves).toBe(0);
    expect(stored((await bridge(page, 'settings.get', {})).value)).toEqual(stored(before.value));
  } finally {
    // Put the shared directory's settings back had anything been saved (the specs after this one rely on them).
    const after = await bridge(page, 'settings.get', {});
    if (after.ok && JSON.stringify(stored(after.value)) !== JSON.stringify(stored(before.value))) {
      expect((await bridge(page, 'settings.update', stored(before.value))).ok).toBe(true);
    }
  }
});
