// Parsing a bulk input: pasted lists and CSV files, normalization like the Consulta screen, one item
// per distinct identifier, and invalid rows kept with their reason.
import { describe, expect, it } from 'vitest';
import { BulkInputError, bulkInputHash, parseBulkInput } from '../../src/main/core/bulk/bulk-input';
import { serverMessageInSpanish } from '../../src/shared/messages-es';
import { withCheckDigits, withCuitCheckDigit } from '../../src/shared/identifiers';
import { breakCheckDigit } from '../support/directory-data';
import { spaced } from './bulk-data';

const CBU_A = withCheckDigits('072', '0210', '0000000000101');
const CBU_B = withCheckDigits('285', '0590', '0000000000202');
const CVU = withCheckDigits('000', '0003', '1000000000042');
const CUIT = withCuitCheckDigit('3070111222')!;

describe('pasted list', () => {
  it('strips spaces and dashes, and looks up a repeated identifier once', () => {
    const input = parseBulkInput([CBU_A, spaced(CBU_A), `  ${CBU_B}  `, `${CBU_A.slice(0, 8)}–${CBU_A.slice(8)}`].join('\n'), 'cbu');
    expect(input.format).toBe('list');
    expect(input.rows.map((r) => r.item?.key)).toEqual([`CBU:${CBU_A}`, `CBU:${CBU_A}`, `CBU:${CBU_B}`, `CBU:${CBU_A}`]);
    expect(input.items).toEqual([
      { key: `CBU:${CBU_A}`, identifier: CBU_A, type: 'cbu', inputType: 'CBU', firstRow: 1 },
      { key: `CBU:${CBU_B}`, identifier: CBU_B, type: 'cbu', inputType: 'CBU', firstRow: 3 },
    ]);
    // The row keeps what was written, for the export.
    expect(input.rows[1]!.raw).toBe(spaced(CBU_A));
  });

  it('tells a CVU from a CBU, treats any other text as an alias (case-insensitive), and skips blank lines', () => {
    const input = parseBulkInput(`\r\n${CVU}\r\nMi.Alias.Uno\r\n\r\nmi.alias.uno\r\n`, 'cbu');
    expect(input.rows.map((r) => [r.row, r.item?.key])).toEqual([
      [2, `CVU:${CVU}`],
      [3, 'ALIAS:mi.alias.uno'],
      [5, 'ALIAS:mi.alias.uno'],
    ]);
    // The alias is looked up as first written.
    expect(input.items[1]).toMatchObject({ identifier: 'Mi.Alias.Uno', type: 'alias', inputType: 'ALIAS' });
  });

  it('keeps invalid rows with the reason and never makes items of them', () => {
    const input = parseBulkInput([breakCheckDigit(CBU_A), '12345', 'no valido!', 'corto', CBU_B].join('\n'), 'cbu');
    expect(input.items.map((i) => i.identifier)).toEqual([CBU_B]);
    expect(input.rows.map((r) => [r.row, r.item === null, r.invalid])).toEqual([
      [1, true, expect.stringMatching(/check digit of the second block/)],
      [2, true, 'CBU must be 22 digits with valid check digits (got 5 digits)'],
      [3, true, expect.stringMatching(/^Alias may only contain/)],
      [4, true, expect.stringMatching(/^Alias must be between 6 and 20/)],
      [5, false, null],
    ]);
  });

  it('reads a list whose lines are quoted, and does not let a stray quote swallow the next lines', () => {
    const input = parseBulkInput(`"${CBU_A}"\nab"cdef\n${CBU_B}`, 'cbu');
    expect(input.rows).toHaveLength(3);
    expect(input.rows[0]!.item?.key).toBe(`CBU:${CBU_A}`);
    expect(input.rows[1]!.invalid).toMatch(/^Alias may only contain/);
    expect(input.rows[2]!.item?.key).toBe(`CBU:${CBU_B}`);
  });
});

describe('CSV with an identifier column', () => {
  it('uses the identifier and type columns, with , or ; and a BOM', () => {
    for (const sep of [',', ';']) {
      const csv = `\uFEFFname${sep}Identifier${sep}type\r\nAna${sep}${spaced(CBU_A)}${sep}cbu\r\nBeto${sep}mi.alias.uno${sep}ALIAS\r\nCarla${sep}${CVU}${sep}cvu\r\n`;
      const input = parseBulkInput(csv, 'cbu');
      expect(input.format).toBe('csv');
      expect(input.rows.map((r) => [r.row, r.item?.key])).toEqual([
        [2, `CBU:${CBU_A}`],
        [3, 'ALIAS:mi.alias.uno'],
        [4, `CVU:${CVU}`],
      ]);
    }
  });

  it('honours quoted cells (a line break inside quotes stays in its record) and reports a wrong type', () => {
    const csv = `identifier,note\n"${CBU_A}","two\nlines"\n${CBU_B},x\n`;
    const input = parseBulkInput(csv, 'cbu');
    expect(input.rows.map((r) => [r.row, r.item?.key])).toEqual([
      [2, `CBU:${CBU_A}`],
      [4, `CBU:${CBU_B}`],
    ]);
    const typed = parseBulkInput(`identifier,type\n${CBU_A},alias\n${CUIT},cuit\nmi.alias.uno,iban\n,cbu\n`, 'cbu');
    expect(typed.rows.map((r) => r.invalid)).toEqual([
      expect.stringMatching(/^Alias must be between/),
      'A CUIT/CUIL is looked up in a credit report (Informes) job',
      'type must be cbu, cvu or alias (got "iban")',
      'The identifier is empty',
    ]);
    expect(typed.items).toEqual([]);
  });

  it('reads a quote inside an unquoted cell as a character, as the directory import does: no row is lost', () => {
    const csv = `identifier,note
${CBU_A},screen 15" monitor
${CBU_B},x
${CVU},a 2" pipe
mi.alias.uno,y
`;
    const input = parseBulkInput(csv, 'cbu');
    expect(input.rows.map((r) => [r.row, r.item?.key])).toEqual([
      [2, `CBU:${CBU_A}`],
      [3, `CBU:${CBU_B}`],
      [4, `CVU:${CVU}`],
      [5, 'ALIAS:mi.alias.uno'],
    ]);
  });

  it('refuses a file whose quoted cell never closes (the rest of the file would be that cell); text after a closing quote is an invalid row', () => {
    expect(() => parseBulkInput(`identifier,note
${CBU_A},x
"${CBU_B},y
${CVU},z
`, 'cbu')).toThrow(/^Line 3: unterminated quoted field/);
    const garbage = parseBulkInput(`identifier,note
"${CBU_A}"x,a
${CBU_B},b
`, 'cbu');
    expect(garbage.rows.map((r) => [r.row, r.item?.key ?? r.invalid])).toEqual([
      [2, 'Malformed CSV row: field 1 has text after its closing quote'],
      [3, `CBU:${CBU_B}`],
    ]);
  });

  it('reads a column a spreadsheet names by what it holds (CBU, Alias, CUIT) as the identifier column', () => {
    // A one-column export whose first cell says "CBU": its header, not an invalid first row.
    expect(parseBulkInput(`CBU\n${CBU_A}\n`, 'cbu').rows.map((r) => [r.row, r.item?.key, r.invalid])).toEqual([[2, `CBU:${CBU_A}`, null]]);
    // The directory file's own layout: the cbu column is read, the others ignored.
    expect(parseBulkInput(`cbu,alias,account_type\n${CBU_A},,CA\n`, 'cbu').items.map((i) => i.identifier)).toEqual([CBU_A]);
    expect(parseBulkInput('Alias;Nombre\r\nmaria.gonzalez.cc;María\r\n', 'cbu').items.map((i) => [i.identifier, i.type])).toEqual([['maria.gonzalez.cc', 'alias']]);
    expect(parseBulkInput('CUIT\n20-12345678-6\n', 'informes').items.map((i) => i.identifier)).toEqual(['20123456786']);
  });

  it('refuses a CSV whose header names no identifier column, instead of refusing each of its rows', () => {
    for (const [content, first] of [
      [`numero,name\n${CBU_A},x\n`, 'numero,name'],
      [`\uFEFFcuenta;titular\r\n${CBU_A};y\r\n`, 'cuenta;titular'],
    ]) {
      let message = '';
      try {
        parseBulkInput(content!, 'cbu');
      } catch (error) {
        expect(error).toBeInstanceOf(BulkInputError);
        message = (error as Error).message;
      }
      expect(message).toBe(`The CSV has no "identifier" column: its first line is "${first}"; name the column of CBUs, CVUs or aliases "identifier" (or "identificador", "cbu", "alias", "cuit")`);
      expect(serverMessageInSpanish(message)).toBe(`El CSV no tiene una columna “identifier”: su primera línea es "${first}". Llamá “identifier” (o “identificador”, “cbu”, “alias”, “cuit”) a la columna de CBU, CVU o alias.`);
    }
    // A key pasted into that line is not repeated by the error.
    expect(() => parseBulkInput(`sk_live_${'K'.repeat(32)},x\n${CBU_A}\n`, 'cbu')).toThrow('its first line is "sk_live_***,x"');
    // A plain list (no separator on its first line) is still a list.
    expect(parseBulkInput(`${CBU_A}\n${CBU_B}\n`, 'cbu').rows).toHaveLength(2);
  });
});

describe('credit report (informes) jobs', () => {
  it('reads CUIT/CUIL rows with or without dashes as one item', () => {
    const dashed = `${CUIT.slice(0, 2)}-${CUIT.slice(2, 10)}-${CUIT.slice(10)}`;
    const input = parseBulkInput([CUIT, dashed, '20-12345678-0', CBU_A].join('\n'), 'informes');
    expect(input.items).toEqual([{ key: `CUIT:${CUIT}`, identifier: CUIT, type: 'cuit', inputType: 'CUIT', firstRow: 1 }]);
    expect(input.rows[1]!.item?.key).toBe(`CUIT:${CUIT}`);
    expect(input.rows[2]!.invalid).toBeTruthy();
    expect(input.rows[3]!.invalid).toBeTruthy();
  });
});

describe('input hash', () => {
  it('is the same for the same content and product, different across products', () => {
    expect(bulkInputHash('cbu', 'a\nb')).toBe(bulkInputHash('cbu', 'a\nb'));
    expect(bulkInputHash('cbu', 'a\nb')).not.toBe(bulkInputHash('informes', 'a\nb'));
    expect(bulkInputHash('cbu', 'a\nb')).not.toBe(bulkInputHash('cbu', 'a\nb\n'));
  });
});
