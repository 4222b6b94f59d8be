// A lookup from the moment its caller is known to be allowed (auth, product, scope, IP and rate
// limit are the interface's job) to its answer: the credit check, validation, resolution, and the
// one transaction that writes the history entry, the charge and the idempotency record together.
//
// Credit rules (contract §7, decisions "Order of checks"):
//   402 INSUFFICIENT_CREDITS  live key, balance 0                  no credit, no history
//   400 PA006                 invalid identifier or type           1 credit
//   200                       found                                1 credit
//   404 PA011                 not found                            1 credit
//   503/500 GE500             upstream down / internal fault       no credit (history entry kept)
// Sandbox lookups never consume credits and are recorded in the sandbox history.
import type { CommitQueue } from '../db/commit-queue';
import { requestId as newRequestId, uuidv7 } from '../db/ids';
import type { Ledger } from '../ledger/ledger';
import type { History, InputType } from '../history/history';
import { maskKeys, type KeyEnvironment } from '../keys/secrets';
import { UpstreamError, type AccountQuery, type AccountResolver, type Resolution } from '../resolvers/resolver';
import type { IdempotencyScope, IdempotencyStore } from './idempotency';
import type { ErrorBody, ErrorCode, LookupSource, ProductSlug } from '../../../shared/api/common';
import { analyzeAlias, analyzeCbu, analyzeTaxId, normalizeIdentifierInput } from '../../../shared/identifiers';
import type { LookupData } from '../../../shared/api/lookup';
import type { CreditReport } from '../../../shared/api/credit';
import type { ResolverSet } from './resolver-set';

export interface LookupContext {
  orgId: string;
  environment: KeyEnvironment;
  source: LookupSource;
  /** The user the history entry names: the signed-in user (WEB), the key's owner (API), the batch's starter (BULK). */
  userId: string;
  apiKeyId: string | null;
  requestId?: string;
  idempotency?: IdempotencyScope | null;
  /**
   * Called inside the transaction that writes the history entry (and the charge, when one is
   * taken), so the caller's own record of the outcome commits or rolls back with it. Bulk jobs
   * mark their item done here: a done item is never looked up, or charged, again.
   */
  onCommit?: (outcome: CommittedOutcome) => void;
}

export interface CommittedOutcome {
  lookupId: string;
  status: number;
  /** The error code, or null for a 200. */
  code: ErrorCode | null;
  charged: boolean;
  createdAt: number;
}

export interface LookupAnswer {
  status: number;
  body: { success: true; data: unknown; credits_remaining: number; request_id: string } | ErrorBody;
  headers?: Record<string, string>;
  /** Whether this answer took a credit (false for sandbox, replays and system errors). */
  charged: boolean;
  /** History entry id, when one was written. */
  lookupId?: string;
}

/** What validation made of the input: where to look, or why it is invalid. */
type Validated<T> =
  | {
      ok: true;
      inputIdentifier: string;
      inputType: InputType;
      resolve: () => Promise<Resolution<T>> | Resolution<T>;
      /** The resolver's synchronous form, when it has one: run inside the recording transaction. */
      resolveNow: (() => Resolution<T>) | null;
    }
  | { ok: false; inputIdentifier: string; inputType: InputType; message: string };

/** How a lookup ended, before the credit rules and the history entry are applied to it. */
type Outcome =
  | { status: 200; data: unknown; latencyMs: number }
  | { status: number; code: ErrorCode; message: string; latencyMs: number; retryAfterSeconds?: number };

const MAX_STORED_INPUT = 64;

export class LookupService {
  constructor(
    private readonly deps: {
      commits: CommitQueue;
      ledger: Ledger;
      history: History;
      idempotency: IdempotencyStore;
      resolvers: ResolverSet;
    },
  ) {}

  /** GET/POST /api/v1/lookup, the desktop's Consulta screen and bulk jobs. */
  lookupAccount(ctx: LookupContext, input: { identifier: unknown; type: unknown }): Promise<LookupAnswer> {
    return this.#idempotent(ctx, () => this.#run(ctx, 'cbu', () => this.#validateAccount(ctx, input)));
  }

  /** POST /api/v1/credit/lookup (Informes). */
  lookupCreditReport(ctx: LookupContext, input: { tax_id: unknown }): Promise<LookupAnswer> {
    return this.#idempotent(ctx, () => this.#run<CreditReport>(ctx, 'informes', () => {
      const raw = typeof input.tax_id === 'string' ? input.tax_id : '';
      const analysis = analyzeTaxId(raw);
      if (!analysis.ok) {
        const message = typeof input.tax_id === 'string' ? analysis.message : 'tax_id is required (CUIT/CUIL, 11 digits)';
        return { ok: false, inputIdentifier: storedInput(raw), inputType: 'CUIT', message };
      }
      const resolver = this.deps.resolvers.creditReports(ctx.environment);
      const query = { orgId: ctx.orgId, taxId: analysis.taxId };
      return {
        ok: true,
        inputIdentifier: analysis.taxId,
        inputType: 'CUIT',
        resolve: () => resolver.resolveCreditReport(query),
        resolveNow: resolver.resolveCreditReportNow ? () => resolver.resolveCreditReportNow!(query) : null,
      };
    }));
  }

  /**
   * With an Idempotency-Key: a stored answer is replayed (before the credit check, so a retry of
   * the request that spent the last credit still gets its 200), and concurrent retries wait for
   * the first. Throws IDEMPOTENCY_CONFLICT when the key was used for a different request.
   */
  #idempotent(ctx: LookupContext, run: () => Promise<LookupAnswer>): Promise<LookupAnswer> {
    const scope = ctx.idempotency;
    if (!scope) return run();
    const { idempotency } = this.deps;
    return idempotency.exclusive(scope, async () => {
      const stored = idempotency.find(scope, Date.now());
      if (!stored) return run();
      const body = stored.body as LookupAnswer['body'];
      return this.#afterDurable({ status: stored.status, body, headers: { 'Idempotent-Replayed': 'true' }, charged: false });
    });
  }

  /** An answer read from the database, not written: with synchronous=FULL it waits until what it read is on disk. */
  #afterDurable(answer: LookupAnswer): LookupAnswer | Promise<LookupAnswer> {
    const settled = this.deps.commits.settled();
    return settled ? settled.then(() => answer) : answer;
  }

  #validateAccount(ctx: LookupContext, input: { identifier: unknown; type: unknown }): Validated<LookupData> {
    const raw = typeof input.identifier === 'string' ? input.identifier : '';
    const type = typeof input.type === 'string' ? input.type.trim().toLowerCase() : '';
    const guessedType: InputType = /^[\d\s-]+$/.test(raw) ? 'CBU' : 'ALIAS';
    if (typeof input.identifier !== 'string' || raw.trim() === '') {
      return { ok: false, inputIdentifier: storedInput(raw), inputType: guessedType, message: 'identifier is required (a CBU/CVU or a bank alias)' };
    }
    const resolver = this.deps.resolvers.accounts(ctx.environment);
    if (type === 'cbu') {
      const analysis = analyzeCbu(raw);
      if (!analysis.ok) return { ok: false, inputIdentifier: storedInput(normalizeIdentifierInput(raw)), inputType: 'CBU', message: analysis.message };
      return accountQuery(resolver, analysis.number, analysis.scheme, { orgId: ctx.orgId, kind: 'number', number: analysis.number });
    }
    if (type === 'alias') {
      const analysis = analyzeAlias(raw);
      if (!analysis.ok) return { ok: false, inputIdentifier: storedInput(raw.trim()), inputType: 'ALIAS', message: analysis.message };
      return accountQuery(resolver, analysis.alias, 'ALIAS', { orgId: ctx.orgId, kind: 'alias', aliasKey: analysis.key });
    }
    return {
      ok: false,
      inputIdentifier: storedInput(raw.trim()),
      inputType: guessedType,
      message: type === '' ? 'type is required: cbu or alias' : 'type must be cbu or alias',
    };
  }

  async #run<T>(ctx: LookupContext, product: ProductSlug, validate: () => Validated<T>): Promise<LookupAnswer> {
    const requestId = ctx.requestId ?? newRequestId();
    const live = ctx.environment === 'live';
    if (live && !this.deps.ledger.hasCredit(ctx.orgId, product)) return this.#afterDurable(insufficient(requestId));

    const validated = validate();
    if (!validated.ok) {
      const outcome: Outcome = { status: 400, code: 'PA006', message: validated.message, latencyMs: 0 };
      return this.#commit(ctx, product, requestId, validated, () => outcome);
    }
    const { resolveNow } = validated;
    if (resolveNow) {
      // A local source: resolved in the transaction that records the lookup (no read of its own).
      return this.#commit(ctx, product, requestId, validated, () => {
        const started = performance.now();
        try {
          return found(product, resolveNow(), started);
        } catch (error) {
          return failed(error, started);
        }
      });
    }
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = found(product, await validated.resolve(), started);
    } catch (error) {
      outcome = failed(error, started);
    }
    return this.#commit(ctx, product, requestId, validated, () => outcome);
  }

  /**
   * Writes the history entry, the charge (when the outcome consumes one) and the idempotency record
   * in one group-committed transaction, and builds the answer from what was committed. `decide`
   * runs first inside that transaction (it resolves there when the source is local).
   */
  #commit(
    ctx: LookupContext,
    product: ProductSlug,
    requestId: string,
    input: { inputIdentifier: string; inputType: InputType },
    decide: () => Outcome,
  ): Promise<LookupAnswer> {
    const { ledger, history, idempotency, commits } = this.deps;
    return commits.enqueue((): LookupAnswer => {
      const outcome = decide();
      const consumes = ctx.environment === 'live' && outcome.status < 500;
      const now = Date.now();
      const lookupId = uuidv7(now);
      let remaining: number;
      if (consumes) {
        const after = ledger.consumeOne(ctx.orgId, product, lookupId, ctx.userId, now);
        // The balance reached 0 after the pre-check (concurrent lookups): nothing is written.
        if (after === null) return insufficient(requestId);
        remaining = after;
      } else {
        remaining = ledger.balance(ctx.orgId, product);
      }
      const success = 'data' in outcome;
      const answer: LookupAnswer = success
        ? { status: 200, body: { success: true, data: outcome.data, credits_remaining: remaining, request_id: requestId }, charged: consumes, lookupId }
        : {
            status: outcome.status,
            body: {
              success: false,
              error: { code: outcome.code, message: outcome.message },
              ...(consumes ? { credits_remaining: remaining } : {}),
              request_id: requestId,
            },
            charged: consumes,
            lookupId,
          };
      if (!success && outcome.retryAfterSeconds !== undefined) answer.headers = { 'Retry-After': String(outcome.retryAfterSeconds) };
      history.record({
        id: lookupId,
        orgId: ctx.orgId,
        environment: ctx.environment,
        product,
        inputIdentifier: input.inputIdentifier,
        inputType: input.inputType,
        status: success ? 'SUCCESS' : 'ERROR',
        errorCode: success ? null : outcome.code,
        httpStatus: outcome.status,
        source: ctx.source,
        responseData: success ? outcome.data : { error: { code: outcome.code, message: outcome.message } },
        upstreamLatencyMs: outcome.latencyMs,
        creditConsumed: consumes ? 1 : 0,
        userId: ctx.userId,
        apiKeyId: ctx.apiKeyId,
        requestId,
        createdAt: now,
      });
      ctx.onCommit?.({ lookupId, status: outcome.status, code: success ? null : outcome.code, charged: consumes, createdAt: now });
      // Only answers that are final are replayed; a GE500 retry should really retry.
      if (ctx.idempotency && outcome.status < 500) idempotency.store(ctx.idempotency, { status: answer.status, body: answer.body }, now);
      return answer;
    });
  }
}

function accountQuery(
  resolver: AccountResolver,
  inputIdentifier: string,
  inputType: InputType,
  query: AccountQuery,
): Validated<LookupData> {
  return {
    ok: true,
    inputIdentifier,
    inputType,
    resolve: () => resolver.resolveAccount(query),
    resolveNow: resolver.resolveAccountNow ? () => resolver.resolveAccountNow!(query) : null,
  };
}

/** A resolution as an outcome: 200 with its data, or 404 PA011. */
function found<T>(product: ProductSlug, resolution: Resolution<T>, started: number): Outcome {
  const latencyMs = Math.round(performance.now() - started);
  if (resolution.found) return { status: 200, data: resolution.data, latencyMs };
  return {
    status: 404,
    code: 'PA011',
    message: product === 'cbu' ? 'No account was found for this identifier' : 'No credit report was found for this CUIT/CUIL',
    latencyMs,
  };
}

/** A resolver that threw: 503 GE500 with Retry-After when the source is down, 500 GE500 otherwise. */
function failed(error: unknown, started: number): Outcome {
  const latencyMs = Math.round(performance.now() - started);
  if (error instanceof UpstreamError) {
    return { status: 503, code: 'GE500', message: 'The account data source is unavailable; try again shortly', latencyMs, retryAfterSeconds: error.retryAfterSeconds };
  }
  return { status: 500, code: 'GE500', message: 'Internal error', latencyMs };
}

function insufficient(requestId: string): LookupAnswer {
  return {
    status: 402,
    body: {
      success: false,
      error: { code: 'INSUFFICIENT_CREDITS', message: 'No credits left for this product; purchase more to continue' },
      credits_remaining: 0,
      request_id: requestId,
    },
    charged: false,
  };
}

/** Invalid input is kept in history for support, bounded so a huge input cannot bloat the database. */
function storedInput(raw: string): string {
  // An API key pasted into the identifier field must not land in the history (decisions "Keys").
  const masked = maskKeys(raw);
  return masked.length > MAX_STORED_INPUT ? `${masked.slice(0, MAX_STORED_INPUT)}…` : masked;
}
