// Answers sandbox keys from the fixed sample data set, including the identifiers that force PA011
// and GE500, so client developers can exercise every branch without spending credits.
import type { LookupData } from '../../../shared/api/lookup';
import type { CreditReport } from '../../../shared/api/credit';
import { UpstreamError, type AccountQuery, type AccountResolver, type CreditReportResolver, type Resolution } from './resolver';
import { SANDBOX_ACCOUNTS, SANDBOX_CREDIT_REPORTS, SANDBOX_UPSTREAM_FAILURE } from './sandbox-data';

const byNumber = new Map(SANDBOX_ACCOUNTS.map((a) => [a.account.number, a]));
const byAlias = new Map(SANDBOX_ACCOUNTS.map((a) => [a.alias.toLowerCase(), a]));
const reports = new Map(SANDBOX_CREDIT_REPORTS.map((r) => [r.subject.tax_id, r]));

export class SandboxResolver implements AccountResolver, CreditReportResolver {
  readonly name = 'sandbox' as const;

  async resolveAccount(query: AccountQuery): Promise<Resolution<LookupData>> {
    return this.resolveAccountNow(query);
  }

  resolveAccountNow(query: AccountQuery): Resolution<LookupData> {
    if (
      (query.kind === 'number' && query.number === SANDBOX_UPSTREAM_FAILURE.cbu) ||
      (query.kind === 'alias' && query.aliasKey === SANDBOX_UPSTREAM_FAILURE.alias)
    ) {
      throw new UpstreamError('Sandbox: simulated upstream failure');
    }
    const account = query.kind === 'number' ? byNumber.get(query.number) : byAlias.get(query.aliasKey);
    return account ? { found: true, data: structuredClone(account) } : { found: false };
  }

  async resolveCreditReport(query: { orgId: string; taxId: string }): Promise<Resolution<CreditReport>> {
    return this.resolveCreditReportNow(query);
  }

  resolveCreditReportNow(query: { orgId: string; taxId: string }): Resolution<CreditReport> {
    if (query.taxId === SANDBOX_UPSTREAM_FAILURE.taxId) throw new UpstreamError('Sandbox: simulated upstream failure');
    const report = reports.get(query.taxId);
    return report ? { found: true, data: structuredClone(report) } : { found: false };
  }
}
