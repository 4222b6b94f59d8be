// The organization's credit reports (imported from credit-record files, credit-file.ts) and the
// resolver that answers live Informes lookups from them. Import is all-or-nothing unless the
// caller skips invalid rows; re-importing a tax id replaces its report.
import type Database from 'better-sqlite3';
import type { CreditReport } from '../../../shared/api/credit';
import { uuidv7 } from '../db/ids';
import type { AuditLog } from '../audit/audit-log';
import type { CreditReportResolver, Resolution } from '../resolvers/resolver';
import type { ParsedCreditFile, WithheldSubject } from './credit-file';
import type { DirectoryRowError } from './directory-file';
import { DamagedRecordError, isDamaged, storedObject } from '../db/stored-json';

export interface CreditImportReport {
  /** Reports written (new or replacing). */
  imported: number;
  /** Reports that replaced an existing report for the same tax id. */
  replaced: number;
  rows: number;
  errors: DirectoryRowError[];
  /** Subjects not imported because one of their rows is invalid. */
  withheld: WithheldSubject[];
  /** False when nothing was written. */
  committed: boolean;
}

/** What a lookup of a CUIT/CUIL whose stored report cannot be read is told (500 GE500, not charged). */
export const DAMAGED_REPORT_MESSAGE =
  "The stored credit report for this CUIT/CUIL cannot be read (it is damaged in Titular's database); import the credit records again";

export class CreditReports implements CreditReportResolver {
  readonly name = 'directory' as const;
  readonly #byTaxId: Database.Statement<[string, string], { id: string; report: string }>;
  readonly #upsert: Database.Statement<[string, string, string, string, number]>;
  readonly #exists: Database.Statement<[string, string], { id: string }>;
  readonly #count: Database.Statement<[string], { n: number }>;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly audit: AuditLog,
  ) {
    this.#byTaxId = sqlite.prepare('SELECT id, report FROM directory_credit_reports WHERE org_id = ? AND tax_id = ?');
    this.#upsert = sqlite.prepare(
      `INSERT INTO directory_credit_reports (id, org_id, tax_id, report, imported_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (org_id, tax_id) DO UPDATE SET report = excluded.report, imported_at = excluded.imported_at`,
    );
    this.#exists = sqlite.prepare('SELECT id FROM directory_credit_reports WHERE org_id = ? AND tax_id = ?');
    this.#count = sqlite.prepare('SELECT COUNT(*) AS n FROM directory_credit_reports WHERE org_id = ?');
  }

  async resolveCreditReport(query: { orgId: string; taxId: string }): Promise<Resolution<CreditReport>> {
    return this.resolveCreditReportNow(query);
  }

  /** Synchronous form (the table is local). The report was validated on import; one that is no longer a JSON object is damaged. */
  resolveCreditReportNow(query: { orgId: string; taxId: string }): Resolution<CreditReport> {
    const row = this.#byTaxId.get(query.orgId, query.taxId);
    if (!row) return { found: false };
    const report = storedObject(row.report);
    if (isDamaged(report)) throw new DamagedRecordError(DAMAGED_REPORT_MESSAGE, row.id);
    return { found: true, data: report as unknown as CreditReport };
  }

  count(orgId: string): number {
    return this.#count.get(orgId)?.n ?? 0;
  }

  /** Writes the parsed reports in one transaction, with an audit entry. With errors and no skip, writes nothing. */
  import(orgId: string, parsed: ParsedCreditFile, options: { skipInvalid: boolean; actorUserId: string | null; fileName?: string }): CreditImportReport {
    const base = { rows: parsed.rows, errors: parsed.errors, withheld: parsed.withheld };
    // Nothing valid to write (or errors without --skip-invalid): write nothing, not even an audit entry.
    if ((parsed.errors.length > 0 && !options.skipInvalid) || parsed.reports.length === 0) {
      return { imported: 0, replaced: 0, ...base, committed: false };
    }
    const now = Date.now();
    let replaced = 0;
    this.sqlite
      .transaction(() => {
        for (const report of parsed.reports) {
          const taxId = report.subject.tax_id;
          if (this.#exists.get(orgId, taxId)) replaced++;
          this.#upsert.run(uuidv7(now), orgId, taxId, JSON.stringify(report), now);
        }
        this.audit.record({
          orgId,
          actorUserId: options.actorUserId,
          action: 'directory.credit_reports_imported',
          targetType: 'directory',
          details: {
            file: options.fileName ?? null,
            reports: parsed.reports.length,
            replaced,
            skippedRows: parsed.errors.length,
            withheldSubjects: parsed.withheld.length,
          },
        });
      })
      .immediate();
    return { imported: parsed.reports.length, replaced, ...base, committed: true };
  }
}
