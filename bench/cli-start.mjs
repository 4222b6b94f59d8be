// Start time of the `titular` command and of the server: `node bench/cli-start.mjs` (or
// `npm run bench:start`). Each command is run as a process, again and again, in rounds that take
// every command once (so that they share the machine's moments); the report gives each one's median
// wall time (and the server's resident memory once it listens), beside baselines measured in the same
// rounds: bare Node
// (`node -e ""`, the floor no command can go under) and the same build with its JavaScript
// dependencies loaded from node_modules instead of bundled in (electron.vite.config.ts; built here
// into .bench-out/ with TITULAR_BUILD_EXTERNAL_DEPS=1), and for the `titular` command, the build run
// in a second Node process as it was until 2026-11-24. Writes bench/results/cli-start.json.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt } from './build.mjs';
import { cliIn, ROOT } from './processes.mjs';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '15' } } });
const rounds = Math.min(Math.max(Number(values.rounds) || 15, 3), 50);

ensureBuilt();
const UNBUNDLED = path.join(ROOT, '.bench-out');
process.stdout.write('building the unbundled copy into .bench-out/ ...\n');
execFileSync('npx', ['electron-vite', 'build', '--outDir', UNBUNDLED], {
  cwd: ROOT,
  env: { ...process.env, TITULAR_BUILD_EXTERNAL_DEPS: '1' },
  stdio: ['ignore', 'ignore', 'inherit'],
});

const work = mkdtempSync(path.join(os.tmpdir(), 'titular-bench-start-'));
const dataDir = path.join(work, 'data');
const env = { ...process.env, TITULAR_PASSPHRASE: '', TITULAR_PASSPHRASE_FILE: '', TITULAR_DATA_DIR: dataDir };
const cli = cliIn(dataDir);
cli('init', '--org', 'Bench', '--admin-name', 'Ada', '--admin-email', 'ada@bench.test');
cli('keys', 'create', '--product', 'cbu', '--scopes', 'lookup,balance,history', '--name', 'bench');
cli('credits', 'add', '--product', 'cbu', '--amount', '100');

const built = (dir, entry) => path.join(dir, 'main', `${entry}.js`);
const OUT = path.join(ROOT, 'out');
// What `titular` did until 2026-11-24: start a second Node for the build and wait for it.
const SECOND_PROCESS = "const c = require('node:child_process').spawn(process.execPath, process.argv.slice(1), { stdio: 'inherit' }); c.on('exit', (s) => process.exit(s));";
/** What is measured: each command's variants (label → Node arguments); `server`: timed until it listens. */
const commands = [
  { name: 'node -e ""', variants: { 'bare Node': ['-e', ''] } },
  { name: 'cli --version', variants: { bundled: [built(OUT, 'cli'), '--version'], unbundled: [built(UNBUNDLED, 'cli'), '--version'] } },
  { name: 'cli keys list', variants: { bundled: [built(OUT, 'cli'), 'keys', 'list'], unbundled: [built(UNBUNDLED, 'cli'), 'keys', 'list'] } },
  {
    name: 'titular keys list',
    variants: { 'bin/titular.js': [path.join(ROOT, 'bin/titular.js'), 'keys', 'list'], 'second process': ['-e', SECOND_PROCESS, built(OUT, 'cli'), 'keys', 'list'] },
  },
  { name: 'serve, spawn → listening', server: true, variants: { bundled: [built(OUT, 'serve'), '--port', '0'], unbundled: [built(UNBUNDLED, 'serve'), '--port', '0'] } },
];

/** One run: wall milliseconds. */
function runOnce(args) {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000 });
  if (run.status !== 0) throw new Error(`${args.join(' ')} exited with ${run.status}: ${run.stderr}`);
  return { ms: performance.now() - started };
}

/** A server run: milliseconds from spawn to its "listening on" line; then stopped. */
function serverOnce(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (/listening on http:\/\/127\.0\.0\.1:\d+/.test(out) && !child.killed) {
        const ms = performance.now() - started;
        const rssMiB = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) / 1024;
        child.kill('SIGTERM');
        child.once('exit', () => {
          clearTimeout(timer);
          resolve({ ms, rssMiB });
        });
      }
    });
    child.once('exit', (code) => {
      if (!/listening/.test(out)) {
        clearTimeout(timer);
        reject(new Error(`${args.join(' ')} exited with ${code} before listening: ${out}`));
      }
    });
  });
}

const samples = new Map();
const record = (name, sample) => (samples.get(name) ?? samples.set(name, []).get(name)).push(sample);
for (let round = 0; round < rounds; round++) {
  for (const command of commands) {
    const variants = Object.entries(command.variants);
    // Alternate which variant goes first, so that neither always runs right after the other.
    if (round % 2) variants.reverse();
    for (const [label, args] of variants) record(`${command.name} [${label}]`, command.server ? await serverOnce(args) : runOnce(args));
  }
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  return Number(sorted[Math.floor(sorted.length / 2)].toFixed(1));
};
const results = [...samples].map(([name, runs]) => ({
  name,
  medianMs: median(runs.map((r) => r.ms)),
  minMs: Number(Math.min(...runs.map((r) => r.ms)).toFixed(1)),
  maxMs: Number(Math.max(...runs.map((r) => r.ms)).toFixed(1)),
  ...(runs[0].rssMiB !== undefined ? { medianRssMiB: median(runs.map((r) => r.rssMiB)) } : {}),
}));
const report = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadAverage: os.loadavg().map((n) => Number(n.toFixed(2))), rounds, results };
mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench/results/cli-start.json'), `${JSON.stringify(report, null, 2)}\n`);
for (const r of results) process.stdout.write(`${r.name.padEnd(44)} ${String(r.medianMs).padStart(7)} ms median (${r.minMs}–${r.maxMs})${r.medianRssMiB ? `, ${r.medianRssMiB} MiB` : ''}\n`);
rmSync(work, { recursive: true, force: true });
rmSync(UNBUNDLED, { recursive: true, force: true });
