// Turns an API/transport error into the sentence shown to the user (by code) plus the server's detail.
import type { Messages } from '../i18n/es';
import { isIpcCallError } from '../api/client';
import { errorCodeSchema } from '../../../shared/api/common';
import { serverMessageInSpanish } from '../../../shared/messages-es';

export interface DescribedError {
  code: string;
  title: string;
  detail: string | null;
  /** The detail is the server's English: no Spanish for it is known (see src/shared/messages-es.ts). */
  detailInEnglish: boolean;
  status: number | null;
  /**
   * A refusal of what the user typed (a field's value, a passphrase), which its title says in full:
   * no code chip goes beside it, as the code is for support.
   */
  aboutInput?: boolean;
}

/** The vault's refusals of a passphrase that was typed: wrong, too short to be the vault's, or missing. */
const PASSPHRASE_REFUSED = /wrong passphrase|could not be unlocked|passphrase must have at least|enter the vault passphrase/i;

/** Codes whose title says all there is: on the Spanish screens no English detail goes under them. */
const TITLE_SAYS_IT = new Set(['PA011', 'GE500', 'INSUFFICIENT_CREDITS', 'RATE_LIMITED', 'FORBIDDEN', 'NOT_FOUND', 'KEY_LIMIT_REACHED', 'IDEMPOTENCY_CONFLICT', 'UNAUTHORIZED']);

/** Codes whose server message only repeats the title in other words: no detail in any language. */
const TITLE_REPEATS_IT = new Set(['PA011']);

/**
 * An answer that cost a credit: a result, or an error that consumed one. The contract gives
 * `credits_remaining` with an error exactly when it consumed a credit (PA006, PA011), and with a 402,
 * which consumed none. Asking again for the same identifier costs another credit.
 */
export function answerCostACredit(mutation: { isSuccess: boolean; error: unknown }): boolean {
  if (mutation.isSuccess) return true;
  return isIpcCallError(mutation.error) && mutation.error.creditsRemaining !== undefined && mutation.error.code !== 'INSUFFICIENT_CREDITS';
}

/**
 * A lookup refused because the product's credits ran out (402). An ordinary business condition, not a
 * fault: the screens say it in the product's own words, without the code chip that PA006, PA011 and
 * GE500 keep for support, and once (the note under the disabled button steps aside while it shows).
 */
export function outOfCredits(error: unknown): boolean {
  return isIpcCallError(error) && error.code === 'INSUFFICIENT_CREDITS';
}

/** A message of the server in the screen's language: Spanish where this app knows it, else as it came. */
export function serverMessage(message: string, m: Messages): { text: string; inEnglish: boolean } {
  if (!m.locale.startsWith('es')) return { text: message, inEnglish: false };
  const spanish = serverMessageInSpanish(message);
  return spanish === null ? { text: message, inEnglish: true } : { text: spanish, inEnglish: false };
}

/** The core's other storage faults (db/database-busy.ts, db/data-files-guard.ts, db/storage-errors.ts). */
const STORAGE_FAULTS = [
  /^Titular's database is busy/,
  /^Titular's data files were deleted, replaced or made unreachable/,
  /^The database in .+ is damaged/,
  /^Titular cannot write its database/,
  // One record damaged in the database: which import mends it (the README's "Other stored cells that cannot be read").
  /^The directory's record of this account cannot be read/,
  /^The stored credit report for this CUIT\/CUIL cannot be read/,
];

/** The core's sentences for a full disk (src/main/core/db/disk-full.ts): a write, or opening the data. */
const DISK_FULL = /^The disk holding .+ is full/;

// The API's codes (one list, in the shared schema) plus the transport's own.
const CODES = [...errorCodeSchema.options, 'NETWORK'] as const;
type KnownCode = (typeof CODES)[number];

/** The user-facing sentence for an error code (history entries store only code and message). */
export function titleForCode(code: string, m: Messages, context: 'account' | 'report' | 'other' = 'other'): string {
  if (code === 'PA011' && context === 'report') return m.errors.PA011_report;
  return (CODES as readonly string[]).includes(code) ? m.errors[code as KnownCode] : m.errors.UNKNOWN;
}

/**
 * Answers whose code says less than their message, said in the user's words: a full disk (a GE500
 * the user can fix), and the vault's (UNAUTHORIZED: locked, passphrase missing or wrong).
 */
function knownTitle(code: string, message: string, m: Messages): string | null {
  if (DISK_FULL.test(message)) return m.errors.diskFull;
  // The other storage faults its user can act on: the sentence says what happened and what to do.
  if (code === 'GE500' && STORAGE_FAULTS.some((fault) => fault.test(message))) return serverMessage(message, m).text;
  // Wrong passphrases in a row are slowed down: the title says for how long (in the screen's language).
  if (code === 'RATE_LIMITED' && /wrong passphrases/i.test(message)) return serverMessage(message, m).text;
  // A lookup sent to the remote API while the vault is locked: who can fix it, not "try again later".
  if (code === 'GE500' && /key vault is locked/i.test(message)) return m.errors.remoteVaultLocked;
  // Lookups set to go to a remote API without its address or key: no wait fixes that, an admin does.
  if (code === 'GE500' && /remote API Titular is set to use is not set up/i.test(message)) return m.errors.remoteNotSetUp;
  // The person at the computer said no at the OS prompt (Electron, keychain vaults): not a permission problem.
  if (code === 'FORBIDDEN' && /cancelled at the confirmation prompt/i.test(message)) return m.errors.promptCancelled;
  if (code !== 'UNAUTHORIZED') return null;
  if (/vault is locked/i.test(message)) return m.errors.vaultLocked;
  // A passphrase shorter than the minimum cannot be the vault's: to the user it is just not correct.
  if (/wrong passphrase|could not be unlocked|passphrase must have at least/i.test(message)) return m.errors.wrongPassphrase;
  if (/enter the vault passphrase/i.test(message)) return m.errors.passphraseRequired;
  return null;
}

/**
 * An error by its code and the core's message: a live answer, or one stored in the history. The title
 * says the code in the screen's language; the message goes under it only when it adds something.
 */
export function describeCode(code: string, message: string, status: number | null, m: Messages, context: 'account' | 'report' | 'other' = 'other'): DescribedError {
  // An answer we can say in the user's language needs no English detail under it.
  const known = knownTitle(code, message, m);
  const title = known ?? titleForCode(code, m, context);
  const aboutInput = code === 'INVALID_PARAMETER' || (code === 'UNAUTHORIZED' && PASSPHRASE_REFUSED.test(message));
  if (known || !message || TITLE_REPEATS_IT.has(code) || (m.locale.startsWith('es') && TITLE_SAYS_IT.has(code))) {
    return { code, title, detail: null, detailInEnglish: false, status, aboutInput };
  }
  const said = serverMessage(message, m);
  return { code, title, detail: said.text, detailInEnglish: said.inEnglish, status, aboutInput };
}

export function describeError(error: unknown, m: Messages, context: 'account' | 'report' | 'other' = 'other'): DescribedError {
  if (isIpcCallError(error)) return describeCode(error.code, error.message, error.status || null, m, context);
  const message = error instanceof Error ? error.message : String(error);
  // A bulk job's last error comes as its message alone.
  if (DISK_FULL.test(message)) return { code: 'GE500', title: m.errors.diskFull, detail: null, detailInEnglish: false, status: null };
  return { code: 'ERROR', title: m.errors.UNKNOWN, detail: message, detailInEnglish: m.locale.startsWith('es'), status: null };
}

/** True when a reveal, rotation or new key failed because the vault wants its passphrase (asked again). */
export function asksForPassphrase(error: unknown): boolean {
  return isIpcCallError(error) && /passphrase|frase/i.test(error.message);
}
