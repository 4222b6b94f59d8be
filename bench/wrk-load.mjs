// What the benches driven by `wrk` (Debian: `apt-get install wrk`) share: a data directory seeded
// through the CLI for directory lookups, wrk's request script, and one bounded wrk run. One copy, so
// that wrk-check.mjs and instructions.mjs send the very same requests.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { directoryCsv } from './directory-fixture.mjs';
import { cliIn } from './processes.mjs';

/** True when `wrk` can be run; otherwise says how to install it on stderr. */
export function wrkInstalled() {
  if (!spawnSync('wrk', ['--version']).error) return true;
  process.stderr.write('wrk is not installed (Debian: apt-get install wrk); nothing measured.\n');
  return false;
}

/** wrk's own version line, for the reports. */
export const wrkVersion = () => spawnSync('wrk', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0].trim();

/**
 * Seeds `dataDir` through the CLI: an organization, `keyCount` live CBU keys allowed 10,000 requests/s
 * (no 429 inflates a rate), credits enough for any run, and 1,000 directory accounts. Writes wrk's
 * script beside them: GET /api/v1/lookup over the 1,000 CBUs, every request built once per thread,
 * thread i sending with key i (a client holds its key), and one `RESULT {json}` line at the end.
 */
export function seedDirectoryLookups(dataDir, keyCount) {
  const cli = cliIn(dataDir);
  cli('init', '--org', 'Bench', '--admin-name', 'Bench', '--admin-email', 'bench@titular.test');
  const keys = Array.from({ length: keyCount }, () => JSON.parse(cli('keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--rate-limit', '10000', '--json')).key);
  cli('credits', 'add', '--product', 'cbu', '--amount', '100000000');
  const { csv, numbers } = directoryCsv(1000);
  writeFileSync(path.join(dataDir, 'directory.csv'), csv);
  cli('directory', 'import', path.join(dataDir, 'directory.csv'));
  const script = path.join(dataDir, 'lookups.lua');
  writeFileSync(
    script,
    `local keys = {${keys.map((k) => JSON.stringify(k)).join(',')}}
local numbers = {${numbers.map((n) => JSON.stringify(n)).join(',')}}
local threads, requests, next = 0, {}, 0
function setup(thread) threads = threads + 1; thread:set("id", threads) end
function init(args)
  local key = keys[(wrk.thread:get("id") - 1) % #keys + 1]
  for i, n in ipairs(numbers) do
    requests[i] = wrk.format("GET", "/api/v1/lookup?identifier=" .. n .. "&type=cbu", { ["Authorization"] = "Bearer " .. key })
  end
  next = math.random(#requests)
end
function request() next = next % #requests + 1; return requests[next] end
function done(summary, latency)
  io.write(string.format('RESULT {"requests":%d,"micros":%d,"non2xx":%d,"errors":%d,"p50Ms":%.2f,"p99Ms":%.2f}\\n',
    summary.requests, summary.duration, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
`,
  );
  return { keys, numbers, script };
}

/** One wrk run of `seconds` against `url` with `script`; its RESULT line, parsed. */
export function runWrk(url, script, { seconds, threads, connections, timeoutSeconds = 5 }) {
  const run = spawnSync('wrk', [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, '--timeout', `${timeoutSeconds}s`, '-s', script, url], {
    encoding: 'utf8',
    timeout: (seconds + 30 + timeoutSeconds) * 1000,
  });
  const line = /RESULT (\{.*\})/.exec(run.stdout ?? '')?.[1];
  if (!line) throw new Error(`wrk gave no result:\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(line);
}
