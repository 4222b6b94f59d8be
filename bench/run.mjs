// Lookup throughput benchmark: `npm run bench [-- --duration 10 --connections 50]`.
// Starts the built headless server as a separate process on 127.0.0.1 (and a bare Fastify baseline
// the same way), drives each with autocannon from this process for a bounded time, and writes
// bench/results/latest.json. Nothing leaves the machine.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { directoryCsv } from './directory-fixture.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    accounts: { type: 'string', default: '1000' },
  },
});
const duration = Math.min(Number(values.duration), 60);
const connections = Math.min(Number(values.connections), 200);
const accounts = Math.min(Number(values.accounts), 100_000);

if (!existsSync(path.join(ROOT, 'out/main/serve.js'))) {
  execFileSync('npx', ['electron-vite', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-bench-'));
const cli = (...args) =>
  execFileSync(process.execPath, [path.join(ROOT, 'out/main/cli.js'), ...args, '--data-dir', dataDir], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TITULAR_PASSPHRASE: '' },
  });

function start(script, args) {
  const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) resolve({ child, url: match[1] });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

function stop(server) {
  return new Promise((resolve) => {
    server.child.once('exit', resolve);
    server.child.kill('SIGTERM');
  });
}

function run(name, options) {
  return new Promise((resolve, reject) => {
    autocannon({ connections, duration, ...options }, (error, result) => {
      if (error) return reject(error);
      const summary = {
        name,
        requestsPerSecond: Math.round(result.requests.average),
        latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
        requests: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
      };
      process.stdout.write(`${name.padEnd(22)} ${String(summary.requestsPerSecond).padStart(7)} req/s  p50 ${summary.latencyMs.p50} ms  p99 ${summary.latencyMs.p99} ms  non-2xx ${summary.non2xx}\n`);
      resolve(summary);
    });
  });
}

try {
  cli('init', '--org', 'Bench', '--admin-name', 'Bench Admin', '--admin-email', 'bench@titular.test');
  const live = JSON.parse(cli('keys', 'create', '--product', 'cbu', '--scopes', 'lookup,balance,history', '--rate-limit', '10000', '--json')).key;
  const sandbox = JSON.parse(cli('keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--sandbox', '--rate-limit', '10000', '--json')).key;
  cli('credits', 'add', '--product', 'cbu', '--amount', '100000000');
  const { csv, numbers } = directoryCsv(accounts);
  const csvFile = path.join(dataDir, 'directory.csv');
  writeFileSync(csvFile, csv);
  cli('directory', 'import', csvFile);

  const synchronous = process.env.TITULAR_SYNCHRONOUS === 'FULL' ? 'FULL' : 'NORMAL';
  const server = await start(path.join(ROOT, 'out/main/serve.js'), ['--port', '0', '--data-dir', dataDir]);
  const sample = await fetch(`${server.url}/api/v1/lookup?identifier=${numbers[0]}&type=cbu`, { headers: { authorization: `Bearer ${live}` } });
  const sampleSize = (await sample.text()).length;
  const baseline = await start(path.join(ROOT, 'bench/baseline-server.mjs'), [String(sampleSize)]);

  let next = 0;
  const results = [];
  results.push(await run('baseline (bare Fastify)', { url: `${baseline.url}/api/v1/lookup` }));
  results.push(
    await run('sandbox lookups', {
      url: `${server.url}/api/v1/lookup?identifier=0110001300000012345674&type=cbu`,
      headers: { authorization: `Bearer ${sandbox}` },
    }),
  );
  results.push(
    await run('directory lookups', {
      url: server.url,
      headers: { authorization: `Bearer ${live}` },
      requests: [{ setupRequest: (request) => ({ ...request, path: `/api/v1/lookup?identifier=${numbers[next++ % numbers.length]}&type=cbu` }) }],
    }),
  );
  await stop(baseline);
  await stop(server);

  const base = results[0].requestsPerSecond;
  const report = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    settings: { durationSeconds: duration, connections, directoryAccounts: accounts, synchronous, responseBytes: sampleSize },
    results: results.map((r) => ({ ...r, ratioToBaseline: Number((r.requestsPerSecond / base).toFixed(3)) })),
  };
  mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench/results/latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write('wrote bench/results/latest.json\n');
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
