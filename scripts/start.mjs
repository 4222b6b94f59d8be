// `npm start`: the desktop app where Electron can run; otherwise the headless server with the UI in
// the browser. Electron's binary is not downloaded at install (allowScripts denies its postinstall):
// it is fetched here, on machines that can reach its download site.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);

function electronBinary() {
  try {
    const electronDir = path.dirname(require.resolve('electron/package.json'));
    if (!existsSync(path.join(electronDir, 'path.txt'))) {
      execFileSync(process.execPath, [path.join(electronDir, 'install.js')], { stdio: 'inherit', env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '' } });
    }
    const binary = require('electron');
    return typeof binary === 'string' && existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

const run = (command, commandArgs) => {
  const child = spawn(command, commandArgs, { cwd: root, stdio: 'inherit' });
  // The app has its copy (and drops it once read); this process, which only waits, keeps none.
  delete process.env.TITULAR_PASSPHRASE;
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code) => process.exit(code ?? 0));
};

execFileSync(process.execPath, [path.join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: root, stdio: 'inherit' });
const binary = process.env.TITULAR_HEADLESS === '1' ? null : electronBinary();
if (binary && (process.platform !== 'linux' || process.env.DISPLAY || process.env.WAYLAND_DISPLAY)) {
  run(binary, [root, ...args]);
} else {
  console.log('Electron cannot run here: starting the headless server with the desktop UI in your browser.');
  run(process.execPath, [path.join(root, 'out/main/serve.js'), '--ui', ...args]);
}
