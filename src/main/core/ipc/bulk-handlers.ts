// The bulk channels (bulk-contract.ts) for a signed-in user. Jobs run in this process (Electron's
// main process or the headless server); the renderer polls `bulk.get` while one runs. Each user
// sees and controls the jobs they started; admins see and control every job of the organization.
import { recordBulkExport } from '../audit/export-audit';
import type { z } from 'zod';
import type { Titular } from '../titular';
import type { User } from '../users/users';
import type { bulkIpcContract } from '../../../shared/ipc/bulk-contract';
import { csvDialect } from '../export/csv-dialect';
import { DamagedAnswers } from '../history/stored-answer';

type BulkChannel = keyof typeof bulkIpcContract;
type Input<C extends BulkChannel> = z.output<(typeof bulkIpcContract)[C]['input']>;
type Output<C extends BulkChannel> = z.output<(typeof bulkIpcContract)[C]['output']>;
type BulkHandler<C extends BulkChannel> = (titular: Titular, user: User, input: Input<C>) => Promise<Output<C>> | Output<C>;

const INVALID_ROWS_SHOWN = 50;
const RESULT_ROWS_PER_PAGE = 50;

export const bulkHandlers: { [C in BulkChannel]: BulkHandler<C> } = {
  'bulk.create': (titular, user, input) =>
    titular.bulk.prepareWhenFree({ orgId: user.orgId, userId: user.id, product: input.product, name: input.name, content: input.content }),

  'bulk.list': (titular, user) => ({
    jobs: titular.bulk.listFor(user),
  }),

  'bulk.get': (titular, user, input) => {
    const job = titular.bulk.visibleTo(user, input.id);
    return { job, invalidRows: titular.bulk.invalidRows(user.orgId, job.id, INVALID_ROWS_SHOWN) };
  },

  'bulk.results': async (titular, user, input) => {
    const job = titular.bulk.visibleTo(user, input.id);
    const page = titular.bulk.results(user.orgId, job.id, input.after, RESULT_ROWS_PER_PAGE);
    // As the export: no outcome on screen that is not on disk yet (synchronous=FULL).
    await titular.commits.settled();
    return page;
  },

  'bulk.start': async (titular, user, input) => {
    const job = titular.bulk.visibleTo(user, input.id);
    return { job: await titular.bulk.start(user.orgId, job.id) };
  },

  'bulk.pause': async (titular, user, input) => ({ job: await titular.bulk.pause(user.orgId, titular.bulk.visibleTo(user, input.id).id) }),

  'bulk.cancel': async (titular, user, input) => ({ job: await titular.bulk.cancel(user.orgId, titular.bulk.visibleTo(user, input.id).id) }),

  'bulk.exportCsv': async (titular, user, input) => {
    const job = titular.bulk.visibleTo(user, input.id);
    const dialect = csvDialect(input.language ?? 'es', input.timeZone);
    const damaged = new DamagedAnswers();
    const csv = [...titular.bulk.exportCsv(user.orgId, job.id, dialect, damaged)].join('');
    // As history.exportCsv: no outcome in the file that is not on disk yet (synchronous=FULL).
    await titular.commits.settled();
    await titular.commits.writeAlone(() => recordBulkExport(titular.audit, user.orgId, user.id, { jobId: job.id, name: job.name, rows: job.totalRows }));
    // Letters, digits, `_`, `-` and single dots only (no "..", no leading dot): the desktop saves only
    // names of that shape (electron/download-policy.ts).
    const base = job.name.replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '-').replace(/\.{2,}/g, '-').slice(0, 60).replace(/^[-.]+|[-.]+$/g, '') || 'lote';
    const day = dialect.day(Date.parse(job.createdAt));
    return { fileName: `titular-${dialect.form === 'en' ? 'batch' : 'lote'}-${withIsoDay(base, day)}.csv`, csv, rows: job.totalRows, damaged: damaged.summary() };
  },
};

/**
 * A batch file's name part with the day it was made on as YYYY-MM-DD, as every export has it
 * (titular-historial-2026-11-23.csv), so the files sort by date. A name that already says the day in
 * another order (a pasted list is "Lista pegada 23/11/2026, 08:39:12") has it rewritten in place
 * rather than said twice; any other name gets the day appended.
 */
function withIsoDay(base: string, isoDay: string): string {
  if (base.includes(isoDay)) return base;
  const [y, m, d] = isoDay.split('-');
  const other = [`${d}-${m}-${y}`, `${m}-${d}-${y}`].find((form) => base.includes(form));
  return other ? base.replace(other, isoDay) : `${base}-${isoDay}`;
}
