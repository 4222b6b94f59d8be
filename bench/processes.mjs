// What every bench does with processes: run the CLI on a data directory, start a server script and
// wait for its URL, stop it, and read its memory and CPU time from /proc (Linux). One copy, so that
// the benches measure their servers the same way.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const SERVE = path.join(ROOT, 'out/main/serve.js');
export const CLI = path.join(ROOT, 'out/main/cli.js');

// Every bench's data directory is a key-file vault: a passphrase inherited from the shell would make
// the CLI create (or need) a passphrase vault instead.
const benchEnv = (env = {}) => ({ ...process.env, TITULAR_PASSPHRASE: '', ...env });

/** A function running `out/main/cli.js ...args --data-dir dataDir`, returning its stdout. */
export const cliIn = (dataDir) => (...args) =>
  execFileSync(process.execPath, [CLI, ...args, '--data-dir', dataDir], { cwd: ROOT, encoding: 'utf8', env: benchEnv() });

/**
 * Spawns a server script (`out/main/serve.js`, or a bench server printing the same "listening on"
 * line); resolves once it prints its URL, with the moment it was spawned (for cold starts).
 * `launcher`: a command that runs Node for it (valgrind and its flags), with `startSeconds` to match.
 */
export function startServer(script, args, env = {}, { launcher = [], startSeconds = 30 } = {}) {
  const startedAt = performance.now();
  const [command, ...commandArgs] = [...launcher, process.execPath, script, ...args];
  const child = spawn(command, commandArgs, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: benchEnv(env) });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(script)} did not start within ${startSeconds} s`));
    }, startSeconds * 1000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1], startedAt });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${path.basename(script)} exited with ${code}: ${out}`));
    });
  });
}

/** SIGTERM (the server's graceful shutdown), SIGKILL if it has not exited 10 s later. */
export function stopServer({ child }) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/**
 * From /proc/PID: resident memory now and at its peak (MiB), and CPU time used so far (µs) by the
 * whole process and by its main thread (the event loop: its thread id is the process id).
 */
export function procStats(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return {
    rssMiB: kib('VmRSS') / 1024,
    peakRssMiB: kib('VmHWM') / 1024,
    cpuMicros: cpuMicrosOf(`/proc/${pid}/stat`),
    mainThreadCpuMicros: mainThreadCpuMicros(pid),
  };
}

/** CPU time (user + system, µs) a process's main thread has used so far. */
export const mainThreadCpuMicros = (pid) => cpuMicrosOf(`/proc/${pid}/task/${pid}/stat`);

/** CPU time (user + system, µs) a whole process has used so far. */
export const processCpuMicros = (pid) => cpuMicrosOf(`/proc/${pid}/stat`);

/** utime + stime of a /proc stat file (fields 14 and 15, in clock ticks: 100 per second on Linux), in µs. */
function cpuMicrosOf(statFile) {
  const fields = readFileSync(statFile, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}
