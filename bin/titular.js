#!/usr/bin/env node
// The `titular` command. Runs the built CLI (out/main/cli.js) when the project has been built,
// otherwise the TypeScript source through tsx (a development checkout). Arguments, stdio and the
// exit status pass straight through.
'use strict';

const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const built = path.join(root, 'out', 'main', 'cli.js');
const args = process.argv.slice(2);

let command;
if (existsSync(built)) {
  command = [built, ...args];
} else {
  let tsxCli;
  try {
    tsxCli = require.resolve('tsx/cli', { paths: [root] });
  } catch {
    process.stderr.write('titular: the CLI is not built (out/main/cli.js) and tsx is not installed; run `npm run build` or `npm install`\n');
    process.exit(1);
  }
  command = [tsxCli, path.join(root, 'src', 'main', 'headless', 'cli.ts'), ...args];
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
