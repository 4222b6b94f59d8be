// The answer a lookup stored (lookups.response_data) as the history and the bulk exports read it.
// Titular writes it as a JSON object, but a row can still come back as text that is not one: written
// by another tool, or cut by a disk fault that left SQLite's pages valid. One such row used to fail
// a whole history page (500), a 100 000-row export, or the desktop's Historial with a SyntaxError.
// It is listed instead with everything else it holds (date, identifier, status, credits, user: other
// columns, intact), its answer read with db/stored-json.ts storedObject as `{ "damaged": true }` —
// still an object, as the contract's `responseData` is (spec 2.3), so clients that read
// `responseData.holders` or `.error` keep working — and each interface says how many it met and which
// was first (below), so nobody is told a silent lie (an empty answer looks like a lookup that found
// no holders).

import type { DamagedField } from '../../../shared/api/history';
import { fieldWords } from './stored-entry';

/** How many entries (or bulk rows) of an export had a damaged answer, and which was the first. */
export class DamagedAnswers {
  count = 0;
  /** The first one's lookup id, and for a bulk export its row. */
  first: { id: string; row?: number } | null = null;

  note(id: string, row?: number): void {
    if (this.count++ === 0) this.first = row === undefined ? { id } : { id, row };
  }

  /** For the desktop's channels: null when there were none. */
  summary(): { count: number; firstId: string; firstRow?: number } | null {
    if (this.first === null) return null;
    return { count: this.count, firstId: this.first.id, ...(this.first.row === undefined ? {} : { firstRow: this.first.row }) };
  }
}

/**
 * The export's one warning: "1 entry has damaged contents (id …): exported without its account data
 * (its stored answer cannot be read)". `noun` names the rows ("entry", "row"), `what` what they lack.
 */
export function damagedWarning(damaged: DamagedAnswers, options: { noun: 'entry' | 'row'; what: string }): string | null {
  const first = damaged.first;
  if (first === null) return null;
  const { noun, what } = options;
  const which = first.row === undefined ? `id ${first.id}` : `row ${first.row}, lookup ${first.id}`;
  if (damaged.count === 1) return `1 ${noun} has damaged contents (${which}): exported without its ${what} (its stored answer cannot be read)`;
  const plural = noun === 'entry' ? 'entries' : 'rows';
  return `${damaged.count} ${plural} have damaged contents (the first: ${which}): exported without their ${what} (their stored answers cannot be read)`;
}

/** What a damaged entry of a product lacks, in the warning's words. */
export function answerNoun(product: 'cbu' | 'informes'): string {
  return product === 'informes' ? 'credit report' : 'account data';
}

/**
 * How many entries of a history export had other fields that cannot be read (stored-entry.ts: a
 * status outside its set, credits that are not 0 or 1, a date that is no time), and the first one's.
 * They are exported with those fields empty (null in JSON); their answer, if it too is damaged, is
 * counted by DamagedAnswers as well.
 */
export class DamagedFields {
  count = 0;
  first: { id: string; fields: DamagedField[] } | null = null;

  note(id: string, fields: DamagedField[]): void {
    if (fields.length === 0) return;
    if (this.count++ === 0) this.first = { id, fields };
  }

  /** For the desktop's channel: null when there were none. */
  summary(): { count: number; firstId: string; fields: DamagedField[] } | null {
    return this.first === null ? null : { count: this.count, firstId: this.first.id, fields: this.first.fields };
  }
}

/**
 * Its warning: "1 entry has damaged fields (id …): exported without its status and source (they cannot
 * be read)"; "3 entries have damaged fields (the first: id …, its status): exported without them (they
 * cannot be read)".
 */
export function damagedFieldsWarning(damaged: DamagedFields): string | null {
  const first = damaged.first;
  if (first === null) return null;
  const words = fieldWords(first.fields);
  if (damaged.count > 1) return `${damaged.count} entries have damaged fields (the first: id ${first.id}, its ${words}): exported without them (they cannot be read)`;
  return first.fields.length === 1
    ? `1 entry has a damaged field (id ${first.id}): exported without its ${words} (it cannot be read)`
    : `1 entry has damaged fields (id ${first.id}): exported without its ${words} (they cannot be read)`;
}

/**
 * The organization's entries that no export includes, their environment or product unreadable
 * (History.unplaced): "1 entry is in no history (id …): its environment or product cannot be read, so
 * no export includes it".
 */
export function unplacedWarning(unplaced: { count: number; firstId: string } | null): string | null {
  if (unplaced === null) return null;
  if (unplaced.count === 1) return `1 entry is in no history (id ${unplaced.firstId}): its environment or product cannot be read, so no export includes it`;
  return `${unplaced.count} entries are in no history (the newest: id ${unplaced.firstId}): their environment or product cannot be read, so no export includes them`;
}
