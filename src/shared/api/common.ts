// Shapes shared by every endpoint: products, scopes, the error body and its codes.
import { z } from 'zod';

export const productSlugSchema = z.enum(['cbu', 'informes']);
export type ProductSlug = z.infer<typeof productSlugSchema>;

export const PRODUCT_NAMES: Record<ProductSlug, string> = {
  cbu: 'Consulta CBU',
  informes: 'Informe Crediticio',
};

export const scopeSchema = z.enum(['lookup', 'balance', 'history']);
export type Scope = z.infer<typeof scopeSchema>;

export const sourceSchema = z.enum(['WEB', 'API', 'BULK']);
export type LookupSource = z.infer<typeof sourceSchema>;

export const lookupStatusSchema = z.enum(['SUCCESS', 'ERROR']);
export type LookupStatus = z.infer<typeof lookupStatusSchema>;

export const errorCodeSchema = z.enum([
  'PA006',
  'PA011',
  'GE500',
  'INSUFFICIENT_CREDITS',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'RATE_LIMITED',
  'INVALID_PARAMETER',
  'NOT_FOUND',
  'KEY_LIMIT_REACHED',
  'IDEMPOTENCY_CONFLICT',
]);
export type ErrorCode = z.infer<typeof errorCodeSchema>;

export const errorBodySchema = z.object({
  success: z.literal(false),
  error: z.object({ code: errorCodeSchema, message: z.string() }),
  credits_remaining: z.number().int().nonnegative().optional(),
  request_id: z.string(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
