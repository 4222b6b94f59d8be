// A passphrase vault:
// - locking it drops what could unlock it again: after lockVault() no object reachable from the
//   running core holds the passphrase (a heap snapshot, which collects garbage first, is searched
//   for it). The passphrase is made inside a function that returns only its bytes, so the test
//   itself keeps no string of it;
// - over IPC, a passphrase that is wrong, or too short to be any vault's, is a 401, not a fault.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getHeapSnapshot } from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openTitular, type Titular } from '../src/main/core/titular';
import { TitularError } from '../src/main/core/errors';
import { dispatch } from '../src/main/core/ipc/handlers';
import { passphraseProvider } from '../src/main/core/vault/passphrase-provider';

let titular: Titular | null = null;
let dataDir: string | null = null;
afterEach(() => {
  titular?.close();
  titular = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = null;
});

/** Opens a core on a new passphrase vault; returns the passphrase's UTF-8 bytes only. */
function openWithPassphrase(dir: string): { core: Titular; passphraseBytes: Buffer } {
  const passphrase = `pp-${randomBytes(12).toString('hex')}`;
  const core = openTitular({ dataDir: dir, keyProvider: () => passphraseProvider(passphrase) });
  return { core, passphraseBytes: Buffer.from(passphrase) };
}

/** A passphrase vault on a new data directory (removed by afterEach) with an organization and one key; the test keeps `core` in `titular`. */
function organizationWithKey() {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-lock-'));
  const opened = openWithPassphrase(dataDir);
  const core = opened.core;
  const { admin, org } = core.users.initialize({ orgName: 'Acme', adminName: 'Ada', adminEmail: 'ada@acme.test' });
  const key = core.keys.create({ orgId: org.id, ownerUserId: admin.id, actorUserId: admin.id, product: 'cbu', scopes: ['lookup'], environment: 'live' });
  return { opened, core, admin, org, key };
}

async function heapHolds(needle: Buffer): Promise<boolean> {
  const chunks: Buffer[] = [];
  for await (const chunk of getHeapSnapshot()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).includes(needle);
}

describe('passphrase vault', () => {
  it('after lockVault() the passphrase is no longer reachable from the core (heap snapshot)', { timeout: 60_000 }, async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-lock-'));
    const opened = openWithPassphrase(dataDir);
    titular = opened.core;
    // Control: while the core is being opened the provider holds it, and the search finds such a string.
    const control = Buffer.from(`pp-${randomBytes(12).toString('hex')}`);
    const held = { text: control.toString() };
    expect(await heapHolds(control)).toBe(true);
    held.text = '';

    titular.lockVault();
    expect(titular.vault.locked).toBe(true);
    expect(await heapHolds(opened.passphraseBytes)).toBe(false);
  });

  it('IPC vault.unlock and keys.reveal: a wrong or too short passphrase is 401, wrong ones in a row are slowed down (429), scrypt runs off the event loop; the right one unlocks and reveals', { timeout: 60_000 }, async () => {
    const { opened, core, admin, key } = organizationWithKey();
    titular = core;
    const session = { userId: admin.id };
    const status = async (channel: string, input: unknown) =>
      dispatch(titular!, session, channel, input).then(
        () => 200,
        (error: unknown) => (error instanceof TitularError ? error.status : 500),
      );
    const passphrase = opened.passphraseBytes.toString();
    // scrypt at OWASP's recommended cost, stored beside the wrapped key.
    const kdf = JSON.parse(titular.database.sqlite.prepare('SELECT kdf FROM vault_meta').pluck().get() as string);
    expect(kdf).toMatchObject({ alg: 'scrypt', N: 2 ** 17, r: 8, p: 1 });

    // The wait runs on the monotonic clock (performance.now()), faked from here on; timers stay real.
    vi.useFakeTimers({ toFake: ['performance'] });
    for (const wrong of ['short', 'wrong passphrase']) expect(await status('keys.reveal', { id: key.key.id, confirm: true, passphrase: wrong }), wrong).toBe(401);
    titular.lockVault();
    expect(await status('vault.unlock', { passphrase: 'short' })).toBe(401);
    // A third wrong passphrase in a row: the next attempt waits a second (then 2, 4… up to a minute),
    // the right passphrase included, without running scrypt.
    try {
      expect(await status('vault.unlock', { passphrase })).toBe(429);
      expect(await status('keys.reveal', { id: key.key.id, confirm: true, passphrase })).toBe(429);
      vi.advanceTimersByTime(1_001);
      expect(await status('vault.unlock', { passphrase: 'wrong passphrase' })).toBe(401);
      vi.advanceTimersByTime(1_001);
      expect(await status('vault.unlock', { passphrase })).toBe(429); // now 2 s
      vi.advanceTimersByTime(1_000);
      expect(titular.vault.locked).toBe(true);
      // scrypt (0.4 s) runs off the event loop: other work keeps being served while it derives.
      let turns = 0;
      const spin = () => {
        turns++;
        if (spinning) setImmediate(spin);
      };
      let spinning = true;
      setImmediate(spin);
      expect(await dispatch(titular, session, 'vault.unlock', { passphrase })).toEqual({ locked: false });
      spinning = false;
      expect(turns).toBeGreaterThan(10);
    } finally {
      vi.useRealTimers();
    }
    // The right passphrase resets the count: a wrong one now is a plain 401 again.
    expect(await status('keys.reveal', { id: key.key.id, confirm: true, passphrase: 'wrong passphrase' })).toBe(401);
    expect(await dispatch(titular, session, 'keys.reveal', { id: key.key.id, confirm: true, passphrase })).toEqual({ secret: key.secret });
    // Guesses sent at once are counted before their scrypt runs: three are tried, the rest wait.
    const together = await Promise.all(Array.from({ length: 8 }, (_, i) => status('keys.reveal', { id: key.key.id, confirm: true, passphrase: `wrong guess ${i}` })));
    expect(together.filter((s) => s === 401)).toHaveLength(3);
    expect(together.filter((s) => s === 429)).toHaveLength(5);
  });

  it('IPC keys.create and keys.rotate ask for the passphrase as keys.reveal does: none or a wrong one is 401 with nothing written, counted with the other attempts; the right one goes ahead', { timeout: 60_000 }, async () => {
    const { opened, core, admin, org, key } = organizationWithKey();
    titular = core;
    const session = { userId: admin.id };
    const refusal = (channel: string, input: unknown) =>
      dispatch(titular!, session, channel, input).then(
        () => null,
        (error: unknown) => (error instanceof TitularError ? `${error.status} ${error.message}` : String(error)),
      );
    const passphrase = opened.passphraseBytes.toString();
    const create = { name: 'ERP', product: 'cbu', scopes: ['lookup'], environment: 'live' };
    const written = () => ({ keys: titular!.keys.list(org.id).map((k) => `${k.id} ${k.prefix}`), audit: titular!.audit.list(org.id).length });
    const before = written();

    // A mistake in the form is said first: no passphrase asked for, no attempt counted.
    expect(await refusal('keys.create', { ...create, ipWhitelist: ['10.0.0.300'] })).toBe('400 Not an IP address or CIDR range: 10.0.0.300');
    expect(await refusal('keys.create', create)).toBe('401 Enter the vault passphrase to create a key');
    expect(await refusal('keys.rotate', { id: key.key.id })).toBe('401 Enter the vault passphrase to rotate a key');
    expect(await refusal('keys.create', { ...create, passphrase: 'wrong passphrase' })).toBe('401 Wrong passphrase');
    expect(await refusal('keys.rotate', { id: key.key.id, passphrase: 'wrong passphrase' })).toBe('401 Wrong passphrase');
    expect(written()).toEqual(before);
    // A third wrong one in a row, on reveal: the next attempt, whichever step asks, waits. The wait runs
    // on the monotonic clock, faked here: with the real one, a scrypt slowed past the second's wait by
    // a busy machine (two test runs at once) let the next attempt through.
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      expect(await refusal('keys.reveal', { id: key.key.id, confirm: true, passphrase: 'wrong passphrase' })).toMatch(/^401 /);
      expect(await refusal('keys.create', { ...create, passphrase })).toMatch(/^429 /);
      expect(written()).toEqual(before);
      vi.advanceTimersByTime(1_001);
    } finally {
      vi.useRealTimers();
    }
    const created = (await dispatch(titular, session, 'keys.create', { ...create, passphrase })) as { secret: string };
    expect(created.secret).toMatch(/^sk_live_/);
    const rotated = (await dispatch(titular, session, 'keys.rotate', { id: key.key.id, passphrase })) as { secret: string };
    expect(rotated.secret).not.toBe(key.secret);
    expect(titular.keys.list(org.id)).toHaveLength(2);
  });
});
