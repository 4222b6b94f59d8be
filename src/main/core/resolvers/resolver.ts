// Where lookups are answered (decisions "Where lookups are resolved"). The lookup service does not
// care which implementation answers; it measures the call and applies the credit rules.
import type { LookupData } from '../../../shared/api/lookup';
import type { CreditReport } from '../../../shared/api/credit';

export type AccountQuery =
  | { orgId: string; kind: 'number'; number: string }
  | { orgId: string; kind: 'alias'; aliasKey: string };

export type Resolution<T> = { found: true; data: T } | { found: false };

/** How a lookup that may reach an upstream is sent there. */
export interface ResolveOptions {
  /**
   * The `Idempotency-Key` the remote resolver sends upstream on every attempt: one derived from the
   * lookup's own identity when it has one that a retry repeats (an API Idempotency-Key, a bulk item),
   * so that the same lookup run again is replayed upstream, not charged there again. Absent: each
   * call makes a key of its own. Local resolvers have no upstream and ignore it.
   */
  idempotencyKey?: string;
}

export interface AccountResolver {
  readonly name: 'sandbox' | 'directory' | 'remote';
  /** Throws UpstreamError when the source cannot answer (GE500, no credit consumed). */
  resolveAccount(query: AccountQuery, options?: ResolveOptions): Promise<Resolution<LookupData>>;
  /**
   * Present on resolvers that answer at once from memory or this database (sandbox, directory):
   * the lookup then resolves inside the transaction that records it, where a read costs no lock
   * of its own and sees the same snapshot as the charge.
   */
  resolveAccountNow?(query: AccountQuery): Resolution<LookupData>;
}

export interface CreditReportResolver {
  readonly name: 'sandbox' | 'directory' | 'remote';
  /** `taxId`: 11 validated digits. Throws UpstreamError when the source cannot answer. */
  resolveCreditReport(query: { orgId: string; taxId: string }, options?: ResolveOptions): Promise<Resolution<CreditReport>>;
  /** As AccountResolver.resolveAccountNow. */
  resolveCreditReportNow?(query: { orgId: string; taxId: string }): Resolution<CreditReport>;
}

/**
 * The public reason when lookups are set to go to the remote API and its address or upstream key is
 * missing (or refused): no wait fixes that, an administrator does, so the answer says so instead of
 * "try again shortly". The details (which one, why a URL is refused) stay in Ajustes' last error.
 */
export const REMOTE_NOT_SET_UP =
  'the remote API Titular is set to use is not set up (its address or its upstream key is missing); an administrator can set it in Ajustes or with `titular remote set`';

/** The upstream could not answer: HTTP 503 GE500 with Retry-After, and no credit taken. */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
    /**
     * Why, in a sentence fit for API clients and operators, when it is something on this side that an
     * administrator can fix (the vault locked). Otherwise the answer says only that the source is
     * unavailable: upstream details are for the admin (Ajustes, the audit log).
     */
    readonly publicReason?: string,
  ) {
    super(message);
  }
}
