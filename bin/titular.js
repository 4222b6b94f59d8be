#!/usr/bin/env node
// The `titular` command. Runs the built CLI (out/main/cli.js) when the project has been built and
// the build is up to date, otherwise the TypeScript source through tsx (a development checkout, or
// one updated by `git pull` since its last build: out/ would run old code). `titular serve ...` runs
// the headless server (out/main/serve.js, or its source) the same way, so an integrator has one
// command for both.
//
// The build runs in this very process, as `node out/main/cli.js ...` would (a second Node process
// cost every command about 0.1 s: bench/cli-start.mjs); signals, stdio and the exit status are then
// its own. The sources run in a child with tsx's loader, whose arguments, stdio and exit status pass
// straight through, and so do SIGTERM and SIGHUP: `kill` on this process stops the server or the
// command it runs, as it would stop them run directly. SIGINT is not passed on: Ctrl-C reaches both
// processes from the terminal already, and a second one means "stop at once" to the server and to a
// bulk run.
'use strict';

const { spawn } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { upToDateBuild } = require('./build-freshness');

const root = path.resolve(__dirname, '..');
const serving = process.argv[2] === 'serve';
const entry = serving ? 'serve' : 'cli';
const built = path.join(root, 'out', 'main', `${entry}.js`);
const args = process.argv.slice(serving ? 3 : 2);

function tsxLoader() {
  try {
    return pathToFileURL(require.resolve('tsx', { paths: [root] })).href;
  } catch {
    return null;
  }
}

const current = upToDateBuild(root, entry);
const loader = current ? null : tsxLoader();
if (current) {
  runHere(current);
} else if (loader) {
  // `--import`: the CLI runs in the child itself (the tsx CLI would put one more process in between).
  runInChild(['--import', loader, path.join(root, 'src', 'main', 'headless', `${entry}.ts`), ...args]);
} else if (existsSync(built)) {
  // Older than the sources, but nothing else can run them (tsx is a development dependency).
  process.stderr.write(`titular: out/main/${entry}.js is older than src/ and tsx is not installed: running the old build (\`npm run build\` updates it)\n`);
  runHere(built);
} else {
  process.stderr.write(`titular: the ${serving ? 'server' : 'CLI'} is not built (out/main/${entry}.js) and tsx is not installed; run \`npm run build\` or \`npm install\`\n`);
  process.exit(1);
}

/** Runs a built entry in this process, with the command line it would have been given directly. */
function runHere(script) {
  process.argv = [process.argv[0], script, ...args];
  require(script);
}

function runInChild(command) {
  const child = spawn(process.execPath, command, { stdio: 'inherit' });
  // The child has its copy; this process, which only waits for it, keeps no passphrase of its own.
  delete process.env.TITULAR_PASSPHRASE;

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
}
