// Exports in the audit trail. The history and a batch's results name account holders and tax ids:
// personal data leaving Titular in a file. Which user took which lookups out, and when, is asked
// after a leak or by the data-protection rules a back office answers to (Argentina's Ley 25.326), so
// every export is recorded — the desktop's, the browser mode's and the CLI's — once it is whole:
// one the user stopped (Ctrl-C) or that failed to write took nothing out.
import type { AuditLog } from './audit-log';

/** A history export: how many entries, which product and environment, the filters, the form. */
export interface HistoryExport {
  rows: number;
  product: 'cbu' | 'informes';
  environment: 'live' | 'sandbox';
  format: 'csv' | 'json';
  /** The filters as given (dates as written), only those set. */
  filters: { from?: string; to?: string; status?: string; source?: string; q?: string };
}

/** A bulk job's results: which job, how many rows. */
export interface BulkExport {
  jobId: string;
  name: string;
  rows: number;
}

export function recordHistoryExport(audit: AuditLog, orgId: string, actorUserId: string, done: HistoryExport): void {
  const filters = Object.fromEntries(Object.entries(done.filters).filter(([, value]) => value !== undefined && value !== ''));
  audit.record({
    orgId,
    actorUserId,
    action: 'history.exported',
    targetType: 'history',
    details: { rows: done.rows, product: done.product, environment: done.environment, format: done.format, ...(Object.keys(filters).length > 0 ? { filters } : {}) },
  });
}

export function recordBulkExport(audit: AuditLog, orgId: string, actorUserId: string, done: BulkExport): void {
  audit.record({ orgId, actorUserId, action: 'bulk.exported', targetType: 'bulk_job', targetId: done.jobId, details: { name: done.name, rows: done.rows } });
}
