// The desktop's bulk lookup channels (the "Consultas masivas" screen), merged into ipcContract.
// Operators may use them: a bulk job is lookups, which operators do. Each user sees and controls
// the jobs they started; admins see and control every job of the organization.
import { z } from 'zod';
import { productSlugSchema } from '../api/common';
import { languageSchema, timeZoneSchema } from '../language';
import { bulkInvalidRowSchema, bulkJobSchema, bulkResultRowSchema } from '../api/bulk';
import { damagedRowsSchema } from '../api/history';

/**
 * Largest input the desktop sends in one call (about 350,000 CBUs). Larger files go through
 * `titular bulk run FILE`, which reads the file itself.
 */
export const MAX_BULK_CONTENT_CHARS = 8 * 1024 * 1024;

const jobId = z.object({ id: z.string().min(1).max(64) });
const jobAnswer = z.object({ job: bulkJobSchema });

export const bulkIpcContract = {
  'bulk.create': {
    /** Finds the unfinished job of the same content (same user and product) or creates a new one; does not start it. */
    input: z.object({ name: z.string().max(200), product: productSlugSchema, content: z.string().min(1).max(MAX_BULK_CONTENT_CHARS) }),
    output: z.object({ job: bulkJobSchema, resumed: z.boolean(), completedBefore: bulkJobSchema.nullable() }),
    admin: false,
  },
  'bulk.list': {
    input: z.object({}).strict(),
    output: z.object({ jobs: z.array(bulkJobSchema) }),
    admin: false,
  },
  'bulk.get': {
    input: jobId,
    /** The job with its progress, and its first invalid rows with their reasons. */
    output: z.object({ job: bulkJobSchema, invalidRows: z.array(bulkInvalidRowSchema) }),
    admin: false,
  },
  'bulk.results': {
    /** The rows after row `after` (0: from the first) with their outcomes, 50 at a time; `next` is the `after` of the next page, null at the end. */
    input: jobId.extend({ after: z.number().int().min(0).default(0) }),
    output: z.object({ rows: z.array(bulkResultRowSchema), next: z.number().int().nullable() }),
    admin: false,
  },
  'bulk.start': { input: jobId, output: jobAnswer, admin: false },
  'bulk.pause': { input: jobId, output: jobAnswer, admin: false },
  'bulk.cancel': { input: jobId, output: jobAnswer, admin: false },
  'bulk.exportCsv': {
    /** The screen's language and time zone, which the file speaks (default Spanish, the core's zone). */
    input: jobId.extend({ language: languageSchema.optional(), timeZone: timeZoneSchema.optional() }),
    output: z.object({ fileName: z.string(), csv: z.string(), rows: z.number().int(), damaged: damagedRowsSchema }),
    admin: false,
  },
} as const;
