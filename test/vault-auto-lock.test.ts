// The vault's auto-lock (core/vault/auto-lock.ts) as the browser mode's bridge applies it, the same
// rule the desktop window's IPC uses: after the idle time in the settings without a person's call,
// the data key is dropped; the screens' own polls (a batch's progress, the vault's state) do not
// hold it off; 0 turns it off. Timers are faked (setTimeout only), so minutes pass at once.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBridgeFixture, type BridgeFixture } from './support/bridge-fixture';

let f: BridgeFixture | null = null;
afterEach(async () => {
  vi.useRealTimers();
  await f?.close();
  f = null;
});

const MINUTE = 60_000;

async function withAutoLock(minutes: number): Promise<BridgeFixture> {
  f = await createBridgeFixture();
  f.createKey();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const settings = await f.value('settings.get', {});
  // A person's call: the next idle time counts from here, with the new setting.
  await f.value('settings.update', { ...settings, autoLockMinutes: minutes });
  return f;
}

describe('auto-lock in the browser mode', () => {
  it('locks the vault after the idle time without a person\'s call; polls do not hold it off', async () => {
    const g = await withAutoLock(2);
    vi.advanceTimersByTime(2 * MINUTE - 1_000);
    // Polls, as the screens make them on their own: not activity.
    expect((await g.value('vault.status', {})).locked).toBe(false);
    await g.value('bulk.list', {});
    vi.advanceTimersByTime(1_000);
    expect(g.titular.vault.locked).toBe(true);
    expect((await g.value('vault.status', {})).locked).toBe(true);
    // A locked vault refuses what needs it, and says so.
    const id = (await g.value('keys.list', {})).keys[0].id;
    const reveal = await g.call('keys.reveal', { id, confirm: true });
    expect(reveal.body).toMatchObject({ ok: false, error: { status: 401, message: 'The vault is locked: unlock it to manage keys' } });
  });

  it('a person\'s call starts the idle time again', async () => {
    const g = await withAutoLock(1);
    vi.advanceTimersByTime(50_000);
    await g.value('keys.list', {});
    vi.advanceTimersByTime(50_000);
    expect(g.titular.vault.locked).toBe(false);
    vi.advanceTimersByTime(10_000);
    expect(g.titular.vault.locked).toBe(true);
  });

  it('0 turns it off', async () => {
    const g = await withAutoLock(0);
    vi.advanceTimersByTime(24 * 60 * MINUTE);
    expect(g.titular.vault.locked).toBe(false);
  });
});
