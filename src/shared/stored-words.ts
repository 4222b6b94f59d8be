// The words for stored values (a lookup's status, where it came from, a bulk row's state) in each
// language: one table for the screens (src/renderer/src/i18n) and the spreadsheet exports
// (src/main/core/export/csv-dialect.ts), so a file says what the table it came from said.
import type { Language } from './language';

export interface StoredWords {
  /** History statuses, and the bulk rows' two states before or without a lookup. */
  statuses: { SUCCESS: string; ERROR: string; INVALID: string; PENDING: string };
  /** Where a lookup came from (history `source`). */
  sources: { WEB: string; API: string; BULK: string };
}

export const STORED_WORDS: Record<Language, StoredWords> = {
  es: {
    statuses: { SUCCESS: 'Exitosa', ERROR: 'Error', INVALID: 'Inválida', PENDING: 'Pendiente' },
    sources: { WEB: 'Escritorio', API: 'API', BULK: 'Lote' },
  },
  en: {
    statuses: { SUCCESS: 'Success', ERROR: 'Error', INVALID: 'Invalid', PENDING: 'Pending' },
    sources: { WEB: 'Desktop', API: 'API', BULK: 'Batch' },
  },
};
