// Turns an API/transport error into the sentence shown to the user (by code) plus the server's detail.
import type { Messages } from '../i18n/es';
import { isIpcCallError } from '../api/client';
import { errorCodeSchema } from '../../../shared/api/common';

export interface DescribedError {
  code: string;
  title: string;
  detail: string | null;
  status: number | null;
}

// The API's codes (one list, in the shared schema) plus the transport's own.
const CODES = [...errorCodeSchema.options, 'NETWORK'] as const;
type KnownCode = (typeof CODES)[number];

/** The user-facing sentence for an error code (history entries store only code and message). */
export function titleForCode(code: string, m: Messages, context: 'account' | 'report' | 'other' = 'other'): string {
  if (code === 'PA011' && context === 'report') return m.errors.PA011_report;
  return (CODES as readonly string[]).includes(code) ? m.errors[code as KnownCode] : m.errors.UNKNOWN;
}

/** The vault answers UNAUTHORIZED too (locked, passphrase missing or wrong): say what it means. */
function vaultTitle(code: string, message: string, m: Messages): string | null {
  if (code !== 'UNAUTHORIZED') return null;
  if (/vault is locked/i.test(message)) return m.errors.vaultLocked;
  if (/wrong passphrase|could not be unlocked/i.test(message)) return m.errors.wrongPassphrase;
  if (/enter the vault passphrase/i.test(message)) return m.errors.passphraseRequired;
  return null;
}

export function describeError(error: unknown, m: Messages, context: 'account' | 'report' | 'other' = 'other'): DescribedError {
  if (isIpcCallError(error)) {
    // A vault answer we can say in the user's language needs no English detail under it.
    const vault = vaultTitle(error.code, error.message, m);
    return { code: error.code, title: vault ?? titleForCode(error.code, m, context), detail: vault ? null : error.message || null, status: error.status || null };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'ERROR', title: m.errors.UNKNOWN, detail: message, status: null };
}

/** True when a reveal failed because the vault wants its passphrase. */
export function asksForPassphrase(error: unknown): boolean {
  return isIpcCallError(error) && /passphrase|frase/i.test(error.message);
}
