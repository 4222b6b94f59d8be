// `--lang es|en` on the CLI's CSV exports: the file a person opens in a spreadsheet, as the desktop's
// "Exportar CSV" writes it (export/csv-dialect.ts: ";" and dd/mm/aaaa in Spanish, a BOM, this
// machine's time zone). Without it, the interchange form.
import { INTERCHANGE, csvDialect, type CsvDialect } from '../../core/export/csv-dialect';
import { oneOf, stringOption } from './args';
import type { SessionContext } from './context';

export const LANG_OPTION = { lang: { type: 'string' } } as const;

export const LANG_HELP = '--lang es|en                  for a spreadsheet: Spanish (";", dd/mm/aaaa) or English; default: interchange';

export function exportDialect(ctx: SessionContext): CsvDialect {
  const lang = stringOption(ctx.values, 'lang');
  return lang === undefined ? INTERCHANGE : csvDialect(oneOf(lang, ['es', 'en'] as const, '--lang', ctx.command));
}
