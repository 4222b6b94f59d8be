// POST /api/v1/credit/lookup (Informes product). The contract leaves the shape to us (decisions
// "POST endpoints"): the subject, the BCRA debt situation per institution, totals and bounced checks.
import { z } from 'zod';
import { taxIdTypeSchema } from './lookup';

export const creditLookupRequestSchema = z.object({
  tax_id: z.string().describe('CUIT/CUIL, 11 digits, dashes optional (e.g. 20-12345678-6)'),
});
export type CreditLookupRequest = z.infer<typeof creditLookupRequestSchema>;

/** BCRA debtor classification: 1 normal … 5 irrecoverable, 6 irrecoverable by technical disposition. */
export const bcraClassificationSchema = z.number().int().min(1).max(6);

export const debtSituationSchema = z.object({
  institution: z.object({ code: z.string(), name: z.string() }),
  classification: bcraClassificationSchema,
  /** Debt in thousands of ARS, as the BCRA Central de Deudores reports it. */
  amount: z.number().nonnegative(),
  /** Reporting period, YYYY-MM. */
  period: z.string(),
  days_overdue: z.number().int().nonnegative(),
});

export const bouncedCheckSchema = z.object({
  number: z.string(),
  date: z.string(),
  amount: z.number().nonnegative(),
  reason: z.string(),
  institution: z.object({ code: z.string(), name: z.string() }),
  paid: z.boolean(),
});

export const creditReportSchema = z.object({
  subject: z.object({
    full_name: z.string(),
    tax_id: z.string(),
    tax_id_type: taxIdTypeSchema,
    is_individual: z.boolean(),
  }),
  period: z.string(),
  situations: z.array(debtSituationSchema),
  totals: z.object({
    amount: z.number().nonnegative(),
    institutions: z.number().int().nonnegative(),
    worst_classification: bcraClassificationSchema.nullable(),
  }),
  bounced_checks: z.array(bouncedCheckSchema),
});
export type CreditReport = z.infer<typeof creditReportSchema>;

export const creditLookupResultSchema = z.object({
  success: z.literal(true),
  data: creditReportSchema,
  credits_remaining: z.number().int().nonnegative(),
  request_id: z.string(),
});
export type CreditLookupResult = z.infer<typeof creditLookupResultSchema>;
