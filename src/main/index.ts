// Electron main process: a thin shell over the core. It opens the data directory in the user-data
// folder, unlocks the vault with the OS keychain, starts the localhost API and shows one locked-down
// window. Everything it composes is tested headless (src/main/headless).
import { app, BrowserWindow, session, shell } from 'electron';
import path from 'node:path';
import { openTitular, type Titular } from './core/titular';
import { buildHttpApi } from './core/http/server';
import { safeStorageProvider } from './electron/safe-storage-provider';
import { passphraseProvider } from './core/vault/passphrase-provider';

const API_PORT = Number(process.env.TITULAR_PORT ?? 8787);

let titular: Titular | null = null;
let stopApi: (() => Promise<void>) | null = null;

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
    console.error(`Titular could not start: ${error instanceof Error ? error.message : String(error)}`);
    app.exit(1);
  });
}

async function start(): Promise<void> {
  // Deny every permission request (camera, notifications, geolocation...): the app needs none.
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);

  const dataDir = path.join(app.getPath('userData'), 'data');
  titular = openTitular({
    dataDir,
    migrationsFolder: app.isPackaged ? path.join(process.resourcesPath, 'drizzle') : path.join(app.getAppPath(), 'drizzle'),
    keyProvider: (kind) => {
      // Until the unlock screen exists, a passphrase vault needs TITULAR_PASSPHRASE.
      if (kind === 'passphrase') return passphraseProvider(process.env.TITULAR_PASSPHRASE ?? '');
      return safeStorageProvider();
    },
  });
  const api = buildHttpApi(titular);
  await api.listen({ host: '127.0.0.1', port: API_PORT });
  stopApi = () => api.close();
  createWindow();
}

function createWindow(): void {
  const window = new BrowserWindow({
    width: 1280,
    height: 800,
    show: false,
    title: 'Titular',
    webPreferences: {
      preload: path.join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
      devTools: !app.isPackaged,
    },
  });
  window.once('ready-to-show', () => window.show());
  // No navigation away from the app and no new windows; external links open in the browser.
  window.webContents.on('will-navigate', (event) => event.preventDefault());
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  const devServer = process.env.ELECTRON_RENDERER_URL;
  if (!app.isPackaged && devServer && new URL(devServer).hostname === 'localhost') void window.loadURL(devServer);
  else void window.loadFile(path.join(__dirname, '../renderer/index.html'));
}

app.on('window-all-closed', () => app.quit());

app.on('will-quit', (event) => {
  if (!titular) return;
  event.preventDefault();
  const closing = titular;
  titular = null;
  void (stopApi?.() ?? Promise.resolve()).finally(() => {
    closing.close();
    app.quit();
  });
});
