// bin/titular.js, the `titular` command, as a process: it runs the build in out/ only while no source
// is newer (after a `git pull` without `npm run build` it would run old code), otherwise the sources
// through tsx; `titular serve` runs the server's entry; SIGTERM and SIGHUP sent to the wrapper reach
// what it runs. Checked on a copy of the wrapper in a project of its own, whose "build" and "sources"
// say which of them ran.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { version } from '../package.json';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TIMEOUT_MS = 60_000;

function titular(project: string, args: string[]) {
  const run = spawnSync(process.execPath, [path.join(project, 'bin', 'titular.js'), ...args], { cwd: os.tmpdir(), encoding: 'utf8', timeout: 30_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, pid: run.pid };
}

describe('bin/titular.js', () => {
  let project: string;
  const at = (file: string, seconds: number) => utimesSync(path.join(project, file), seconds, seconds);
  const T0 = Math.floor(Date.now() / 1000) - 3600;

  beforeAll(() => {
    project = mkdtempSync(path.join(os.tmpdir(), 'titular-bin-'));
    mkdirSync(path.join(project, 'bin'));
    for (const file of ['titular.js', 'build-freshness.js']) copyFileSync(path.join(ROOT, 'bin', file), path.join(project, 'bin', file));
    writeFileSync(path.join(project, 'package.json'), '{ "name": "titular-bin-test", "private": true }\n');
    mkdirSync(path.join(project, 'out', 'main'), { recursive: true });
    writeFileSync(path.join(project, 'out', 'main', 'cli.js'), "console.log('build', JSON.stringify(process.argv.slice(2)));\nprocess.exitCode = 5;\n");
    // A server that says it is up (its handlers already set), and how it was stopped; serve.ts exits 0 on SIGTERM.
    writeFileSync(
      path.join(project, 'out', 'main', 'serve.js'),
      "for (const s of ['SIGTERM', 'SIGHUP']) process.on(s, () => { console.log('stopped by', s); process.exit(s === 'SIGTERM' ? 0 : 7); });\n" +
        "console.log('serve', JSON.stringify(process.argv.slice(2)));\n" +
        'setInterval(() => {}, 1000);\n',
    );
    mkdirSync(path.join(project, 'src', 'main', 'headless'), { recursive: true });
    mkdirSync(path.join(project, 'src', 'main', 'core'), { recursive: true });
    mkdirSync(path.join(project, 'src', 'shared'), { recursive: true });
    // TypeScript: only tsx runs it.
    writeFileSync(path.join(project, 'src', 'main', 'headless', 'cli.ts'), "const ran: string = 'sources';\nconsole.log(ran, JSON.stringify(process.argv.slice(2)));\nprocess.exitCode = 6;\n");
    writeFileSync(path.join(project, 'src', 'main', 'core', 'ledger.ts'), 'export const x = 1;\n');
    writeFileSync(path.join(project, 'src', 'shared', 'version.ts'), 'export const v = 1;\n');
    for (const file of ['package.json', 'src/main/headless/cli.ts', 'src/main/core/ledger.ts', 'src/shared/version.ts']) at(file, T0);
    at('out/main/serve.js', T0 + 10);
  });

  afterAll(() => {
    rmSync(project, { recursive: true, force: true });
  });

  it('runs the build while it is newer than every source, arguments and exit status passed through', () => {
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'), 'dir');
    at('out/main/cli.js', T0 + 10);
    const run = titular(project, ['keys', 'list', '--data-dir', 'a b']);
    expect(run).toMatchObject({ code: 5, stdout: 'build ["keys","list","--data-dir","a b"]\n', stderr: '' });
  }, TIMEOUT_MS);

  it('runs the build in its own process (no second Node), with the command line `node out/main/cli.js …` would have', () => {
    const script = path.join(project, 'out', 'main', 'cli.js');
    const build = readFileSync(script, 'utf8');
    try {
      writeFileSync(script, 'console.log(JSON.stringify({ pid: process.pid, argv: process.argv.slice(1) }));\n');
      at('out/main/cli.js', T0 + 10);
      const run = titular(project, ['keys', 'list']);
      expect(JSON.parse(run.stdout)).toEqual({ pid: run.pid, argv: [script, 'keys', 'list'] });
    } finally {
      writeFileSync(script, build);
      at('out/main/cli.js', T0 + 10);
    }
  }, TIMEOUT_MS);

  it('runs the sources through tsx once a source is newer than the build (a git pull without a rebuild)', () => {
    for (const file of ['src/main/core/ledger.ts', 'src/shared/version.ts', 'package.json']) {
      at(file, T0 + 20);
      const run = titular(project, ['credits', 'show']);
      expect(run, file).toMatchObject({ code: 6, stdout: 'sources ["credits","show"]\n', stderr: '' });
      at(file, T0);
    }
    // Rebuilt: the build again.
    at('out/main/cli.js', T0 + 30);
    expect(titular(project, ['x']).stdout).toBe('build ["x"]\n');
  }, TIMEOUT_MS);

  it('`titular serve` runs the server; SIGTERM or SIGHUP sent to the wrapper alone reaches it, and its exit is the wrapper\'s', async () => {
    at('out/main/cli.js', T0 + 10);
    for (const [signal, code] of [['SIGTERM', 0], ['SIGHUP', 7]] as const) {
      const wrapper = spawn(process.execPath, [path.join(project, 'bin', 'titular.js'), 'serve', '--port', '0'], { cwd: os.tmpdir() });
      let stdout = '';
      const up = new Promise<void>((resolve) =>
        wrapper.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('\n')) resolve();
        }),
      );
      const exited = new Promise<number | null>((resolve) => wrapper.on('exit', (status) => resolve(status)));
      await up;
      expect(stdout).toBe('serve ["--port","0"]\n');
      // Before the wrapper passed signals on, the server outlived it: `kill` stopped nothing.
      wrapper.kill(signal);
      expect(await exited, signal).toBe(code);
      expect(stdout).toBe(`serve ["--port","0"]\nstopped by ${signal}\n`);
    }
  }, TIMEOUT_MS);

  it('running the sources, the wrapper hands TITULAR_PASSPHRASE to them and keeps none itself (its diagnostic report lists none)', async () => {
    const passphrase = 'frase que el lanzador no guarda';
    const source = path.join(project, 'src', 'main', 'headless', 'serve.ts');
    writeFileSync(
      source,
      `const has: string = process.env.TITULAR_PASSPHRASE === '${passphrase}' ? 'yes' : 'no';\nconsole.log('passphrase', has);\n` +
        "process.on('SIGTERM', () => process.exit(0));\nsetInterval(() => {}, 1000);\n",
    );
    at('src/main/headless/serve.ts', T0 + 20);
    const reports = mkdtempSync(path.join(os.tmpdir(), 'titular-bin-report-'));
    try {
      const env = { ...process.env, TITULAR_PASSPHRASE: passphrase, TITULAR_TEST_MARKER: 'listed', NODE_OPTIONS: `--report-on-signal --report-directory=${reports}` };
      const wrapper = spawn(process.execPath, [path.join(project, 'bin', 'titular.js'), 'serve'], { cwd: os.tmpdir(), env });
      const exited = new Promise<number | null>((resolve) => wrapper.on('exit', (status) => resolve(status)));
      let stdout = '';
      await new Promise<void>((resolve) =>
        wrapper.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('\n')) resolve();
        }),
      );
      expect(stdout).toBe('passphrase yes\n');
      // Node writes the report (the environment it has now) when the wrapper gets SIGUSR2.
      wrapper.kill('SIGUSR2');
      let report: { environmentVariables: Record<string, string> } | null = null;
      for (const deadline = Date.now() + 15_000; report === null && Date.now() < deadline; ) {
        const file = readdirSync(reports).find((name) => name.endsWith('.json'));
        try {
          report = file ? JSON.parse(readFileSync(path.join(reports, file), 'utf8')) : null;
        } catch {
          // Still being written.
        }
        if (report === null) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(report?.environmentVariables.TITULAR_TEST_MARKER).toBe('listed');
      expect(Object.keys(report?.environmentVariables ?? {})).not.toContain('TITULAR_PASSPHRASE');
      wrapper.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      rmSync(reports, { recursive: true, force: true });
      rmSync(source);
    }
  }, TIMEOUT_MS);

  it('without tsx (an install without development dependencies) runs the old build, saying so; with neither, says what to do', () => {
    rmSync(path.join(project, 'node_modules'));
    at('src/main/core/ledger.ts', T0 + 40);
    const stale = titular(project, ['x']);
    expect(stale).toMatchObject({ code: 5, stdout: 'build ["x"]\n' });
    expect(stale.stderr).toContain('out/main/cli.js is older than src/ and tsx is not installed');
    rmSync(path.join(project, 'out'), { recursive: true });
    const none = titular(project, ['x']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('the CLI is not built (out/main/cli.js) and tsx is not installed');
  }, TIMEOUT_MS);

  it('the real one runs this checkout\'s CLI', () => {
    const run = titular(ROOT, ['--version']);
    expect(run).toMatchObject({ code: 0, stdout: `titular ${version}\n` });
    expect(titular(ROOT, ['serve', '--version'])).toMatchObject({ code: 0, stdout: `titular ${version}\n` });
    expect(titular(ROOT, ['serve', '--help']).stdout).toMatch(/^Usage: titular serve \[--port N\]/);
    expect(titular(ROOT, ['--help']).stdout).toMatch(/\n  serve +Start the HTTP API on 127\.0\.0\.1/);
  }, TIMEOUT_MS);
});
