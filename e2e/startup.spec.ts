// First run and unlock in the browser mode, on a data directory of its own: the setup screen
// creates the organization with a vault passphrase; a restart without TITULAR_PASSPHRASE shows the
// unlock screen; a wrong passphrase is refused; the right one opens the app on the same page and
// the localhost API starts answering. Then the admin's Ajustes screen. Screenshots:
// bienvenida.png, desbloqueo.png, ajustes.png; bienvenida-instalacion-anterior.png (a folder with an
// earlier setup's key file but no database).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, test, type Page } from '@playwright/test';
import { wcagViolations } from './axe';

const REPO = path.resolve(__dirname, '..');
const SHOTS = path.join(__dirname, 'screenshots');
const PASSPHRASE = 'mate amargo a las nueve';
/** A passphrase's scrypt (N = 2^17) before the screen changes: about 2 s here, over 5 s once under load. */
const SCRYPT_WAIT_MS = 20_000;

interface Server {
  child: ChildProcess;
  url: string;
  origin: string;
}

function start(dataDir: string): Promise<Server> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.TITULAR_PASSPHRASE;
  delete env.TITULAR_DATA_DIR;
  delete env.TITULAR_PORT;
  const child = spawn(process.execPath, [path.join(REPO, 'out/main/serve.js'), '--data-dir', dataDir, '--port', '0', '--ui'], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no URL within 20 s:\n${output}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /Open Titular in your browser: (http:\/\/127\.0\.0\.1:\d+\/#session=[A-Za-z0-9_-]+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, origin: new URL(url).origin });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

/** `titular init` of an organization in `dataDir`, with a key-file vault (no passphrase in the environment). */
function initKeyFileDir(dataDir: string): void {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.TITULAR_PASSPHRASE;
  execFileSync(process.execPath, [path.join(REPO, 'out/main/cli.js'), 'init', '--org', 'Acme Cobranzas', '--admin-name', 'Ada', '--admin-email', 'ada@acme.test', '--data-dir', dataDir], { env });
}

async function stop(server: Server | null): Promise<void> {
  if (!server || server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  if (server.child.exitCode === null) server.child.kill('SIGKILL');
}

/** A desktop channel called as the screen calls it (its session from the page), answering the HTTP status. */
function bridgeStatus(page: Page, channel: string, body: unknown): Promise<number> {
  return page.evaluate(
    async ([name, payload]) => {
      const token = window.sessionStorage.getItem('titular.session');
      const response = await fetch(`/bridge/${name}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Session ${token}` }, body: JSON.stringify(payload) });
      return response.status;
    },
    [channel, body] as const,
  );
}

async function shoot(page: Page, name: string): Promise<void> {
  await expect(page.locator('.skeleton')).toHaveCount(0);
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), animations: 'disabled', caret: 'hide' });
}

test.describe.configure({ mode: 'serial' });

let dataDir: string;
let server: Server | null = null;

test.beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-e2e-startup-'));
});
test.afterAll(async () => {
  await stop(server);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(`${dataDir}-copias`, { recursive: true, force: true });
});

test('first run: the setup screen creates the organization with a vault passphrase', async ({ page }) => {
  server = await start(dataDir);
  await page.goto(server.url);
  const setup = page.getByTestId('startup-setup');
  await expect(setup).toBeVisible();
  await expect(setup).toContainText('Bienvenido a Titular');
  // A new folder: no earlier setup to warn about.
  await expect(page.getByTestId('setup-earlier')).toHaveCount(0);
  // The language can be switched before there is an app to switch it in.
  await page.getByTestId('lang-switch').click();
  await expect(setup.locator('.splash-title')).not.toHaveText(/Bienvenido/);
  await page.getByTestId('lang-switch').click();
  await expect(setup).toContainText('Bienvenido a Titular');

  // Validation happens before anything is sent.
  await page.getByTestId('setup-submit').click();
  await expect(setup.locator('.field-error').first()).toBeVisible();

  await page.getByTestId('setup-org').fill('Cooperativa del Litoral');
  await page.getByTestId('setup-name').fill('Marta Giménez');
  await page.getByTestId('setup-email').fill('marta@litoral.test');
  await page.getByTestId('setup-passphrase').fill(PASSPHRASE);
  await page.getByTestId('setup-passphrase-confirm').fill('otra cosa');
  await page.getByTestId('setup-submit').click();
  await expect(setup).toContainText('Las frases no coinciden.');
  expect(await wcagViolations(page)).toEqual([]);
  await page.getByTestId('setup-passphrase-confirm').fill(PASSPHRASE);
  await shoot(page, 'bienvenida');

  await page.getByTestId('setup-submit').click();
  await expect(page.getByTestId('session-user')).toHaveText('Marta Giménez', { timeout: SCRYPT_WAIT_MS });
  await expect(page.getByTestId('session-org')).toHaveText('Cooperativa del Litoral');
});

test('a restart locks it: a wrong passphrase is refused, the right one opens the app and the API', async ({ page, request }) => {
  await stop(server);
  server = await start(dataDir);
  // While locked, the API answers 503 GE500 in the documented body.
  const locked = await request.get(`${server.origin}/api/v1/balance`, { headers: { authorization: 'Bearer sk_live_x' } });
  expect(locked.status()).toBe(503);
  expect(await locked.json()).toMatchObject({ success: false, error: { code: 'GE500' } });

  await page.goto(server.url);
  const unlock = page.getByTestId('startup-unlock');
  await expect(unlock).toBeVisible();
  await expect(unlock).toContainText('Cooperativa del Litoral');
  await page.getByTestId('startup-passphrase').fill('no es la frase correcta');
  await page.getByTestId('startup-unlock-submit').click();
  await expect(page.getByTestId('startup-error')).toHaveAttribute('data-error-code', 'UNAUTHORIZED', { timeout: SCRYPT_WAIT_MS });
  await expect(page.getByTestId('startup-error')).toContainText('La frase de acceso no es correcta.');
  // What was typed is refused, and the title says it all: no UNAUTHORIZED · 401 chip beside it.
  await expect(page.getByTestId('startup-error').locator('.code-chip')).toHaveCount(0);
  // The field is emptied and has the focus for the next try (it had dropped to <body> from the button).
  await expect(page.getByTestId('startup-passphrase')).toHaveValue('');
  await expect(page.getByTestId('startup-passphrase')).toBeFocused();
  expect(await wcagViolations(page)).toEqual([]);
  await shoot(page, 'desbloqueo');

  await page.keyboard.type(PASSPHRASE);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('session-user')).toHaveText('Marta Giménez', { timeout: SCRYPT_WAIT_MS });
  // The full API now listens on the same port: an unknown key is a 401, not a 503.
  await expect
    .poll(async () => (await request.get(`${server!.origin}/api/v1/balance`, { headers: { authorization: 'Bearer sk_live_x' } })).status())
    .toBe(401);
});

test('Ajustes: the admin changes auto-lock and the resolvers, and stores a remote key without seeing it again', async ({ page }) => {
  await page.goto(server!.url);
  await expect(page.getByTestId('session-user')).toBeVisible();
  await page.evaluate(() => {
    window.location.hash = '#/ajustes';
  });
  const form = page.getByTestId('settings-form');
  await expect(form).toBeVisible();
  await expect(page.getByTestId('settings-save')).toBeDisabled();

  // Remote needs a URL before it can be saved.
  await page.getByTestId('settings-resolver-informes-remote').click();
  await page.getByTestId('settings-save').click();
  await expect(form).toContainText('cargá su URL base');
  // A URL the core refuses: said under its field, without the field's internal name, with what is allowed.
  const url = page.getByTestId('settings-remote-url');
  const urlError = page.getByTestId('settings-remote-url-error');
  await url.fill('http://api.titular.example');
  await page.getByTestId('settings-save').click();
  await expect(urlError).toHaveText('La URL base tiene que empezar con https://, porque con http:// la clave de la API remota viajaría sin cifrar. Solo se acepta http:// para esta computadora (localhost, 127.x.x.x o [::1]).');
  await expect(url).toHaveAttribute('aria-invalid', 'true');
  await expect(url).toBeFocused();
  await expect(page.getByTestId('settings-error')).toHaveCount(0);
  await page.getByTestId('lang-switch').click();
  await expect(urlError).toHaveText('The base URL must use https:// (plain http:// is accepted only for this machine: localhost, 127.x.x.x or [::1]): the upstream key would travel unencrypted.');
  await url.fill('ftp://api.titular.example');
  await expect(urlError).toHaveCount(0);
  await page.getByTestId('settings-save').click();
  await expect(urlError).toHaveText('The base URL must start with https:// (or http:// for this machine only: localhost, 127.x.x.x or [::1]).');
  await expect(form).not.toContainText('remote.baseUrl');
  // The timeout's range written as the screen writes numbers.
  await page.getByTestId('settings-remote-timeout').fill('99');
  await expect(form).toContainText('Enter 100 to 60,000 ms.');
  await page.getByTestId('lang-switch').click();
  await expect(form).toContainText('Ingresá de 100 a 60.000 ms.');
  await expect(urlError).toHaveText('La URL base tiene que empezar con https:// (http:// se acepta solo para esta computadora: localhost, 127.x.x.x o [::1]).');
  await page.getByTestId('settings-remote-timeout').fill('5000');
  await page.getByTestId('settings-remote-url').fill('https://api.titular.example');
  await page.getByTestId('settings-autolock').fill('30');
  await page.getByTestId('settings-save').click();
  await expect(page.getByText('Ajustes guardados.')).toBeVisible();
  await expect(page.getByTestId('settings-save')).toBeDisabled();

  await expect(page.getByTestId('settings-upstream-state')).toHaveAttribute('data-has-key', 'false');
  await expect(page.getByTestId('settings-upstream-key')).toHaveAttribute('placeholder', 'Pegá la clave de la API remota');
  // Remote chosen without its key: every lookup sent there would fail, and the screen says so.
  await expect(page.getByTestId('settings-remote-no-key')).toContainText('todavía no tiene clave');
  await page.getByTestId('settings-upstream-key').fill('sk_live_RemotaRemotaRemotaRemota0123456');
  await page.getByTestId('settings-upstream-save').click();
  await expect(page.getByTestId('settings-upstream-state')).toHaveAttribute('data-has-key', 'true');
  await expect(page.getByTestId('settings-remote-no-key')).toHaveCount(0);
  await expect(page.getByTestId('settings-upstream-key')).toHaveValue('');
  await expect(page.getByTestId('settings-upstream-key')).toHaveAttribute('placeholder', 'Pegá otra clave para reemplazarla');
  // Moved to another API: the key does not follow the URL there (every lookup would send it), and the
  // screen says to enter the new API's key.
  await page.getByTestId('settings-remote-url').fill('https://otra-api.titular.example');
  await page.getByTestId('settings-save').click();
  await expect(page.getByText('Ajustes guardados. La clave de la API remota se quitó porque cambió la URL: ingresá la clave de la nueva API.')).toBeVisible();
  await expect(page.getByTestId('settings-upstream-state')).toHaveAttribute('data-has-key', 'false');
  await expect(page.getByTestId('settings-remote-no-key')).toContainText('todavía no tiene clave');
  await page.getByTestId('settings-upstream-key').fill('sk_live_RemotaRemotaRemotaRemota0123456');
  await page.getByTestId('settings-upstream-save').click();
  await expect(page.getByTestId('settings-upstream-state')).toHaveAttribute('data-has-key', 'true');

  // Saved for real: a reload shows the stored values.
  await page.reload();
  await expect(page.getByTestId('settings-autolock')).toHaveValue('30');
  await expect(page.getByTestId('settings-resolver-informes-remote')).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByTestId('settings-resolver-cbu-directory')).toHaveAttribute('aria-checked', 'true');
  await page.getByTestId('settings-resolver-informes-directory').click();
  await page.getByTestId('settings-save').click();
  await expect(page.getByText('Ajustes guardados.')).toBeVisible();
  await expect(page.getByTestId('settings-listening')).toContainText(server!.origin);
  // Where the data is, what protects it, and how to copy it while Titular runs.
  await expect(page.getByTestId('settings-data-dir')).toHaveText(dataDir);
  await expect(page.getByTestId('settings-vault-protection')).toHaveAttribute('data-protection', 'passphrase');
  await expect(page.getByTestId('settings-backup-hint')).toContainText(`titular backup --data-dir "${dataDir}" CARPETA`);
  await expect(page.getByTestId('settings-backup-hint')).toContainText('misma frase de acceso');
  await expect(page.getByTestId('settings-restore-hint')).toHaveText(`Para volver a una copia, cerrá Titular y, desde una terminal: titular restore --data-dir "${dataDir}" CARPETA.`);
  // A file where the backups' folder goes: the banner's title says why, in Spanish, and nothing is made.
  writeFileSync(`${dataDir}-copias`, 'not a folder');
  await page.getByTestId('settings-backup').click();
  const refused = page.getByTestId('settings-backup-error');
  await expect(refused.locator('.banner-title')).toHaveText(new RegExp(`^No se pudo crear la carpeta de la copia de seguridad .*: ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-copias es un archivo, no una carpeta\\.$`));
  rmSync(`${dataDir}-copias`);
  // A backup from the screen: a new folder beside the data directory, holding the database.
  await page.getByTestId('settings-backup').click();
  const made = page.getByTestId('settings-backup-folder');
  await expect(made).toContainText(`${dataDir}-copias${path.sep}titular-`);
  const backupFolder = (await made.textContent())!.trim();
  expect(readdirSync(backupFolder)).toEqual(['titular.db']);
  expect(await wcagViolations(page)).toEqual([]);
  await page.locator('.main').evaluate((el) => el.scrollTo({ top: 0 }));
  await shoot(page, 'ajustes');

  // Claves' audit trail says all of it in words: which settings changed to what, the remote key, the
  // backup's folder. Never the core's names for them ("settings.updated", "· settings").
  await page.evaluate(() => {
    window.location.hash = '#/claves';
  });
  const trail = page.getByTestId('audit-table');
  const rows = (action: string) => trail.locator(`[data-testid="audit-row"][data-action="${action}"]`);
  await expect(rows('settings.updated').filter({ hasText: 'Bloqueo automático (min): 30 · Origen de Informe crediticio: API remota · URL de la API remota: https://api.titular.example' })).toHaveCount(1);
  // The second save changed one setting: only it is named.
  await expect(rows('settings.updated').first()).toHaveText(/Cambió los ajustesOrigen de Informe crediticio: Directorio importado$/);
  await expect(rows('settings.updated').first()).toContainText('Cambió los ajustes');
  await expect(rows('remote.upstream_key_set')).toHaveCount(2);
  await expect(rows('remote.upstream_key_set').first()).toContainText('Guardó la clave de la API remota');
  // The key the URL's move removed, said in words.
  await expect(rows('remote.upstream_key_removed')).toContainText('Quitó la clave de la API remota');
  await expect(rows('data.backup_made')).toContainText(`Hizo una copia de seguridad`);
  await expect(rows('data.backup_made')).toContainText(`Copia en ${backupFolder}`);
  for (const text of await trail.getByTestId('audit-row').allTextContents()) {
    expect(text).not.toMatch(/[a-z]+\.[a-z_]+ed\b|· (settings|data)$/);
  }
});

test('a lookup sent to the remote API while the vault is locked says an administrator must unlock it', async ({ page }) => {
  await page.goto(server!.url);
  await expect(page.getByTestId('session-user')).toBeVisible();
  // What the main process's auto-lock does, with the remote API (set up above) answering CBU lookups.
  const call = (channel: string, body: unknown) => bridgeStatus(page, channel, body);
  expect(await call('credits.purchase', { product: 'cbu', amount: 10 })).toBe(200);
  expect(await call('settings.update', { resolvers: { cbu: 'remote' } })).toBe(200);
  expect(await call('vault.lock', {})).toBe(200);
  try {
    await page.reload();
    await page.getByTestId('lookup-input').fill('0110001300000012345674');
    await page.getByTestId('lookup-submit').click();
    const error = page.getByTestId('lookup-error');
    await expect(error).toHaveAttribute('data-error-code', 'GE500');
    await expect(error).toContainText('Las consultas a la API remota esperan a que un administrador desbloquee la bóveda de claves. No se descontó crédito.');
  } finally {
    expect(await call('vault.unlock', { passphrase: PASSPHRASE })).toBe(200);
    expect(await call('settings.update', { resolvers: { cbu: 'directory' } })).toBe(200);
  }
});

test('a lookup sent to a remote API without its key says an administrator must set it up, not "try again"', async ({ page }) => {
  await page.goto(server!.url);
  await expect(page.getByTestId('session-user')).toBeVisible();
  const call = (channel: string, body: unknown) => bridgeStatus(page, channel, body);
  // The key stored above is taken away (so nothing is sent to the example API), then put back.
  expect(await call('settings.setUpstreamKey', { key: '' })).toBe(200);
  expect(await call('settings.update', { resolvers: { cbu: 'remote' } })).toBe(200);
  try {
    await page.reload();
    await page.getByTestId('lookup-input').fill('0110001300000012345674');
    await page.getByTestId('lookup-submit').click();
    const error = page.getByTestId('lookup-error');
    await expect(error).toHaveAttribute('data-error-code', 'GE500');
    await expect(error).toContainText('Las consultas van a una API remota que no está configurada (falta su dirección o su clave): avisale a un administrador, que la configura en Ajustes. No se descontó crédito.');
    await expect(error).not.toContainText('Probá de nuevo');
    await page.getByTestId('lang-switch').click();
    await expect(error).toContainText('Lookups go to a remote API that is not set up (its address or its key is missing): tell an administrator, who sets it in Settings.');
    await page.getByTestId('lang-switch').click();
  } finally {
    expect(await call('settings.update', { resolvers: { cbu: 'directory' } })).toBe(200);
    expect(await call('settings.setUpstreamKey', { key: 'sk_live_RemotaRemotaRemotaRemota0123456' })).toBe(200);
  }
});

test('a vault protected by a keychain this server cannot use: the screen says so and asks for no passphrase', async ({ page }) => {
  // A directory set up with a key file, then marked as the desktop's keychain vault (what the browser
  // mode finds when it opens a directory the desktop app set up on a computer with a keychain).
  const keychainDir = mkdtempSync(path.join(os.tmpdir(), 'titular-e2e-keychain-'));
  let keychainServer: Server | null = null;
  try {
    initKeyFileDir(keychainDir);
    const db = new Database(path.join(keychainDir, 'titular.db'));
    db.prepare("UPDATE vault_meta SET provider = 'os'").run();
    db.close();
    keychainServer = await start(keychainDir);
    await page.goto(keychainServer.url);
    const card = page.getByTestId('startup-host-protection');
    await expect(card).toContainText('Titular está bloqueado');
    await expect(card).toContainText('protegida por el llavero de esta computadora');
    await expect(card).toContainText('Acme Cobranzas');
    await expect(page.getByTestId('startup-passphrase')).toHaveCount(0);
    expect(await wcagViolations(page)).toEqual([]);
    await page.getByTestId('lang-switch').click();
    await expect(card).toContainText("protected by this computer's keychain");
  } finally {
    await stop(keychainServer);
    rmSync(keychainDir, { recursive: true, force: true });
  }
});

test('a folder with the key file of an earlier setup but no database: the setup screen says to restore, and starts over only when told to', async ({ page }) => {
  // A key-file setup whose database was then deleted: what `titular init` refuses without --new-organization.
  const earlierDir = mkdtempSync(path.join(os.tmpdir(), 'titular-e2e-earlier-'));
  let earlierServer: Server | null = null;
  try {
    initKeyFileDir(earlierDir);
    for (const name of readdirSync(earlierDir)) if (name.startsWith('titular.db')) rmSync(path.join(earlierDir, name));
    earlierServer = await start(earlierDir);
    await page.goto(earlierServer.url);
    const warning = page.getByTestId('setup-earlier');
    await expect(warning).toContainText('Esta carpeta ya tuvo una instalación de Titular');
    await expect(warning).toContainText(`En ${earlierDir} está el archivo de clave (master.key) de una instalación anterior, pero no su base de datos.`);
    await expect(page.getByTestId('setup-earlier-restore')).toHaveText(`titular restore --data-dir "${earlierDir}" CARPETA`);
    await page.getByTestId('setup-org').fill('Cooperativa Nueva');
    await page.getByTestId('setup-name').fill('Bea Nueva');
    await page.getByTestId('setup-email').fill('bea@nueva.test');
    // Not ticked: the screen sends nothing, and says what to do.
    await page.getByTestId('setup-submit').click();
    await expect(page.getByTestId('startup-setup')).toContainText('Restaurá tu copia, o marcá que querés crear una organización nueva.');
    await expect(page.getByTestId('setup-new-organization')).toHaveAttribute('aria-invalid', 'true');
    expect(await wcagViolations(page)).toEqual([]);
    await shoot(page, 'bienvenida-instalacion-anterior');
    // Nor does the channel take a setup without the confirmation.
    const refused = await page.evaluate(async () => {
      const token = window.sessionStorage.getItem('titular.session');
      const body = JSON.stringify({ organization: 'Cooperativa Nueva', adminName: 'Bea Nueva', adminEmail: 'bea@nueva.test' });
      const response = await fetch('/bridge/startup.setup', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Session ${token}` }, body });
      return response.json();
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMETER', status: 409 } });
    expect(readdirSync(earlierDir)).toEqual(['master.key']);
    await page.getByTestId('lang-switch').click();
    await expect(warning).toContainText('This folder has held a Titular setup before');
    await expect(page.getByTestId('setup-earlier-restore')).toHaveText(`titular restore --data-dir "${earlierDir}" FOLDER`);
    await page.getByTestId('lang-switch').click();

    await page.getByTestId('setup-new-organization').check();
    await expect(page.getByTestId('startup-setup')).not.toContainText('Restaurá tu copia');
    await page.getByTestId('setup-submit').click();
    await expect(page.getByTestId('session-user')).toHaveText('Bea Nueva', { timeout: SCRYPT_WAIT_MS });
    await expect(page.getByTestId('session-org')).toHaveText('Cooperativa Nueva');
  } finally {
    await stop(earlierServer);
    rmSync(earlierDir, { recursive: true, force: true });
  }
});
