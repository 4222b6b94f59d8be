// `titular directory import FILE [--skip-invalid]`: loads the organization's account directory
// (CSV or JSON). All-or-nothing unless --skip-invalid; Ctrl-C imports nothing, and says so.
import path from 'node:path';
import { detectDirectoryFormat, parseDirectoryFile, type DirectoryRowError } from '../../core/directory/directory-file';
import type { ImportReport } from '../../core/directory/directory';
import { UsageError, booleanOption } from './args';
import type { CommandSpec } from './context';
import { readInputText, withFileContent } from './input-file';
import { nothingImported, plural } from './import-summary';
import { wasInterrupted, writeUnlessInterrupted } from './interruptible-write';
import type { Output } from './output';

function printRowErrors(out: Output, errors: readonly DirectoryRowError[], unit: 'line' | 'item'): void {
  for (const e of errors) out.error(`${unit} ${e.line}: ${e.reason}`);
}


export const directoryCommands: CommandSpec[] = [
  {
    name: 'directory import',
    synopsis: 'FILE [--skip-invalid]',
    summary: 'Import accounts from a CSV or JSON file into the directory',
    details: [
      'FILE             .csv (columns cbu,alias,account_type,currency,active,holder_name,holder_tax_id;',
      '                 one row per holder) or .json (an array of accounts with holders)',
      '--skip-invalid   import the valid rows and report the invalid ones; without it a single',
      '                 invalid row imports nothing (each is listed as "line N: reason" on stderr)',
      '',
      'An account already in the directory (same CBU/CVU) is replaced. Ctrl-C imports nothing (exit 130).',
    ],
    options: { 'skip-invalid': { type: 'boolean' } },
    maxArgs: 1,
    // Ctrl-C is caught to say that nothing was imported (interruptible-write.ts).
    interruptible: true,
    access: 'admin',
    vault: 'locked',
    async run(ctx) {
      const file = ctx.args[0];
      if (file === undefined) throw new UsageError('Missing FILE: titular directory import FILE', ctx.command);
      const skipInvalid = booleanOption(ctx.values, 'skip-invalid');
      const content = readInputText(file);
      const format = detectDirectoryFormat(file, content);
      const parsed = parseDirectoryFile(content, format);
      const unit = format === 'json' && parsed.rows > 0 ? 'item' : 'line';
      const { out } = ctx;

      let report: ImportReport;
      if (skipInvalid && parsed.accounts.length === 0 && parsed.errors.length > 0) {
        // Nothing valid to keep: do not record an empty import.
        report = { imported: 0, replaced: 0, rows: parsed.rows, errors: parsed.errors, committed: false };
      } else {
        const written = await writeUnlessInterrupted(ctx, 'nothing was imported', () =>
          withFileContent(file, () => ctx.titular.directory.import(ctx.org.id, parsed, { skipInvalid, actorUserId: ctx.actor.id, fileName: path.basename(file) })),
        );
        if (wasInterrupted(written)) return written.exitCode;
        report = written;
      }

      if (out.json) out.data(report);
      if (!report.committed) {
        printRowErrors(out, report.errors, unit);
        out.error(nothingImported(file, parsed, skipInvalid, 'rows'));
        return 1;
      }
      if (report.errors.length > 0) {
        out.error(`Skipped ${plural(report.errors.length, 'invalid row')}:`);
        printRowErrors(out, report.errors, unit);
      }
      if (!out.json) {
        const replaced = report.replaced > 0 ? ` (${report.replaced} replaced existing ${report.replaced === 1 ? 'entry' : 'entries'})` : '';
        out.line(`Imported ${plural(report.imported, 'account')} from ${file}${replaced}; ${plural(report.rows, 'row')} read, ${report.errors.length} skipped.`);
        out.line(`The directory now holds ${plural(ctx.titular.directory.count(ctx.org.id), 'account')}.`);
      }
      return 0;
    },
  },
];
