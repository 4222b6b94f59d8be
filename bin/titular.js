#!/usr/bin/env node
// The `titular` command. Runs the built CLI (out/main/cli.js) when the project has been built and
// the build is up to date, otherwise the TypeScript source through tsx (a development checkout, or
// one updated by `git pull` since its last build: out/ would run the old code). Arguments, stdio and
// the exit status pass straight through.
'use strict';

const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const root = path.resolve(__dirname, '..');
const built = path.join(root, 'out', 'main', 'cli.js');
/** What out/main/cli.js is built from: the main process's code (core, headless) and shared code, and package.json (the version). */
const SOURCES = [path.join(root, 'src', 'main'), path.join(root, 'src', 'shared'), path.join(root, 'package.json')];
const args = process.argv.slice(2);

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

/** out/main/cli.js, when it exists and no source is newer (a couple of hundred stat calls: a few milliseconds). */
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
  command = ['--import', loader, path.join(root, 'src', 'main', 'headless', 'cli.ts'), ...args];
} else if (existsSync(built)) {
  // Older than the sources, but nothing else can run them (tsx is a development dependency).
  process.stderr.write('titular: out/main/cli.js is older than src/ and tsx is not installed: running the old build (`npm run build` updates it)\n');
  command = [built, ...args];
} else {
  process.stderr.write('titular: the CLI is not built (out/main/cli.js) and tsx is not installed; run `npm run build` or `npm install`\n');
  process.exit(1);
}

// The child gets Ctrl-C from the terminal itself; the wrapper only waits for it.
const ignore = () => {};
process.on('SIGINT', ignore);
process.on('SIGTERM', ignore);

const result = spawnSync(process.execPath, command, { stdio: 'inherit' });
if (result.error) {
  process.stderr.write(`titular: cannot start the CLI: ${result.error.message}\n`);
  process.exit(1);
}
if (result.signal) {
  process.off('SIGINT', ignore);
  process.off('SIGTERM', ignore);
  process.kill(process.pid, result.signal);
}
process.exit(result.status ?? 1);
