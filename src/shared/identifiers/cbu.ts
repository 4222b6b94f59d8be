/**
 * CBU / CVU (22-digit Argentine account keys) validation.
 *
 * Layout (BCRA): EEE SSSS V | AAAAAAAAAAAAA V
 *   block 1 = 3-digit entity + 4-digit branch + check digit
 *   block 2 = 13-digit account + check digit
 * A CVU has the same layout and check digits, with entity code "000" and the
 * payment service provider's id where a CBU has the branch.
 */
import { BCRA_ENTITIES, CVU_ENTITY_CODE, CVU_PSP, UNKNOWN_PSP_NAME } from './bcra-entities.js';

const CBU_LENGTH = 22;
const BLOCK1_LENGTH = 8;
const BLOCK1_WEIGHTS = [7, 1, 3, 9, 7, 1, 3] as const;
const BLOCK2_WEIGHTS = [3, 9, 7, 1, 3, 9, 7, 1, 3, 9, 7, 1, 3] as const;

/**
 * Characters people paste between digit groups: every Unicode whitespace
 * (`\s` covers NBSP, thin/figure spaces, U+3000 …), zero-width characters
 * that survive copy-paste from web pages and PDFs, and the hyphen family
 * (ASCII "-", U+2010–U+2015 incl. en/em dash "–" "—", and U+2212 minus).
 */
const SEPARATORS = /[\s\u200B-\u200D\u2060\uFEFF\-\u2010-\u2015\u2212]/gu;
const ALL_DIGITS = /^[0-9]*$/;

/** Strip separators from pasted identifiers ("0110 1234-…" → "01101234…"). */
export function normalizeIdentifierInput(raw: string): string {
  return raw.replace(SEPARATORS, '');
}

/** Digit value at `index`; callers guarantee `digits` is all ASCII digits. */
function digitAt(digits: string, index: number): number {
  return digits.charCodeAt(index) - 48;
}

/**
 * BCRA check digit: weighted sum of `digits`, then (10 - sum % 10) % 10.
 * The outer `% 10` maps a sum that is already a multiple of 10 to 0, not 10.
 */
function checkDigit(digits: string, weights: readonly number[]): number {
  let sum = 0;
  weights.forEach((weight, i) => {
    sum += digitAt(digits, i) * weight;
  });
  return (10 - (sum % 10)) % 10;
}

function block1IsValid(first8: string): boolean {
  return checkDigit(first8, BLOCK1_WEIGHTS) === digitAt(first8, 7);
}

function block2IsValid(last14: string): boolean {
  return checkDigit(last14, BLOCK2_WEIGHTS) === digitAt(last14, 13);
}

function assertDigits(value: string, length: number, label: string): void {
  if (value.length !== length || !ALL_DIGITS.test(value)) {
    throw new RangeError(`${label} must be exactly ${length} ASCII digits`);
  }
}

/**
 * Validates both check digits of a 22-digit CBU/CVU.
 * Throws RangeError if `digits22` is not exactly 22 ASCII digits: callers
 * handling user input should go through {@link analyzeCbu} instead.
 */
export function cbuCheckDigitsValid(digits22: string): { block1: boolean; block2: boolean } {
  assertDigits(digits22, CBU_LENGTH, 'CBU');
  return {
    block1: block1IsValid(digits22.slice(0, BLOCK1_LENGTH)),
    block2: block2IsValid(digits22.slice(BLOCK1_LENGTH)),
  };
}

/** Builds a valid 22-digit CBU from its parts (for tests and sample data). */
export function withCheckDigits(entity3: string, branch4: string, account13: string): string {
  assertDigits(entity3, 3, 'entity code');
  assertDigits(branch4, 4, 'branch code');
  assertDigits(account13, 13, 'account number');
  const head = entity3 + branch4;
  return `${head}${checkDigit(head, BLOCK1_WEIGHTS)}${account13}${checkDigit(account13, BLOCK2_WEIGHTS)}`;
}

export type CbuFailureReason = 'length' | 'non_digit' | 'check_digit_block1' | 'check_digit_block2';

export type CbuAnalysis =
  | { ok: true; number: string; scheme: 'CBU' | 'CVU'; bank: { code: string; name: string } }
  | { ok: false; reason: CbuFailureReason; message: string; messageEs: string };

type CbuFailure = Extract<CbuAnalysis, { ok: false }>;

function failure(reason: CbuFailureReason, message: string, messageEs: string): CbuFailure {
  return { ok: false, reason, message, messageEs };
}

function lengthFailure(count: number): CbuFailure {
  const en = count === 1 ? '1 digit' : `${count} digits`;
  const es = count === 1 ? 'se ingresó 1' : `se ingresaron ${count}`;
  return failure(
    'length',
    `CBU must be 22 digits with valid check digits (got ${en})`,
    `El CBU debe tener 22 dígitos con dígitos verificadores válidos (${es})`,
  );
}

function schemeOf(number: string): 'CBU' | 'CVU' {
  return number.startsWith(CVU_ENTITY_CODE) ? 'CVU' : 'CBU';
}

/** Resolves who issued the account: BCRA entity for a CBU, PSP for a CVU. */
function issuerOf(number: string, scheme: 'CBU' | 'CVU'): { code: string; name: string } {
  if (scheme === 'CVU') {
    const prefix = number.slice(0, 7);
    const psp = CVU_PSP.get(prefix);
    return psp === undefined ? { code: CVU_ENTITY_CODE, name: UNKNOWN_PSP_NAME } : { code: prefix, name: psp };
  }
  const code = number.slice(0, 3);
  return { code, name: BCRA_ENTITIES.get(code) ?? `Entidad desconocida (código ${code})` };
}

/**
 * Full validation of a user-typed or pasted CBU/CVU. Checks run from the most
 * basic to the most specific so the message names the first thing to fix.
 * An entity code missing from the table is not an error: the table is a
 * snapshot and new entities appear, while check digits are authoritative.
 */
export function analyzeCbu(raw: string): CbuAnalysis {
  const number = normalizeIdentifierInput(raw);
  if (!ALL_DIGITS.test(number)) {
    return failure(
      'non_digit',
      'CBU must contain only digits (spaces and dashes are ignored)',
      'El CBU solo puede contener dígitos (se ignoran espacios y guiones)',
    );
  }
  if (number.length !== CBU_LENGTH) return lengthFailure(number.length);

  const scheme = schemeOf(number);
  const checks = cbuCheckDigitsValid(number);
  if (!checks.block1) {
    return failure(
      'check_digit_block1',
      `${scheme} check digit of the first block (digit 8) is invalid`,
      `El dígito verificador del primer bloque (dígito 8) del ${scheme} no es válido`,
    );
  }
  if (!checks.block2) {
    return failure(
      'check_digit_block2',
      `${scheme} check digit of the second block (digit 22) is invalid`,
      `El dígito verificador del segundo bloque (dígito 22) del ${scheme} no es válido`,
    );
  }
  return { ok: true, number, scheme, bank: issuerOf(number, scheme) };
}

export type CbuProgress = {
  /** ASCII digits typed so far (separators and other characters not counted). */
  digits: number;
  /** True once the input is exactly 22 digits (check digits not implied). */
  complete: boolean;
  /** Block-1 check result once the first 8 digits are in; null before that. */
  block1Valid: boolean | null;
  /** Block-2 check result once all 22 digits are in; null before that. */
  block2Valid: boolean | null;
};

/**
 * Live-typing feedback. Block 1 can be judged as soon as 8 digits exist, so
 * the UI can flag a bad entity/branch before the user types the rest.
 * Any non-digit character makes both block results null: analyzeCbu reports
 * that case as `non_digit`, and judging shifted positions would mislead.
 * Block 2 is only judged at exactly 22 digits (its position is undefined for
 * longer input).
 */
export function describeCbuProgress(raw: string): CbuProgress {
  const normalized = normalizeIdentifierInput(raw);
  const digits = normalized.replace(/[^0-9]/g, '').length;
  const onlyDigits = ALL_DIGITS.test(normalized);
  const complete = onlyDigits && normalized.length === CBU_LENGTH;
  return {
    digits,
    complete,
    block1Valid: onlyDigits && normalized.length >= BLOCK1_LENGTH ? block1IsValid(normalized.slice(0, BLOCK1_LENGTH)) : null,
    block2Valid: complete ? block2IsValid(normalized.slice(BLOCK1_LENGTH)) : null,
  };
}
