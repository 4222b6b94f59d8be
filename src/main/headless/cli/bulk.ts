// `titular bulk run|resume|list|export|cancel`: bulk lookups (source BULK) from a file, with a
// progress bar, resuming the unfinished job of the same file, stopping cleanly at 0 credits, and a
// CSV export with one row per input row.
//
// Exit status of run/resume: 0 every identifier looked up; 3 out of credits (the rest is reported
// and a later run resumes it); 4 stopped before the end (Ctrl-C, or identifiers answered GE500 that
// a later run retries); 1 the operation failed; 2 invalid command line.
import { closeSync, openSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { RESUMABLE_STATUSES, type BulkJobView } from '../../../shared/api/bulk';
import type { BulkRunResult } from '../../core/bulk/bulk-runner';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../../core/bulk/bulk-runner';
import { BULK_CSV_COLUMNS } from '../../core/bulk/bulk-export';
import { DamagedAnswers, answerNoun, damagedWarning } from '../../core/history/stored-answer';
import { BulkAlreadyCompleted } from '../../core/bulk/bulk-service';
import { parseBulkInput, type BulkInput, type BulkInputRow } from '../../core/bulk/bulk-input';
import { analyzeTaxId } from '../../../shared/identifiers';
import { UsageError, booleanOption, oneOf, outputFileOption, outputFileOptions, stringOption, wholeNumber } from './args';
import { CliError, unlockSessionVault, userByEmail, type CommandSpec, type SessionContext } from './context';
import { ProgressReporter } from './bulk-progress-bar';
import { recordBulkExport } from '../../core/audit/export-audit';
import { formatInstant } from './output';
import { count, counted, countsSummary } from './bulk-counts';
import { letSignalsIn } from './interrupt';
import { remoteSettings } from '../../core/resolvers/remote-config';
import type { ProductSlug } from '../../../shared/api/common';
import { readInputText, withFileContent } from './input-file';
import { LANG_OPTION, exportDialect } from './export-lang';
import { exportTarget, refuseJsonWithCsvOnStdout, removeQuietly, writeFailure } from './export-target';
import type { CsvDialect } from '../../core/export/csv-dialect';

export const EXIT_OUT_OF_CREDITS = 3;
export const EXIT_STOPPED = 4;

const PRODUCTS = ['cbu', 'informes'] as const;

function concurrencyOption(ctx: SessionContext): number {
  const raw = stringOption(ctx.values, 'concurrency');
  if (raw === undefined) return DEFAULT_CONCURRENCY;
  return wholeNumber(raw, '--concurrency', ctx.command, { min: 1, max: MAX_CONCURRENCY });
}

/** `--lang` of `bulk run`/`resume`: how `--export` writes, so only with it (checked before anything runs). */
function runExportDialect(ctx: SessionContext): CsvDialect {
  if (stringOption(ctx.values, 'export') === undefined && stringOption(ctx.values, 'lang') !== undefined) {
    throw new UsageError('--lang goes with --export OUT.csv', ctx.command);
  }
  return exportDialect(ctx);
}

/**
 * The job's CSV on its way to `target` (created 0600: it holds names and tax ids), complete or not
 * at all: written to a temporary file beside it, renamed when done. Opened before a run, so that a
 * path that cannot be written fails before any credit is spent.
 */
class ExportFile {
  readonly #temporary: string;
  readonly #fd: number;

  constructor(
    readonly target: string,
    private readonly dialect: CsvDialect,
  ) {
    this.#temporary = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
    try {
      this.#fd = openSync(this.#temporary, 'wx', 0o600);
    } catch (error) {
      throw writeFailure(target, error);
    }
  }

  /** Writes the file; answers the rows it wrote without their stored answer (damaged). */
  write(ctx: SessionContext, jobId: string): DamagedAnswers {
    const damaged = new DamagedAnswers();
    try {
      for (const chunk of ctx.titular.bulk.exportCsv(ctx.org.id, jobId, this.dialect, damaged)) writeSync(this.#fd, chunk);
      closeSync(this.#fd);
      renameSync(this.#temporary, this.target);
    } catch (error) {
      this.discard();
      throw writeFailure(this.target, error);
    }
    recordExport(ctx, jobId);
    return damaged;
  }

  /** Never throws: it runs while another error is on its way, which a failed cleanup must not replace. */
  discard(): void {
    try {
      closeSync(this.#fd);
    } catch {
      // already closed
    }
    removeQuietly(this.#temporary);
  }
}

async function writeToStdout(ctx: SessionContext, jobId: string, dialect: CsvDialect): Promise<DamagedAnswers> {
  const stdout = ctx.out.streams.stdout;
  const damaged = new DamagedAnswers();
  for (const chunk of ctx.titular.bulk.exportCsv(ctx.org.id, jobId, dialect, damaged)) {
    if (!stdout.write(chunk)) await new Promise<void>((resolve) => stdout.once('drain', resolve));
  }
  recordExport(ctx, jobId);
  return damaged;
}

/** A whole export of a job's results, in the audit trail (audit/export-audit.ts says why). */
function recordExport(ctx: SessionContext, jobId: string): void {
  const job = ctx.titular.bulk.get(ctx.org.id, jobId);
  recordBulkExport(ctx.titular.audit, ctx.org.id, ctx.actor.id, { jobId, name: job.name, rows: job.totalRows });
}

/** Says on stderr, once, how many exported rows lacked their stored answer (history/stored-answer.ts). */
function warnDamaged(ctx: SessionContext, damaged: DamagedAnswers | undefined, product: ProductSlug): void {
  const warning = damaged && damagedWarning(damaged, { noun: 'row', what: answerNoun(product) });
  if (warning) ctx.out.warn(`Warning: ${warning}.`);
}

/**
 * How many of a list's rows are CUIT/CUILs (and how many are CBU/CVUs or aliases a CBU job looks up),
 * when CUIT/CUILs are most of its non-blank rows (the list was meant for credit reports); else null.
 */
function mostlyCuits(rows: readonly BulkInputRow[]): { cuits: number; rows: number; valid: number } | null {
  // A row a CBU job looks up is not counted as a CUIT (an 11-digit alias its type column names).
  const cuits = rows.filter((row) => row.item === null && analyzeTaxId(row.raw).ok).length;
  const valid = rows.filter((row) => row.item !== null).length;
  return cuits > 0 && cuits * 2 > rows.length ? { cuits, rows: rows.length, valid } : null;
}

/** The rows of a list as a CBU job reads them; none when it cannot be read as one. */
function cbuRows(content: string): readonly BulkInputRow[] {
  try {
    return parseBulkInput(content, 'cbu').rows;
  } catch {
    return [];
  }
}

/** A list mostly of CUIT/CUILs, with some CBUs or aliases, run without --product (refuseMostlyCuits). */
class MostlyCuitsRefusal extends CliError {}

/**
 * A list mostly of CUIT/CUILs run without --product is refused before a job is made or a credit spent
 * and pointed to credit reports, also when a few of its rows are CBUs or aliases (a header that reads
 * as an alias, a stray account): a CBU job would look those up and charge them, and skip every CUIT.
 * `--product cbu` runs it as asked. A list with no valid row is the core's refusal (bulk run's catch).
 */
function refuseMostlyCuits(file: string): (parsed: BulkInput) => void {
  return (parsed) => {
    const cuits = mostlyCuits(parsed.rows);
    if (!cuits || cuits.valid === 0) return;
    throw new MostlyCuitsRefusal(
      `${file}: ${count(cuits.cuits)} of its ${counted(cuits.rows, 'row', 'rows')} are CUIT/CUILs, which are looked up in a credit report (Informes) job; nothing was looked up or charged. ` +
        `To look up credit reports: titular bulk run ${file} --product informes (or, to look up its ${counted(cuits.valid, 'CBU/CVU or alias', 'CBU/CVUs and aliases')} only, --product cbu)`,
    );
  };
}

function describeJob(job: BulkJobView): string {
  const parts = [counted(job.totalRows, 'row', 'rows'), counted(job.totalItems, 'distinct identifier', 'distinct identifiers')];
  if (job.duplicateRows > 0) parts.push(`${count(job.duplicateRows)} repeated`);
  if (job.invalidRows > 0) parts.push(`${count(job.invalidRows)} invalid (not looked up, not charged)`);
  return parts.join(', ');
}

/**
 * The `--export` file of a run, opened before anything else happens: a path that cannot be written
 * fails before a job is created or a credit spent.
 */
function openRunExport(ctx: SessionContext, input?: string): ExportFile | null {
  const exportTo = stringOption(ctx.values, 'export');
  return exportTo !== undefined ? new ExportFile(exportTarget(exportTo, { dataDir: ctx.dataDir, input }), runExportDialect(ctx)) : null;
}

/** Runs a prepared job with progress on stderr, prints the summary, exports, and answers the exit code. */
async function runJob(ctx: SessionContext, job: BulkJobView, exportFile: ExportFile | null, extra: Record<string, unknown>, joined = false): Promise<number> {
  const { out } = ctx;
  const concurrency = concurrencyOption(ctx);
  const target = exportFile?.target ?? null;
  const reporter = new ProgressReporter(out.streams.stderr);
  let result: BulkRunResult;
  // A Ctrl-C pressed while the file was read and parsed (synchronous work, seconds for a large list)
  // is still waiting in the event loop: let it in first, so that it stops the run before the first
  // batch of lookups is dispatched and charged, not after.
  await letSignalsIn();
  try {
    result = await ctx.titular.bulk.run(ctx.org.id, job.id, {
      concurrency,
      signal: ctx.signal,
      joined,
      // The reporter throttles what it prints; it wants frequent updates to print each 5 % step.
      progressIntervalMs: 50,
      onProgress: (p) => reporter.update(p),
    });
  } catch (error) {
    exportFile?.discard();
    throw error;
  }
  reporter.end(result.progress);
  const after = ctx.titular.bulk.get(ctx.org.id, job.id);
  warnDamaged(ctx, exportFile?.write(ctx, job.id), after.product);

  if (out.json) {
    out.data({ ...extra, job: after, run: { end: result.end, lookedUp: result.lookedUp, durationMs: result.durationMs, error: result.error?.message ?? null }, export: target });
  } else {
    const p = after.progress;
    const counts = countsSummary(p);
    switch (result.end) {
      case 'completed':
        out.line(`Completed: ${counted(p.done, 'identifier', 'identifiers')} looked up (${counts}).`);
        break;
      case 'out_of_credits':
        out.line(out.style('yellow', `Stopped: no ${after.product} credits left.`));
        out.line(`Done ${count(p.done)} of ${count(p.total)} (${counts}).`);
        out.line(`Left: ${counted(p.remaining, 'identifier', 'identifiers')}, which need up to ${counted(p.remaining, 'credit', 'credits')}.`);
        out.line(`Add credits (titular credits add --product ${after.product} --amount N), then run the same command again to resume.`);
        break;
      case 'cancelled':
        out.line(`Cancelled: ${count(p.done)} of ${count(p.total)} done (${counts}).`);
        break;
      case 'paused':
        out.line(out.style('yellow', `Stopped before the end: ${count(p.done)} of ${count(p.total)} done (${counts}).`));
        if (p.retryable > 0) out.line(`${counted(p.retryable, 'identifier', 'identifiers')} could not be looked up (data source unavailable, not charged).`);
        out.line(`Resume with: titular bulk resume ${after.id}`);
        break;
    }
    if (target) out.line(`Results: ${target}`);
  }
  if (result.error) throw new CliError(`The bulk job stopped: ${result.error.message}. Resume with: titular bulk resume ${after.id}`);
  if (result.end === 'out_of_credits') return EXIT_OUT_OF_CREDITS;
  if (result.end === 'completed') return 0;
  return EXIT_STOPPED;
}

/**
 * A run whose lookups go to the remote API needs the upstream key, sealed in the vault. The session
 * is opened locked, so that a run answered by the directory asks for no passphrase; this unlocks it
 * for a remote one, before a job is made or resumed.
 */
function unlockForRemote(ctx: SessionContext, product: ProductSlug): void {
  const remote = remoteSettings(ctx.titular);
  if (remote.resolvers[product] !== 'remote' || !remote.keySet) return;
  unlockSessionVault(ctx, `Live ${product} lookups go to the remote API, whose key is sealed in the vault`);
}

/**
 * Cancels a job, or says it already was (exit 0, as `keys revoke` of a revoked key): asked to be in
 * the state it is in, a script has nothing to fix. A job that completed cannot be cancelled (exit 1).
 */
async function cancelJob(ctx: SessionContext, job: BulkJobView): Promise<number> {
  const already = (current: BulkJobView) => {
    if (ctx.out.json) ctx.out.data({ job: current, alreadyCancelled: true });
    else ctx.out.line(`Job ${current.id} was already cancelled: ${count(current.progress.done)} of ${count(current.progress.total)} were done (${countsSummary(current.progress)}).`);
    return 0;
  };
  const completed = (current: BulkJobView) =>
    new CliError(`Bulk job ${current.id} is completed: there is nothing left to cancel. Its results: titular bulk export ${current.id}`);
  if (job.status === 'cancelled') return already(job);
  if (job.status === 'completed') throw completed(job);
  let after: BulkJobView;
  try {
    // A job another process cancelled since it was read is answered as it is (the core's rule).
    after = await ctx.titular.bulk.cancel(ctx.org.id, job.id);
  } catch (error) {
    // Another process finished it since it was read.
    const current = ctx.titular.bulk.get(ctx.org.id, job.id);
    if (current.status === 'completed') throw completed(current);
    throw error;
  }
  // A runner elsewhere completed it meanwhile: the cancel did not apply.
  if (after.status === 'completed') throw completed(after);
  if (ctx.out.json) ctx.out.data({ job: after, alreadyCancelled: false });
  else ctx.out.line(`Cancelled job ${after.id}: ${count(after.progress.done)} of ${count(after.progress.total)} were done (${countsSummary(after.progress)}).`);
  return 0;
}

const runDetails = [
  '--export OUT.csv       write the results (one row per input row) when the run ends',
  '--lang es|en           --export for a spreadsheet: Spanish (";", dd/mm/aaaa) or English',
  `--concurrency N        lookups in flight (default ${DEFAULT_CONCURRENCY}, at most ${MAX_CONCURRENCY})`,
  '',
  'Progress goes to stderr: a bar on a terminal, a line every 5 % otherwise.',
  'Exit status: 0 all looked up; 3 out of credits (the rest is reported; run again after a',
  'purchase to resume); 4 stopped before the end (Ctrl-C, or data source unavailable for some',
  'identifiers: resume to retry them); 1 failed; 2 invalid command line.',
];

export const bulkCommands: CommandSpec[] = [
  {
    name: 'bulk run',
    interruptible: true,
    synopsis: 'FILE [--product cbu|informes] [--user EMAIL] [--export OUT.csv [--lang es|en]] [--concurrency N] [--again]',
    summary: 'Look up every identifier of a file (resumes the unfinished job of the same file)',
    details: [
      'FILE                   one identifier per line, or a CSV with an "identifier" column and an',
      '                       optional "type" column (cbu, cvu, alias; cuit for informes). Spaces',
      '                       and dashes are ignored; digits are a CBU/CVU, anything else an alias.',
      '                       Invalid rows are reported and never looked up nor charged; a repeated',
      '                       identifier is looked up (and charged) once.',
      '--product cbu|informes default cbu (informes: rows are CUIT/CUIL); a list mostly of',
      '                       CUIT/CUILs is refused unless --product is given',
      '--user EMAIL           the user the history names (default: --as, else the first admin)',
      '--again                run a file whose earlier job completed once more (charged again)',
      ...runDetails,
    ],
    options: {
      product: { type: 'string' },
      user: { type: 'string' },
      export: { type: 'string' },
      ...LANG_OPTION,
      concurrency: { type: 'string' },
      again: { type: 'boolean' },
    },
    maxArgs: 1,
    access: 'user',
    // Unlocked only when its lookups go to the remote API (unlockForRemote).
    vault: 'locked',
    async run(ctx) {
      const file = ctx.args[0];
      if (file === undefined) throw new UsageError('Missing FILE: titular bulk run FILE', ctx.command);
      const product = oneOf(stringOption(ctx.values, 'product') ?? 'cbu', PRODUCTS, '--product', ctx.command);
      const email = stringOption(ctx.values, 'user');
      const user = email !== undefined ? userByEmail(ctx, email, '--user') : ctx.actor;
      // A job's lookups are recorded as its user's: only an admin may name someone else.
      if (user.id !== ctx.actor.id && ctx.actor.role !== 'admin') throw new CliError(`${ctx.actor.email} is an operator; only admins can run a job as another user (--user)`);
      // Bad options are told before the file is read (the export file itself is opened further down).
      concurrencyOption(ctx);
      runExportDialect(ctx);
      unlockForRemote(ctx, product);
      const content = readInputText(file);
      const input = { orgId: ctx.org.id, userId: user.id, product, name: path.basename(file), content };
      // The default product, not one asked for: a list mostly of CUITs is refused (refuseMostlyCuits).
      const beforeCreate = stringOption(ctx.values, 'product') === undefined ? refuseMostlyCuits(file) : undefined;
      const exportFile = openRunExport(ctx, file);
      let prepared;
      try {
        // Running a finished file again by accident would charge every identifier again.
        // What the core refuses here is the file's content (no identifiers, no identifier column): exit 1.
        prepared = withFileContent(file, () => ctx.titular.bulk.prepare({ ...input, refuseCompleted: !booleanOption(ctx.values, 'again'), refuseAllInvalid: true, beforeCreate }));
      } catch (error) {
        exportFile?.discard();
        if (error instanceof MostlyCuitsRefusal) throw error;
        // A list of CUITs run as the default product: say how to run it. Also one that is mostly
        // CUITs, with a few rows that are neither (a typo, a header): the core names CUITs only when
        // every row is one.
        if (error instanceof CliError && product === 'cbu') {
          if (/credit report \(Informes\) job/.test(error.message)) {
            throw new CliError(`${error.message}. To look up credit reports: titular bulk run ${file} --product informes`);
          }
          const cuits = mostlyCuits(cbuRows(content));
          if (cuits) {
            throw new CliError(
              `${error.message}. ${count(cuits.cuits)} of its ${counted(cuits.rows, 'row', 'rows')} are CUIT/CUILs, which are looked up in a credit report (Informes) job. To look up credit reports: titular bulk run ${file} --product informes`,
            );
          }
        }
        if (!(error instanceof BulkAlreadyCompleted)) throw error;
        const before = error.completed;
        throw new CliError(
          `${file} was already looked up in job ${before.id} (completed ${formatInstant(before.finishedAt)}, ` +
            `${counted(before.progress.charged, 'credit', 'credits')}). Its results: titular bulk export ${before.id}. To look it up again and be charged again, pass --again.`,
        );
      }
      const { job } = prepared;
      if (!ctx.out.json) {
        ctx.out.line(`${prepared.resumed ? 'Resuming' : 'Bulk'} job ${job.id}: ${job.name} (${job.product}, as ${job.user.email})`);
        ctx.out.line(`  ${describeJob(job)}`);
        if (prepared.resumed && job.progress.done > 0) ctx.out.line(`  already done: ${count(job.progress.done)}; left: ${count(job.progress.remaining)}`);
      }
      // Other `titular bulk run`s of the same file may finish the job before this one starts on it.
      return runJob(ctx, job, exportFile, { resumed: prepared.resumed }, true);
    },
  },
  {
    name: 'bulk resume',
    interruptible: true,
    synopsis: 'JOB_ID [--export OUT.csv [--lang es|en]] [--concurrency N]',
    summary: 'Resume a paused, interrupted or out-of-credits bulk job',
    details: runDetails,
    options: { export: { type: 'string' }, ...LANG_OPTION, concurrency: { type: 'string' } },
    maxArgs: 1,
    access: 'user',
    // Unlocked only when its lookups go to the remote API (unlockForRemote).
    vault: 'locked',
    async run(ctx) {
      const id = ctx.args[0];
      if (id === undefined) throw new UsageError('Missing JOB_ID: titular bulk resume JOB_ID (see titular bulk list)', ctx.command);
      concurrencyOption(ctx);
      runExportDialect(ctx);
      const job = ctx.titular.bulk.visibleTo(ctx.actor, id);
      // A finished job is refused before anything is printed or opened (the core would refuse it too,
      // but only once the run starts, after the "Resuming" line).
      if (!RESUMABLE_STATUSES.includes(job.status)) {
        const results = job.status === 'completed' ? `; its results: titular bulk export ${job.id}` : '';
        throw new CliError(`Bulk job ${job.id} is ${job.status}; it cannot be resumed${results}`);
      }
      unlockForRemote(ctx, job.product);
      const exportFile = openRunExport(ctx);
      if (!ctx.out.json) ctx.out.line(`Resuming job ${job.id}: ${job.name} (${job.product}); done ${count(job.progress.done)} of ${count(job.progress.total)}`);
      return runJob(ctx, job, exportFile, { resumed: true });
    },
  },
  {
    name: 'bulk list',
    synopsis: '[--limit N]',
    summary: 'List bulk jobs, newest first',
    details: ['--limit N   how many jobs (default 50)'],
    options: { limit: { type: 'string' } },
    access: 'user',
    vault: 'locked',
    run(ctx) {
      const raw = stringOption(ctx.values, 'limit');
      const limit = raw === undefined ? 50 : wholeNumber(raw, '--limit', ctx.command, { min: 1, max: 10_000 });
      const jobs = ctx.titular.bulk.listFor(ctx.actor, limit);
      if (ctx.out.json) {
        ctx.out.data({ jobs });
        return;
      }
      ctx.out.table(
        ['ID', 'CREATED', 'PRODUCT', 'STATUS', 'DONE', 'CHARGED', 'INVALID', 'USER', 'NAME'],
        jobs.map((j) => [
          j.id,
          formatInstant(j.createdAt),
          j.product,
          j.status === 'running' && !j.active && !j.runningElsewhere ? 'interrupted' : j.status,
          `${count(j.progress.done)}/${count(j.progress.total)}`,
          count(j.progress.charged),
          count(j.invalidRows),
          j.user.email,
          j.name,
        ]),
        '(no bulk jobs)',
      );
    },
  },
  {
    name: 'bulk export',
    synopsis: 'JOB_ID [--out FILE] [--lang es|en]',
    summary: 'Export a bulk job as CSV, one row per input row',
    details: [
      `Columns: ${BULK_CSV_COLUMNS.join(',')}`,
      'status is SUCCESS, ERROR (code PA011 not found, PA006), INVALID (never looked up) or PENDING.',
      '--out FILE   write to FILE (created 0600) instead of stdout (also -o, --output)',
      '--lang es|en for a spreadsheet: Spanish (";", dd/mm/aaaa, Spanish words and messages) or English',
    ],
    options: { ...outputFileOptions('out'), ...LANG_OPTION },
    maxArgs: 1,
    access: 'user',
    vault: 'locked',
    async run(ctx) {
      const id = ctx.args[0];
      if (id === undefined) throw new UsageError('Missing JOB_ID: titular bulk export JOB_ID', ctx.command);
      const dialect = exportDialect(ctx);
      const job = ctx.titular.bulk.visibleTo(ctx.actor, id);
      const outFile = outputFileOption(ctx.values, ctx.command);
      if (outFile === undefined || outFile === '-') {
        refuseJsonWithCsvOnStdout(ctx.out.json, ctx.command, '--out');
        warnDamaged(ctx, await writeToStdout(ctx, job.id, dialect), job.product);
        return;
      }
      const target = exportTarget(outFile, { dataDir: ctx.dataDir });
      warnDamaged(ctx, new ExportFile(target, dialect).write(ctx, job.id), job.product);
      if (ctx.out.json) ctx.out.data({ exported: job.totalRows, output: target });
      else ctx.out.line(`Exported ${counted(job.totalRows, 'row', 'rows')} of job ${job.id} to ${target}`);
    },
  },
  {
    name: 'bulk cancel',
    synopsis: 'JOB_ID',
    summary: 'Cancel a bulk job for good (its pending identifiers are never looked up)',
    details: ['A job already cancelled is said to be, exit 0; a completed job cannot be cancelled, exit 1.'],
    options: {},
    maxArgs: 1,
    access: 'user',
    vault: 'locked',
    async run(ctx) {
      const id = ctx.args[0];
      if (id === undefined) throw new UsageError('Missing JOB_ID: titular bulk cancel JOB_ID', ctx.command);
      return cancelJob(ctx, ctx.titular.bulk.visibleTo(ctx.actor, id));
    },
  },
];
