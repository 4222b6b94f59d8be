// The sandbox's fixed sample data set (documented in the README, "Sandbox identifiers"). Every
// account number and tax id below has valid check digits; none is a real person's account.
// Identifiers in SANDBOX_NOT_FOUND answer PA011, those in SANDBOX_UPSTREAM_FAILURE answer GE500.
import type { LookupData } from '../../../shared/api/lookup';
import type { CreditReport } from '../../../shared/api/credit';

export const SANDBOX_ACCOUNTS: readonly LookupData[] = [
  {
    holders: [{ full_name: 'María Laura González', tax_id: '27312345671', tax_id_type: 'CUIL', is_individual: true }],
    account_type: 'CC',
    active: true,
    currency: 'ARS',
    alias: 'maria.gonzalez.cc',
    account: { scheme: 'CBU', number: '0110001300000012345674' },
    bank: { name: 'Banco de la Nación Argentina', code: '011' },
  },
  {
    holders: [
      { full_name: 'Juan Carlos Pérez', tax_id: '20287654325', tax_id_type: 'CUIL', is_individual: true },
      { full_name: 'Ana López', tax_id: '27333333339', tax_id_type: 'CUIL', is_individual: true },
    ],
    account_type: 'CA',
    active: true,
    currency: 'USD',
    alias: 'perez.lopez.usd',
    account: { scheme: 'CBU', number: '0070999000000076543218' },
    bank: { name: 'Banco de Galicia y Buenos Aires S.A.', code: '007' },
  },
  {
    holders: [{ full_name: 'Martín Rodríguez', tax_id: '23298765438', tax_id_type: 'CUIT', is_individual: true }],
    account_type: 'VIRTUAL',
    active: true,
    currency: 'ARS',
    alias: 'martin.rodriguez.mp',
    account: { scheme: 'CVU', number: '0000003110000123456781' },
    bank: { name: 'Mercado Pago', code: '0000003' },
  },
  {
    holders: [{ full_name: 'ACME Logística S.A.', tax_id: '30712345671', tax_id_type: 'CUIT', is_individual: false }],
    account_type: 'CC',
    active: true,
    currency: 'ARS',
    alias: 'acme.logistica',
    account: { scheme: 'CBU', number: '0720210200000456789014' },
    bank: { name: 'Banco Santander Argentina S.A.', code: '072' },
  },
  {
    holders: [{ full_name: 'Sofía Fernández', tax_id: '20444444445', tax_id_type: 'CUIL', is_individual: true }],
    account_type: 'CA',
    active: false,
    currency: 'ARS',
    alias: 'cuenta.inactiva',
    account: { scheme: 'CBU', number: '2850300200000987654326' },
    bank: { name: 'Banco Macro S.A.', code: '285' },
  },
];

/** Valid identifiers that the sandbox answers with PA011 (not found). */
export const SANDBOX_NOT_FOUND = { cbu: '0110001399999999999993', alias: 'alias.inexistente', taxId: '30500012346' } as const;

/** Valid identifiers that the sandbox answers with GE500 (upstream down, HTTP 503, no credit). */
export const SANDBOX_UPSTREAM_FAILURE = { cbu: '0170500300000000050005', alias: 'falla.upstream', taxId: '33999999994' } as const;

export const SANDBOX_CREDIT_REPORTS: readonly CreditReport[] = [
  {
    subject: { full_name: 'Juan Carlos Pérez', tax_id: '20287654325', tax_id_type: 'CUIL', is_individual: true },
    period: '2026-10',
    situations: [
      { institution: { code: '007', name: 'Banco de Galicia y Buenos Aires S.A.' }, classification: 1, amount: 1250.5, period: '2026-10', days_overdue: 0 },
      { institution: { code: '011', name: 'Banco de la Nación Argentina' }, classification: 1, amount: 310, period: '2026-10', days_overdue: 0 },
    ],
    totals: { amount: 1560.5, institutions: 2, worst_classification: 1 },
    bounced_checks: [],
  },
  {
    subject: { full_name: 'ACME Logística S.A.', tax_id: '30712345671', tax_id_type: 'CUIT', is_individual: false },
    period: '2026-10',
    situations: [
      { institution: { code: '072', name: 'Banco Santander Argentina S.A.' }, classification: 3, amount: 48200, period: '2026-10', days_overdue: 120 },
      { institution: { code: '017', name: 'Banco BBVA Argentina S.A.' }, classification: 1, amount: 9800, period: '2026-10', days_overdue: 0 },
    ],
    totals: { amount: 58000, institutions: 2, worst_classification: 3 },
    bounced_checks: [
      { number: '00012345', date: '2026-08-14', amount: 350000, reason: 'Sin fondos suficientes', institution: { code: '072', name: 'Banco Santander Argentina S.A.' }, paid: true },
      { number: '00012391', date: '2026-09-30', amount: 1200000, reason: 'Sin fondos suficientes', institution: { code: '072', name: 'Banco Santander Argentina S.A.' }, paid: false },
    ],
  },
  {
    subject: { full_name: 'María Laura González', tax_id: '27312345671', tax_id_type: 'CUIL', is_individual: true },
    period: '2026-10',
    situations: [],
    totals: { amount: 0, institutions: 0, worst_classification: null },
    bounced_checks: [],
  },
];
