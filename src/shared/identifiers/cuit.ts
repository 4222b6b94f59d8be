/**
 * CUIT / CUIL (11-digit Argentine tax ids): PP-NNNNNNNN-V.
 * PP = type prefix, NNNNNNNN = DNI or sequential number, V = mod-11 check digit.
 */
import { normalizeIdentifierInput } from './cbu.js';

const TAX_ID_LENGTH = 11;
const WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2] as const;
const INDIVIDUAL_PREFIXES: ReadonlySet<string> = new Set(['20', '23', '24', '25', '26', '27']);
const ENTITY_PREFIXES: ReadonlySet<string> = new Set(['30', '33', '34']);
const ALL_DIGITS = /^[0-9]*$/;

export type TaxIdFailureReason = 'length' | 'non_digit' | 'prefix' | 'check_digit';

export type TaxIdAnalysis =
  | { ok: true; taxId: string; formatted: string; isIndividual: boolean; defaultType: 'CUIL' | 'CUIT' }
  | { ok: false; reason: TaxIdFailureReason; message: string; messageEs: string };

/**
 * Check digit for the first 10 digits, or null when none exists.
 * mod 11 == 1 would need a check digit of 10: AFIP never issues such numbers
 * (it switches the prefix, e.g. 20 → 23, instead), so they are invalid.
 * Does not check the prefix; returns null for anything but 10 ASCII digits.
 */
export function withCuitCheckDigit(first10: string): string | null {
  if (first10.length !== TAX_ID_LENGTH - 1 || !ALL_DIGITS.test(first10)) return null;
  let sum = 0;
  WEIGHTS.forEach((weight, i) => {
    sum += (first10.charCodeAt(i) - 48) * weight;
  });
  const mod = sum % 11;
  if (mod === 1) return null;
  const check = mod === 0 ? 0 : 11 - mod;
  return `${first10}${check}`;
}

function failure(reason: TaxIdFailureReason, message: string, messageEs: string): TaxIdAnalysis {
  return { ok: false, reason, message, messageEs };
}

/** Removes separators people type in tax ids: whitespace, dashes and dots. */
function normalizeTaxId(raw: string): string {
  return normalizeIdentifierInput(raw).replace(/\./g, '');
}

/** Validates a typed/pasted CUIT or CUIL such as "20-12345678-6". */
export function analyzeTaxId(raw: string): TaxIdAnalysis {
  const taxId = normalizeTaxId(raw);
  if (!ALL_DIGITS.test(taxId)) {
    return failure(
      'non_digit',
      'CUIT/CUIL must contain only digits (spaces, dashes and dots are ignored)',
      'El CUIT/CUIL solo puede contener dígitos (se ignoran espacios, guiones y puntos)',
    );
  }
  if (taxId.length !== TAX_ID_LENGTH) {
    return failure(
      'length',
      `CUIT/CUIL must be 11 digits (got ${taxId.length})`,
      `El CUIT/CUIL debe tener 11 dígitos (se ingresaron ${taxId.length})`,
    );
  }
  const prefix = taxId.slice(0, 2);
  const isIndividual = INDIVIDUAL_PREFIXES.has(prefix);
  if (!isIndividual && !ENTITY_PREFIXES.has(prefix)) {
    return failure(
      'prefix',
      `CUIT/CUIL prefix ${prefix} is not valid (expected 20, 23, 24, 25, 26, 27, 30, 33 or 34)`,
      `El prefijo ${prefix} del CUIT/CUIL no es válido (se esperaba 20, 23, 24, 25, 26, 27, 30, 33 o 34)`,
    );
  }
  if (withCuitCheckDigit(taxId.slice(0, 10)) !== taxId) {
    return failure(
      'check_digit',
      'CUIT/CUIL check digit is invalid',
      'El dígito verificador del CUIT/CUIL no es válido',
    );
  }
  return {
    ok: true,
    taxId,
    formatted: `${prefix}-${taxId.slice(2, 10)}-${taxId.slice(10)}`,
    isIndividual,
    // Individuals are usually looked up by CUIL (employees); companies only have a CUIT.
    defaultType: isIndividual ? 'CUIL' : 'CUIT',
  };
}
