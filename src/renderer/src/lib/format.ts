// Display helpers for Argentine identifiers.

/** 20123456786 → 20-12345678-6 (anything else is returned unchanged). */
export function formatTaxId(taxId: string): string {
  const digits = taxId.replace(/\D/g, '');
  return digits.length === 11 ? `${digits.slice(0, 2)}-${digits.slice(2, 10)}-${digits.slice(10)}` : taxId;
}

/** 22-digit CBU/CVU split in its two blocks for reading: "01100013 00000012345674". */
export function formatAccountNumber(number: string): string {
  return /^\d{22}$/.test(number) ? `${number.slice(0, 8)} ${number.slice(8)}` : number;
}

/** Whether a pasted identifier looks like a CBU/CVU (digits with separators) rather than an alias. */
export function looksLikeCbu(raw: string): boolean {
  const trimmed = raw.trim();
  return trimmed.length > 0 && /^[\d\s\-\u2010-\u2015\u2212\u200B-\u200D\u2060\uFEFF]+$/u.test(trimmed);
}

/**
 * A CBU/CVU with a stray letter or symbol in it (a typo, an "O" for a 0): at least 18 digits. Taken
 * for an alias it was only refused for its length ("23 ingresados"), which hides the real mistake;
 * read as a CBU, the screen says a CBU may only have digits (and to choose "Alias" if it is one).
 */
export function looksLikeMistypedCbu(raw: string): boolean {
  return (raw.match(/[0-9]/g)?.length ?? 0) >= 18;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A moment's calendar day as YYYY-MM-DD in the screen's time zone: a date input's value, and the day
 * an export's file name carries (the core names Historial's file after the same local day).
 */
export function localYmd(d: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
