#!/usr/bin/env node
// The `titular` command. Runs the built CLI (out/main/cli.js) when the project has been built and
// the build is up to date, otherwise the TypeScript source through tsx (a development checkout, or
// one updated by `git pull` since its last build: out/ would run the old code). `titular serve ...`
// runs the headless server (out/main/serve.js, or its source) the same way, so an integrator has one
// command for both. Arguments, stdio and the exit status pass straight through, and so do SIGTERM
// and SIGHUP: `kill` on this process stops the server or the command it runs, as it would stop them
// run directly. SIGINT is not passed on: Ctrl-C reaches both processes from the terminal already, and
// a second one means "stop at once" to the server and to a bulk run.
'use strict';

const { spawn } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const root = path.resolve(__dirname, '..');
const serving = process.argv[2] === 'serve';
const entry = serving ? 'serve' : 'cli';
const built = path.join(root, 'out', 'main', `${entry}.js`);
/** What out/main/cli.js is built from: the main process's code (core, headless) and shared code, and package.json (the version). */
const SOURCES = [path.join(root, 'src', 'main'), path.join(root, 'src', 'shared'), path.join(root, 'package.json')];
const args = process.argv.slice(serving ? 3 : 2);

/** Whether a file under `file` (a file or a folder) was modified after `time`; stops at the first one. */
function modifiedAfter(file, time) {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return false; // not there (an installed package has no src/): nothing newer
  }
  if (!stat.isDirectory()) return stat.mtimeMs > time;
  for (const name of readdirSync(file)) {
    if (modifiedAfter(path.join(file, name), time)) return true;
  }
  return false;
}

/** out/main/<entry>.js, when it exists and no source is newer (a couple of hundred stat calls: a few milliseconds). */
function upToDateBuild() {
  if (!existsSync(built)) return null;
  const builtAt = statSync(built).mtimeMs;
  return SOURCES.some((source) => modifiedAfter(source, builtAt)) ? null : built;
}

function tsxLoader() {
  try {
    return pathToFileURL(require.resolve('tsx', { paths: [root] })).href;
  } catch {
    return null;
  }
}

let command;
const current = upToDateBuild();
const loader = current ? null : tsxLoader();
if (current) {
  command = [current, ...args];
} else if (loader) {
  // `--import`: the CLI runs in the child itself (the tsx CLI would put one more process in between).
  command = ['--import', loader, path.join(root, 'src', 'main', 'headless', `${entry}.ts`), ...args];
} else if (existsSync(built)) {
  // Older than the sources, but nothing else can run them (tsx is a development dependency).
  process.stderr.write(`titular: out/main/${entry}.js is older than src/ and tsx is not installed: running the old build (\`npm run build\` updates it)\n`);
  command = [built, ...args];
} else {
  process.stderr.write(`titular: the ${serving ? 'server' : 'CLI'} is not built (out/main/${entry}.js) and tsx is not installed; run \`npm run build\` or \`npm install\`\n`);
  process.exit(1);
}

const child = spawn(process.execPath, command, { stdio: 'inherit' });

// Ctrl-C reaches the child from the terminal itself; the wrapper only waits for it. SIGTERM and
// SIGHUP, sent to this process alone (`kill`, a service manager), are passed on.
const ignore = () => {};
const forward = (signal) => () => child.kill(signal);
const handlers = { SIGINT: ignore, SIGTERM: forward('SIGTERM'), SIGHUP: forward('SIGHUP') };
for (const [signal, handler] of Object.entries(handlers)) process.on(signal, handler);

child.on('error', (error) => {
  process.stderr.write(`titular: cannot start the ${serving ? 'server' : 'CLI'}: ${error.message}\n`);
  process.exit(1);
});
child.on('exit', (status, signal) => {
  if (signal) {
    for (const [name, handler] of Object.entries(handlers)) process.off(name, handler);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(status ?? 1);
});
