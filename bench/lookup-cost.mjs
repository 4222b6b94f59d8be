// Per-request cost of a directory lookup, in process: `node --import tsx bench/lookup-cost.mjs`.
// Drives buildHttpApi(...).inject with 50 requests in flight (so the group commit batches as it does
// under load) and reports CPU microseconds per request next to a bare Fastify route answering the
// same body through the same inject path. CPU time is what decides throughput on this machine and is
// far less disturbed by other processes than requests per second, so optimizations are judged by it.
// `--json` prints one JSON object (bench/run.mjs reads it); otherwise a short table.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { openTitular } from '../src/main/core/titular.ts';
import { buildHttpApi } from '../src/main/core/http/server.ts';
import { headlessKeyProvider } from '../src/main/headless/config.ts';
import { parseDirectoryFile } from '../src/main/core/directory/directory-file.ts';
import { directoryCsv } from './directory-fixture.mjs';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '50' },
    synchronous: { type: 'string', default: 'NORMAL' },
    rounds: { type: 'string', default: '3' },
    json: { type: 'boolean', default: false },
  },
});
const requests = Math.min(Number(values.requests), 200_000);
const concurrency = Math.min(Number(values.concurrency), 200);
const rounds = Math.min(Number(values.rounds), 10);
const synchronous = values.synchronous === 'FULL' ? 'FULL' : 'NORMAL';

/** Runs `requests` injects, `concurrency` at a time; returns CPU and wall microseconds per request. */
async function measure(inject) {
  let started = 0;
  let failures = 0;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < requests) {
        const response = await inject(started++);
        if (response.statusCode !== 200) failures++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return {
    cpuMicrosPerRequest: Number(((cpu.user + cpu.system) / requests).toFixed(1)),
    systemMicrosPerRequest: Number((cpu.system / requests).toFixed(1)),
    wallMicrosPerRequest: Number(((1000 * (performance.now() - wall0)) / requests).toFixed(1)),
    failures,
  };
}

const median = (runs, field) => runs.map((r) => r[field]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
const summarize = (runs) => ({
  cpuMicrosPerRequest: median(runs, 'cpuMicrosPerRequest'),
  systemMicrosPerRequest: median(runs, 'systemMicrosPerRequest'),
  wallMicrosPerRequest: median(runs, 'wallMicrosPerRequest'),
  failures: runs.reduce((sum, r) => sum + r.failures, 0),
});

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-cost-'));
try {
  const titular = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, {}), synchronous });
  const { org, admin } = titular.users.initialize({ orgName: 'Bench', adminName: 'Bench Admin', adminEmail: 'bench@titular.test' });
  const key = titular.keys.create({
    orgId: org.id,
    ownerUserId: admin.id,
    actorUserId: admin.id,
    product: 'cbu',
    scopes: ['lookup', 'balance', 'history'],
    environment: 'live',
    rateLimitPerSecond: 10_000,
  }).secret;
  titular.ledger.addPurchase({ orgId: org.id, product: 'cbu', amount: 100_000_000, userId: admin.id });
  const { csv, numbers } = directoryCsv(1000);
  titular.directory.import(org.id, parseDirectoryFile(csv, 'csv'), { skipInvalid: false, actorUserId: admin.id });

  const app = buildHttpApi(titular);
  await app.ready();
  const headers = { authorization: `Bearer ${key}` };
  const lookup = (i) => app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${numbers[i % numbers.length]}&type=cbu`, headers });
  const sample = await lookup(0);
  const body = sample.body;

  const bare = Fastify({ logger: false });
  bare.get('/api/v1/lookup', async (_request, reply) => reply.header('content-type', 'application/json').send(body));
  await bare.ready();
  const baseline = (i) => bare.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${numbers[i % numbers.length]}&type=cbu`, headers });

  // Warm up both paths (JIT, page cache), then alternate rounds so drift hits both alike.
  await measure(lookup);
  await measure(baseline);
  const lookupRuns = [];
  const baselineRuns = [];
  for (let r = 0; r < rounds; r++) {
    baselineRuns.push(await measure(baseline));
    lookupRuns.push(await measure(lookup));
  }
  const report = {
    requests,
    concurrency,
    synchronous,
    responseBytes: Buffer.byteLength(body),
    baseline: summarize(baselineRuns),
    directoryLookup: summarize(lookupRuns),
  };
  report.addedCpuMicrosPerRequest = Number((report.directoryLookup.cpuMicrosPerRequest - report.baseline.cpuMicrosPerRequest).toFixed(1));
  await app.close();
  await bare.close();
  titular.close();
  if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else {
    const row = (name, m) => `${name.padEnd(20)} cpu ${String(m.cpuMicrosPerRequest).padStart(7)} µs/req  (sys ${m.systemMicrosPerRequest})  wall ${m.wallMicrosPerRequest} µs/req  failures ${m.failures}`;
    process.stdout.write(`${row('baseline inject', report.baseline)}\n${row(`lookup ${synchronous}`, report.directoryLookup)}\nadded by Titular: ${report.addedCpuMicrosPerRequest} µs CPU per request\n`);
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
