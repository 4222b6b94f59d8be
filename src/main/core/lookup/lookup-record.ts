// Recording one lookup: the credit rules applied to its outcome, the charge, the history entry and
// the idempotency record, written together inside one group-committed transaction (CommitQueue).
//
// Credit rules (contract §7, decisions "Order of checks"):
//   402 INSUFFICIENT_CREDITS  live key, balance 0                  no credit, no history
//   400 PA006                 invalid identifier or type           1 credit
//   200                       found                                1 credit
//   404 PA011                 not found                            1 credit
//   503/500 GE500             upstream down / internal fault       no credit (history entry kept)
// Sandbox lookups never consume credits and are recorded in the sandbox history.
import { uuidv7 } from '../db/ids';
import type { Ledger } from '../ledger/ledger';
import type { History, InputType } from '../history/history';
import type { KeyEnvironment } from '../keys/secrets';
import { UpstreamError, type Resolution } from '../resolvers/resolver';
import type { IdempotencyScope, IdempotencyStore } from './idempotency';
import type { ErrorBody, ErrorCode, LookupSource, ProductSlug } from '../../../shared/api/common';
import { DamagedRecordError } from '../db/stored-json';

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
   * Names this lookup across the times it may be run (a bulk item: its job and row), so that a
   * remote upstream replays it when it runs again after a crash instead of charging it again
   * (ResolveOptions). API lookups are named by their Idempotency-Key instead.
   */
  rerunId?: string;
  /**
   * Called inside the transaction that writes the history entry (and the charge, when one is
   * taken), so the caller's own record of the outcome commits or rolls back with it. Bulk jobs
   * mark their item done here: a done item is never looked up, or charged, again. It may be called
   * more than once for one lookup: when another write of its batch fails, the batch is rolled back
   * and run again (CommitQueue), so only database writes belong here, or state the last call sets.
   */
  onCommit?: (outcome: CommittedOutcome) => void;
  /**
   * API lookups: checks the caller's key again as the database is now and throws its 401/403 when
   * it no longer may (http/authorize.ts). Called first inside the transaction that records the
   * lookup, so a key revoked before that transaction began is never charged; answers that come
   * from elsewhere (a 402 before resolution, a replay) are confirmed by LookupService.
   */
  confirmKey?: () => void;
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
  /** The caller's key was confirmed inside the recording transaction (LookupContext.confirmKey). */
  keyConfirmed?: boolean;
}

/** How a lookup ended, before the credit rules and the history entry are applied to it. */
export type Outcome =
  | { status: 200; data: unknown; latencyMs: number }
  | { status: number; code: ErrorCode; message: string; latencyMs: number; retryAfterSeconds?: number };

/** One lookup to record: who asked, for which product, and the input as it will be stored. */
export interface LookupRecord {
  ctx: LookupContext;
  product: ProductSlug;
  requestId: string;
  input: { inputIdentifier: string; inputType: InputType };
}

/** Must run inside a write transaction (CommitQueue). `decide` runs first; it resolves there when the source is local. */
export function recordLookup(
  deps: { ledger: Ledger; history: History; idempotency: IdempotencyStore },
  record: LookupRecord,
  decide: () => Outcome,
): LookupAnswer {
  const { ctx } = record;
  if (!ctx.confirmKey) return recordConfirmed(deps, record, decide);
  ctx.confirmKey();
  const answer = recordConfirmed(deps, record, decide);
  answer.keyConfirmed = true;
  return answer;
}

function recordConfirmed(
  deps: { ledger: Ledger; history: History; idempotency: IdempotencyStore },
  record: LookupRecord,
  decide: () => Outcome,
): LookupAnswer {
  const { ledger, history, idempotency } = deps;
  const { ctx, product, requestId, input } = record;
  const now = Date.now();
  if (ctx.idempotency) {
    // Checked again under the write lock: another process (a second server on this data directory)
    // may have answered this key since the check before resolution, and only one may charge.
    const stored = idempotency.find(ctx.idempotency, now);
    if (stored) return { status: stored.status, body: stored.body as LookupAnswer['body'], headers: { 'Idempotent-Replayed': 'true' }, charged: false };
  }
  const outcome = decide();
  const live = ctx.environment === 'live';
  const consumes = live && outcome.status < 500;
  const lookupId = uuidv7(now);
  let remaining: number;
  if (consumes) {
    const after = ledger.consumeOne(ctx.orgId, product, lookupId, ctx.userId, now);
    // The balance reached 0 after the pre-check (concurrent lookups): nothing is written.
    if (after === null) return insufficient(requestId);
    remaining = after;
  } else {
    remaining = ledger.balance(ctx.orgId, product);
    // 402 comes before the source (decisions, order of checks). The pre-check may have trusted this
    // process's last charge while another process spent the rest: read here, under the write lock,
    // a live balance of 0 answers 402, not the source's GE500.
    if (live && remaining === 0) return insufficient(requestId);
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
}

/** A resolution as an outcome: 200 with its data, or 404 PA011. */
export function found<T>(product: ProductSlug, resolution: Resolution<T>, started: number): Outcome {
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
export function failed(error: unknown, started: number, product: ProductSlug): Outcome {
  const latencyMs = Math.round(performance.now() - started);
  if (error instanceof UpstreamError) {
    const source = product === 'cbu' ? 'The account data source' : 'The credit report source';
    const message = error.publicReason ? `${source} is unavailable: ${error.publicReason}` : `${source} is unavailable; try again shortly`;
    return { status: 503, code: 'GE500', message, latencyMs, retryAfterSeconds: error.retryAfterSeconds };
  }
  // A record the answer needs that is damaged in the database: said, so that an admin knows what to import again.
  if (error instanceof DamagedRecordError) return { status: 500, code: 'GE500', message: error.publicMessage, latencyMs };
  return { status: 500, code: 'GE500', message: 'Internal error', latencyMs };
}

export function insufficient(requestId: string): LookupAnswer {
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
