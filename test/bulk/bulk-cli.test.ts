// `titular bulk` as a process: out of credits and resume, export, list, Ctrl-C, and a job killed
// with SIGKILL halfway then resumed: the charges equal the distinct identifiers, each looked up once.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTitular, type Titular } from '../../src/main/core/titular';
import { headlessKeyProvider } from '../../src/main/headless/config';
import { runCli, type CliRun } from '../support/processes';
import { checkLedgerInvariants } from '../support/invariants';
import { breakCheckDigit } from '../support/directory-data';
import { PhaseMissed, bytesRead, canWatchProcesses, databaseOpened, waitUntil } from '../support/process-phase';
import { withCheckDigits } from '../../src/shared/identifiers';
import { bulkList, csvCells, generateDirectory } from './bulk-data';

const RUN_TIMEOUT_MS = 90_000;

type Run = CliRun;

/** Starts the CLI; `onStderr` sees stderr as it arrives (to signal the process mid-run). */
function start(dataDir: string, args: string[], onStderr?: (text: string, child: ChildProcess) => void): Promise<Run> {
  return runCli([...args, '--data-dir', dataDir], { timeoutMs: RUN_TIMEOUT_MS, onStderr });
}

async function cli(dataDir: string, args: string[]): Promise<Run> {
  return start(dataDir, args);
}

async function ok(dataDir: string, args: string[]): Promise<string> {
  const run = await cli(dataDir, args);
  expect(run.code, `titular ${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(0);
  return run.stdout;
}

function withCore<T>(dataDir: string, fn: (t: Titular) => T): T {
  const titular = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, {}) });
  try {
    return fn(titular);
  } finally {
    titular.close();
  }
}

const tempDirs: string[] = [];
async function initialized(accounts: ReturnType<typeof generateDirectory>, credits: number): Promise<string> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'titular-bulk-cli-'));
  tempDirs.push(root);
  const dataDir = path.join(root, 'data');
  await ok(dataDir, ['init', '--org', 'Acme Cobranzas', '--admin-name', 'Ada Admin', '--admin-email', 'ada@acme.test']);
  await ok(dataDir, ['users', 'add', '--name', 'Oscar Operador', '--email', 'oscar@acme.test', '--role', 'operator']);
  writeFileSync(path.join(root, 'directory.csv'), accounts.csv);
  await ok(dataDir, ['directory', 'import', path.join(root, 'directory.csv')]);
  if (credits > 0) await ok(dataDir, ['credits', 'add', '--product', 'cbu', '--amount', String(credits)]);
  return dataDir;
}

afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

interface Totals {
  items: number;
  done: number;
  consumptions: number;
  totalConsumed: number;
  bulkHistory: number;
  identifiersLookedUpTwice: number;
  itemsWithoutOneChargedEntry: number;
}

/** The money and history facts of one job, read from the database (no CLI running on it). */
function totals(dataDir: string, jobId: string): Totals {
  return withCore(dataDir, (t) => {
    const db = t.database.sqlite;
    checkLedgerInvariants(db);
    const one = (sql: string, ...params: unknown[]) => (db.prepare(sql).get(...params) as { n: number }).n;
    return {
      items: one('SELECT COUNT(*) AS n FROM bulk_job_items WHERE job_id = ?', jobId),
      done: one('SELECT COUNT(*) AS n FROM bulk_job_items WHERE job_id = ? AND completed_at IS NOT NULL', jobId),
      consumptions: one("SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'consumption'"),
      totalConsumed: one("SELECT total_consumed AS n FROM credit_balances WHERE product = 'cbu'"),
      // BULK history since the job was created (a data directory may hold earlier jobs).
      bulkHistory: one("SELECT COUNT(*) AS n FROM lookups WHERE source = 'BULK' AND created_at >= (SELECT created_at FROM bulk_jobs WHERE id = ?)", jobId),
      identifiersLookedUpTwice: one(
        `SELECT COUNT(*) AS n FROM (SELECT input_identifier FROM lookups
          WHERE source = 'BULK' AND created_at >= (SELECT created_at FROM bulk_jobs WHERE id = ?) GROUP BY input_identifier HAVING COUNT(*) > 1)`,
        jobId,
      ),
      // Each done item: its lookup id names a BULK history entry with one credit and one ledger row.
      itemsWithoutOneChargedEntry: one(
        `SELECT COUNT(*) AS n FROM bulk_job_items i
           LEFT JOIN lookups l ON l.id = i.lookup_id AND l.source = 'BULK' AND l.credit_consumed = 1 AND l.input_identifier = i.identifier
          WHERE i.job_id = ? AND i.completed_at IS NOT NULL
            AND (l.id IS NULL OR (SELECT COUNT(*) FROM credit_ledger c WHERE c.lookup_id = i.lookup_id) != 1)`,
        jobId,
      ),
    };
  });
}

function jobIdOf(stdout: string): string {
  const id = /job ([0-9a-f-]{36})/.exec(stdout)?.[1];
  if (!id) throw new Error(`no job id in:\n${stdout}`);
  return id;
}

describe('titular bulk run, killed with SIGKILL halfway', () => {
  it('resumes on the next run and charges exactly the distinct identifiers, each looked up once', { timeout: 240_000 }, async () => {
    const accounts = generateDirectory(4000);
    const dataDir = await initialized(accounts, 100_000);
    const list = bulkList(accounts.numbers, { repeatEvery: 4, invalid: [breakCheckDigit(accounts.numbers[1]!), 'no valido!'] });
    expect(list).toMatchObject({ distinct: 4000, repeats: 1000, invalid: 2 });
    const file = path.join(path.dirname(dataDir), 'lote.txt');
    writeFileSync(file, list.text);

    // Line-based progress (stderr is a pipe) comes every 5 %; kill at the first line past 25 %.
    let killedAt: number | null = null;
    const killed = await start(dataDir, ['bulk', 'run', file, '--concurrency', '4'], (stderr, child) => {
      if (killedAt !== null) return;
      const percents = [...stderr.matchAll(/^progress ([\d.]+)%/gm)].map((m) => Number(m[1]));
      if (percents.some((p) => p >= 25)) {
        killedAt = Math.max(...percents);
        child.kill('SIGKILL');
      }
    });
    expect(killed.signal, killed.stdout + killed.stderr).toBe('SIGKILL');
    const jobId = jobIdOf(killed.stdout);

    const halfway = totals(dataDir, jobId);
    expect(halfway.items).toBe(4000);
    expect(halfway.done).toBeGreaterThan(0);
    expect(halfway.done, `killed at ${killedAt}%`).toBeLessThan(4000);
    // Whatever was committed when the process died is charged once, with its history entry.
    expect(halfway.consumptions).toBe(halfway.done);
    expect(halfway.bulkHistory).toBe(halfway.done);
    expect(halfway.itemsWithoutOneChargedEntry).toBe(0);
    // The job was never told it stopped: it still says running, and the next run resumes it.
    expect(withCore(dataDir, (t) => t.bulk.get(t.users.requireOrganization().id, jobId).status)).toBe('running');
    // Its runner was a process of this machine that is gone: `bulk list` calls it interrupted at once.
    const listed = async () => (await ok(dataDir, ['bulk', 'list'])).split('\n').find((line) => line.startsWith(jobId))!;
    const sql = (statement: string, ...params: unknown[]) => withCore(dataDir, (t) => t.database.sqlite.prepare(statement).run(...params));
    expect(await listed()).toMatch(/ interrupted /);
    // A runner that cannot be checked (another machine sharing the directory) may still be running
    // for 90 s after its last lookup; then it is interrupted too.
    sql("UPDATE bulk_jobs SET runner = 'otra-pc:4242', updated_at = ? WHERE id = ?", Date.now(), jobId);
    expect(await listed()).toMatch(/ running /);
    sql('UPDATE bulk_jobs SET updated_at = ? WHERE id = ?', Date.now() - 120_000, jobId);
    expect(await listed()).toMatch(/ interrupted /);

    const exportFile = path.join(path.dirname(dataDir), 'resultados.csv');
    const resumed = await cli(dataDir, ['bulk', 'run', file, '--export', exportFile]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`Resuming job ${jobId}`);
    expect(resumed.stdout).toContain(`already done: ${halfway.done.toLocaleString('en-US')}`);
    expect(resumed.stdout).toContain('Completed: 4,000 identifiers looked up');

    const end = totals(dataDir, jobId);
    expect(end).toEqual({
      items: 4000,
      done: 4000,
      consumptions: 4000,
      totalConsumed: 4000,
      bulkHistory: 4000,
      identifiersLookedUpTwice: 0,
      itemsWithoutOneChargedEntry: 0,
    });

    // The export: one row per input row, in file order; the credit column sums to the charges.
    const lines = readFileSync(exportFile, 'utf8').trim().split('\r\n');
    expect(lines).toHaveLength(list.rows + 1);
    const rows = lines.slice(1).map((line) => csvCells(line));
    expect(rows.map((r) => Number(r[0]))).toEqual(Array.from({ length: list.rows }, (_, i) => i + 1));
    expect(rows.filter((r) => r[4] === 'SUCCESS')).toHaveLength(list.rows - 2);
    expect(rows.filter((r) => r[4] === 'INVALID')).toHaveLength(2);
    expect(rows.reduce((sum, r) => sum + Number(r[8]), 0)).toBe(4000);
    expect(statSync(exportFile).mode & 0o777).toBe(0o600);
  });
});

describe('titular bulk run of one file, started six times at once', () => {
  it('makes one job, run together by all six: every identifier charged once', { timeout: 120_000 }, async () => {
    const accounts = generateDirectory(600);
    const dataDir = await initialized(accounts, 10_000);
    const file = path.join(path.dirname(dataDir), 'mismo.txt');
    writeFileSync(file, bulkList(accounts.numbers.slice(0, 500)).text);
    const runs = await Promise.all(Array.from({ length: 6 }, () => cli(dataDir, ['bulk', 'run', file, '--json'])));
    // Each one either ran (a share of) the job, or found it completed already and refused a second charge.
    for (const run of runs) expect([0, 1], run.stderr).toContain(run.code);
    expect(runs.some((run) => run.code === 0)).toBe(true);
    const jobs = withCore(dataDir, (t) => t.database.sqlite.prepare('SELECT id FROM bulk_jobs').pluck().all() as string[]);
    expect(jobs).toHaveLength(1);
    expect(totals(dataDir, jobs[0]!)).toMatchObject({ items: 500, done: 500, consumptions: 500, identifiersLookedUpTwice: 0, itemsWithoutOneChargedEntry: 0 });
  });
});

describe('titular bulk', () => {
  const accounts = generateDirectory(2000);
  let dataDir = '';
  let file = '';
  beforeAll(async () => {
    dataDir = await initialized(accounts, 0);
    file = path.join(path.dirname(dataDir), 'cuentas.txt');
    writeFileSync(file, bulkList(accounts.numbers.slice(0, 150), { repeatEvery: 10, invalid: ['12345'] }).text);
  }, 120_000);

  it('stops at 0 credits with what is left (exit 3), and the same command resumes after a purchase', { timeout: 120_000 }, async () => {
    await ok(dataDir, ['credits', 'add', '--product', 'cbu', '--amount', '60']);
    const first = await cli(dataDir, ['bulk', 'run', file]);
    expect(first.code, first.stderr).toBe(3);
    expect(first.stdout).toContain('150 distinct identifiers, 15 repeated, 1 invalid (not looked up, not charged)');
    expect(first.stdout).toContain('Stopped: no cbu credits left.');
    expect(first.stdout).toContain('Done 60 of 150');
    expect(first.stdout).toContain('Left: 90 identifiers, which need up to 90 credits.');
    const jobId = jobIdOf(first.stdout);

    const listed = JSON.parse(await ok(dataDir, ['bulk', 'list', '--json'])) as { jobs: { id: string; status: string; progress: { done: number } }[] };
    expect(listed.jobs).toEqual([expect.objectContaining({ id: jobId, status: 'out_of_credits', progress: expect.objectContaining({ done: 60, remaining: 90 }) })]);

    await ok(dataDir, ['credits', 'add', '--product', 'cbu', '--amount', '100']);
    const second = await cli(dataDir, ['bulk', 'run', file, '--json']);
    expect(second.code, second.stderr).toBe(0);
    const answer = JSON.parse(second.stdout);
    expect(answer).toMatchObject({ resumed: true, job: { id: jobId, status: 'completed', progress: { done: 150, charged: 150 } }, run: { end: 'completed', lookedUp: 90 } });
    expect(totals(dataDir, jobId)).toMatchObject({ consumptions: 150, identifiersLookedUpTwice: 0, itemsWithoutOneChargedEntry: 0 });

    // Running a completed file again would charge again: refused unless --again.
    const again = await cli(dataDir, ['bulk', 'run', file]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`was already looked up in job ${jobId}`);
    expect(again.stderr).toContain('--again');

    // The export on stdout: header plus one row per input row.
    const csv = await ok(dataDir, ['bulk', 'export', jobId]);
    expect(csv.trim().split('\r\n')).toHaveLength(1 + 150 + 15 + 1);
    // --lang es: the desktop's Spanish spreadsheet form, with a BOM for Excel.
    const sheet = (await ok(dataDir, ['bulk', 'export', jobId, '--lang', 'es'])).split('\r\n');
    expect(sheet[0]).toBe('\uFEFFFila;Entrada;Identificador;Tipo;Estado;HTTP;Código;Mensaje;Créditos;Repite la fila;Titulares;CUIT/CUIL;Banco;ID de consulta');
    expect(sheet.filter((l) => l.split(';')[4] === 'Exitosa')).toHaveLength(150 + 15);
    expect(sheet.find((l) => l.split(';')[4] === 'Inválida')).toContain(';El CBU debe tener 22 dígitos con dígitos verificadores válidos (se ingresaron 5).;');
    const refused = await cli(dataDir, ['bulk', 'export', jobId, '--lang', 'fr']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--lang/);
    const langAlone = await cli(dataDir, ['bulk', 'resume', jobId, '--lang', 'es']);
    expect(langAlone.code).toBe(2);
    expect(langAlone.stderr).toContain('--lang goes with --export OUT.csv');

    // --output (the history export's name for it) writes the same file as --out.
    const viaOutput = path.join(path.dirname(dataDir), 'lote-output.csv');
    await ok(dataDir, ['bulk', 'export', jobId, '--output', viaOutput]);
    expect(readFileSync(viaOutput, 'utf8')).toBe(csv);
    // --json with the CSV on stdout would put two documents in one stream: refused.
    const jsonOnStdout = await cli(dataDir, ['bulk', 'export', jobId, '--json']);
    expect(jsonOnStdout.code).toBe(2);
    expect(jsonOnStdout.stderr).toContain('--json needs --out FILE here');
    // A directory as the file: said by name, nothing left behind in its parent.
    const folder = path.dirname(dataDir);
    const intoFolder = await cli(dataDir, ['bulk', 'export', jobId, '--out', folder]);
    expect(intoFolder.code).toBe(1);
    expect(intoFolder.stderr).toContain(`${folder} is a directory: name the file to write`);
    // An --export that cannot be written fails before a job is created (or a credit spent).
    const jobsBefore = JSON.parse(await ok(dataDir, ['bulk', 'list', '--json'])).jobs.length;
    const other = path.join(folder, 'sin-export.txt');
    writeFileSync(other, bulkList(accounts.numbers.slice(0, 3)).text);
    const unwritable = await cli(dataDir, ['bulk', 'run', other, '--export', path.join(folder, 'no-existe', 'x.csv')]);
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toContain('Cannot write');
    expect(JSON.parse(await ok(dataDir, ['bulk', 'list', '--json'])).jobs).toHaveLength(jobsBefore);
  });

  it('pauses on Ctrl-C (exit 4) and `bulk resume` finishes the job', { timeout: 120_000 }, async () => {
    await ok(dataDir, ['credits', 'add', '--product', 'cbu', '--amount', '5000']);
    const other = path.join(path.dirname(dataDir), 'otra.txt');
    writeFileSync(other, bulkList(accounts.numbers).text);
    let sent = false;
    const interrupted = await start(dataDir, ['bulk', 'run', other, '--concurrency', '1', '--user', 'oscar@acme.test'], (stderr, child) => {
      if (!sent && /^progress/m.test(stderr)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    expect(interrupted.code, interrupted.stdout + interrupted.stderr).toBe(4);
    expect(interrupted.stdout).toContain('Stopped before the end');
    const jobId = jobIdOf(interrupted.stdout);
    expect(interrupted.stdout).toContain(`Resume with: titular bulk resume ${jobId}`);
    const paused = totals(dataDir, jobId);
    expect(paused.done).toBeLessThan(2000);
    expect(paused.itemsWithoutOneChargedEntry).toBe(0);

    const resumed = await cli(dataDir, ['bulk', 'resume', jobId]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('Completed: 2,000 identifiers looked up');
    const t = totals(dataDir, jobId);
    expect(t).toMatchObject({ items: 2000, done: 2000, identifiersLookedUpTwice: 0, itemsWithoutOneChargedEntry: 0 });
    // The history names the user the job was started for.
    const users = withCore(dataDir, (core) =>
      core.database.sqlite.prepare("SELECT DISTINCT u.email FROM bulk_job_items i JOIN lookups l ON l.id = i.lookup_id JOIN users u ON u.id = l.user_id WHERE i.job_id = ?").all(jobId),
    );
    expect(users).toEqual([{ email: 'oscar@acme.test' }]);
  });

  it.skipIf(!canWatchProcesses)('a Ctrl-C while a large list is still being read stops the run before its first lookup: nothing charged', { timeout: 180_000 }, async () => {
    // 300,000 new identifiers: reading them into a new job takes seconds, synchronously. A signal sent
    // then waits in the event loop; it used to be let in only after the first batch was dispatched.
    const numbers = Array.from({ length: 300_000 }, (_, i) => withCheckDigits('011', '0002', String(i).padStart(13, '0')));
    const big = path.join(path.dirname(dataDir), 'grande.txt');
    writeFileSync(big, numbers.join('\n'));
    const charged = () => withCore(dataDir, (core) => core.ledger.balances(core.users.requireOrganization().id).find((b) => b.productSlug === 'cbu')!.totalConsumed);
    let chargedBefore = 0;
    // Sent once the CLI listens for it (else it ends the process: no exit code) and has read the list,
    // while it makes the job of it (before its "Bulk job" line). Tried again if that came and went unseen.
    const listBytes = statSync(big).size;
    let run: Run | null = null;
    for (let attempt = 1; run === null; attempt++) {
      // Per attempt: one killed after its first lookups charged them.
      chargedBefore = charged();
      let printed = '';
      let driving: Promise<void> = Promise.resolve();
      const attemptRun = await runCli(['bulk', 'run', big, '--again', '--data-dir', dataDir], {
        timeoutMs: RUN_TIMEOUT_MS,
        onSpawn: (child) => {
          child.stdout!.on('data', (chunk: string | Buffer) => (printed += String(chunk)));
          driving = (async () => {
            const { readBefore } = await databaseOpened(child, dataDir);
            await waitUntil(child, 'the list read', () => bytesRead(child.pid!) - readBefore >= listBytes);
            if (/^Bulk job/m.test(printed)) throw new PhaseMissed('the job was made already');
            child.kill('SIGINT');
          })().catch((error: unknown) => {
            child.kill('SIGKILL');
            throw error;
          });
          driving.catch(() => {}); // awaited below
        },
      });
      try {
        await driving;
        run = attemptRun;
      } catch (error) {
        if (!(error instanceof PhaseMissed) || attempt === 3) throw new Error(`${(error as Error).message}\n${attemptRun.stdout}${attemptRun.stderr}`);
        const jobId = /job ([0-9a-f-]{36})/.exec(attemptRun.stdout)?.[1];
        if (jobId) await ok(dataDir, ['bulk', 'cancel', jobId]);
      }
    }
    expect(run, 'the CLI never caught the signal in time').not.toBeNull();
    expect(run!.code, run!.stdout + run!.stderr).toBe(4);
    expect(run!.stdout).toContain('Stopped before the end: 0 of 300,000 done (found 0, not found 0, errors 0; 0 credits charged in total).');
    expect(charged()).toBe(chargedBefore);
    const jobId = jobIdOf(run!.stdout);
    await ok(dataDir, ['bulk', 'cancel', jobId]);
  });

  it('reports bad arguments (exit 2) and missing files or jobs (exit 1)', { timeout: 60_000 }, async () => {
    const badProduct = await cli(dataDir, ['bulk', 'run', file, '--product', 'iban']);
    expect(badProduct.code).toBe(2);
    expect(badProduct.stderr).toContain('--product must be cbu or informes');
    const missing = await cli(dataDir, ['bulk', 'run', path.join(path.dirname(dataDir), 'nope.txt')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No such file');
    const noJobs = await cli(dataDir, ['bulk', 'list', '--limit', '0']);
    expect(noJobs.code).toBe(2);
    expect(noJobs.stderr).toContain('--limit must be from 1 to 10,000');
    const unknown = await cli(dataDir, ['bulk', 'export', '0190aaaa-0000-7000-8000-000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No bulk job');
  });

  it('an operator (--as) sees and controls only their own jobs, as on the desktop, and cannot start one for someone else', { timeout: 60_000 }, async () => {
    const list = async (...as: string[]) => (JSON.parse(await ok(dataDir, ['bulk', 'list', '--json', ...as])) as { jobs: { id: string; user: { email: string } }[] }).jobs;
    const all = await list();
    const adminJob = all.find((j) => j.user.email === 'ada@acme.test')!;
    expect(adminJob).toBeDefined();
    const own = await list('--as', 'oscar@acme.test');
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((j) => j.user.email === 'oscar@acme.test')).toBe(true);
    for (const args of [['bulk', 'export', adminJob.id], ['bulk', 'cancel', adminJob.id], ['bulk', 'resume', adminJob.id]]) {
      const refused = await cli(dataDir, [...args, '--as', 'oscar@acme.test']);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr).toContain(`No bulk job ${adminJob.id}`);
    }
    const asAdmin = await cli(dataDir, ['bulk', 'run', file, '--as', 'oscar@acme.test', '--user', 'ada@acme.test']);
    expect(asAdmin.code).toBe(1);
    expect(asAdmin.stderr).toContain('only admins can run a job as another user');
    expect((await list()).length).toBe(all.length);
  });

  it('an --export path that cannot be written fails before the run: exit 1, nothing looked up or charged', { timeout: 60_000 }, async () => {
    await ok(dataDir, ['credits', 'add', '--product', 'cbu', '--amount', '50']);
    const fresh = path.join(path.dirname(dataDir), 'nuevas.txt');
    writeFileSync(fresh, bulkList(accounts.numbers.slice(1000, 1020)).text);
    const counts = () =>
      withCore(dataDir, (t) => t.database.sqlite.prepare("SELECT (SELECT COUNT(*) FROM lookups) AS lookups, (SELECT COUNT(*) FROM credit_ledger WHERE kind = 'consumption') AS consumptions").get());
    const before = counts();
    const unwritable = await cli(dataDir, ['bulk', 'run', fresh, '--export', path.join(path.dirname(dataDir), 'no-such-dir', 'out.csv'), '--json']);
    expect(unwritable.code, unwritable.stderr).toBe(1);
    expect(unwritable.stderr).toContain('Cannot write');
    expect(counts()).toEqual(before);
  });
});
