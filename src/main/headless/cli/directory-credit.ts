// `titular directory import-credit FILE [--skip-invalid]`: loads credit records (CSV rows or JSON
// reports) into the directory; they answer live Informes lookups. All-or-nothing unless
// --skip-invalid, and even then a subject with an invalid row is left out whole. Ctrl-C imports
// nothing, and says so.
import path from 'node:path';
import { parseCreditFile } from '../../core/directory/credit-file';
import { detectDirectoryFormat } from '../../core/directory/directory-file';
import type { CreditImportReport } from '../../core/directory/credit-reports';
import { UsageError, booleanOption } from './args';
import type { CommandSpec } from './context';
import { readInputText, withFileContent } from './input-file';
import { nothingImported, plural } from './import-summary';
import { wasInterrupted, writeUnlessInterrupted } from './interruptible-write';

/** 20-28765432-5: how people read a CUIT/CUIL. */
const formatTaxId = (t: string) => `${t.slice(0, 2)}-${t.slice(2, 10)}-${t.slice(10)}`;

export const creditImportCommands: CommandSpec[] = [
  {
    name: 'directory import-credit',
    synopsis: 'FILE [--skip-invalid]',
    summary: 'Import credit records (debts by institution, bounced checks) for Informes lookups',
    details: [
      'FILE             .csv with a header of these columns (record and tax_id required, any order):',
      '                 record,tax_id,full_name,is_individual,tax_id_type,period,institution_code,',
      '                 institution_name,classification,amount,days_overdue,check_number,check_date,',
      '                 check_amount,check_reason,check_paid',
      '                 one row per fact: record = subject | situation | check; rows are grouped by',
      '                 tax_id into one report. Or .json: an array of reports in the API shape.',
      '--skip-invalid   import the valid subjects and report the invalid rows; without it a single',
      '                 invalid row imports nothing (each is listed as "line N: reason" on stderr).',
      '                 A subject with an invalid row is never imported partially.',
      '',
      'Totals are computed from the situations. A report already in the directory (same tax id) is replaced.',
      'Ctrl-C imports nothing (exit 130).',
    ],
    options: { 'skip-invalid': { type: 'boolean' } },
    maxArgs: 1,
    // Ctrl-C is caught to say that nothing was imported (interruptible-write.ts).
    interruptible: true,
    access: 'admin',
    vault: 'locked',
    async run(ctx) {
      const file = ctx.args[0];
      if (file === undefined) throw new UsageError('Missing FILE: titular directory import-credit FILE', ctx.command);
      const skipInvalid = booleanOption(ctx.values, 'skip-invalid');
      const content = readInputText(file);
      const format = detectDirectoryFormat(file, content);
      const parsed = parseCreditFile(content, format);
      const unit = format === 'json' && parsed.rows > 0 ? 'item' : 'line';
      const written = await writeUnlessInterrupted(ctx, 'nothing was imported', () =>
        withFileContent(file, () =>
          ctx.titular.creditReports.import(ctx.org.id, parsed, {
            skipInvalid,
            actorUserId: ctx.actor.id,
            fileName: path.basename(file),
          }),
        ),
      );
      if (wasInterrupted(written)) return written.exitCode;
      const report: CreditImportReport = written;
      const { out } = ctx;
      const printErrors = () => {
        for (const e of report.errors) out.error(`${unit} ${e.line}: ${e.reason}`);
      };
      const invalid = report.errors.length;

      if (out.json) out.data(report);
      if (!report.committed) {
        printErrors();
        out.error(nothingImported(file, parsed, skipInvalid, 'subjects'));
        return 1;
      }
      if (invalid > 0) {
        out.error(`Skipped ${plural(invalid, 'invalid row')}:`);
        printErrors();
      }
      for (const subject of report.withheld) {
        out.error(`${formatTaxId(subject.tax_id)}: not imported because another of its rows is invalid (valid ${unit}s ${subject.lines.join(', ')})`);
      }
      if (!out.json) {
        const replaced = report.replaced > 0 ? ` (${report.replaced} replaced existing ${report.replaced === 1 ? 'report' : 'reports'})` : '';
        out.line(`Imported ${plural(report.imported, 'credit report')} from ${file}${replaced}; ${plural(report.rows, format === 'json' ? 'item' : 'row')} read, ${invalid} skipped.`);
        out.line(`The directory now holds ${plural(ctx.titular.creditReports.count(ctx.org.id), 'credit report')}.`);
      }
      return 0;
    },
  },
];
