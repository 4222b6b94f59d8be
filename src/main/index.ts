// Electron main process: a thin shell over the core. It opens the data directory in the user-data
// folder through the startup gate (first-run setup, or the unlock screen for a passphrase vault
// where the keychain is only `basic_text`; the OS keychain opens it at once), starts the localhost
// API, answers the IPC contract, and shows one locked-down window. Everything it composes is tested
// headless (src/main/headless, test/ and e2e/).
import { app, BrowserWindow, dialog, powerMonitor, session } from 'electron';
import path from 'node:path';
import { durabilityLostMessage, type Titular } from './core/titular';
import { buildHttpApi, closeHttpApi } from './core/http/server';
import { ListenConfigError, parseAllowedOrigins, parsePort } from './core/http/listen-config';
import { isAddressInUse } from './core/http/listen-failure';
import { UI_CSP } from './core/http/static-ui';
import { osKeychainAvailable, safeStorageProvider } from './electron/safe-storage-provider';
import { passphraseProvider } from './core/vault/passphrase-provider';
import { PassphraseEnvironmentError, passphraseFromEnvironment } from './core/vault/passphrase-environment';
import { keyfileProvider } from './core/vault/keyfile-provider';
import { VaultUnlockError, type MasterKeyProviderKind } from './core/vault/master-key-provider';
import { StartupGate } from './core/startup/startup-gate';
import { VaultAutoLock } from './core/vault/auto-lock';
import type { IpcSession } from './core/ipc/handlers';
import { confirmSecret } from './electron/secret-prompt';
import { registerIpc } from './electron/ipc';
import { trustedSender } from './electron/trusted-sender';
import { exportsOnly } from './electron/download-policy';
import { clearSecretLater, clearSecretNow } from './electron/secret-clipboard';
import { registerAppScheme, serveRenderer } from './electron/app-protocol';
import { APP_ORIGIN } from './electron/renderer-file';
import { keyFileOf, parseSynchronous, resolveDataDir } from './core/data-dir';
import { desktopUserId } from './core/users/desktop-user';
import { serverMessageInSpanish } from '../shared/messages-es';

// Development means `electron-vite dev`, which serves the renderer and says where: DevTools and the
// dev server only then. (`app.isPackaged` is false for every unpackaged run, `npm start` included.)
// A packaged app never: an environment variable must not turn DevTools on, or point the trusted
// window at whatever answers on a local port.
const devServer = process.env.ELECTRON_RENDERER_URL ?? null;
const isDev = !app.isPackaged && devServer !== null && URL.canParse(devServer) && new URL(devServer).hostname === 'localhost';
const rendererDir = path.join(__dirname, '../renderer');
/**
 * How long quitting gives the API's requests in flight (a remote lookup can take a minute) before
 * closing their connections: the same bounded close as `serve` on SIGTERM (closeHttpApi).
 */
const API_STOP_LIMIT_MS = 5_000;
/** A renderer that keeps dying is not reloaded forever: at most this many reloads a minute. */
const RENDERER_RELOADS_PER_MINUTE = 3;

let titular: Titular | null = null;
/** Set once quitting has begun: a second quit (another Cmd+Q, a logout) waits for the first. */
let quitting = false;
let stopApi: (() => Promise<void>) | null = null;
let autoLock: VaultAutoLock | null = null;

// The window's pages come from app://titular/ (electron/app-protocol.ts); the scheme must be known before ready.
registerAppScheme();

// Chromium's own widgets (the date pickers' dd/mm/aaaa) follow the process locale, not the screens'
// ES/EN switch. The users are in Argentina: write dates their way, whatever the OS is set to.
app.commandLine.appendSwitch('lang', 'es-AR');

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    const [window] = BrowserWindow.getAllWindows();
    if (window) {
      if (window.isMinimized()) window.restore();
      window.focus();
    }
  });
  app.whenReady().then(start).catch((error: unknown) => {
    // The core's English said in Spanish where it is known (a full disk), as the screens do.
    const reason = error instanceof Error ? error.message : String(error);
    dialog.showErrorBox('Titular', `Titular no pudo iniciar: ${serverMessageInSpanish(reason) ?? reason}`);
    app.exit(1);
  });
}

/**
 * The provider that unlocks the vault again (after auto-lock or a lock by hand): the OS keychain when
 * it wraps the key, the key file of a directory set up by the CLI or `serve`, else the passphrase typed.
 */
function keyProvider(dataDir: string) {
  return (kind: MasterKeyProviderKind | null, passphrase: string | undefined) => {
    const wanted = kind ?? (osKeychainAvailable() ? 'os' : 'passphrase');
    if (wanted === 'os') return safeStorageProvider();
    if (wanted === 'keyfile') return keyfileProvider(keyFileOf(dataDir));
    if (!passphrase) throw new VaultUnlockError('Enter the vault passphrase (TITULAR_PASSPHRASE)');
    return passphraseProvider(passphrase);
  };
}

async function start(): Promise<void> {
  const trusted = [`${APP_ORIGIN}/`, ...(isDev && devServer ? [`${new URL(devServer).origin}/`] : [])];
  const appFrame = trustedSender(trusted);
  // Deny every permission (camera, notifications, geolocation...) but one: the app's own pages may
  // write to the clipboard (the copy buttons: a key shown once, a CBU), which Chromium asks about.
  // Not read it: a copied key is cleared from here (electron/secret-clipboard.ts). Judged by the
  // requesting page's URL and frame, as the IPC sender check judges a call.
  const allowed = (permission: string, url: string | undefined, mainFrame: boolean) =>
    permission === 'clipboard-sanitized-write' && appFrame(url ?? '', mainFrame);
  session.defaultSession.setPermissionRequestHandler((_wc, permission, callback, details) =>
    callback(allowed(permission, details.requestingUrl, details.isMainFrame)),
  );
  session.defaultSession.setPermissionCheckHandler((_wc, permission, _origin, details) =>
    allowed(permission, details.requestingUrl, details.isMainFrame),
  );
  // Only the exports the core names may be saved, and as CSV (electron/download-policy.ts).
  session.defaultSession.on('will-download', exportsOnly);
  // The same CSP as the headless server's browser mode, on the app's own files and (in development)
  // on every response the dev server sends.
  serveRenderer(rendererDir, UI_CSP);
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [UI_CSP] } });
  });

  // The same directory as `titular` and `titular serve` (TITULAR_DATA_DIR, else the platform's data
  // folder): what one sets up, the others open. TITULAR_SYNCHRONOUS=FULL applies here too.
  const dataDir = desktopDataDir();
  // As serve and the CLI do, a value it does not know is refused (the start-up error box), not taken
  // for NORMAL: whoever set it believes answers wait for the disk.
  const synchronous = parseSynchronous(process.env.TITULAR_SYNCHRONOUS);
  if (!synchronous) throw new Error(`TITULAR_SYNCHRONOUS debe ser NORMAL o FULL, no ${process.env.TITULAR_SYNCHRONOUS}`);
  // TITULAR_PORT outranks the api.port setting; it and TITULAR_ALLOW_ORIGINS are read as serve reads
  // them (empty: unset), and a bad value stops the start the same way: an empty or mistyped port
  // used to become 0, a random port no local tool would find.
  const { envPort, corsOrigins } = listenEnvironment();
  const gate = new StartupGate({
    dataDir,
    synchronous,
    // What fails in the background (housekeeping) goes to the main process's log, as the API's faults do.
    onFault: (line) => console.error(`Titular ${line}`),
    // A WAL flush the disk did not confirm: say so, then stop at once, as a crash would (no answer, no shutdown writes).
    onDurabilityLost: (error, dir) => {
      const reason = durabilityLostMessage(error, dir);
      dialog.showErrorBox('Titular', serverMessageInSpanish(reason) ?? reason);
      app.exit(1);
    },
    migrationsFolder: app.isPackaged ? path.join(process.resourcesPath, 'drizzle') : path.join(app.getAppPath(), 'drizzle'),
    // Only for development and scripted starts; people type the passphrase in the unlock screen.
    // Both variables set, or a file that cannot be read, stops the start (the error box) naming it.
    passphrase: environmentPassphrase(),
    // A key-file vault (set up by `titular init` or `serve` in this same directory) opens as they open it.
    automaticProvider: (kind) => {
      if (kind === 'keyfile') return keyfileProvider(keyFileOf(dataDir));
      return kind === 'os' && osKeychainAvailable() ? safeStorageProvider() : null;
    },
    newVaultProvider: () => (osKeychainAvailable() ? safeStorageProvider() : null),
  });
  let listeningPort: number | undefined;
  const signedIn = (core: Titular): IpcSession => ({
    userId: desktopUserId(core),
    unlockProvider: keyProvider(dataDir),
    confirmSecret,
    clearClipboardLater: clearSecretLater,
    settingsHost: { listeningPort },
    // Backups made from Ajustes: where people look for their files.
    backupRoot: path.join(app.getPath('documents'), 'Titular copias de seguridad'),
  });
  registerIpc(gate, signedIn, trusted, (channel) => autoLock?.called(channel));

  // The API starts once the gate is open: at once with the OS keychain, after setup or unlock otherwise.
  gate.onReady((opened) => {
    titular = opened;
    autoLock = new VaultAutoLock(opened);
    // The reason behind each GE500 of Titular's own goes to the main process's log, as the IPC's do.
    const api = buildHttpApi(opened, { corsOrigins, fault: (line) => console.error(`Titular API ${line}`) });
    const port = envPort ?? Number(opened.settings.get('api.port'));
    api
      .listen({ host: '127.0.0.1', port })
      .then(() => {
        listeningPort = port;
        stopApi = () => closeHttpApi(api, API_STOP_LIMIT_MS).then(() => undefined);
      })
      .catch((error: unknown) => {
        const reason = isAddressInUse(error)
          ? `otro programa ya lo usa (¿otro Titular, o titular serve?). Cerralo, o elegí otro puerto ${envPort === null ? 'en Ajustes' : 'con TITULAR_PORT'}`
          : error instanceof Error ? error.message : String(error);
        dialog.showErrorBox('Titular', `La API local no pudo escuchar en el puerto ${port}: ${reason}`);
      });
  });
  // The computer locked or put to sleep: the vault locks too (unless the admin turned auto-lock off),
  // as after the idle time. Whoever finds the machine awake again, or reads its memory while it
  // sleeps, finds no data key.
  const lockWithTheComputer = () => {
    // A key copied in the last minute leaves the clipboard with the person who left the computer.
    clearSecretNow();
    if (titular && titular.settings.get('vault.autoLockMinutes') !== 0) titular.lockVault();
  };
  powerMonitor.on('lock-screen', lockWithTheComputer);
  powerMonitor.on('suspend', lockWithTheComputer);
  gate.tryAutomatic();
  // Tried once; the gate has let go of it too, so the process keeps no copy a lock could not drop.
  delete process.env.TITULAR_PASSPHRASE;
  createWindow();
}

/**
 * The shared data directory (core/data-dir.ts), by the very rule `serve` and the CLI follow: that rule
 * also finds a desktop's data set up before the directory was shared, in its `<userData>/data`
 * (`~/.config/titular/data` on Linux; on macOS and Windows that is the shared folder itself).
 */
function desktopDataDir(): string {
  return resolveDataDir(undefined, process.env);
}

function createWindow(): void {
  const window = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 1024,
    minHeight: 700,
    show: false,
    title: 'Titular',
    webPreferences: {
      preload: path.join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
      spellcheck: false,
      devTools: isDev,
    },
  });
  window.once('ready-to-show', () => window.show());
  // A renderer that crashed or was killed would leave a blank window: load the app again, a few
  // times a minute at most; one that keeps dying is reported and the app closes.
  const reloads: number[] = [];
  window.webContents.on('render-process-gone', (_event, details) => {
    if (details.reason === 'clean-exit' || window.isDestroyed()) return;
    const now = Date.now();
    while (reloads.length > 0 && now - reloads[0]! > 60_000) reloads.shift();
    if (reloads.length < RENDERER_RELOADS_PER_MINUTE) {
      reloads.push(now);
      window.webContents.reload();
      return;
    }
    dialog.showErrorBox('Titular', `La ventana de Titular se cerró varias veces seguidas (${details.reason}). Titular se va a cerrar; tus datos están guardados.`);
    app.quit();
  });
  // No navigation away from the app, no webviews and no new windows. Nor a link handed to the system
  // browser: the screens have none, and a renderer made to open one (a crafted name or alias that got
  // past React and the CSP) would have a way to send what it read out of the app.
  window.webContents.on('will-navigate', (event) => event.preventDefault());
  window.webContents.on('will-attach-webview', (event) => event.preventDefault());
  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  // The renderer comes from the app's own files, never a remote URL (the dev server only in development).
  if (isDev && devServer) void window.loadURL(devServer);
  else void window.loadURL(`${APP_ORIGIN}/index.html`);
}

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
});

app.on('window-all-closed', () => app.quit());

// Quitting closes the API (its requests in flight get a few seconds), then the core (pending writes
// committed, vault locked, database closed). Whatever fails or hangs there, the process still ends:
// one left running without a window would hold the single-instance lock and swallow every relaunch.
app.on('will-quit', (event) => {
  if (quitting) {
    event.preventDefault();
    return;
  }
  // A key copied in the last minute does not outlive the app on the clipboard.
  clearSecretNow();
  if (!titular) return;
  event.preventDefault();
  quitting = true;
  const closing = titular;
  titular = null;
  autoLock?.stop();
  const stopped = (stopApi?.() ?? Promise.resolve()).catch(() => undefined);
  // closeHttpApi ends within API_STOP_LIMIT_MS; this only guards against a close that hangs anyway.
  const limit = new Promise<void>((resolve) => setTimeout(resolve, API_STOP_LIMIT_MS + 2_000).unref());
  void Promise.race([stopped, limit]).finally(() => {
    let code = 0;
    try {
      closing.close();
    } catch (error) {
      code = 1;
      console.error(`Titular: closing the data directory failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    app.exit(code);
  });
});

/** TITULAR_PASSPHRASE or TITULAR_PASSPHRASE_FILE, or an error the start-up box shows in Spanish first. */
function environmentPassphrase(): string | undefined {
  try {
    return passphraseFromEnvironment(process.env);
  } catch (error) {
    if (error instanceof PassphraseEnvironmentError) throw new Error(`Variable de entorno inválida. ${error.message}`);
    throw error;
  }
}

/** TITULAR_PORT and TITULAR_ALLOW_ORIGINS, or an error the start-up box shows in Spanish first. */
function listenEnvironment(): { envPort: number | null; corsOrigins: string[] } {
  try {
    const port = process.env.TITULAR_PORT;
    const origins = process.env.TITULAR_ALLOW_ORIGINS;
    return { envPort: port ? parsePort(port, 'TITULAR_PORT') : null, corsOrigins: origins ? parseAllowedOrigins([origins], 'TITULAR_ALLOW_ORIGINS') : [] };
  } catch (error) {
    if (error instanceof ListenConfigError) throw new Error(`Variable de entorno inválida. ${error.message}`);
    throw error;
  }
}
