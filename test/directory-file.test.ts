import { describe, expect, it } from 'vitest';
import {
  MAX_DIRECTORY_ROWS,
  detectDirectoryFormat,
  parseDirectoryFile,
  type ParsedDirectory,
} from '../src/main/core/directory/directory-file';
import { withCheckDigits, withCuitCheckDigit } from '../src/shared/identifiers/index.js';

const HEADER = 'cbu,alias,account_type,currency,active,holder_name,holder_tax_id';

// Valid test identifiers, built with the real check-digit helpers.
const MACRO = withCheckDigits('285', '0590', '4009041813520'); // 2850590940090418135201
const GALICIA = withCheckDigits('007', '0999', '0000012345678'); // 0070999000000123456784
const MP_CVU = withCheckDigits('000', '0003', '1000000012345'); // 0000003110000000123456

function cuit(first10: string): string {
  const value = withCuitCheckDigit(first10);
  if (value === null) throw new Error(`no check digit exists for ${first10}`);
  return value;
}

const JUAN = cuit('2012345678'); // 20123456786
const ANA = cuit('2734567890'); // 27345678900
const ACME = cuit('3071234567'); // 30712345671
const LUIS = cuit('2330000000'); // 23300000002

/** Lines joined with LF plus a trailing newline, like most exporters write. */
function csv(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

function errorLines(parsed: ParsedDirectory): number[] {
  return parsed.errors.map((e) => e.line);
}

describe('parseDirectoryFile (CSV)', () => {
  it('groups rows of the same cbu into one account and derives scheme, bank and holder types', () => {
    const parsed = parseDirectoryFile(
      csv(
        HEADER,
        `${MACRO},Mi.Cuenta.Macro,CC,ARS,true,Juan Pérez,20-12345678-6`,
        `${MP_CVU},,,USD,no,ACME Logística S.A.,${ACME}`,
        // Same account written with separators and in another case: still the same account and alias.
        `2850590-9 4009041813520-1,mi.cuenta.macro,cc,ars,1,  Ana   López ,${ANA}`,
      ),
      'csv',
    );

    expect(parsed.errors).toEqual([]);
    expect(parsed.rows).toBe(3);
    expect(parsed.accounts).toEqual([
      {
        number: '2850590940090418135201',
        aliasKey: 'mi.cuenta.macro',
        data: {
          holders: [
            { full_name: 'Juan Pérez', tax_id: '20123456786', tax_id_type: 'CUIL', is_individual: true },
            { full_name: 'Ana López', tax_id: '27345678900', tax_id_type: 'CUIL', is_individual: true },
          ],
          account_type: 'CC',
          active: true,
          currency: 'ARS',
          alias: 'Mi.Cuenta.Macro',
          account: { scheme: 'CBU', number: '2850590940090418135201' },
          bank: { name: 'Banco Macro S.A.', code: '285' },
        },
      },
      {
        number: '0000003110000000123456',
        aliasKey: null,
        data: {
          holders: [{ full_name: 'ACME Logística S.A.', tax_id: '30712345671', tax_id_type: 'CUIT', is_individual: false }],
          account_type: 'VIRTUAL',
          active: false,
          currency: 'USD',
          alias: '',
          account: { scheme: 'CVU', number: '0000003110000000123456' },
          bank: { name: 'Mercado Pago', code: '0000003' },
        },
      },
    ]);
  });

  it('accepts ";" as separator when the header uses it (Excel in a Spanish locale)', () => {
    const parsed = parseDirectoryFile(
      csv(HEADER.replaceAll(',', ';'), `${GALICIA};;Caja de Ahorro;$;Sí;"Pérez; Juan";${JUAN}`, `${MACRO};;cuenta  corriente;U$S;SI;Luis, Gómez;${LUIS}`),
      'csv',
    );
    expect(parsed.errors).toEqual([]);
    expect(parsed.accounts.map((a) => [a.number, a.data.account_type, a.data.currency, a.data.active, a.data.holders[0]?.full_name])).toEqual([
      [GALICIA, 'CA', 'ARS', true, 'Pérez; Juan'],
      [MACRO, 'CC', 'USD', true, 'Luis, Gómez'],
    ]);
  });

  it('handles quoted fields with separators, escaped quotes and newlines, counting physical lines', () => {
    const parsed = parseDirectoryFile(
      csv(
        HEADER,
        `"${MACRO}","","CC","ARS","true","Pérez, Juan ""Juancho""",${JUAN}`,
        `${GALICIA},,CA,ARS,true,"Ana`,
        `López",${ANA}`,
        `${MP_CVU},,,ARS,maybe,Luis,${LUIS}`, // physical line 5
      ),
      'csv',
    );
    expect(parsed.accounts.map((a) => a.data.holders[0]?.full_name)).toEqual(['Pérez, Juan "Juancho"', 'Ana López']);
    expect(parsed.errors).toEqual([{ line: 5, reason: 'active "maybe" is not valid (expected true/false, yes/no, sí/no or 1/0)' }]);
    expect(parsed.rows).toBe(3);
  });

  it('accepts CRLF line endings, a BOM and blank lines', () => {
    const content = `\uFEFF${[HEADER.toUpperCase(), '', `${MACRO},,CC,,,Juan,${JUAN}`, ' ', ',,,,,,', `${GALICIA},,CA,,,Ana,${ANA}`, `${MP_CVU},,,,x,Luis,${LUIS}`].join('\r\n')}\r\n`;
    const parsed = parseDirectoryFile(content, 'csv');
    expect(parsed.accounts.map((a) => a.number)).toEqual([MACRO, GALICIA]);
    expect(parsed.accounts[0]?.data.holders[0]?.full_name).toBe('Juan');
    expect(errorLines(parsed)).toEqual([7]);
    expect(parsed.rows).toBe(3);
  });

  it('reports every bad row at once, each on its own line and naming the field', () => {
    const longName = 'x'.repeat(201);
    const parsed = parseDirectoryFile(
      csv(
        HEADER,
        `${MACRO},,CC,ARS,true,Juan,${JUAN}`, // 2: valid
        `12345,,CC,ARS,true,Juan,${JUAN}`, // 3
        `${MACRO.slice(0, 21)}2,,CC,ARS,true,Juan,${JUAN}`, // 4: bad block-2 check digit
        `${GALICIA},ab,CC,ARS,true,Juan,${JUAN}`, // 5
        `${GALICIA},mi-alias,CC,ARS,true,Juan,${JUAN}`, // 6
        `${GALICIA},,ahorro,ARS,true,Juan,${JUAN}`, // 7
        `${GALICIA},,,ARS,true,Juan,${JUAN}`, // 8: CBU without account_type
        `${GALICIA},,CA,EUR,true,Juan,${JUAN}`, // 9
        `${GALICIA},,CA,ARS,quizás,Juan,${JUAN}`, // 10
        `${GALICIA},,CA,ARS,true,  ,${JUAN}`, // 11
        `${GALICIA},,CA,ARS,true,${longName},${JUAN}`, // 12
        `${GALICIA},,CA,ARS,true,Juan,20123456787`, // 13: bad CUIT check digit
        `${GALICIA},,CA,ARS,true,Juan,`, // 14
        `${GALICIA},,CA,ARS,true,Juan,99123456789`, // 15: bad prefix
        `,EUR,,EUR,x,,`, // 16: several problems in one row
        `${GALICIA},,CA,ARS,true,Juan`, // 17: a field short
        `2.85059E+21,,CC,ARS,true,Juan,${JUAN}`, // 18: Excel scientific notation
      ),
      'csv',
    );
    expect(parsed.rows).toBe(17);
    expect(parsed.accounts.map((a) => a.number)).toEqual([MACRO]);
    expect(parsed.errors).toEqual([
      { line: 3, reason: 'cbu: CBU must be 22 digits with valid check digits (got 5 digits)' },
      { line: 4, reason: 'cbu: CBU check digit of the second block (digit 22) is invalid' },
      { line: 5, reason: 'alias: Alias must be between 6 and 20 characters (got 2)' },
      { line: 6, reason: 'alias: Alias may only contain letters (a-z, no accents or ñ), digits and dots' },
      { line: 7, reason: 'account_type "ahorro" is not valid (expected CC, CA or VIRTUAL)' },
      { line: 8, reason: 'account_type is required for a CBU' },
      { line: 9, reason: 'currency "EUR" is not valid (expected ARS or USD)' },
      { line: 10, reason: 'active "quizás" is not valid (expected true/false, yes/no, sí/no or 1/0)' },
      { line: 11, reason: 'holder_name is required' },
      { line: 12, reason: 'holder_name is too long (201 characters, at most 200)' },
      { line: 13, reason: 'holder_tax_id: CUIT/CUIL check digit is invalid' },
      { line: 14, reason: 'holder_tax_id is required' },
      {
        line: 15,
        reason: 'holder_tax_id: CUIT/CUIL prefix 99 is not valid (expected 20, 23, 24, 25, 26, 27, 30, 33 or 34)',
      },
      {
        line: 16,
        reason:
          'cbu is required; alias: Alias must be between 6 and 20 characters (got 3); currency "EUR" is not valid (expected ARS or USD); ' +
          'active "x" is not valid (expected true/false, yes/no, sí/no or 1/0); holder_name is required; holder_tax_id is required',
      },
      { line: 17, reason: 'expected 7 fields but found 6' },
      { line: 18, reason: 'cbu "2.85059E+21" was converted to a number in scientific notation (format the column as text)' },
    ]);
  });

  it('accepts a 200-character holder name', () => {
    const parsed = parseDirectoryFile(csv(HEADER, `${MACRO},,CC,ARS,true,${'ñ'.repeat(200)},${JUAN}`), 'csv');
    expect(parsed.errors).toEqual([]);
    expect(parsed.accounts[0]?.data.holders[0]?.full_name).toHaveLength(200);
  });

  it('rejects rows of the same cbu that disagree on account fields, naming the first line', () => {
    const parsed = parseDirectoryFile(
      csv(
        HEADER,
        `${MACRO},mi.alias,CC,ARS,true,Juan,${JUAN}`, // 2
        `${MACRO},mi.alias,CA,ARS,true,Ana,${ANA}`, // 3
        `${MACRO},otro.alias,CC,USD,false,Ana,${ANA}`, // 4
        `${MACRO},MI.ALIAS,cc,$,sí,Ana,${ANA}`, // 5: agrees (case and synonyms)
        `${MACRO},,CC,ARS,true,Luis,${LUIS}`, // 6: alias missing
      ),
      'csv',
    );
    expect(parsed.errors).toEqual([
      { line: 3, reason: 'account_type differs from line 2 for the same cbu' },
      {
        line: 4,
        reason:
          'alias differs from line 2 for the same cbu; currency differs from line 2 for the same cbu; active differs from line 2 for the same cbu',
      },
      { line: 6, reason: 'alias differs from line 2 for the same cbu' },
    ]);
    expect(parsed.accounts).toHaveLength(1);
    expect(parsed.accounts[0]?.data.alias).toBe('mi.alias');
    expect(parsed.accounts[0]?.data.holders.map((h) => h.full_name)).toEqual(['Juan', 'Ana']);
  });

  it('rejects the same holder twice in one account', () => {
    const parsed = parseDirectoryFile(
      csv(HEADER, `${MACRO},,CC,ARS,true,Juan,${JUAN}`, `${GALICIA},,CC,ARS,true,Juan,${JUAN}`, `${MACRO},,CC,ARS,true,Juan P.,20.12345678.6`),
      'csv',
    );
    expect(parsed.errors).toEqual([{ line: 4, reason: 'holder_tax_id 20-12345678-6 is already a holder of this cbu (line 2)' }]);
    expect(parsed.accounts.map((a) => a.data.holders.length)).toEqual([1, 1]);
  });

  it('rejects an alias used by two different accounts (case-insensitive) on the later line', () => {
    const parsed = parseDirectoryFile(
      csv(
        HEADER,
        `${MACRO},Pagos.Acme,CC,ARS,true,Juan,${JUAN}`,
        `${GALICIA},pagos.acme,CA,ARS,true,Ana,${ANA}`,
        `${MP_CVU},pagos.acme,,ARS,true,Luis,${LUIS}`,
        `${GALICIA},otro.alias,CA,ARS,true,Ana,${ANA}`,
      ),
      'csv',
    );
    expect(parsed.errors).toEqual([
      { line: 3, reason: `alias "pagos.acme" is already used by cbu ${MACRO} on line 2` },
      { line: 4, reason: `alias "pagos.acme" is already used by cbu ${MACRO} on line 2` },
    ]);
    // The rejected row did not create the account, so a later valid row for it does.
    expect(parsed.accounts.map((a) => [a.number, a.aliasKey])).toEqual([
      [MACRO, 'pagos.acme'],
      [GALICIA, 'otro.alias'],
    ]);
  });

  it('limits an account to 20 holders', () => {
    const rows = Array.from({ length: 21 }, (_, i) => `${MACRO},,CC,ARS,true,Holder ${i},${generatedCuit(i)}`);
    const parsed = parseDirectoryFile(csv(HEADER, ...rows), 'csv');
    expect(parsed.errors).toEqual([{ line: 22, reason: 'too many holders for this cbu: at most 20 per account (account starts on line 2)' }]);
    expect(parsed.accounts[0]?.data.holders).toHaveLength(20);
  });

  describe('header', () => {
    const row = `${MACRO},,CC,ARS,true,Juan,${JUAN}`;
    const cases: Array<[string, string, string]> = [
      ['missing column', 'cbu,alias,account_type,currency,active,holder_name', 'invalid header: missing column holder_tax_id'],
      ['unknown column', 'cbu,alias,account_type,currency,active,holder_name,cuit', 'invalid header: missing column holder_tax_id; unknown column cuit'],
      ['extra column', `${HEADER},notes`, 'invalid header: unknown column notes'],
      ['empty extra column', `${HEADER},`, 'invalid header: unknown column (empty)'],
      ['repeated column', `${HEADER},cbu`, 'invalid header: repeated column cbu'],
      ['wrong order', 'alias,cbu,account_type,currency,active,holder_name,holder_tax_id', 'invalid header: columns are in the wrong order'],
    ];
    it.each(cases)('%s is one error on line 1 and no accounts', (_name, header, reason) => {
      const parsed = parseDirectoryFile(csv(header, row), 'csv');
      expect(parsed.accounts).toEqual([]);
      expect(parsed.rows).toBe(0);
      expect(parsed.errors).toEqual([{ line: 1, reason: `${reason} (expected exactly: ${HEADER})` }]);
    });

    it('is case-insensitive and trimmed', () => {
      const parsed = parseDirectoryFile(csv(' CBU , Alias,ACCOUNT_TYPE,currency,active, "holder_name" ,"holder_tax_id" ', row), 'csv');
      expect(parsed.errors).toEqual([]);
      expect(parsed.accounts).toHaveLength(1);
    });

    it('reports an empty file', () => {
      expect(parseDirectoryFile('\uFEFF\n\n', 'csv')).toEqual({
        accounts: [],
        errors: [{ line: 1, reason: `file is empty (expected the header ${HEADER})` }],
        rows: 0,
        fileProblem: true,
      });
    });

    it('a header-only file has no rows and no errors', () => {
      expect(parseDirectoryFile(HEADER, 'csv')).toEqual({ accounts: [], errors: [], rows: 0 });
    });
  });

  it('reports broken quoting on the line where the row starts', () => {
    const parsed = parseDirectoryFile(
      csv(HEADER, `${MACRO},,CC,ARS,true,"Juan"x,${JUAN}`, `${GALICIA},,CA,ARS,true,Ana,${ANA}`, `${MP_CVU},,,ARS,true,"Luis,${LUIS}`, 'more'),
      'csv',
    );
    expect(parsed.errors).toEqual([
      { line: 2, reason: 'field 6 has text after its closing quote' },
      { line: 4, reason: 'unterminated quoted field (a " is never closed)' },
    ]);
    expect(parsed.accounts.map((a) => a.number)).toEqual([GALICIA]);
  });

  it(`rejects a file with more than ${MAX_DIRECTORY_ROWS} rows as a whole`, () => {
    const content = `${HEADER}\n${'1,,,,,,\n'.repeat(MAX_DIRECTORY_ROWS + 1)}`;
    const parsed = parseDirectoryFile(content, 'csv');
    expect(parsed.accounts).toEqual([]);
    expect(parsed.errors).toEqual([
      { line: MAX_DIRECTORY_ROWS + 2, reason: 'file has more than 200000 rows (the limit per import); split it into several files' },
    ]);
  });

  // Its speed is not asserted here (a wall-clock bound fails on a loaded machine, and the project
  // measures speed in bench/): this is about 10,000 rows parsed whole and right.
  it('parses 10,000 generated rows without errors', () => {
    const lines = [HEADER];
    for (let i = 0; i < 10_000; i++) {
      const account = Math.floor(i / 2); // two holders per account
      const isCvu = account % 10 === 0;
      const number = isCvu
        ? withCheckDigits('000', '0003', String(account).padStart(13, '0'))
        : withCheckDigits('285', '0590', String(account).padStart(13, '0'));
      const alias = i % 2 === 0 ? `cuenta.${account}` : `CUENTA.${account}`;
      lines.push(`${number},${alias},${isCvu ? '' : 'CA'},ARS,true,"Titular ${i}, S.A.",${generatedCuit(i)}`);
    }
    const content = lines.join('\n');

    const parsed = parseDirectoryFile(content, 'csv');

    expect(parsed.errors).toEqual([]);
    expect(parsed.rows).toBe(10_000);
    expect(parsed.accounts).toHaveLength(5_000);
    expect(parsed.accounts.filter((a) => a.data.account_type === 'VIRTUAL')).toHaveLength(500);
    expect(parsed.accounts.every((a) => a.data.holders.length === 2)).toBe(true);
    expect(parsed.accounts[1]?.data.holders[1]?.full_name).toBe('Titular 3, S.A.');
  });
});

/** A unique valid CUIT/CUIL per index: the prefix changes when a number has no check digit. */
function generatedCuit(i: number): string {
  const middle = String(10_000_000 + i);
  for (const prefix of ['20', '27', '23']) {
    const value = withCuitCheckDigit(prefix + middle);
    if (value !== null) return value;
  }
  throw new Error(`no prefix gives a check digit for ${middle}`);
}

describe('parseDirectoryFile (JSON)', () => {
  it('reads accounts with holders, applying explicit tax_id_type and is_individual', () => {
    const content = JSON.stringify([
      {
        cbu: MACRO,
        alias: ' Mi.Cuenta ',
        account_type: 'caja de ahorro',
        currency: 'US$',
        active: false,
        holders: [
          { full_name: 'Juan Pérez', tax_id: '20-12345678-6', tax_id_type: 'CUIT' },
          { full_name: 'Ana López', tax_id: ANA, is_individual: false },
        ],
      },
      { cbu: MP_CVU, holders: [{ full_name: 'ACME', tax_id: ACME }] },
    ]);
    const parsed = parseDirectoryFile(content, 'json');
    expect(parsed.errors).toEqual([]);
    expect(parsed.rows).toBe(2);
    expect(parsed.accounts).toEqual([
      {
        number: MACRO,
        aliasKey: 'mi.cuenta',
        data: {
          holders: [
            { full_name: 'Juan Pérez', tax_id: '20123456786', tax_id_type: 'CUIT', is_individual: true },
            { full_name: 'Ana López', tax_id: '27345678900', tax_id_type: 'CUIL', is_individual: false },
          ],
          account_type: 'CA',
          active: false,
          currency: 'USD',
          alias: 'Mi.Cuenta',
          account: { scheme: 'CBU', number: MACRO },
          bank: { name: 'Banco Macro S.A.', code: '285' },
        },
      },
      {
        number: MP_CVU,
        aliasKey: null,
        data: {
          holders: [{ full_name: 'ACME', tax_id: '30712345671', tax_id_type: 'CUIT', is_individual: false }],
          account_type: 'VIRTUAL',
          active: true,
          currency: 'ARS',
          alias: '',
          account: { scheme: 'CVU', number: MP_CVU },
          bank: { name: 'Mercado Pago', code: '0000003' },
        },
      },
    ]);
  });

  it('accepts { "accounts": [...] } and a BOM', () => {
    const content = `\uFEFF${JSON.stringify({ accounts: [{ cbu: GALICIA, account_type: 'CC', active: 'sí', holders: [{ full_name: 'Luis', tax_id: LUIS }] }] })}`;
    const parsed = parseDirectoryFile(content, 'json');
    expect(parsed.errors).toEqual([]);
    expect(parsed.accounts.map((a) => [a.number, a.data.active, a.data.holders[0]?.tax_id_type])).toEqual([[GALICIA, true, 'CUIL']]);
  });

  it('reports errors by 1-based item index and keeps the valid items', () => {
    const content = JSON.stringify([
      { cbu: MACRO, account_type: 'CC', alias: 'pagos.acme', holders: [{ full_name: 'Juan', tax_id: JUAN }] }, // 1
      { cbu: 2850590940090418135201, account_type: 'CC', holders: [{ full_name: 'Juan', tax_id: JUAN }] }, // 2
      { cbu: GALICIA, account_type: 'CC', holders: [] }, // 3
      {
        cbu: GALICIA,
        account_type: 'CC',
        holders: [
          { full_name: 'Ana', tax_id: ANA, tax_id_type: 'DNI', is_individual: 'yes' },
          { full_name: '', tax_id: '123' },
        ],
      }, // 4
      { cbu: GALICIA, acount_type: 'CC', holders: [{ full_name: 'Ana', tax_id: ANA }] }, // 5
      'not an object', // 6
      { cbu: GALICIA, account_type: 'CA', alias: 'PAGOS.ACME', holders: [{ full_name: 'Ana', tax_id: ANA }] }, // 7
      { cbu: GALICIA, account_type: 'CA', holders: [{ full_name: 'Ana', tax_id: ANA }, { full_name: 'Ana L.', tax_id: ANA }] }, // 8
      { cbu: MACRO, account_type: 'CA', holders: [{ full_name: 'Ana', tax_id: ANA }] }, // 9
      { cbu: MACRO, account_type: 'CC', alias: 'pagos.acme', holders: [{ full_name: 'Ana', tax_id: ANA }] }, // 10: merges into item 1
      { cbu: MACRO, account_type: 'CC', alias: 'pagos.acme', holders: [{ full_name: 'Juan', tax_id: JUAN }] }, // 11
    ]);
    const parsed = parseDirectoryFile(content, 'json');
    expect(parsed.rows).toBe(11);
    expect(parsed.errors).toEqual([
      { line: 2, reason: 'cbu must be a string (a 22-digit number loses precision in JSON)' },
      { line: 3, reason: 'holders must be a non-empty array' },
      {
        line: 4,
        reason:
          'holders[0].tax_id_type must be "CUIT" or "CUIL"; holders[0].is_individual must be a boolean; holders[1].full_name is required; ' +
          'holders[1].tax_id: CUIT/CUIL must be 11 digits (got 3)',
      },
      { line: 5, reason: 'unknown field acount_type; account_type is required for a CBU' },
      { line: 6, reason: 'item must be an object' },
      { line: 7, reason: `alias "PAGOS.ACME" is already used by cbu ${MACRO} on item 1` },
      { line: 8, reason: 'holders[1].tax_id 27-34567890-0 is already a holder of this cbu (item 8)' },
      { line: 9, reason: 'alias differs from item 1 for the same cbu; account_type differs from item 1 for the same cbu' },
      { line: 11, reason: 'holders[0].tax_id 20-12345678-6 is already a holder of this cbu (item 1)' },
    ]);
    expect(parsed.accounts.map((a) => [a.number, a.data.holders.map((h) => h.full_name)])).toEqual([[MACRO, ['Juan', 'Ana']]]);
  });

  it('reports invalid JSON as one error on line 1', () => {
    const parsed = parseDirectoryFile('[{"cbu": ', 'json');
    expect(parsed.accounts).toEqual([]);
    expect(parsed.rows).toBe(0);
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]?.line).toBe(1);
    expect(parsed.errors[0]?.reason).toMatch(/^invalid JSON: /);
  });

  it('rejects a document that is not a list of accounts', () => {
    expect(parseDirectoryFile('{"items": []}', 'json').errors).toEqual([
      { line: 1, reason: 'expected an array of accounts or an object with an "accounts" array' },
    ]);
  });

  it('rejects more than 20 holders in one item', () => {
    const holders = Array.from({ length: 21 }, (_, i) => ({ full_name: `H${i}`, tax_id: generatedCuit(i) }));
    const parsed = parseDirectoryFile(JSON.stringify([{ cbu: MP_CVU, holders }]), 'json');
    expect(parsed.errors).toEqual([{ line: 1, reason: 'holders has 21 entries (at most 20 per account)' }]);
  });
});

describe('detectDirectoryFormat', () => {
  it('uses the extension first, then the first non-space character', () => {
    expect(detectDirectoryFormat('cuentas.JSON', 'cbu,alias')).toBe('json');
    expect(detectDirectoryFormat('cuentas.csv', '[1]')).toBe('csv');
    expect(detectDirectoryFormat('cuentas.txt', '\uFEFF  \n [ {}]')).toBe('json');
    expect(detectDirectoryFormat('export', '{"accounts": []}')).toBe('json');
    expect(detectDirectoryFormat('export', HEADER)).toBe('csv');
    expect(detectDirectoryFormat('', '')).toBe('csv');
  });
});
