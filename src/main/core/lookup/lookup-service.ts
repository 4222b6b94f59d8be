// A lookup from the moment its caller is known to be allowed (auth, product, scope, IP and rate
// limit are the interface's job) to its answer: the credit check, validation, resolution, and the
// one transaction that writes the history entry, the charge and the idempotency record together.
//
// The credit rules themselves are applied where the lookup is recorded (lookup-record.ts).
import { createHash } from 'node:crypto';
import type { CommitQueue } from '../db/commit-queue';
import { requestId as newRequestId } from '../db/ids';
import type { Ledger } from '../ledger/ledger';
import type { History, InputType } from '../history/history';
import { maskKeysAndRandomParts } from '../keys/secrets';
import type { AccountQuery, AccountResolver, Resolution, ResolveOptions } from '../resolvers/resolver';
import type { IdempotencyStore } from './idempotency';
import type { ProductSlug } from '../../../shared/api/common';
import { analyzeAlias, analyzeCbu, analyzeTaxId } from '../../../shared/identifiers';
import type { LookupData } from '../../../shared/api/lookup';
import type { CreditReport } from '../../../shared/api/credit';
import type { ResolverSet } from './resolver-set';
import { failed, found, insufficient, recordLookup, type LookupAnswer, type LookupContext, type Outcome } from './lookup-record';

export type { CommittedOutcome, LookupAnswer, LookupContext } from './lookup-record';

/** What validation made of the input: where to look, or why it is invalid. */
type Validated<T> =
  | {
      ok: true;
      inputIdentifier: string;
      inputType: InputType;
      resolve: (options: ResolveOptions) => Promise<Resolution<T>> | Resolution<T>;
      /** The resolver's synchronous form, when it has one: run inside the recording transaction. */
      resolveNow: (() => Resolution<T>) | null;
      /**
       * Inside the recording transaction, before `resolveNow`: throws ResolverChanged when the
       * resolver was chosen on a setting that another process has changed since (see #run).
       */
      confirmResolver: () => void;
    }
  | { ok: false; inputIdentifier: string; inputType: InputType; message: string };

/** The resolver setting changed between a speculative choice and the recording transaction. */
class ResolverChanged extends Error {}

const MAX_STORED_INPUT = 64;
const DIGITS_ONLY = /^[0-9]*$/;
const CBU_CHARACTERS = 'CBU must be exactly 22 digits, without spaces, dashes or other characters';

export class LookupService {
  constructor(
    private readonly deps: {
      commits: CommitQueue;
      ledger: Ledger;
      history: History;
      idempotency: IdempotencyStore;
      resolvers: ResolverSet;
      /**
       * A resolver that failed for a reason of Titular's own (a bug, a damaged record; not a source
       * that is down, which is a 503): the reason behind the lookup's 500 GE500, for the fault log.
       */
      onResolverFault?: (requestId: string, error: unknown) => void;
    },
  ) {}

  /** GET/POST /api/v1/lookup, the desktop's Consulta screen and bulk jobs. */
  lookupAccount(ctx: LookupContext, input: { identifier: unknown; type: unknown }): Promise<LookupAnswer> {
    return this.#keyConfirmed(ctx, this.#idempotent(ctx, () => this.#run(ctx, 'cbu', (speculative) => this.#validateAccount(ctx, input, speculative))));
  }

  /** POST /api/v1/credit/lookup (Informes). */
  lookupCreditReport(ctx: LookupContext, input: { tax_id: unknown }): Promise<LookupAnswer> {
    return this.#keyConfirmed(ctx, this.#idempotent(ctx, () => this.#run<CreditReport>(ctx, 'informes', (speculative) => {
      const raw = typeof input.tax_id === 'string' ? input.tax_id : '';
      const analysis = analyzeTaxId(raw);
      if (!analysis.ok) {
        const message = typeof input.tax_id === 'string' ? analysis.message : (notAString('tax_id', input.tax_id) ?? 'tax_id is required (CUIT/CUIL, 11 digits)');
        return { ok: false, inputIdentifier: storedInput(raw), inputType: 'CUIT', message };
      }
      const resolver = this.deps.resolvers.creditReports(ctx.environment, speculative);
      const query = { orgId: ctx.orgId, taxId: analysis.taxId };
      return {
        ok: true,
        inputIdentifier: analysis.taxId,
        inputType: 'CUIT',
        resolve: (options) => resolver.resolveCreditReport(query, options),
        resolveNow: resolver.resolveCreditReportNow ? () => resolver.resolveCreditReportNow!(query) : null,
        confirmResolver: () => {
          if (speculative && this.deps.resolvers.creditReports(ctx.environment) !== resolver) throw new ResolverChanged();
        },
      };
    })));
  }

  /**
   * An API lookup's answer is sent only once its key is confirmed (LookupContext.confirmKey): inside
   * the recording transaction, or here for answers that come from elsewhere (a 402 before
   * resolution, a replay) and for errors, which a refused key outranks.
   */
  #keyConfirmed(ctx: LookupContext, answer: Promise<LookupAnswer>): Promise<LookupAnswer> {
    const { confirmKey } = ctx;
    if (!confirmKey) return answer;
    return answer.then(
      (settled) => {
        if (!settled.keyConfirmed) confirmKey();
        return settled;
      },
      (error: unknown) => {
        confirmKey();
        throw error;
      },
    );
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

  #validateAccount(ctx: LookupContext, input: { identifier: unknown; type: unknown }, speculative: boolean): Validated<LookupData> {
    const raw = typeof input.identifier === 'string' ? input.identifier : '';
    // Contract §4.1 to the letter: `type` is `cbu` or `alias`, a CBU exactly 22 digits ("special
    // characters are rejected"), an alias only letters, digits and dots. The desktop's screens and
    // bulk jobs strip what people paste (spaces, dashes) before they call this; the API does not.
    const type = typeof input.type === 'string' ? input.type : '';
    const guessedType: InputType = /^[\d\s-]+$/.test(raw) ? 'CBU' : 'ALIAS';
    if (typeof input.identifier !== 'string' || raw.trim() === '') {
      return { ok: false, inputIdentifier: storedInput(raw), inputType: guessedType, message: notAString('identifier', input.identifier) ?? 'identifier is required (a CBU/CVU or a bank alias)' };
    }
    const typeProblem = notAString('type', input.type);
    if (typeProblem) return { ok: false, inputIdentifier: storedInput(raw), inputType: guessedType, message: typeProblem };
    const resolver = this.deps.resolvers.accounts(ctx.environment, speculative);
    const confirmResolver = () => {
      if (speculative && this.deps.resolvers.accounts(ctx.environment) !== resolver) throw new ResolverChanged();
    };
    if (type === 'cbu') {
      const analysis = DIGITS_ONLY.test(raw) ? analyzeCbu(raw) : { ok: false as const, message: CBU_CHARACTERS };
      if (!analysis.ok) return { ok: false, inputIdentifier: storedInput(raw), inputType: 'CBU', message: analysis.message };
      const query: AccountQuery = { orgId: ctx.orgId, kind: 'number', number: analysis.number };
      return accountQuery(resolver, analysis.number, analysis.scheme, query, confirmResolver);
    }
    if (type === 'alias') {
      const analysis = analyzeAlias(raw, { exact: true });
      if (!analysis.ok) return { ok: false, inputIdentifier: storedInput(raw), inputType: 'ALIAS', message: analysis.message };
      return accountQuery(resolver, analysis.alias, 'ALIAS', { orgId: ctx.orgId, kind: 'alias', aliasKey: analysis.key }, confirmResolver);
    }
    return {
      ok: false,
      inputIdentifier: storedInput(raw),
      inputType: guessedType,
      message: type === '' ? 'type is required: cbu or alias' : 'type must be cbu or alias',
    };
  }

  /**
   * `speculative`: the resolver is chosen on the setting as last read (no data_version read, see
   * write-invalidated-cache.ts) and that choice is confirmed inside the recording transaction; when
   * another process changed the setting meanwhile, the lookup starts over with a checked choice
   * before anything is written. A remote source is never asked on a speculative choice.
   */
  async #run<T>(ctx: LookupContext, product: ProductSlug, validate: (speculative: boolean) => Validated<T>, speculative = true): Promise<LookupAnswer> {
    const requestId = ctx.requestId ?? newRequestId();
    const live = ctx.environment === 'live';
    if (live && !this.deps.ledger.hasCredit(ctx.orgId, product)) return this.#afterDurable(insufficient(requestId));

    const validated = validate(speculative);
    if (!validated.ok) {
      const outcome: Outcome = { status: 400, code: 'PA006', message: validated.message, latencyMs: 0 };
      return this.#commit(ctx, product, requestId, validated, () => outcome);
    }
    const { resolveNow, confirmResolver } = validated;
    if (resolveNow) {
      // A local source: resolved in the transaction that records the lookup (no read of its own).
      // Said once, though a batch that is retried write by write decides again.
      let reported = false;
      const recorded = this.#commit(ctx, product, requestId, validated, () => {
        confirmResolver();
        const started = performance.now();
        try {
          return found(product, resolveNow(), started);
        } catch (error) {
          const outcome = failed(error, started, product);
          if (!reported) this.#reportFault(requestId, outcome, error);
          reported = true;
          return outcome;
        }
      });
      if (!speculative) return recorded;
      try {
        return await recorded;
      } catch (error) {
        if (error instanceof ResolverChanged) return this.#run(ctx, product, validate, false);
        throw error;
      }
    }
    if (speculative) return this.#run(ctx, product, validate, false);
    // A remote source costs the organization a call: never made for a key that may be revoked.
    ctx.confirmKey?.();
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = found(product, await validated.resolve({ idempotencyKey: upstreamIdempotencyKey(ctx) }), started);
    } catch (error) {
      outcome = failed(error, started, product);
      this.#reportFault(requestId, outcome, error);
    }
    return this.#commit(ctx, product, requestId, validated, () => outcome);
  }

  #reportFault(requestId: string, outcome: Outcome, error: unknown): void {
    if (outcome.status === 500) this.deps.onResolverFault?.(requestId, error);
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
    const { commits } = this.deps;
    return commits.enqueue(() => recordLookup(this.deps, { ctx, product, requestId, input }, decide));
  }
}

function accountQuery(
  resolver: AccountResolver,
  inputIdentifier: string,
  inputType: InputType,
  query: AccountQuery,
  confirmResolver: () => void,
): Validated<LookupData> {
  return {
    ok: true,
    inputIdentifier,
    inputType,
    resolve: (options) => resolver.resolveAccount(query, options),
    resolveNow: resolver.resolveAccountNow ? () => resolver.resolveAccountNow!(query) : null,
    confirmResolver,
  };
}


/**
 * The Idempotency-Key a remote upstream gets for a lookup that may be run again as the same lookup:
 * an API request retried with its Idempotency-Key (a first run that failed, GE500, charged nothing
 * here but may have been charged upstream), a bulk item run again after a crash. Hashed, so the
 * upstream learns neither the local key's id nor the client's own key. Undefined for a lookup that
 * stands alone (the remote resolver then makes one key for its attempts).
 */
function upstreamIdempotencyKey(ctx: LookupContext): string | undefined {
  const { idempotency } = ctx;
  const identity = idempotency
    ? ['api', idempotency.apiKeyId, idempotency.key, idempotency.requestHash]
    : ctx.rerunId
      ? ['rerun', ctx.orgId, ctx.rerunId]
      : null;
  if (!identity) return undefined;
  return `titular-${createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 40)}`;
}

/**
 * Why a field that was sent is not a text, or null (absent or a string): a repeated query parameter
 * arrives as a list, a JSON body may hold a number; "is required" would mislead the caller.
 */
function notAString(field: string, value: unknown): string | null {
  if (value === undefined || value === null || typeof value === 'string') return null;
  if (Array.isArray(value)) return `${field} must be given once`;
  return `${field} must be a string`;
}

/** Invalid input is kept in history for support, bounded so a huge input cannot bloat the database. */
function storedInput(raw: string): string {
  // An API key pasted into the identifier field must not land in the history (decisions "Keys"), nor
  // its random part pasted alone.
  const masked = maskKeysAndRandomParts(raw);
  return masked.length > MAX_STORED_INPUT ? `${masked.slice(0, MAX_STORED_INPUT)}…` : masked;
}
