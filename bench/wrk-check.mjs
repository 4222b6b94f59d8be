// A cross-check of the durable ratio with another load generator: `node bench/wrk-check.mjs [--rounds 3
// --duration 6 --connections 50]`. `npm run bench` drives its runs with autocannon, a Node program that
// costs about as much CPU per request as the bare route itself and shares the machine's two cores with
// the server; `wrk` (C; Debian: `apt-get install wrk`) costs a few µs. If the ratio were an artifact of
// the generator, it would move here.
//
// Seeds a data directory through the CLI (1,000 directory accounts, two live keys, credits enough),
// then alternates, `--rounds` times: the bare Fastify route (bench/baseline-server.mjs, a body of a
// lookup answer's size) and `out/main/serve.js --synchronous FULL`, each loaded by wrk with the same
// requests (GET /api/v1/lookup over the 1,000 CBUs; each wrk thread holds one key, as a client does).
// Reports requests/s, p50/p99, the server's main-thread CPU per request and each durable run's ratio
// to the mean of the baseline runs around it, in bench/results/wrk-check.json. 127.0.0.1 only; every
// run is bounded by --duration.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt } from './build.mjs';
import { mainThreadCpuMicros, ROOT, SERVE, startServer, stopServer } from './processes.mjs';
import { runWrk, seedDirectoryLookups, wrkInstalled, wrkVersion } from './wrk-load.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '6' },
    connections: { type: 'string', default: '50' },
  },
});
const rounds = Math.max(1, Math.min(Number(values.rounds) || 3, 9));
const duration = Math.max(2, Math.min(Number(values.duration) || 6, 60));
const connections = Math.max(2, Math.min(Number(values.connections) || 50, 200));
const THREADS = 2;

if (!wrkInstalled()) process.exit(1);
ensureBuilt();

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-wrk-'));
const { keys, numbers, script } = seedDirectoryLookups(dataDir, THREADS);

const wrk = (url, seconds) => runWrk(url, script, { seconds, threads: THREADS, connections });

async function measure(name, args) {
  const server = await startServer(args[0], args.slice(1));
  try {
    wrk(server.url, 1); // warm-up: JIT, caches, the WAL's first pages
    const before = mainThreadCpuMicros(server.child.pid);
    const result = wrk(server.url, duration);
    const cpu = mainThreadCpuMicros(server.child.pid) - before;
    const requestsPerSecond = Math.round(result.requests / (result.micros / 1e6));
    const run = { name, requestsPerSecond, p50Ms: result.p50Ms, p99Ms: result.p99Ms, non2xx: result.non2xx, errors: result.errors, mainThreadCpuMicrosPerRequest: Math.round((cpu / result.requests) * 10) / 10 };
    process.stdout.write(`${name.padEnd(24)} ${String(requestsPerSecond).padStart(6)} req/s  p50 ${run.p50Ms} ms  p99 ${run.p99Ms} ms  main thread ${run.mainThreadCpuMicrosPerRequest} µs/req${run.non2xx || run.errors ? `  non-2xx ${run.non2xx} errors ${run.errors}` : ''}\n`);
    return run;
  } finally {
    await stopServer(server);
  }
}

// One lookup answer's size, for the baseline's body.
const sizing = await startServer(SERVE, ['--port', '0', '--data-dir', dataDir]);
const answer = await fetch(`${sizing.url}/api/v1/lookup?identifier=${numbers[0]}&type=cbu`, { headers: { authorization: `Bearer ${keys[0]}` } }).then((r) => r.text());
await stopServer(sizing);
const responseBytes = Buffer.byteLength(answer);

const baseline = [path.join(ROOT, 'bench/baseline-server.mjs'), String(responseBytes)];
const durable = [SERVE, '--port', '0', '--data-dir', dataDir, '--synchronous', 'FULL'];
const runs = [await measure('baseline #1', baseline)];
const durableRuns = [];
for (let round = 1; round <= rounds; round++) {
  const run = await measure(`lookups FULL #${round}`, durable);
  const after = await measure(`baseline #${round + 1}`, baseline);
  const around = (runs.at(-1).requestsPerSecond + after.requestsPerSecond) / 2;
  run.ratio = Math.round((run.requestsPerSecond / around) * 1000) / 1000;
  durableRuns.push(run);
  runs.push(run, after);
}
rmSync(dataDir, { recursive: true, force: true });

const ratios = durableRuns.map((r) => r.ratio).sort((a, b) => a - b);
const report = {
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100) },
  settings: { generator: wrkVersion(), threads: THREADS, connections, durationSeconds: duration, rounds, responseBytes },
  medianDurableRatio: ratios[Math.floor(ratios.length / 2)],
  durableRatioRange: [ratios[0], ratios.at(-1)],
  runs,
};
writeFileSync(path.join(ROOT, 'bench/results/wrk-check.json'), `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(`durable ratio with wrk: median ${report.medianDurableRatio} (${ratios.join(', ')}); bench/results/wrk-check.json\n`);
