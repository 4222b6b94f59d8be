// The seed of the e2e data directory and the identifiers the tests look up. Every number has valid
// BCRA check digits (the sandbox's sample set, src/main/core/resolvers/sandbox-data.ts); none is a
// real person's account.

export const ORG = 'Acme Cobranzas';
// A name as long as real ones are: the tables must fit it at 1280 px (screenshots.spec.ts).
export const ADMIN = { name: 'Ada María Administradora Benítez', email: 'ada@acme.test' } as const;
export const OPERATOR = { name: 'Oscar Operador', email: 'oscar@acme.test' } as const;

export const ACCOUNTS = {
  /** Banco de la Nación, cuenta corriente, one holder (CUIL). */
  nacion: { cbu: '0110001300000012345674', alias: 'maria.gonzalez.cc', holder: 'María Laura González', taxId: '27-31234567-1', bank: 'Banco de la Nación Argentina' },
  /** Galicia, caja de ahorro in USD, two holders. */
  galicia: { cbu: '0070999000000076543218', alias: 'perez.lopez.usd', holder: 'Juan Carlos Pérez', taxId: '20-28765432-5', bank: 'Galicia' },
  /** Mercado Pago CVU. */
  cvu: { cbu: '0000003110000123456781', alias: 'martin.rodriguez.mp', holder: 'Martín Rodríguez', taxId: '23-29876543-8', bank: 'Mercado Pago' },
  /** Santander, a company (CUIT). */
  company: { cbu: '0720210200000456789014', alias: 'acme.logistica', holder: 'ACME Logística S.A.', taxId: '30-71234567-1', bank: 'Santander' },
  /** Macro, inactive. */
  inactive: { cbu: '2850300200000987654326', alias: 'cuenta.inactiva', holder: 'Sofía Fernández', taxId: '20-44444444-5', bank: 'Macro' },
} as const;

/** Valid check digits, not in the directory: PA011. */
export const NOT_FOUND_CBU = '0110001399999999999993';
/** The Nación CBU with its last (second) check digit changed. */
export const BAD_CHECK_DIGIT_CBU = '0110001300000012345675';

export const DIRECTORY_CSV = [
  'cbu,alias,account_type,currency,active,holder_name,holder_tax_id',
  `${ACCOUNTS.nacion.cbu},maria.gonzalez.cc,CC,ARS,true,María Laura González,27312345671`,
  `${ACCOUNTS.galicia.cbu},perez.lopez.usd,CA,USD,true,Juan Carlos Pérez,20287654325`,
  `${ACCOUNTS.galicia.cbu},perez.lopez.usd,CA,USD,true,Ana López,27333333339`,
  `${ACCOUNTS.cvu.cbu},martin.rodriguez.mp,,ARS,true,Martín Rodríguez,23298765438`,
  `${ACCOUNTS.company.cbu},acme.logistica,CC,ARS,true,ACME Logística S.A.,30712345671`,
  `${ACCOUNTS.inactive.cbu},cuenta.inactiva,CA,ARS,false,Sofía Fernández,20444444445`,
  '',
].join('\n');

/** Credit reports (Informes) in the directory, for live lookups by CUIT/CUIL. */
export const REPORTS = {
  /** ACME: situation 3 at Santander, 1 at BBVA, 2 at a non-bank lender; two bounced checks (one paid). */
  company: { taxId: '30-71234567-1', name: 'ACME Logística S.A.' },
  /** A clean record: no debts, no checks. */
  clean: { taxId: '27-31234567-1', name: 'María Laura González' },
  /** Valid CUIT with no report: PA011. */
  notFound: { taxId: '30-50001234-6' },
  /** Wrong check digit: PA006 before any credit is spent. */
  badCheckDigit: '30-71234567-2',
} as const;

/** The credit-record import file (README "Credit records"), one row per fact, grouped by tax_id. */
export const CREDIT_RECORDS_CSV = [
  'record,tax_id,full_name,is_individual,tax_id_type,period,institution_code,institution_name,classification,amount,days_overdue,check_number,check_date,check_amount,check_reason,check_paid',
  `situation,${REPORTS.company.taxId},${REPORTS.company.name},,,2026-10,072,,3,48200,120,,,,,`,
  `situation,${REPORTS.company.taxId},${REPORTS.company.name},,,2026-10,017,,1,9800,0,,,,,`,
  `situation,${REPORTS.company.taxId},${REPORTS.company.name},,,2026-10,70012,Tarjeta Naranja S.A.,2,"1250,5",35,,,,,`,
  `check,${REPORTS.company.taxId},${REPORTS.company.name},,,,072,,,,,00012345,14/08/2026,350000,Sin fondos suficientes,sí`,
  `check,${REPORTS.company.taxId},${REPORTS.company.name},,,,072,,,,,00012391,30/09/2026,1200000,Sin fondos suficientes,no`,
  `subject,${REPORTS.clean.taxId},${REPORTS.clean.name},,,2026-10,,,,,,,,,,`,
  '',
].join('\n');
