// GET/POST /api/v1/lookup: request and result (contract §2.1, §4.1).
import { z } from 'zod';

export const lookupTypeSchema = z.enum(['cbu', 'alias']);
export type LookupType = z.infer<typeof lookupTypeSchema>;

/** Documented shape of the request; validation itself is done by the lookup service to answer PA006. */
export const lookupRequestSchema = z.object({
  identifier: z.string().describe('A CBU/CVU (22 digits) or a bank alias (6–20 letters, digits, dots)'),
  type: lookupTypeSchema,
});
export type LookupRequest = z.infer<typeof lookupRequestSchema>;

export const taxIdTypeSchema = z.enum(['CUIT', 'CUIL']);

export const holderSchema = z.object({
  full_name: z.string(),
  tax_id: z.string(),
  tax_id_type: taxIdTypeSchema,
  is_individual: z.boolean(),
});
export type Holder = z.infer<typeof holderSchema>;

export const accountTypeSchema = z.enum(['CC', 'CA', 'VIRTUAL']);
export const currencySchema = z.enum(['ARS', 'USD']);
export const schemeSchema = z.enum(['CBU', 'CVU']);

export const lookupDataSchema = z.object({
  holders: z.array(holderSchema),
  account_type: accountTypeSchema,
  active: z.boolean(),
  currency: currencySchema,
  alias: z.string(),
  account: z.object({ scheme: schemeSchema, number: z.string() }),
  bank: z.object({ name: z.string(), code: z.string() }),
});
export type LookupData = z.infer<typeof lookupDataSchema>;

export const lookupResultSchema = z.object({
  success: z.literal(true),
  data: lookupDataSchema,
  credits_remaining: z.number().int().nonnegative(),
  request_id: z.string(),
});
export type LookupResult = z.infer<typeof lookupResultSchema>;
