// Credit records for live Informes lookups in tests: a CSV in the documented import format that
// yields exactly the sandbox's sample reports (same CUITs, same answers), so tests that used to
// rely on live keys being answered from the sample data import these first.
import type { Fixture } from './fixture';
import { parseCreditFile } from '../../src/main/core/directory/credit-file';

export const CREDIT_CSV_HEADER =
  'record,tax_id,full_name,is_individual,tax_id_type,period,institution_code,institution_name,classification,amount,days_overdue,check_number,check_date,check_amount,check_reason,check_paid';

/** Equal, once imported, to SANDBOX_CREDIT_REPORTS (checked in test/credit-file.test.ts). */
export const CREDIT_RECORDS_CSV = [
  CREDIT_CSV_HEADER,
  'situation,20-28765432-5,Juan Carlos Pérez,,,2026-10,007,,1,1250.5,0,,,,,',
  'situation,20-28765432-5,Juan Carlos Pérez,,,2026-10,011,,1,310,0,,,,,',
  'situation,30-71234567-1,ACME Logística S.A.,,,2026-10,072,,3,48200,120,,,,,',
  'situation,30-71234567-1,ACME Logística S.A.,,,2026-10,017,,1,9800,0,,,,,',
  'check,30-71234567-1,ACME Logística S.A.,,,,072,,,,,00012345,2026-08-14,350000,Sin fondos suficientes,true',
  'check,30-71234567-1,ACME Logística S.A.,,,,072,,,,,00012391,2026-09-30,1200000,Sin fondos suficientes,false',
  'subject,27-31234567-1,María Laura González,,,2026-10,,,,,,,,,,',
  '',
].join('\n');

/** The reports' dates are in 2026-10; a clock after them keeps "in the future" checks quiet. */
export const CREDIT_CLOCK = Date.parse('2026-11-20T12:00:00.000Z');

/** Imports credit records (CSV by default) through the core, as the CLI does. */
export function importCreditRecords(f: Fixture, content = CREDIT_RECORDS_CSV, format: 'csv' | 'json' = 'csv'): void {
  const parsed = parseCreditFile(content, format, { now: Math.max(Date.now(), CREDIT_CLOCK) });
  if (parsed.errors.length > 0) throw new Error(`fixture credit records invalid: ${JSON.stringify(parsed.errors)}`);
  f.titular.creditReports.import(f.orgId, parsed, { skipInvalid: false, actorUserId: f.adminId });
}
