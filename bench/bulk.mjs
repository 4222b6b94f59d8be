// Bulk lookup throughput: `node bench/bulk.mjs [--count 10000] [--runs 3] [--concurrency 64]`.
// For each run: a fresh data directory, `count` directory accounts imported with the CLI, then
// `titular bulk run FILE` on a file of those `count` identifiers, timed. Reports identifiers per
// second over the lookups (the job's own clock) and over the whole command (process start, parse,
// job creation, lookups, exit), and writes bench/results/bulk.json. Everything stays on this machine.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt } from './build.mjs';
import { directoryCsv } from './directory-fixture.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'out/main/cli.js');
const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '64' },
  },
});
const count = Math.min(Math.max(1, Number(values.count)), 200_000);
const runs = Math.min(Math.max(1, Number(values.runs)), 10);
const concurrency = Number(values.concurrency);

ensureBuilt();

const env = { ...process.env, TITULAR_PASSPHRASE: '' };
delete env.TITULAR_DATA_DIR;
const cli = (dataDir, ...args) => execFileSync(process.execPath, [CLI, ...args, '--data-dir', dataDir], { cwd: ROOT, encoding: 'utf8', env });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const { csv, numbers } = directoryCsv(count);
const results = [];

for (let i = 0; i < runs; i++) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'titular-bench-bulk-'));
  try {
    const dataDir = path.join(root, 'data');
    cli(dataDir, 'init', '--org', 'Bench', '--admin-name', 'Bench Admin', '--admin-email', 'bench@titular.test');
    cli(dataDir, 'credits', 'add', '--product', 'cbu', '--amount', String(count));
    writeFileSync(path.join(root, 'directory.csv'), csv);
    cli(dataDir, 'directory', 'import', path.join(root, 'directory.csv'));
    const file = path.join(root, 'identifiers.txt');
    writeFileSync(file, `${numbers.join('\n')}\n`);

    const loadBefore = os.loadavg()[0];
    const started = performance.now();
    const run = spawnSync(process.execPath, [CLI, 'bulk', 'run', file, '--json', '--concurrency', String(concurrency), '--data-dir', dataDir], {
      cwd: ROOT,
      encoding: 'utf8',
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    const commandMs = performance.now() - started;
    if (run.status !== 0) throw new Error(`bulk run exited ${run.status}:\n${run.stdout}\n${run.stderr}`);
    const answer = JSON.parse(run.stdout);
    if (answer.job.progress.charged !== count || answer.job.status !== 'completed') throw new Error(`unexpected result: ${run.stdout}`);
    const result = {
      identifiers: count,
      lookupsMs: answer.run.durationMs,
      commandMs: Math.round(commandMs),
      identifiersPerSecond: Math.round((count * 1000) / answer.run.durationMs),
      identifiersPerSecondWholeCommand: Math.round((count * 1000) / commandMs),
      loadAverage1m: Number(loadBefore.toFixed(2)),
    };
    results.push(result);
    process.stdout.write(
      `run ${i + 1}: ${result.identifiersPerSecond} identifiers/s over the lookups (${result.lookupsMs} ms), ` +
        `${result.identifiersPerSecondWholeCommand}/s for the whole command (${result.commandMs} ms), load ${result.loadAverage1m}\n`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const report = {
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
  settings: { identifiers: count, runs, concurrency, synchronous: process.env.TITULAR_SYNCHRONOUS === 'FULL' ? 'FULL' : 'NORMAL' },
  median: {
    identifiersPerSecond: median(results.map((r) => r.identifiersPerSecond)),
    identifiersPerSecondWholeCommand: median(results.map((r) => r.identifiersPerSecondWholeCommand)),
  },
  runs: results,
  note: 'Measured on a machine shared with other work; the 1-minute load average before each run is recorded.',
};
mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench/results/bulk.json'), `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(`median: ${report.median.identifiersPerSecond} identifiers/s (whole command ${report.median.identifiersPerSecondWholeCommand}/s); wrote bench/results/bulk.json\n`);
