// `titular history export`: every matching history entry, streamed as CSV or JSON to stdout or a
// file. Reads through its own read-only connection (see openReader) so the export never holds the
// core's connection busy.
import { recordHistoryExport } from '../../core/audit/export-audit';
import Database from 'better-sqlite3';
import { createWriteStream, renameSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { History } from '../../core/history/history';
import { CSV_COLUMNS, historyCsvHeader, historyCsvRow } from '../../core/history/history-csv';
import { DamagedAnswers, DamagedFields, answerNoun, damagedFieldsWarning, damagedWarning, unplacedWarning } from '../../core/history/stored-answer';
import { isDamaged } from '../../core/db/stored-json';
import { INTERCHANGE } from '../../core/export/csv-dialect';
import { LANG_HELP, LANG_OPTION, exportDialect } from './export-lang';
import { damagedFields as fieldsOf, historyQuerySchema } from '../../../shared/api/history';
import { lookupStatusSchema, sourceSchema } from '../../../shared/api/common';
import { UsageError, oneOf, outputFileOption, outputFileOptions, requiredString, stringOption } from './args';
import { CliError, databaseFile, type CommandSpec, type SessionContext } from './context';
import { exportTarget, refuseJsonWithCsvOnStdout, removeQuietly, writeFailure } from './export-target';
import { interruptedExitCode, sayStopped } from './interrupt';

/** Where the export goes: stdout, or a temporary file renamed into place once complete. */
interface Sink {
  write(chunk: string): Promise<void>;
  finish(): Promise<void>;
  abort(): void;
  /** Set when the reader went away (EPIPE on stdout): stop quietly. */
  readonly closed: boolean;
}

function streamSink(stream: NodeJS.WritableStream): { sink: Sink; failure: () => Error | null } {
  let error: Error | null = null;
  let closed = false;
  const onError = (e: Error) => {
    if ((e as NodeJS.ErrnoException).code === 'EPIPE') closed = true;
    else error = e;
  };
  stream.on('error', onError);
  const sink: Sink = {
    get closed() {
      return closed;
    },
    write(chunk) {
      if (closed) return Promise.resolve();
      if (error) return Promise.reject(error);
      if (stream.write(chunk)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const done = () => {
          stream.off('drain', done);
          stream.off('error', failed);
          stream.off('close', done);
          resolve();
        };
        const failed = (e: Error) => {
          stream.off('drain', done);
          stream.off('close', done);
          if ((e as NodeJS.ErrnoException).code === 'EPIPE') resolve();
          else reject(e);
        };
        stream.once('drain', done);
        stream.once('close', done);
        stream.once('error', failed);
      });
    },
    finish: () => Promise.resolve(),
    abort() {},
  };
  return { sink, failure: () => error };
}

function fileSink(target: string): Sink {
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
  // History holds people's names and tax ids: the export is readable by its owner only.
  const stream: WriteStream = createWriteStream(temporary, { mode: 0o600, flags: 'wx' });
  const { sink } = streamSink(stream);
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  opened.catch(() => {}); // awaited (and reported) by write/finish
  const wrap = (error: unknown) => writeFailure(target, error);
  return {
    closed: false,
    async write(chunk) {
      await opened.catch((e: unknown) => {
        throw wrap(e);
      });
      await sink.write(chunk).catch((e: unknown) => {
        throw wrap(e);
      });
    },
    async finish() {
      await opened.catch((e: unknown) => {
        throw wrap(e);
      });
      await new Promise<void>((resolve, reject) => {
        stream.once('error', (e) => reject(wrap(e)));
        stream.end(() => resolve());
      });
      try {
        renameSync(temporary, target);
      } catch (error) {
        removeQuietly(temporary);
        throw wrap(error);
      }
    },
    abort() {
      stream.destroy();
      const remove = () => removeQuietly(temporary);
      remove();
      // The file may still be being opened: remove it again once that settles.
      opened.then(remove, () => {});
    },
  };
}

/**
 * A second, read-only connection to the same database. An open better-sqlite3 iterator makes its
 * connection refuse every other statement, and the export awaits the output between rows; on the
 * core's connection the 30-second housekeeping timer would then fail mid-export.
 */
function openReader(dataDir: string): Database.Database {
  const reader = new Database(databaseFile(dataDir), { readonly: true, fileMustExist: true });
  reader.pragma('busy_timeout = 5000');
  return reader;
}

const CHUNK_CHARS = 64 * 1024;

/** An export in the audit trail, with the filters as they were given. */
function recordExport(
  ctx: SessionContext,
  done: { rows: number; product: 'cbu' | 'informes'; environment: 'live' | 'sandbox'; format: 'csv' | 'json'; raw: Record<string, string> },
): void {
  const { from, to, status, source } = done.raw;
  const filters = { from, to, status, source };
  recordHistoryExport(ctx.titular.audit, ctx.org.id, ctx.actor.id, { rows: done.rows, product: done.product, environment: done.environment, format: done.format, filters });
}

export const historyCommands: CommandSpec[] = [
  {
    name: 'history export',
    interruptible: true,
    synopsis: '--format csv|json [--lang es|en] [--from DATE] [--to DATE] [--status S] [--source S] [--environment live|sandbox] [--product cbu|informes] [--output FILE]',
    summary: 'Export the lookup history as CSV or JSON',
    details: [
      '--format csv|json             CSV columns: ' + CSV_COLUMNS.join(','),
      '                              JSON: an array of history entries (the API shape)',
      LANG_HELP,
      '--from DATE, --to DATE        ISO 8601 date (whole day, UTC) or instant',
      '--status SUCCESS|ERROR',
      '--source WEB|API|BULK',
      '--environment live|sandbox    default live',
      '--product cbu|informes        default cbu',
      '--output FILE                 write to FILE (created 0600) instead of stdout (also -o, --out)',
      '',
      'Entries are exported newest first. Ctrl-C stops the export and writes nothing to FILE (exit 130).',
    ],
    options: {
      format: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      status: { type: 'string' },
      source: { type: 'string' },
      environment: { type: 'string' },
      product: { type: 'string' },
      ...outputFileOptions('output'),
      ...LANG_OPTION,
    },
    access: 'user',
    vault: 'locked',
    async run(ctx) {
      const command = ctx.command;
      const format = oneOf(requiredString(ctx.values, 'format', command), ['csv', 'json'] as const, '--format', command);
      const dialect = exportDialect(ctx);
      if (format === 'json' && dialect !== INTERCHANGE) throw new UsageError('--lang is for --format csv', command);
      const environment = oneOf(stringOption(ctx.values, 'environment') ?? 'live', ['live', 'sandbox'] as const, '--environment', command);
      const product = oneOf(stringOption(ctx.values, 'product') ?? 'cbu', ['cbu', 'informes'] as const, '--product', command);
      const status = stringOption(ctx.values, 'status');
      const source = stringOption(ctx.values, 'source');
      const raw: Record<string, string> = {};
      for (const name of ['from', 'to'] as const) {
        const value = stringOption(ctx.values, name);
        if (value !== undefined) raw[name] = value.trim();
      }
      if (status !== undefined) raw.status = oneOf(status, lookupStatusSchema.options, '--status', command);
      if (source !== undefined) raw.source = oneOf(source, sourceSchema.options, '--source', command);
      const parsed = historyQuerySchema.safeParse(raw);
      if (!parsed.success) {
        // The schema's words are the HTTP API's (query parameters `from`, `to`): here they name the flags.
        const issue = parsed.error.issues[0];
        const field = issue?.path.join('.');
        const message = issue?.message ?? 'invalid filter';
        if (!field && raw.from !== undefined && raw.to !== undefined && /^from .* to$/.test(message)) {
          throw new UsageError(`--from must not be after --to (got --from ${raw.from} --to ${raw.to})`, command);
        }
        if (field && message.startsWith(`${field} `)) throw new UsageError(`--${message}`, command);
        throw new UsageError(`${field ? `--${field}: ` : ''}${message}`, command);
      }
      const { page: _page, per_page: _perPage, ...filter } = parsed.data;

      const outputFile = outputFileOption(ctx.values, command);
      const toFile = outputFile !== undefined && outputFile !== '-';
      if (!toFile && format === 'csv') refuseJsonWithCsvOnStdout(ctx.out.json, command, '--output');
      const target = toFile ? exportTarget(outputFile, { dataDir: ctx.dataDir }) : null;
      const stdout = toFile ? null : streamSink(ctx.out.streams.stdout);
      const sink = target ? fileSink(target) : stdout!.sink;

      const reader = openReader(ctx.dataDir);
      let count = 0;
      let completed = false;
      // Entries whose stored answer, or another field, cannot be read are exported with the rest of
      // what they hold (history/stored-entry.ts) and told once at the end, on stderr: one bad row does
      // not cost the whole export. So are the organization's entries in no history at all.
      const damaged = new DamagedAnswers();
      const damagedFields = new DamagedFields();
      let unplaced: ReturnType<History['unplaced']> = null;
      try {
        const history = new History(reader);
        let buffer = format === 'csv' ? historyCsvHeader(dialect) : '[';
        for (const entry of history.iterate({ orgId: ctx.org.id, environment, product }, filter)) {
          if (isDamaged(entry.responseData)) damaged.note(entry.id);
          damagedFields.note(entry.id, fieldsOf(entry));
          if (format === 'csv') buffer += historyCsvRow(entry, dialect);
          else buffer += `${count === 0 ? '\n' : ',\n'}${JSON.stringify(entry)}`;
          count++;
          if (buffer.length >= CHUNK_CHARS) {
            await sink.write(buffer);
            buffer = '';
            if (sink.closed || ctx.signal.aborted) break;
          }
        }
        if (ctx.signal.aborted) {
          // The file is written under a temporary name and renamed when whole: an interrupted export
          // leaves nothing at the target (finally removes the temporary file).
          sayStopped(ctx.out, target ? `${target} was not written` : 'the export on stdout is incomplete');
          return interruptedExitCode(ctx.signal);
        }
        if (sink.closed) {
          // The reader went away (`| head`): what it read has left all the same, and is recorded.
          recordExport(ctx, { rows: count, product, environment, format, raw });
          return 0;
        }
        unplaced = history.unplaced(ctx.org.id);
        if (format === 'json') buffer += count === 0 ? ']\n' : '\n]\n';
        await sink.write(buffer);
        await sink.finish();
        const failure = stdout?.failure();
        if (failure) throw new CliError(`Cannot write the export: ${failure.message}`);
        completed = true;
      } finally {
        reader.close();
        if (!completed) sink.abort();
      }

      // Once the export is whole (an interrupted one took nothing out): audit/export-audit.ts says why.
      recordExport(ctx, { rows: count, product, environment, format, raw });
      for (const warning of [damagedWarning(damaged, { noun: 'entry', what: answerNoun(product) }), damagedFieldsWarning(damagedFields), unplacedWarning(unplaced)]) {
        if (warning) ctx.out.warn(`Warning: ${warning}.`);
      }
      if (target) {
        if (ctx.out.json) {
          const counts = { damaged: damaged.count, damagedFields: damagedFields.count, unplaced: unplaced?.count ?? 0 };
          ctx.out.data({ exported: count, format, output: target, ...counts });
        } else ctx.out.line(`Exported ${count} ${count === 1 ? 'entry' : 'entries'} (${environment}, ${product}) to ${target}`);
      }
      return 0;
    },
  },
];
