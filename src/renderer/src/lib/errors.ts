// Turns an API/transport error into the sentence shown to the user (by code) plus the server's detail.
import type { Messages } from '../i18n/es';
import { isIpcCallError } from '../api/client';

export interface DescribedError {
  code: string;
  title: string;
  detail: string | null;
  status: number | null;
}

const CODES = [
  'PA006',
  'PA011',
  'GE500',
  'INSUFFICIENT_CREDITS',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'RATE_LIMITED',
  'INVALID_PARAMETER',
  'NOT_FOUND',
  'KEY_LIMIT_REACHED',
  'IDEMPOTENCY_CONFLICT',
  'NETWORK',
] as const;
type KnownCode = (typeof CODES)[number];

export function describeError(error: unknown, m: Messages, context: 'account' | 'report' | 'other' = 'other'): DescribedError {
  if (isIpcCallError(error)) {
    const known = (CODES as readonly string[]).includes(error.code) ? (error.code as KnownCode) : null;
    let title = known ? m.errors[known] : m.errors.UNKNOWN;
    if (known === 'PA011' && context === 'report') title = m.errors.PA011_report;
    return { code: error.code, title, detail: error.message || null, status: error.status || null };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'ERROR', title: m.errors.UNKNOWN, detail: message, status: null };
}

/** True when a reveal failed because the vault wants its passphrase. */
export function asksForPassphrase(error: unknown): boolean {
  return isIpcCallError(error) && /passphrase|frase/i.test(error.message);
}
