// Who the desktop (Electron, and the browser mode without --user) is signed in as: the first admin,
// chosen once and kept, so that an admin who demotes themselves stays themselves (now an operator)
// rather than the desktop becoming the next admin. Also where every entry keeps its data.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openTitular, type Titular } from '../src/main/core/titular';
import { headlessKeyProvider } from '../src/main/headless/config';
import { desktopUserId } from '../src/main/core/users/desktop-user';
import { earlierIfOnlyThere, parseSynchronous, resolveDataDir } from '../src/main/core/data-dir';
import { uuidv7 } from '../src/main/core/db/ids';

const MIGRATIONS = path.join(fileURLToPath(new URL('..', import.meta.url)), 'drizzle');
const dirs: string[] = [];

function open(dataDir: string): Titular {
  return openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, {}), migrationsFolder: MIGRATIONS });
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('desktopUserId', () => {
  it('is the first admin, saved; a self-demoted admin stays the desktop user, also after a restart', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-desktop-user-'));
    dirs.push(dataDir);
    let titular = open(dataDir);
    const { org, admin: first } = titular.users.initialize({ orgName: 'Acme', adminName: 'Ana', adminEmail: 'ana@acme.test' });
    const second = titular.users.add(org.id, { name: 'Beto', email: 'beto@acme.test', role: 'admin' }, first.id);
    expect(titular.settings.get('desktop.userId')).toBeNull();

    expect(desktopUserId(titular)).toBe(first.id);
    expect(titular.settings.get('desktop.userId')).toBe(first.id);

    // Ana demotes herself from the desktop: the desktop is still Ana, now an operator.
    titular.users.setRole(org.id, first.id, 'operator', first.id);
    expect(desktopUserId(titular)).toBe(first.id);
    titular.close();
    titular = open(dataDir);
    expect(desktopUserId(titular)).toBe(first.id);
    expect(titular.users.get(org.id, first.id)?.role).toBe('operator');

    // A saved id that names nobody of this organization (a copied database): the first admin again, saved.
    titular.settings.set('desktop.userId', uuidv7());
    expect(desktopUserId(titular)).toBe(second.id);
    expect(titular.settings.get('desktop.userId')).toBe(second.id);
    titular.close();
  });
});

describe('where the data is, and how durably it is written', () => {
  it('--data-dir, else TITULAR_DATA_DIR, else the platform data folder: the same for the desktop, serve and the CLI', () => {
    expect(resolveDataDir('rel/dir', { TITULAR_DATA_DIR: '/elsewhere' })).toBe(path.resolve('rel/dir'));
    expect(resolveDataDir(undefined, { TITULAR_DATA_DIR: '/srv/titular' })).toBe(path.resolve('/srv/titular'));
    if (process.platform === 'linux') {
      expect(resolveDataDir(undefined, { XDG_DATA_HOME: '/home/ana/.data' })).toBe('/home/ana/.data/titular');
      expect(resolveDataDir(undefined, {})).toBe(path.join(os.homedir(), '.local', 'share', 'titular'));
      // An empty or relative XDG_DATA_HOME is ignored (XDG Base Directory rules), not joined to the working directory.
      expect(resolveDataDir(undefined, { XDG_DATA_HOME: '' })).toBe(path.join(os.homedir(), '.local', 'share', 'titular'));
      expect(resolveDataDir(undefined, { XDG_DATA_HOME: 'datos' })).toBe(path.join(os.homedir(), '.local', 'share', 'titular'));
    }
  });

  it.runIf(process.platform === 'linux')('Linux: the desktop app\'s earlier ~/.config/titular/data is found by every entry while only it holds a database', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'titular-xdg-'));
    dirs.push(root);
    const env = { XDG_DATA_HOME: path.join(root, 'share'), XDG_CONFIG_HOME: path.join(root, 'config') };
    const current = path.join(root, 'share', 'titular');
    const earlier = path.join(root, 'config', 'titular', 'data');
    expect(resolveDataDir(undefined, env)).toBe(current);
    mkdirSync(earlier, { recursive: true });
    writeFileSync(path.join(earlier, 'titular.db'), '');
    expect(resolveDataDir(undefined, env)).toBe(earlier);
    // A relative XDG_CONFIG_HOME is ignored, as XDG_DATA_HOME is: ~/.config is where the earlier folder would be.
    expect(resolveDataDir(undefined, { ...env, XDG_CONFIG_HOME: 'config' })).toBe(current);
    mkdirSync(current, { recursive: true });
    writeFileSync(path.join(current, 'titular.db'), '');
    expect(resolveDataDir(undefined, env)).toBe(current);
  });

  it('a database only in the folder an earlier version used is still found there; one in the current folder wins', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'titular-earlier-'));
    dirs.push(root);
    const current = path.join(root, 'Titular', 'data');
    const earlier = path.join(root, 'Titular');
    mkdirSync(current, { recursive: true });
    expect(earlierIfOnlyThere(current, earlier)).toBe(current); // nothing anywhere: the current folder
    writeFileSync(path.join(earlier, 'titular.db'), '');
    expect(earlierIfOnlyThere(current, earlier)).toBe(earlier);
    writeFileSync(path.join(current, 'titular.db'), '');
    expect(earlierIfOnlyThere(current, earlier)).toBe(current);
  });

  it('TITULAR_SYNCHRONOUS: NORMAL by default (also when empty), FULL in any case, anything else refused (null)', () => {
    expect(parseSynchronous(undefined)).toBe('NORMAL');
    expect(parseSynchronous(' full ')).toBe('FULL');
    expect(parseSynchronous('Normal')).toBe('NORMAL');
    expect(parseSynchronous('OFF')).toBeNull();
    expect(parseSynchronous('')).toBe('NORMAL');
    expect(parseSynchronous('FULLY')).toBeNull();
  });
});
