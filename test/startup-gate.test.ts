// The startup gate: first-run setup, the unlock of a passphrase vault, and that a wrong passphrase
// changes nothing. Driven through the three startup channels (startup-handlers.ts), the same
// dispatch the Electron shell and the headless browser mode use before anyone is signed in.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StartupGate } from '../src/main/core/startup/startup-gate';
import { dispatchStartup } from '../src/main/core/ipc/startup-handlers';
import { keyfileProvider } from '../src/main/core/vault/keyfile-provider';
import { TitularError } from '../src/main/core/errors';
import type { Titular } from '../src/main/core/titular';

const PASSPHRASE = 'correcta caballo batería';
const dirs: string[] = [];
const opened: Titular[] = [];

afterEach(() => {
  for (const t of opened.splice(0)) t.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'titular-gate-'));
  dirs.push(dir);
  return dir;
}

/** A gate like the Electron shell's on a machine without a keychain (or headless without a key file). */
function gate(dataDir: string, options: { keychain?: boolean; passphrase?: string } = {}): StartupGate {
  const keyFile = () => keyfileProvider(path.join(dataDir, 'master.key'));
  const g = new StartupGate({
    dataDir,
    passphrase: options.passphrase,
    automaticProvider: (kind) => (kind === 'keyfile' && options.keychain ? keyFile() : null),
    newVaultProvider: () => (options.keychain ? keyFile() : null),
  });
  g.onReady((t) => opened.push(t));
  return g;
}

function expectError(fn: () => unknown, status: number, code: string): TitularError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(TitularError);
    expect((error as TitularError).status).toBe(status);
    expect((error as TitularError).code).toBe(code);
    return error as TitularError;
  }
  throw new Error('expected an error');
}

const setupInput = { organization: 'Acme Cobranzas', adminName: 'Ada Admin', adminEmail: 'ada@acme.test' };

describe('first run', () => {
  it('asks for setup, and for a passphrase where the computer has no keychain', () => {
    const dir = tempDir();
    const g = gate(dir);
    expect(dispatchStartup(g, 'startup.status', {})).toEqual({ phase: 'setup', protection: null, passphraseRequired: true, organization: null, dataDir: dir, earlierSetup: false });
    expect(gate(tempDir(), { keychain: true }).status()).toMatchObject({ phase: 'setup', passphraseRequired: false });
  });

  it('refuses setup without a passphrase on a computer without keychain, or with a short one, and creates nothing', () => {
    const dir = tempDir();
    const g = gate(dir);
    expect(expectError(() => dispatchStartup(g, 'startup.setup', setupInput), 400, 'INVALID_PARAMETER').message).toMatch(/passphrase/);
    expectError(() => dispatchStartup(g, 'startup.setup', { ...setupInput, passphrase: 'corta' }), 400, 'INVALID_PARAMETER');
    expectError(() => dispatchStartup(g, 'startup.setup', { ...setupInput, organization: '   ' }), 400, 'INVALID_PARAMETER');
    expect(g.titular).toBeNull();
    expect(g.status().phase).toBe('setup');
  });

  it('stays in setup when the admin is invalid, then sets up with a passphrase and opens', () => {
    const dir = tempDir();
    const g = gate(dir);
    expectError(() => dispatchStartup(g, 'startup.setup', { ...setupInput, adminEmail: 'no-es-un-email', passphrase: PASSPHRASE }), 400, 'INVALID_PARAMETER');
    expect(g.status().phase).toBe('setup');
    const status = dispatchStartup(g, 'startup.setup', { ...setupInput, passphrase: PASSPHRASE });
    expect(status).toMatchObject({ phase: 'ready', protection: 'passphrase', organization: 'Acme Cobranzas' });
    const titular = g.titular!;
    const org = titular.users.requireOrganization();
    expect(titular.users.list(org.id)).toEqual([expect.objectContaining({ email: 'ada@acme.test', role: 'admin' })]);
    expectError(() => dispatchStartup(g, 'startup.setup', { ...setupInput, passphrase: PASSPHRASE }), 409, 'INVALID_PARAMETER');
  });

  it('a form that fails creates no vault: the protection chosen on the next attempt is the one used', () => {
    const dir = tempDir();
    const g = gate(dir, { keychain: true });
    // First attempt: no passphrase (the host's protection would be used), and a mistyped email.
    expectError(() => dispatchStartup(g, 'startup.setup', { ...setupInput, adminEmail: 'no-es-un-email' }), 400, 'INVALID_PARAMETER');
    expect(g.status()).toMatchObject({ phase: 'setup', protection: null });
    expect(existsSync(path.join(dir, 'titular.db'))).toBe(false);
    // The second attempt chooses a passphrase, and gets it.
    expect(dispatchStartup(g, 'startup.setup', { ...setupInput, passphrase: PASSPHRASE })).toMatchObject({ phase: 'ready', protection: 'passphrase' });
  });

  it('uses the host protection when no passphrase is chosen', () => {
    const dir = tempDir();
    const g = gate(dir, { keychain: true });
    expect(dispatchStartup(g, 'startup.setup', setupInput)).toMatchObject({ phase: 'ready', protection: 'keyfile' });
  });
});

describe('a passphrase vault at start', () => {
  function initialized(): string {
    const dir = tempDir();
    const g = gate(dir);
    dispatchStartup(g, 'startup.setup', { ...setupInput, passphrase: PASSPHRASE });
    g.titular!.close();
    opened.length = 0;
    return dir;
  }

  it('is locked, and a wrong passphrase answers 401 and leaves the database file untouched', () => {
    const dir = initialized();
    const g = gate(dir);
    expect(g.tryAutomatic()).toBeNull();
    expect(dispatchStartup(g, 'startup.status', {})).toEqual({ phase: 'locked', protection: 'passphrase', passphraseRequired: true, organization: 'Acme Cobranzas', dataDir: dir, earlierSetup: false });
    const before = readFileSync(path.join(dir, 'titular.db'));
    expectError(() => dispatchStartup(g, 'startup.unlock', { passphrase: 'otra frase cualquiera' }), 401, 'UNAUTHORIZED');
    expectError(() => dispatchStartup(g, 'startup.unlock', { passphrase: 'corta' }), 401, 'UNAUTHORIZED');
    expectError(() => dispatchStartup(g, 'startup.unlock', {}), 400, 'INVALID_PARAMETER');
    expect(readFileSync(path.join(dir, 'titular.db')).equals(before)).toBe(true);
    expect(g.titular).toBeNull();
  });

  it('slows down wrong passphrases in a row: after three, the next attempt waits (429 RATE_LIMITED), even the right one', async () => {
    const dir = initialized();
    const g = gate(dir);
    for (const wrong of ['primera equivocada', 'segunda equivocada', 'tercera equivocada']) {
      expectError(() => dispatchStartup(g, 'startup.unlock', { passphrase: wrong }), 401, 'UNAUTHORIZED');
    }
    const waiting = expectError(() => dispatchStartup(g, 'startup.unlock', { passphrase: PASSPHRASE }), 429, 'RATE_LIMITED');
    expect(waiting.message).toMatch(/^Too many wrong passphrases; try again in 1 s$/);
    expect(g.titular).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(dispatchStartup(g, 'startup.unlock', { passphrase: PASSPHRASE })).toMatchObject({ phase: 'ready' });
  }, 30_000); // five scrypt derivations of about 0.4 s each, on a busy machine more

  it('opens with the right passphrase and tells the listeners once', () => {
    const dir = initialized();
    const g = gate(dir);
    let readyCalls = 0;
    g.onReady(() => readyCalls++);
    expect(dispatchStartup(g, 'startup.unlock', { passphrase: PASSPHRASE })).toMatchObject({ phase: 'ready' });
    expect(readyCalls).toBe(1);
    expect(g.titular!.vault.locked).toBe(false);
    expectError(() => dispatchStartup(g, 'startup.unlock', { passphrase: PASSPHRASE }), 409, 'INVALID_PARAMETER');
    expect(readyCalls).toBe(1);
  });

  it('opens at start with TITULAR_PASSPHRASE, and stays locked when that passphrase is wrong', () => {
    const dir = initialized();
    expect(gate(dir, { passphrase: 'no es la frase' }).tryAutomatic()).toBeNull();
    const g = gate(dir, { passphrase: PASSPHRASE });
    expect(g.tryAutomatic()).not.toBeNull();
    expect(g.status().phase).toBe('ready');
  });

  it('tries TITULAR_PASSPHRASE once, at start, then forgets it', () => {
    // A gate started on an empty directory keeps no copy of the start passphrase: once the directory
    // is set up (here by another gate), the right passphrase no longer opens it unasked.
    const dir = tempDir();
    const early = gate(dir, { passphrase: PASSPHRASE });
    expect(early.tryAutomatic()).toBeNull();
    dispatchStartup(gate(dir), 'startup.setup', { ...setupInput, passphrase: PASSPHRASE });
    for (const t of opened.splice(0)) t.close();
    expect(early.tryAutomatic()).toBeNull();
    expect(early.status().phase).toBe('locked');
    expect(gate(dir, { passphrase: PASSPHRASE }).tryAutomatic()).not.toBeNull();
  });
});

describe('a vault the host protects, when that protection is not available now', () => {
  it('is locked without asking for a passphrase, and an unlock says why instead of "wrong passphrase"', () => {
    const dir = tempDir();
    dispatchStartup(gate(dir, { keychain: true }), 'startup.setup', setupInput);
    for (const t of opened.splice(0)) t.close();
    const g = gate(dir); // the key file's provider (standing for the keychain) is not offered
    expect(g.tryAutomatic()).toBeNull();
    expect(dispatchStartup(g, 'startup.status', {})).toEqual({ phase: 'locked', protection: 'keyfile', passphraseRequired: false, organization: 'Acme Cobranzas', dataDir: dir, earlierSetup: false });
    const refused = expectError(() => dispatchStartup(g, 'startup.unlock', { passphrase: PASSPHRASE }), 409, 'INVALID_PARAMETER');
    expect(refused.message).toMatch(/not protected by a passphrase but by a key file/);
    expect(g.titular).toBeNull();
  });

  it('a key file gone missing: locked with that reason, as the desktop and the browser mode offer it', () => {
    const dir = tempDir();
    dispatchStartup(gate(dir, { keychain: true }), 'startup.setup', setupInput);
    for (const t of opened.splice(0)) t.close();
    rmSync(path.join(dir, 'master.key'));
    const g = gate(dir, { keychain: true }); // the key file's provider is offered, but the file is gone
    expect(g.tryAutomatic()).toBeNull();
    expect(g.status()).toEqual({ phase: 'locked', protection: 'keyfile', passphraseRequired: false, organization: 'Acme Cobranzas', dataDir: dir, earlierSetup: false });
  });
});

describe('a key-file vault at start', () => {
  it('opens without asking anyone', () => {
    const dir = tempDir();
    dispatchStartup(gate(dir, { keychain: true }), 'startup.setup', setupInput);
    for (const t of opened.splice(0)) t.close();
    const g = gate(dir, { keychain: true });
    expect(g.tryAutomatic()).not.toBeNull();
    expect(g.status()).toMatchObject({ phase: 'ready', protection: 'keyfile' });
  });
});

describe('a folder holding the key file of an earlier setup but no database', () => {
  /** A key-file setup whose database was then deleted (or emptied), as `titular init` finds it. */
  function leftover(database: 'deleted' | 'empty'): { dir: string; key: string } {
    const dir = tempDir();
    dispatchStartup(gate(dir, { keychain: true }), 'startup.setup', setupInput);
    for (const t of opened.splice(0)) t.close();
    for (const name of readdirSync(dir)) if (name.startsWith('titular.db')) rmSync(path.join(dir, name));
    if (database === 'empty') writeFileSync(path.join(dir, 'titular.db'), '');
    return { dir, key: readFileSync(path.join(dir, 'master.key'), 'utf8') };
  }
  const newOrg = { organization: 'Otra SA', adminName: 'Otra Admin', adminEmail: 'otra@otra.test' };

  it('is a setup that says so, on the desktop (a passphrase) and headless (the key file)', () => {
    const { dir } = leftover('deleted');
    expect(dispatchStartup(gate(dir), 'startup.status', {})).toEqual({ phase: 'setup', protection: null, passphraseRequired: true, organization: null, dataDir: dir, earlierSetup: true });
    expect(gate(leftover('empty').dir, { keychain: true }).status()).toMatchObject({ phase: 'setup', earlierSetup: true });
  });

  it('is refused without the explicit confirmation, pointing to restore, and nothing is written', () => {
    const { dir, key } = leftover('deleted');
    const g = gate(dir, { keychain: true });
    for (const input of [newOrg, { ...newOrg, newOrganization: false }, { ...newOrg, passphrase: PASSPHRASE }]) {
      const refused = expectError(() => dispatchStartup(g, 'startup.setup', input), 409, 'INVALID_PARAMETER');
      expect(refused.message).toBe(
        `${dir} holds the key file of an earlier setup (master.key) but no database (titular.db is missing): if Titular had data here, restore your latest backup with \`titular restore FOLDER --data-dir ${dir}\`. To set up a new organization here anyway, confirm that you start a new one; nothing was changed`,
      );
    }
    // Only a boolean: a confirmation is not guessed from anything else.
    expectError(() => dispatchStartup(g, 'startup.setup', { ...newOrg, newOrganization: 'yes' }), 400, 'INVALID_PARAMETER');
    expect(readdirSync(dir)).toEqual(['master.key']);
    expect(readFileSync(path.join(dir, 'master.key'), 'utf8')).toBe(key);
    expect(g.titular).toBeNull();
    expect(g.status()).toMatchObject({ phase: 'setup', earlierSetup: true });
  });

  it('confirmed, starts a new organization there; a key-file vault keeps that master.key, as `init --new-organization`', () => {
    const { dir, key } = leftover('empty');
    const g = gate(dir, { keychain: true });
    expect(dispatchStartup(g, 'startup.setup', { ...newOrg, newOrganization: true })).toEqual({
      phase: 'ready',
      protection: 'keyfile',
      passphraseRequired: false,
      organization: 'Otra SA',
      dataDir: dir,
      earlierSetup: false,
    });
    expect(readFileSync(path.join(dir, 'master.key'), 'utf8')).toBe(key);
    const org = g.titular!.users.requireOrganization();
    expect(g.titular!.users.list(org.id)).toEqual([expect.objectContaining({ email: 'otra@otra.test', role: 'admin' })]);
  });

  it('a new folder needs no confirmation, and takes one without harm', () => {
    expect(dispatchStartup(gate(tempDir(), { keychain: true }), 'startup.setup', { ...setupInput, newOrganization: true })).toMatchObject({ phase: 'ready', earlierSetup: false });
  });
});
