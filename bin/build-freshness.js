// Whether out/main/<entry>.js is up to date with the sources it is built from: the `titular` command
// (bin/titular.js) runs the build only then, and the tests' processes (test/support/processes.ts) do
// the same, so that neither runs old code after a `git pull` or an edit without `npm run build`.
'use strict';

const { existsSync, readdirSync, statSync } = require('node:fs');
const path = require('node:path');

/** What out/main/*.js is built from: the main process's code (core, headless), shared code, and package.json (the version). */
const sourcesOf = (root) => [path.join(root, 'src', 'main'), path.join(root, 'src', 'shared'), path.join(root, 'package.json')];

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

/** out/main/<entry>.js under `root`, when it exists and no source is newer (a couple of hundred stat calls: a few milliseconds); else null. */
function upToDateBuild(root, entry) {
  const built = path.join(root, 'out', 'main', `${entry}.js`);
  if (!existsSync(built)) return null;
  const builtAt = statSync(built).mtimeMs;
  return sourcesOf(root).some((source) => modifiedAfter(source, builtAt)) ? null : built;
}

module.exports = { upToDateBuild };
