// Bulk lookup jobs (source BULK) as every interface shows them: the desktop (IPC), the CLI's --json
// and the core. A job looks up each distinct valid identifier of its input once.
import { z } from 'zod';
import { productSlugSchema } from './common';

export const bulkJobStatusSchema = z.enum(['pending', 'running', 'paused', 'out_of_credits', 'completed', 'cancelled']);
export type BulkJobStatus = z.infer<typeof bulkJobStatusSchema>;

/** Statuses a job can still be started or resumed from. */
export const RESUMABLE_STATUSES: readonly BulkJobStatus[] = ['pending', 'running', 'paused', 'out_of_credits'];

/**
 * Counts over the job's distinct identifiers (items). `done` items are final (200, 404, or a PA006
 * the service still refused) and are never looked up again; `retryable` items were answered GE500
 * (no charge) and stay pending for the next run.
 */
export const bulkProgressSchema = z.object({
  total: z.number().int(),
  done: z.number().int(),
  /** total - done: what a resume will still look up (and at most charge). */
  remaining: z.number().int(),
  charged: z.number().int(),
  found: z.number().int(),
  notFound: z.number().int(),
  /** Done items answered with an error other than not found (PA006). */
  errors: z.number().int(),
  /** Pending items whose last attempt was a GE500 (data source down): retried on resume, never charged twice. */
  retryable: z.number().int(),
  /** Identifiers per second of the run in progress in this process; null when none is running here. */
  ratePerSecond: z.number().nullable(),
  etaSeconds: z.number().nullable(),
});
export type BulkProgress = z.infer<typeof bulkProgressSchema>;

export const bulkInvalidRowSchema = z.object({ row: z.number().int(), input: z.string(), message: z.string() });

/**
 * One input row of a job with the outcome of the lookup that answered it: the facts of the CSV
 * export's row (`titular bulk export`), for the desktop's results table. A repeated identifier
 * shows its first row's outcome and consumes nothing itself.
 */
export const bulkResultRowSchema = z.object({
  row: z.number().int(),
  input: z.string(),
  /** The identifier looked up (normalized); null for an invalid row. */
  identifier: z.string().nullable(),
  status: z.enum(['SUCCESS', 'ERROR', 'INVALID', 'PENDING']),
  /** PA006, PA011, GE500…; null on success, for invalid rows and pending ones. */
  code: z.string().nullable(),
  /** Why an invalid row was not looked up, or the lookup's error message (English, as stored). */
  message: z.string().nullable(),
  creditConsumed: z.number().int(),
  duplicateOfRow: z.number().int().nullable(),
  /** The account holders, or a credit report's subject. */
  holders: z.array(z.object({ name: z.string(), taxId: z.string() })),
  bank: z.string().nullable(),
  /**
   * A credit report's figures (Informes jobs): the worst BCRA classification (null: no debts), the
   * total debt in thousands of pesos as the report has it, and its bounced checks; null otherwise.
   */
  report: z.object({ worstClassification: z.number().int().nullable(), totalAmount: z.number(), bouncedChecks: z.number().int() }).nullable(),
  /** The lookup's stored answer cannot be read (history/stored-answer.ts): shown without holders and bank. */
  damaged: z.boolean(),
});
export type BulkResultRow = z.infer<typeof bulkResultRowSchema>;

export const bulkJobSchema = z.object({
  id: z.string(),
  name: z.string(),
  product: productSlugSchema,
  status: bulkJobStatusSchema,
  user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
  /** Input rows (lines) read, including invalid and repeated ones. */
  totalRows: z.number().int(),
  /** Distinct valid identifiers: what the job looks up and at most charges. */
  totalItems: z.number().int(),
  invalidRows: z.number().int(),
  /** Valid rows that repeat an identifier seen earlier in the input (answered by that lookup). */
  duplicateRows: z.number().int(),
  progress: bulkProgressSchema,
  /** Whether this process is running the job right now. */
  active: z.boolean(),
  /**
   * Whether another process (the CLI, another window) runs it: its status is `running` and its
   * lookups committed in the last 90 s. `running` with neither is a run that was interrupted.
   */
  runningElsewhere: z.boolean(),
  /** Why the last run in this process stopped early, if it failed (not a lookup outcome). */
  lastError: z.string().nullable(),
});
export type BulkJobView = z.infer<typeof bulkJobSchema>;
