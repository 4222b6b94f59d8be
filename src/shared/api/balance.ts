// GET /api/v1/balance (contract §2.2, §4.2).
import { z } from 'zod';
import { productSlugSchema } from './common';

/** The most credits one purchase may add (the ledger, the IPC contract and the Saldo form agree). */
export const MAX_PURCHASE = 100_000_000;

export const balanceEntrySchema = z.object({
  productId: z.string(),
  productName: z.string(),
  productSlug: productSlugSchema,
  // Never below zero (ledger invariant: a charge needs a credit), so the document says so.
  balance: z.number().int().nonnegative(),
  totalPurchased: z.number().int().nonnegative(),
  totalConsumed: z.number().int().nonnegative(),
});
export type BalanceEntry = z.infer<typeof balanceEntrySchema>;

export const balanceResponseSchema = z.object({ balances: z.array(balanceEntrySchema) });
export type BalanceResponse = z.infer<typeof balanceResponseSchema>;
