// Instructions per request, counted: `node bench/instructions.mjs [--rounds 2 --seconds 20 --warmup 30]`.
//
// Requests per second on this machine move by a quarter between runs of the same build (the host's speed
// drifts; bench/HISTORY.md), which hides any change smaller than that. Instructions do not drift: each
// server runs under valgrind's callgrind (Debian: `apt-get install valgrind`), loaded by `wrk` with the
// directory lookups of bench/wrk-load.mjs (2 threads, 50 connections), and only a window of `--seconds`
// after a `--warmup` is counted (callgrind_control turns instrumentation on and off), divided by the
// requests wrk completed in it. Runs of one build agree within a few percent.
//
// Servers: the bare Fastify route (bench/baseline-server.mjs), the group-commit floor
// (bench/floor-server.mjs) and `out/main/serve.js` at synchronous NORMAL and FULL. Besides the total
// (every thread: the event loop, the WAL checkpointer, V8's helpers), each report splits the count by
// where it was spent (callgrind's inclusive costs):
//   eventLoop    uv_run: the main thread's event loop, which sets every server's rate here (the rest is
//                the WAL checkpointer's thread, V8's compiler and garbage-collector helpers)
//   intake       llhttp_execute: parsing a request and all its handlers do until they wait (hooks, key
//                check, rate limit, validation; for the bare route, its whole answer too)
//   statements   Statement::JS_run: SQLite statements run from JavaScript, binding their values included
//   binding      Binder::Bind: binding the values alone (JavaScript strings copied out as UTF-8)
// Under callgrind a server runs some 30 to 50 times slower, so every connection waits at the server and
// its group commits are larger than at full speed: per-batch costs weigh less here than in `npm run bench`.
// Writes bench/results/instructions.json. 127.0.0.1 only; every run bounded by its seconds.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt } from './build.mjs';
import { ROOT, SERVE, startServer, stopServer } from './processes.mjs';
import { runWrk, seedDirectoryLookups, wrkInstalled, wrkVersion } from './wrk-load.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '30' },
    servers: { type: 'string', default: 'baseline,floor,normal,full' },
  },
});
const rounds = Math.max(1, Math.min(Number(values.rounds) || 2, 5));
const seconds = Math.max(5, Math.min(Number(values.seconds) || 20, 60));
const warmup = Math.max(5, Math.min(Number(values.warmup) || 30, 120));
const THREADS = 2;
const CONNECTIONS = 50;

if (!wrkInstalled()) process.exit(1);
if (spawnSync('valgrind', ['--version']).error) {
  process.stderr.write('valgrind is not installed (Debian: apt-get install valgrind); nothing measured.\n');
  process.exit(1);
}
ensureBuilt();

/** The functions whose inclusive counts split a server's instructions, by the report's names. */
const PHASES = {
  eventLoop: 'uv_run',
  intake: 'llhttp_execute',
  statements: 'Statement::JS_run(v8::FunctionCallbackInfo<v8::Value> const&)',
  binding: 'Binder::Bind(v8::FunctionCallbackInfo<v8::Value> const&, int, Statement*)',
};

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-instructions-'));
const countsDir = mkdtempSync(path.join(os.tmpdir(), 'titular-callgrind-'));
try {
  const { keys, numbers, script } = seedDirectoryLookups(dataDir, THREADS);
  // One lookup answer's size, for the two reference servers' body.
  const sizing = await startServer(SERVE, ['--port', '0', '--data-dir', dataDir]);
  const answer = await fetch(`${sizing.url}/api/v1/lookup?identifier=${numbers[0]}&type=cbu`, { headers: { authorization: `Bearer ${keys[0]}` } }).then((r) => r.text());
  await stopServer(sizing);
  const responseBytes = String(Buffer.byteLength(answer));

  const servers = {
    baseline: { name: 'bare Fastify route', args: [path.join(ROOT, 'bench/baseline-server.mjs'), responseBytes] },
    floor: { name: 'group-commit floor (FULL)', args: [path.join(ROOT, 'bench/floor-server.mjs'), responseBytes] },
    normal: { name: 'directory lookups NORMAL', args: [SERVE, '--port', '0', '--data-dir', dataDir, '--synchronous', 'NORMAL'] },
    full: { name: 'directory lookups FULL', args: [SERVE, '--port', '0', '--data-dir', dataDir, '--synchronous', 'FULL'] },
  };
  const chosen = values.servers.split(',').map((s) => s.trim()).filter((s) => s in servers);

  const runs = Object.fromEntries(chosen.map((id) => [id, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const id of round % 2 ? chosen : [...chosen].reverse()) {
      const run = await counted(id, servers[id].args, round, script);
      runs[id].push(run);
      process.stdout.write(
        `${servers[id].name.padEnd(28)} #${round}  ${String(run.requests).padStart(6)} requests  thousand instructions per request: event loop ${String(run.phases.eventLoop).padStart(5)}` +
          ` (intake ${run.phases.intake}, statements ${run.phases.statements}, binding ${run.phases.binding}), all threads ${run.kIrPerRequest}\n`,
      );
    }
  }

  const median = (list) => {
    const sorted = [...list].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : Math.round(((sorted[mid - 1] + sorted[mid]) / 2) * 10) / 10;
  };
  // The event loop's count is the headline: it sets each server's rate here, and it is the steadier one
  // (the other threads' share moves with the WAL checkpointer's and V8's background work).
  const summary = Object.fromEntries(
    chosen.map((id) => {
      const eventLoop = runs[id].map((r) => r.phases.eventLoop);
      const phases = Object.fromEntries(Object.keys(PHASES).map((phase) => [phase, median(runs[id].map((r) => r.phases[phase]))]));
      return [
        id,
        { name: servers[id].name, eventLoopKIrPerRequest: median(eventLoop), eventLoopKIrPerRequestRuns: eventLoop, allThreadsKIrPerRequest: median(runs[id].map((r) => r.kIrPerRequest)), phasesKIrPerRequest: phases },
      ];
    }),
  );
  const base = summary.baseline?.eventLoopKIrPerRequest;
  if (base) for (const id of chosen) summary[id].eventLoopToBaseline = Math.round((summary[id].eventLoopKIrPerRequest / base) * 100) / 100;
  const report = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version, valgrind: spawnSync('valgrind', ['--version'], { encoding: 'utf8' }).stdout.trim() },
    settings: { generator: wrkVersion(), threads: THREADS, connections: CONNECTIONS, warmupSeconds: warmup, countedSeconds: seconds, rounds, responseBytes: Number(responseBytes) },
    servers: summary,
    runs,
  };
  writeFileSync(path.join(ROOT, 'bench/results/instructions.json'), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(
    `event loop, thousand instructions per request: ${chosen.map((id) => `${id} ${summary[id].eventLoopKIrPerRequest.toFixed(1)}${summary[id].eventLoopToBaseline ? ` (${summary[id].eventLoopToBaseline}× the bare route)` : ''}`).join(', ')}; bench/results/instructions.json\n`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(countsDir, { recursive: true, force: true });
}

/**
 * One server under callgrind: uninstrumented while it starts and warms up, counted for `seconds` of wrk
 * sending `script`'s requests, then dumped and stopped. Instructions per request, in thousands, in all
 * and by phase.
 */
async function counted(id, args, round, script) {
  const out = path.join(countsDir, `${id}-${round}.out`);
  // valgrind's own messages go to a file beside the counts, not to the terminal.
  const launcher = ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`, `--log-file=${path.join(countsDir, `${id}-${round}.log`)}`];
  const server = await startServer(args[0], args.slice(1), {}, { launcher, startSeconds: 180 });
  const pid = String(server.child.pid);
  try {
    const load = (s) => runWrk(server.url, script, { seconds: s, threads: THREADS, connections: CONNECTIONS, timeoutSeconds: 30 });
    load(warmup); // JIT (under valgrind it takes most of this), caches, the WAL's first pages: not counted
    execFileSync('callgrind_control', ['--instr=on', pid], { stdio: 'ignore' });
    const result = load(seconds);
    execFileSync('callgrind_control', ['--instr=off', pid], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--dump', pid], { stdio: 'ignore' });
    if (result.non2xx || result.errors) throw new Error(`${id}: ${result.non2xx} non-2xx answers and ${result.errors} errors while counting`);
    // The dump holds the counted window (instrumentation was off before and after it); the file
    // callgrind writes at exit would hold nothing more.
    const parts = readdirSync(countsDir).filter((f) => f.startsWith(`${path.basename(out)}.`)).map((f) => path.join(countsDir, f));
    const total = parts.reduce((sum, part) => sum + totalOf(part), 0);
    const inclusive = parts.map(inclusiveCounts);
    const perRequest = (ir) => Math.round(ir / result.requests / 100) / 10;
    const phases = Object.fromEntries(
      Object.entries(PHASES).map(([phase, fn]) => [phase, perRequest(inclusive.reduce((sum, counts) => sum + (counts.get(fn) ?? 0), 0))]),
    );
    return { requests: result.requests, kIrPerRequest: perRequest(total), phases };
  } finally {
    await stopServer(server);
  }
}

/** The `totals:` line of a callgrind dump: every instruction counted in it. */
function totalOf(file) {
  const totals = [...readFileSync(file, 'utf8').matchAll(/^totals: (\d+)/gm)];
  return totals.length ? Number(totals.at(-1)[1]) : 0;
}

/** Inclusive instruction counts of the phase functions in one dump, from callgrind_annotate. */
function inclusiveCounts(file) {
  const text = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const counts = new Map();
  for (const line of text.split('\n')) {
    const match = /^\s*([\d,]+)\s+\([^)]*\)\s+(?:[^:]*):(.+?) \[/.exec(line);
    if (!match) continue;
    const fn = match[2].trim();
    if (Object.values(PHASES).includes(fn) && !counts.has(fn)) counts.set(fn, Number(match[1].replaceAll(',', '')));
  }
  return counts;
}
