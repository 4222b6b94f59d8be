// The bulk channels (bulk-contract.ts) for a signed-in user. Jobs run in this process (Electron's
// main process or the headless server); the renderer polls `bulk.get` while one runs. Each user
// sees and controls the jobs they started; admins see and control every job of the organization.
import type { z } from 'zod';
import type { Titular } from '../titular';
import type { User } from '../users/users';
import type { bulkIpcContract } from '../../../shared/ipc/bulk-contract';
import { csvDialect } from '../export/csv-dialect';

type BulkChannel = keyof typeof bulkIpcContract;
type Input<C extends BulkChannel> = z.output<(typeof bulkIpcContract)[C]['input']>;
type Output<C extends BulkChannel> = z.output<(typeof bulkIpcContract)[C]['output']>;
type BulkHandler<C extends BulkChannel> = (titular: Titular, user: User, input: Input<C>) => Promise<Output<C>> | Output<C>;

const INVALID_ROWS_SHOWN = 50;

export const bulkHandlers: { [C in BulkChannel]: BulkHandler<C> } = {
  'bulk.create': (titular, user, input) =>
    titular.bulk.prepare({ orgId: user.orgId, userId: user.id, product: input.product, name: input.name, content: input.content }),

  'bulk.list': (titular, user) => ({
    jobs: titular.bulk.listFor(user),
  }),

  'bulk.get': (titular, user, input) => {
    const job = titular.bulk.visibleTo(user, input.id);
    return { job, invalidRows: titular.bulk.invalidRows(user.orgId, job.id, INVALID_ROWS_SHOWN) };
  },

  'bulk.start': (titular, user, input) => {
    const job = titular.bulk.visibleTo(user, input.id);
    return { job: titular.bulk.start(user.orgId, job.id) };
  },

  'bulk.pause': async (titular, user, input) => ({ job: await titular.bulk.pause(user.orgId, titular.bulk.visibleTo(user, input.id).id) }),

  'bulk.cancel': async (titular, user, input) => ({ job: await titular.bulk.cancel(user.orgId, titular.bulk.visibleTo(user, input.id).id) }),

  'bulk.exportCsv': async (titular, user, input) => {
    const job = titular.bulk.visibleTo(user, input.id);
    const dialect = csvDialect(input.language ?? 'es', input.timeZone);
    const csv = [...titular.bulk.exportCsv(user.orgId, job.id, dialect)].join('');
    // As history.exportCsv: no outcome in the file that is not on disk yet (synchronous=FULL).
    await titular.commits.settled();
    const base = job.name.replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'lote';
    const day = dialect.day(Date.parse(job.createdAt));
    return { fileName: `titular-${dialect.form === 'en' ? 'batch' : 'lote'}-${carriesDay(base, day) ? base : `${base}-${day}`}.csv`, csv, rows: job.totalRows };
  },
};

/**
 * Whether a batch's name already says the day it was made on (a pasted list is named "Lista pegada
 * 23/11/2026, 08:39"), in any order of day, month and year: its file then gets no second date.
 */
function carriesDay(base: string, isoDay: string): boolean {
  const [y, m, d] = isoDay.split('-');
  return [`${d}-${m}-${y}`, `${y}-${m}-${d}`, `${m}-${d}-${y}`].some((form) => base.includes(form));
}
