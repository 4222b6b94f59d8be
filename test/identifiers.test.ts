import { describe, expect, it } from 'vitest';
import {
  BCRA_ENTITIES,
  CVU_PSP,
  UNKNOWN_PSP_NAME,
  analyzeAlias,
  analyzeCbu,
  analyzeTaxId,
  cbuCheckDigitsValid,
  describeCbuProgress,
  normalizeIdentifierInput,
  withCheckDigits,
  withCuitCheckDigit,
} from '../src/shared/identifiers/index.js';

/*
 * Hand-computed CBU (the example used by python-stdnum's CBU docs):
 *   2850590 9 4009041813520 1
 * Block 1: digits 2 8 5 0 5 9 0 × weights 7 1 3 9 7 1 3
 *   = 14 + 8 + 15 + 0 + 35 + 9 + 0 = 81 → (10 - 81 % 10) % 10 = 9  ✔ (8th digit)
 * Block 2: digits 4 0 0 9 0 4 1 8 1 3 5 2 0 × weights 3 9 7 1 3 9 7 1 3 9 7 1 3
 *   = 12 + 0 + 0 + 9 + 0 + 36 + 7 + 8 + 3 + 27 + 35 + 2 + 0 = 139 → (10 - 9) % 10 = 1  ✔ (22nd digit)
 */
const MACRO_CBU = '2850590940090418135201';

/** Replaces the digit at `index` with `digit`. */
function withDigit(value: string, index: number, digit: number): string {
  return value.slice(0, index) + String(digit) + value.slice(index + 1);
}

describe('normalizeIdentifierInput', () => {
  it('removes unicode whitespace, zero-width chars and dash variants', () => {
    expect(normalizeIdentifierInput(' 285\u00A00590-9\t40090\u2013418\u2014135201\u200B \n')).toBe(MACRO_CBU);
  });

  it('keeps letters and dots (callers decide whether they are errors)', () => {
    expect(normalizeIdentifierInput(' a.b - c ')).toBe('a.bc');
  });
});

describe('CBU check digits', () => {
  it('accepts the hand-computed example', () => {
    expect(cbuCheckDigitsValid(MACRO_CBU)).toEqual({ block1: true, block2: true });
  });

  it('withCheckDigits reproduces the hand-computed check digits', () => {
    expect(withCheckDigits('285', '0590', '4009041813520')).toBe(MACRO_CBU);
  });

  it('uses every weight (hand-computed fixture with distinct non-zero digits)', () => {
    // Block 1: 1·7 + 2·1 + 3·3 + 4·9 + 5·7 + 6·1 + 7·3 = 116 → (10 - 6) % 10 = 4
    // Block 2: 1·3 + 2·9 + 3·7 + 4·1 + 5·3 + 6·9 + 7·7 + 8·1 + 9·3 + 1·9 + 2·7 + 3·1 + 4·3
    //        = 237 → (10 - 7) % 10 = 3
    expect(withCheckDigits('123', '4567', '1234567891234')).toBe('1234567412345678912343');
    expect(cbuCheckDigitsValid('1234567412345678912343')).toEqual({ block1: true, block2: true });
  });

  it('computes a 0 check digit when the weighted sum is a multiple of 10', () => {
    // Block 1 of all zeros sums to 0 → check 0; same for block 2.
    expect(withCheckDigits('000', '0000', '0000000000000')).toBe('0'.repeat(22));
    // 011 0001: 0·7 + 1·1 + 1·3 + 0·9 + 0·7 + 0·1 + 1·3 = 7 → check 3
    // 0000000000010: 1·1 = 1 (12th weight) → check 9
    expect(withCheckDigits('011', '0001', '0000000000010')).toBe('0110001300000000000109');
  });

  it('round-trips generated CBUs for every entity in the table', () => {
    for (const code of BCRA_ENTITIES.keys()) {
      const cbu = withCheckDigits(code, '0123', '4567890123456');
      expect(cbu).toHaveLength(22);
      expect(cbuCheckDigitsValid(cbu)).toEqual({ block1: true, block2: true });
      const result = analyzeCbu(cbu);
      expect(result).toEqual({
        ok: true,
        number: cbu,
        scheme: 'CBU',
        bank: { code, name: BCRA_ENTITIES.get(code) },
      });
    }
  });

  it('every single-digit change breaks exactly the block that contains it', () => {
    const samples = [MACRO_CBU, withCheckDigits('007', '9999', '1234567890123'), withCheckDigits('000', '0003', '0000000000042')];
    for (const cbu of samples) {
      for (let i = 0; i < 22; i += 1) {
        const original = Number(cbu[i]);
        for (let d = 0; d <= 9; d += 1) {
          if (d === original) continue;
          const mutated = withDigit(cbu, i, d);
          const inBlock1 = i < 8;
          expect(cbuCheckDigitsValid(mutated), `${cbu} pos ${i} → ${d}`).toEqual({
            block1: !inBlock1,
            block2: inBlock1,
          });
          const analysis = analyzeCbu(mutated);
          expect(analysis.ok).toBe(false);
          if (!analysis.ok) {
            expect(analysis.reason).toBe(inBlock1 ? 'check_digit_block1' : 'check_digit_block2');
          }
        }
      }
    }
  });

  it('rejects malformed input to the low-level helpers', () => {
    expect(() => cbuCheckDigitsValid('123')).toThrow(RangeError);
    expect(() => cbuCheckDigitsValid('28505909400904181352O1')).toThrow(RangeError);
    expect(() => withCheckDigits('28', '0590', '4009041813520')).toThrow(RangeError);
    expect(() => withCheckDigits('285', '059', '4009041813520')).toThrow(RangeError);
    expect(() => withCheckDigits('285', '0590', '400904181352')).toThrow(RangeError);
  });
});

describe('analyzeCbu', () => {
  it('identifies Banco Macro for the hand-computed CBU', () => {
    expect(analyzeCbu(MACRO_CBU)).toEqual({
      ok: true,
      number: MACRO_CBU,
      scheme: 'CBU',
      bank: { code: '285', name: 'Banco Macro S.A.' },
    });
  });

  it('accepts pasted input with spaces, NBSP and dashes', () => {
    const result = analyzeCbu('  2850590-9 4009041813\u00A05201 ');
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.number).toBe(MACRO_CBU);
    expect(analyzeCbu('28505909 \u2013 40090418135201').ok).toBe(true);
    expect(analyzeCbu('28505909\u201440090418135201').ok).toBe(true);
  });

  it('detects Mercado Pago CVUs by their 7-digit prefix', () => {
    const cvu = withCheckDigits('000', '0003', '1000123456789');
    // Real Mercado Pago CVUs start with 00000031: 3·3 = 9 → block-1 check digit 1.
    expect(cvu.slice(0, 8)).toBe('00000031');
    expect(analyzeCbu(cvu)).toEqual({
      ok: true,
      number: cvu,
      scheme: 'CVU',
      bank: { code: '0000003', name: 'Mercado Pago' },
    });
  });

  it('detects Ualá CVUs', () => {
    const cvu = withCheckDigits('000', '0007', '9000123456789');
    expect(cvu.slice(0, 8)).toBe('00000079');
    const result = analyzeCbu(cvu);
    expect(result.ok && result.bank).toEqual({ code: '0000007', name: 'Ualá' });
  });

  it('labels CVUs from unlisted PSPs generically', () => {
    expect(CVU_PSP.has('0000999')).toBe(false);
    const cvu = withCheckDigits('000', '0999', '0000000000001');
    expect(analyzeCbu(cvu)).toEqual({
      ok: true,
      number: cvu,
      scheme: 'CVU',
      bank: { code: '000', name: UNKNOWN_PSP_NAME },
    });
    expect(UNKNOWN_PSP_NAME).toBe('Proveedor de Servicios de Pago (CVU)');
  });

  it('accepts a valid CBU from an entity missing from the table', () => {
    expect(BCRA_ENTITIES.has('999')).toBe(false);
    const cbu = withCheckDigits('999', '0001', '0000000000001');
    expect(analyzeCbu(cbu)).toEqual({
      ok: true,
      number: cbu,
      scheme: 'CBU',
      bank: { code: '999', name: 'Entidad desconocida (código 999)' },
    });
  });

  it('reports the digit count for wrong lengths, in English and Spanish', () => {
    expect(analyzeCbu(MACRO_CBU.slice(0, 21))).toEqual({
      ok: false,
      reason: 'length',
      message: 'CBU must be 22 digits with valid check digits (got 21 digits)',
      messageEs: 'El CBU debe tener 22 dígitos con dígitos verificadores válidos (se ingresaron 21)',
    });
    const tooLong = analyzeCbu(`${MACRO_CBU}0`);
    expect(tooLong.ok === false && tooLong.reason).toBe('length');
    expect(tooLong.ok === false && tooLong.message).toContain('got 23 digits');
    const one = analyzeCbu('7');
    expect(one.ok === false && one.message).toContain('(got 1 digit)');
    expect(one.ok === false && one.messageEs).toContain('(se ingresó 1)');
    const empty = analyzeCbu('   ');
    expect(empty.ok === false && empty.reason).toBe('length');
    expect(empty.ok === false && empty.message).toContain('got 0 digits');
  });

  it('reports non-digit characters before length', () => {
    for (const input of ['28505909400904181352O1', 'abc', '2850590.940090418135201', '２８５']) {
      const result = analyzeCbu(input);
      expect(result.ok, input).toBe(false);
      if (!result.ok) {
        expect(result.reason).toBe('non_digit');
        expect(result.messageEs).toContain('dígitos');
      }
    }
  });

  it('names the scheme and block in check-digit messages', () => {
    const badBlock1 = analyzeCbu(withDigit(MACRO_CBU, 7, 0));
    expect(badBlock1).toMatchObject({ ok: false, reason: 'check_digit_block1' });
    expect(badBlock1.ok === false && badBlock1.message).toBe('CBU check digit of the first block (digit 8) is invalid');
    const cvu = withCheckDigits('000', '0003', '1000123456789');
    const badCvu = analyzeCbu(withDigit(cvu, 21, (Number(cvu[21]) + 1) % 10));
    expect(badCvu.ok === false && badCvu.reason).toBe('check_digit_block2');
    expect(badCvu.ok === false && badCvu.messageEs).toBe(
      'El dígito verificador del segundo bloque (dígito 22) del CVU no es válido',
    );
  });
});

describe('describeCbuProgress', () => {
  it('reports nothing to judge for empty or short input', () => {
    expect(describeCbuProgress('')).toEqual({ digits: 0, complete: false, block1Valid: null, block2Valid: null });
    expect(describeCbuProgress('285 0590')).toEqual({ digits: 7, complete: false, block1Valid: null, block2Valid: null });
  });

  it('judges block 1 as soon as 8 digits are present', () => {
    expect(describeCbuProgress('2850590-9')).toEqual({ digits: 8, complete: false, block1Valid: true, block2Valid: null });
    expect(describeCbuProgress('28505908')).toEqual({ digits: 8, complete: false, block1Valid: false, block2Valid: null });
    expect(describeCbuProgress(MACRO_CBU.slice(0, 21))).toEqual({
      digits: 21,
      complete: false,
      block1Valid: true,
      block2Valid: null,
    });
  });

  it('judges block 2 only at exactly 22 digits', () => {
    expect(describeCbuProgress(MACRO_CBU)).toEqual({ digits: 22, complete: true, block1Valid: true, block2Valid: true });
    expect(describeCbuProgress(withDigit(MACRO_CBU, 21, 2))).toEqual({
      digits: 22,
      complete: true,
      block1Valid: true,
      block2Valid: false,
    });
    expect(describeCbuProgress(`${MACRO_CBU}5`)).toEqual({
      digits: 23,
      complete: false,
      block1Valid: true,
      block2Valid: null,
    });
  });

  it('gives no verdict while the input contains non-digits', () => {
    expect(describeCbuProgress('2850590940090418135x01')).toEqual({
      digits: 21,
      complete: false,
      block1Valid: null,
      block2Valid: null,
    });
  });
});

describe('analyzeAlias', () => {
  it('accepts 6 and 20 characters, rejects 5 and 21', () => {
    expect(analyzeAlias('abc.de')).toEqual({ ok: true, alias: 'abc.de', key: 'abc.de' });
    expect(analyzeAlias('a'.repeat(20))).toEqual({ ok: true, alias: 'a'.repeat(20), key: 'a'.repeat(20) });
    expect(analyzeAlias('abcde')).toMatchObject({ ok: false, reason: 'length' });
    expect(analyzeAlias('a'.repeat(21))).toMatchObject({ ok: false, reason: 'length' });
    const five = analyzeAlias('abcde');
    expect(five.ok === false && five.message).toBe('Alias must be between 6 and 20 characters (got 5)');
    expect(five.ok === false && five.messageEs).toBe('El alias debe tener entre 6 y 20 caracteres (se ingresaron 5)');
  });

  it('trims surrounding whitespace, keeps case in alias and lowercases key', () => {
    expect(analyzeAlias('  Mi.Alias.MP \n')).toEqual({ ok: true, alias: 'Mi.Alias.MP', key: 'mi.alias.mp' });
    // Trimming happens before the length check: 6 visible chars are enough.
    expect(analyzeAlias('  abcdef  ').ok).toBe(true);
  });

  it('rejects dashes, ñ, accents and inner spaces as charset errors', () => {
    for (const input of ['mi-alias', 'año.nuevo', 'canción.x', 'mi alias', 'mi_alias', 'ab-c']) {
      const result = analyzeAlias(input);
      expect(result, input).toMatchObject({ ok: false, reason: 'charset' });
    }
    const enie = analyzeAlias('año.nuevo');
    expect(enie.ok === false && enie.messageEs).toBe(
      'El alias solo puede contener letras (a-z, sin tildes ni ñ), números y puntos',
    );
  });

  it('treats empty input as a length error', () => {
    expect(analyzeAlias('   ')).toMatchObject({ ok: false, reason: 'length' });
  });

  it('accepts digits-only and dot-heavy aliases within the charset', () => {
    expect(analyzeAlias('123456').ok).toBe(true);
    expect(analyzeAlias('......').ok).toBe(true);
  });
});

describe('CUIT / CUIL', () => {
  /*
   * Hand-computed: 20-12345678-?
   *   digits  2 0 1 2 3 4 5 6 7 8
   *   weights 5 4 3 2 7 6 5 4 3 2
   *   = 10 + 0 + 3 + 4 + 21 + 24 + 25 + 24 + 21 + 16 = 148
   *   148 % 11 = 5 → check = 11 - 5 = 6  → 20-12345678-6
   * Legal entity: 30-00000000-?  → 3·5 = 15, 15 % 11 = 4 → 11 - 4 = 7
   * mod 0:  23-00000000-? → 2·5 + 3·4 = 22, 22 % 11 = 0 → check 0
   * mod 1:  20-00000001-? → 2·5 + 1·2 = 12, 12 % 11 = 1 → no valid check digit
   */
  it('withCuitCheckDigit matches the hand-computed examples', () => {
    expect(withCuitCheckDigit('2012345678')).toBe('20123456786');
    expect(withCuitCheckDigit('3000000000')).toBe('30000000007');
    expect(withCuitCheckDigit('2300000000')).toBe('23000000000');
    expect(withCuitCheckDigit('2000000001')).toBeNull();
    expect(withCuitCheckDigit('201234567')).toBeNull();
    expect(withCuitCheckDigit('20123456x8')).toBeNull();
  });

  it('accepts the formatted individual example and defaults to CUIL', () => {
    expect(analyzeTaxId('20-12345678-6')).toEqual({
      ok: true,
      taxId: '20123456786',
      formatted: '20-12345678-6',
      isIndividual: true,
      defaultType: 'CUIL',
    });
  });

  it('normalizes spaces, dashes and dots', () => {
    for (const input of ['20123456786', ' 20 12345678 6 ', '20.123.456.786', '20\u201312.345.678\u20146']) {
      const result = analyzeTaxId(input);
      expect(result.ok && result.taxId, input).toBe('20123456786');
    }
  });

  it('accepts legal entities and defaults them to CUIT', () => {
    const taxId = withCuitCheckDigit('3071234567');
    expect(taxId).not.toBeNull();
    expect(analyzeTaxId(taxId ?? '')).toMatchObject({ ok: true, isIndividual: false, defaultType: 'CUIT' });
    expect(analyzeTaxId('30-00000000-7')).toEqual({
      ok: true,
      taxId: '30000000007',
      formatted: '30-00000000-7',
      isIndividual: false,
      defaultType: 'CUIT',
    });
  });

  it('accepts every allowed prefix with a computed check digit', () => {
    const expectations: Array<[string, boolean]> = [
      ['20', true], ['23', true], ['24', true], ['25', true], ['26', true], ['27', true],
      ['30', false], ['33', false], ['34', false],
    ];
    for (const [prefix, individual] of expectations) {
      // Try a few bodies: some land on mod 11 == 1 and have no check digit.
      const taxId = ['12345678', '22334455', '40111222'].map((body) => withCuitCheckDigit(prefix + body)).find((v) => v !== null);
      expect(taxId, prefix).toBeDefined();
      expect(analyzeTaxId(taxId ?? ''), prefix).toMatchObject({ ok: true, isIndividual: individual });
    }
  });

  it('rejects unknown prefixes before checking the check digit', () => {
    for (const prefix of ['00', '10', '21', '28', '31', '35', '99']) {
      const taxId = withCuitCheckDigit(`${prefix}12345678`) ?? `${prefix}123456780`;
      expect(analyzeTaxId(taxId), prefix).toMatchObject({ ok: false, reason: 'prefix' });
    }
  });

  it('rejects a wrong check digit', () => {
    const result = analyzeTaxId('20-12345678-5');
    expect(result).toEqual({
      ok: false,
      reason: 'check_digit',
      message: 'CUIT/CUIL check digit is invalid',
      messageEs: 'El dígito verificador del CUIT/CUIL no es válido',
    });
    // mod 11 == 1: no digit 0-9 can be correct.
    for (let d = 0; d <= 9; d += 1) {
      expect(analyzeTaxId(`2000000001${d}`)).toMatchObject({ ok: false, reason: 'check_digit' });
    }
  });

  it('rejects wrong lengths and non-digits', () => {
    expect(analyzeTaxId('20-12345678')).toMatchObject({ ok: false, reason: 'length' });
    const tooLong = analyzeTaxId('201234567861');
    expect(tooLong.ok === false && tooLong.message).toBe('CUIT/CUIL must be 11 digits (got 12)');
    expect(analyzeTaxId('')).toMatchObject({ ok: false, reason: 'length' });
    expect(analyzeTaxId('20-1234567A-6')).toMatchObject({ ok: false, reason: 'non_digit' });
    expect(analyzeTaxId('20/12345678/6')).toMatchObject({ ok: false, reason: 'non_digit' });
  });
});

describe('BCRA entity table', () => {
  it('contains the well-known codes with 3-digit keys', () => {
    expect(BCRA_ENTITIES.get('011')).toBe('Banco de la Nación Argentina');
    expect(BCRA_ENTITIES.get('007')).toBe('Banco de Galicia y Buenos Aires S.A.');
    expect(BCRA_ENTITIES.get('191')).toBe('Banco Credicoop Cooperativo Limitado');
    expect(BCRA_ENTITIES.has('000')).toBe(false);
    for (const code of BCRA_ENTITIES.keys()) expect(code).toMatch(/^[0-9]{3}$/);
    for (const prefix of CVU_PSP.keys()) expect(prefix).toMatch(/^000[0-9]{4}$/);
  });
});
