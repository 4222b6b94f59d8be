// GET /api/v1/history (contract §2.3, §2.4, §4.3; decisions "History").
import { z } from 'zod';
import { lookupStatusSchema, sourceSchema } from './common';
import { DAY_MS } from '../day';

export const MAX_PAGE = 100_000_000;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
// ISO 8601 instants with an explicit zone (Z or ±hh:mm), optional seconds and fraction.
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Parses a `from`/`to` bound to epoch ms; a date `to` covers that whole day. */
export function parseHistoryBound(value: string, bound: 'from' | 'to'): number | null {
  if (DATE_ONLY.test(value)) {
    const start = Date.parse(`${value}T00:00:00.000Z`);
    if (Number.isNaN(start) || new Date(start).toISOString().slice(0, 10) !== value) return null;
    return bound === 'from' ? start : start + DAY_MS - 1;
  }
  if (!INSTANT.test(value)) return null;
  // Date.parse rolls 2026-02-30 over to March: check the calendar date as written first.
  const day = value.slice(0, 10);
  const dayStart = Date.parse(`${day}T00:00:00.000Z`);
  if (Number.isNaN(dayStart) || new Date(dayStart).toISOString().slice(0, 10) !== day) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

// A whole number in the query string. It arrives as text, but the OpenAPI document describes it as
// the integer it stands for (the `meta`, with the text's pattern dropped by components.ts), so that
// generated clients take a number.
const positiveInt = (name: string, max: number, fallback: number) =>
  z
    .string({ error: once(name) })
    .regex(/^\d{1,15}$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= 1, `${name} must be at least 1`)
    .refine((n) => n <= max, `${name} must be at most ${max}`)
    .meta({ type: 'integer', minimum: 1, maximum: max })
    .default(fallback);

const bound = (name: 'from' | 'to') =>
  z.string({ error: once(name) }).transform((value, ctx) => {
    const ms = parseHistoryBound(value, name);
    if (ms === null) {
      // An unencoded "+" in a query string arrives as a space: "…T11:00:00 03:00".
      const plus = / \d{2}:?\d{2}$/.test(value) ? '; send the + of an offset as %2B' : '';
      ctx.addIssue({ code: 'custom', message: `${name} must be an ISO 8601 date or instant (e.g. 2026-11-01)${plus}` });
      return z.NEVER;
    }
    return ms;
  });

/**
 * Every message names its parameter and says what to send, in the API's words rather than the
 * validation library's ("status must be SUCCESS or ERROR", not "Invalid option: expected one of").
 * A parameter given twice (`page=2&page=3`) arrives as an array: said as such, as the lookups say it.
 */
function once(name: string): string {
  return `${name} must be given once`;
}
function oneOf<const T extends Readonly<Record<string, string>>>(name: string, values: T) {
  const words = Object.values(values);
  const said = `${name} must be ${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
  return z.enum(values, { error: (issue) => (Array.isArray(issue.input) ? once(name) : said) });
}

/** Query string of GET /history, as received (strings), parsed into a typed filter. */
export const historyQuerySchema = z
  .object({
    // Bounded so that (page - 1) × per_page stays a safe SQLite OFFSET.
    page: positiveInt('page', MAX_PAGE, 1),
    per_page: positiveInt('per_page', 50, 10),
    from: bound('from').optional(),
    to: bound('to').optional(),
    status: oneOf('status', lookupStatusSchema.enum).optional(),
    source: oneOf('source', sourceSchema.enum).optional(),
    /** Titular extension: substring of the looked-up identifier (used by the desktop's search box). */
    q: z.string({ error: once('q') }).max(64, 'q must be at most 64 characters').optional(),
  })
  .strict()
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
    message: 'from must not be after to',
  });
export type HistoryQuery = z.output<typeof historyQuerySchema>;

export const historyEntrySchema = z.object({
  id: z.string(),
  inputIdentifier: z.string(),
  inputType: z.enum(['CBU', 'CVU', 'ALIAS', 'CUIT']),
  status: lookupStatusSchema,
  source: sourceSchema,
  responseData: z.record(z.string(), z.unknown()),
  upstreamLatencyMs: z.number().int().nonnegative(),
  creditConsumed: z.number().int().nonnegative(),
  createdAt: z.string(),
  user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

/** The fields of a history entry whose stored cell Titular may find unreadable (a damaged cell), in the order an entry lists them. */
export const DAMAGED_FIELDS = ['inputIdentifier', 'inputType', 'status', 'source', 'responseData', 'upstreamLatencyMs', 'creditConsumed', 'createdAt'] as const;
export const damagedFieldSchema = z.enum(DAMAGED_FIELDS);
export type DamagedField = z.infer<typeof damagedFieldSchema>;

/**
 * An entry as the desktop and the CLI's JSON export see it: the contract's fields, plus the API key a
 * lookup came through (`null` for the desktop's own lookups and its batches). `user` is then the key's
 * owner, who did not make the lookup: the key says which tool did. The key's name and its prefix are
 * as Claves lists them now (a rotation changes the prefix, not the key). `GET /api/v1/history` answers
 * the contract's fields only (routes/account-routes.ts).
 */
export const keyedHistoryEntrySchema = historyEntrySchema.extend({
  // A field whose stored cell is not a value Titular writes (another tool wrote it, or a bit flipped
  // on disk: a status that is neither SUCCESS nor ERROR, credits that are not a whole number) is
  // null here and named in `damaged`; an unreadable answer is `{ "damaged": true }` and named too.
  // `GET /api/v1/history` has no such field and no null in its shape: it leaves such an entry out
  // (history/stored-entry.ts contractEntry).
  inputIdentifier: z.string().nullable(),
  inputType: historyEntrySchema.shape.inputType.nullable(),
  status: lookupStatusSchema.nullable(),
  source: sourceSchema.nullable(),
  upstreamLatencyMs: historyEntrySchema.shape.upstreamLatencyMs.nullable(),
  creditConsumed: historyEntrySchema.shape.creditConsumed.nullable(),
  createdAt: z.string().nullable(),
  apiKey: z.object({ id: z.string(), name: z.string().nullable(), prefix: z.string() }).nullable(),
  /** The fields whose stored cell cannot be read, in this order; absent when every one can. */
  damaged: z.array(damagedFieldSchema).min(1).optional(),
});
export type KeyedHistoryEntry = z.infer<typeof keyedHistoryEntrySchema>;

/** An entry's fields that cannot be read besides its answer (which the contract can mark, as `{ "damaged": true }`). */
export function damagedFields(entry: Pick<KeyedHistoryEntry, 'damaged'>): DamagedField[] {
  return entry.damaged?.filter((field) => field !== 'responseData') ?? [];
}

export const paginationSchema = z.object({
  page: z.number().int().min(1),
  per_page: z.number().int().min(1).max(50),
  total: z.number().int().nonnegative(),
  total_pages: z.number().int().nonnegative(),
});

export const historyResponseSchema = z.object({
  data: z.array(historyEntrySchema),
  pagination: paginationSchema,
});
export type HistoryResponse = z.infer<typeof historyResponseSchema>;

/**
 * What the desktop's CSV exports (history.exportCsv, bulk.exportCsv) add to their file: how many of
 * its rows went without their stored answer, which cannot be read (`responseData` is then
 * `{ "damaged": true }`), and the first one's lookup id (and bulk row); null when none.
 */
export const damagedRowsSchema = z.object({ count: z.number().int().positive(), firstId: z.string(), firstRow: z.number().int().optional() }).nullable();

/**
 * What history.exportCsv adds besides: how many of its entries went without other fields whose stored
 * cells cannot be read (empty in the file), and the first one's id and fields; null when none.
 */
export const damagedFieldsSchema = z.object({ count: z.number().int().positive(), firstId: z.string(), fields: z.array(damagedFieldSchema).min(1) }).nullable();

/**
 * And how many of the organization's entries are in no history, their environment or product
 * unreadable (so no export includes them), and the newest one's id; null when none.
 */
export const unplacedEntriesSchema = z.object({ count: z.number().int().positive(), firstId: z.string() }).nullable();

/** A page as the desktop sees it (IPC `history.list`): the entries with their keys. */
export const keyedHistoryPageSchema = z.object({ data: z.array(keyedHistoryEntrySchema), pagination: paginationSchema });
export type KeyedHistoryPage = z.infer<typeof keyedHistoryPageSchema>;
