// The `remote` resolver: forwards live lookups to a compatible remote Account Lookup API (for
// example the organization's cloud account) with the upstream key from the vault.
//
// Everything it needs is read at call time (base URL and timeout from the settings, the key from
// the vault), so an admin's change applies to the next lookup, also one made by the CLI while the
// server runs. Failures it cannot answer become UpstreamError: the lookup service answers 503 GE500
// with Retry-After and takes no credit. An upstream 404 PA011 is a real "not found" (charged).
//
// Retries: up to `attempts` attempts for failures another attempt may fix (timeout, connection,
// 5xx, 429, malformed 200), with exponential backoff and jitter, within an overall deadline. A 429's
// Retry-After is honoured when it fits the bound; otherwise the caller gets it as its own. Failures
// that another attempt cannot fix (401/403 key rejected, 402 upstream out of credits, 400, an
// unexpected status) are not retried, are shown in `status()` and audited once per incident.
// A circuit breaker per base URL stops traffic to an upstream that keeps failing. Every attempt of
// one lookup sends the same Idempotency-Key, so a retried attempt is never charged twice upstream;
// nor is the lookup itself when it is run again under the same identity (ResolveOptions).
import { randomUUID } from 'node:crypto';
import type { AuditLog } from '../audit/audit-log';
import type { Settings } from '../settings/settings';
import { VaultLockedError } from '../vault/vault';
import type { VaultSecrets } from '../vault/vault-secrets';
import { lookupResultSchema, type LookupData } from '../../../shared/api/lookup';
import { creditLookupResultSchema, type CreditReport } from '../../../shared/api/credit';
import { balanceResponseSchema, type BalanceEntry } from '../../../shared/api/balance';
import { CircuitBreaker, type BreakerStatus } from './circuit-breaker';
import { normalizeBaseUrl, remoteBaseUrlProblem } from './remote-config';
import { sendAttempt, type AttemptOutcome, type UpstreamFailure, type UpstreamFailureKind } from './remote-http';
import { REMOTE_NOT_SET_UP, UpstreamError, type AccountQuery, type AccountResolver, type CreditReportResolver, type Resolution, type ResolveOptions } from './resolver';

export interface RemoteResolverOptions {
  /** Attempts per lookup, the first included. */
  attempts?: number;
  /** First backoff delay; doubles per retry, with jitter, up to `backoffMaxMs`. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Overall bound of one lookup, retries and waits included (one timeout, if that is longer). */
  deadlineMs?: number;
  /** The longest upstream Retry-After (429) waited for before retrying; longer ones end the lookup. */
  maxRetryAfterMs?: number;
  /** Consecutive failed attempts that open the circuit. */
  failureThreshold?: number;
  /** How long an open circuit fails fast before letting a trial through. */
  cooldownMs?: number;
  /** Returns [0, 1); jitter. */
  random?: () => number;
}

export const REMOTE_DEFAULTS: Required<Omit<RemoteResolverOptions, 'random'>> = {
  attempts: 3,
  backoffBaseMs: 200,
  backoffMaxMs: 2_000,
  deadlineMs: 20_000,
  maxRetryAfterMs: 5_000,
  failureThreshold: 5,
  cooldownMs: 30_000,
};

/** Retry-After for failures that a retry soon will not fix (configuration, credentials). */
const CONFIGURATION_RETRY_AFTER_S = 60;
/** Retry-After for an upstream that failed every attempt while the circuit is still closed. */
const DEFAULT_RETRY_AFTER_S = 5;
/** Below this much time left before the deadline, another attempt is not worth starting. */
const MIN_ATTEMPT_MS = 50;

export interface RemoteStatus {
  baseUrl: string | null;
  timeoutMs: number;
  keySet: boolean;
  breaker: BreakerStatus & { failureThreshold: number; cooldownMs: number };
  /** The last failure of a lookup (never the key), for the admin. */
  lastError: (UpstreamFailure & { at: string }) | null;
  lastSuccessAt: string | null;
}

export interface ConnectionTest {
  ok: boolean;
  kind: UpstreamFailureKind | null;
  httpStatus: number | null;
  latencyMs: number;
  message: string;
  /** The upstream account's balances, when the key may read them. */
  balances?: BalanceEntry[];
}

/** What the desktop and the CLI may see of the remote resolver (not its lookups, which cost credits). */
export type RemoteAdmin = Pick<RemoteResolver, 'status' | 'testConnection'>;

interface CallConfig {
  baseUrl: string;
  timeoutMs: number;
  key: string;
}

export class RemoteResolver implements AccountResolver, CreditReportResolver {
  readonly name = 'remote' as const;
  readonly #options: Required<Omit<RemoteResolverOptions, 'random'>>;
  readonly #random: () => number;
  // One breaker per base URL: pointing the resolver elsewhere starts with a closed circuit.
  #breaker: { baseUrl: string; breaker: CircuitBreaker } | null = null;
  #lastError: RemoteStatus['lastError'] = null;
  #lastSuccessAt: number | null = null;
  /** The configuration problem last audited, so one incident writes one audit entry. */
  #auditedProblem: string | null = null;

  constructor(
    private readonly deps: {
      settings: Pick<Settings, 'get'>;
      secrets: Pick<VaultSecrets, 'get' | 'has'>;
      audit?: Pick<AuditLog, 'record'>;
    },
    options: RemoteResolverOptions = {},
  ) {
    const merged = { ...REMOTE_DEFAULTS, ...options };
    this.#options = { ...merged, attempts: Math.max(1, merged.attempts), failureThreshold: Math.max(1, merged.failureThreshold) };
    this.#random = options.random ?? Math.random;
  }

  async resolveAccount(query: AccountQuery, options: ResolveOptions = {}): Promise<Resolution<LookupData>> {
    const params =
      query.kind === 'number' ? { identifier: query.number, type: 'cbu' } : { identifier: query.aliasKey, type: 'alias' };
    const request = { method: 'GET' as const, path: `/api/v1/lookup?${new URLSearchParams(params).toString()}` };
    return this.#call(query.orgId, request, options, (body) => {
      const parsed = lookupResultSchema.safeParse(body);
      if (!parsed.success) return null;
      // An answer about another account than the one asked for is not an answer.
      if (query.kind === 'number' && parsed.data.data.account.number !== query.number) return null;
      return parsed.data.data;
    });
  }

  async resolveCreditReport(query: { orgId: string; taxId: string }, options: ResolveOptions = {}): Promise<Resolution<CreditReport>> {
    return this.#call(query.orgId, { method: 'POST', path: '/api/v1/credit/lookup', body: { tax_id: query.taxId } }, options, (body) => {
      const parsed = creditLookupResultSchema.safeParse(body);
      if (!parsed.success) return null;
      if (parsed.data.data.subject.tax_id.replace(/\D/g, '') !== query.taxId) return null;
      return parsed.data.data;
    });
  }

  status(): RemoteStatus {
    const baseUrl = this.deps.settings.get('remote.baseUrl');
    const current = baseUrl && this.#breaker?.baseUrl === safeNormalize(baseUrl) ? this.#breaker.breaker : null;
    return {
      baseUrl,
      timeoutMs: this.deps.settings.get('remote.timeoutMs'),
      keySet: this.deps.secrets.has('remote.upstreamKey'),
      breaker: {
        ...(current?.status() ?? { state: 'closed', consecutiveFailures: 0, openUntil: null }),
        failureThreshold: this.#options.failureThreshold,
        cooldownMs: this.#options.cooldownMs,
      },
      lastError: this.#lastError,
      lastSuccessAt: this.#lastSuccessAt === null ? null : new Date(this.#lastSuccessAt).toISOString(),
    };
  }

  /**
   * One `GET /api/v1/balance` with the upstream key: checks the URL, reachability and the key
   * without spending an upstream credit. Bypasses the breaker and does not change the status.
   */
  async testConnection(): Promise<ConnectionTest> {
    let config: CallConfig;
    try {
      config = this.#config();
    } catch (error) {
      const failure = (error as UpstreamError & { failure?: UpstreamFailure }).failure;
      return { ok: false, kind: failure?.kind ?? 'not-configured', httpStatus: null, latencyMs: 0, message: (error as Error).message };
    }
    const started = performance.now();
    const outcome = await sendAttempt({ url: `${config.baseUrl}/api/v1/balance`, method: 'GET', key: config.key, timeoutMs: config.timeoutMs });
    const latencyMs = Math.round(performance.now() - started);
    if (outcome.kind === 'answer') {
      const balances = balanceResponseSchema.safeParse(outcome.body);
      if (balances.success) {
        return { ok: true, kind: null, httpStatus: 200, latencyMs, message: 'the upstream answered and accepted the key', balances: balances.data.balances };
      }
      return { ok: false, kind: 'malformed', httpStatus: 200, latencyMs, message: 'the upstream answered 200, but not with the balance of the contract: check the base URL' };
    }
    if (outcome.kind === 'not-found') {
      return { ok: false, kind: 'unexpected-status', httpStatus: 404, latencyMs, message: 'the upstream has no /api/v1/balance: check the base URL' };
    }
    const { failure } = outcome;
    const message =
      failure.kind === 'rejected-key' && failure.httpStatus === 403
        ? `${failure.message}; this test needs the key's balance scope`
        : failure.message;
    return { ok: false, kind: failure.kind, httpStatus: failure.httpStatus, latencyMs, message };
  }

  async #call<T>(
    orgId: string,
    request: { method: 'GET' | 'POST'; path: string; body?: unknown },
    options: ResolveOptions,
    parse: (body: unknown) => T | null,
  ): Promise<Resolution<T>> {
    const config = this.#config();
    const breaker = this.#breakerFor(config.baseUrl);
    const { attempts, maxRetryAfterMs } = this.#options;
    const deadline = Date.now() + Math.max(this.#options.deadlineMs, config.timeoutMs);
    let last: (AttemptOutcome & { kind: 'failed' }) | null = null;
    let retryAfterMs: number | undefined;
    // One key for every attempt of this lookup: an attempt retried after a timeout, a 5xx or a
    // malformed 200 may have been answered and charged upstream already, and the upstream replays that
    // answer for the same key instead of charging the organization's upstream wallet again. The
    // lookup's own key when it has one (ResolveOptions): then its retries are replayed upstream too.
    const idempotencyKey = options.idempotencyKey ?? `titular-${randomUUID()}`;

    for (let attempt = 1; attempt <= attempts; attempt++) {
      const permit = breaker.acquire();
      if (!permit.allowed) {
        retryAfterMs = permit.retryAfterMs;
        if (!last) throw new UpstreamError('the remote upstream is failing: its circuit is open until the cooldown ends', seconds(permit.retryAfterMs));
        break;
      }
      let outcome = await sendAttempt({
        url: `${config.baseUrl}${request.path}`,
        method: request.method,
        key: config.key,
        body: request.body,
        timeoutMs: Math.max(1, Math.min(config.timeoutMs, deadline - Date.now())),
        idempotencyKey,
      });
      if (outcome.kind === 'answer') {
        const data = parse(outcome.body);
        if (data !== null) {
          this.#succeeded(breaker);
          return { found: true, data };
        }
        outcome = {
          kind: 'failed',
          failure: { kind: 'malformed', message: 'the upstream answered 200 with a body that is not the contract\'s result', httpStatus: 200 },
          retryable: true,
        };
      }
      if (outcome.kind === 'not-found') {
        this.#succeeded(breaker);
        return { found: false };
      }
      if (!outcome.retryable) {
        // The upstream is up (it answered); the fault is in our configuration or account.
        breaker.success();
        this.#failed(outcome.failure, orgId, true);
        throw new UpstreamError(`remote resolver: ${outcome.failure.message}`, CONFIGURATION_RETRY_AFTER_S);
      }
      breaker.failure();
      last = outcome;
      retryAfterMs = undefined;
      if (attempt === attempts) break;

      let delay = this.#backoff(attempt);
      if (outcome.retryAfterMs !== undefined) {
        if (outcome.retryAfterMs > maxRetryAfterMs) {
          retryAfterMs = outcome.retryAfterMs;
          break;
        }
        delay = Math.max(delay, outcome.retryAfterMs);
      }
      if (Date.now() + delay + MIN_ATTEMPT_MS > deadline) break;
      await sleep(delay);
    }

    const failure = last!.failure;
    this.#failed(failure, orgId, false);
    const breakerWait = breaker.acquireWouldWaitMs();
    const wait = Math.max(retryAfterMs ?? 0, breakerWait ?? 0, last!.retryAfterMs ?? 0);
    throw new UpstreamError(
      `remote resolver: ${failure.message} (after ${attempts > 1 ? 'retries' : 'one attempt'})`,
      wait > 0 ? seconds(wait) : DEFAULT_RETRY_AFTER_S,
    );
  }

  /** Base URL, timeout and key for this call; throws UpstreamError when one is missing or unreadable. */
  #config(): CallConfig {
    const rawUrl = this.deps.settings.get('remote.baseUrl');
    if (!rawUrl) throw this.#configurationError('not-configured', 'no remote base URL is configured (titular remote set --url URL)', REMOTE_NOT_SET_UP);
    const problem = remoteBaseUrlProblem(rawUrl);
    if (problem) throw this.#configurationError('not-configured', problem, REMOTE_NOT_SET_UP);
    let key: string | null;
    try {
      key = this.deps.secrets.get('remote.upstreamKey');
    } catch (error) {
      if (!(error instanceof VaultLockedError)) throw error;
      throw this.#configurationError(
        'vault-locked',
        'the vault is locked, so the upstream key cannot be read: remote lookups resume once it is unlocked',
        "Titular's key vault is locked; lookups through the remote API resume once an administrator unlocks it",
      );
    }
    if (!key) throw this.#configurationError('not-configured', 'no upstream key is set (titular remote set-key)', REMOTE_NOT_SET_UP);
    return { baseUrl: normalizeBaseUrl(rawUrl), timeoutMs: this.deps.settings.get('remote.timeoutMs'), key };
  }

  #configurationError(kind: UpstreamFailureKind, message: string, publicReason?: string): UpstreamError {
    const failure: UpstreamFailure = { kind, message, httpStatus: null };
    this.#lastError = { ...failure, at: new Date().toISOString() };
    return Object.assign(new UpstreamError(`remote resolver: ${message}`, CONFIGURATION_RETRY_AFTER_S, publicReason), { failure });
  }

  #breakerFor(baseUrl: string): CircuitBreaker {
    if (this.#breaker?.baseUrl !== baseUrl) {
      this.#breaker = {
        baseUrl,
        breaker: new CircuitBreaker({ failureThreshold: this.#options.failureThreshold, cooldownMs: this.#options.cooldownMs }),
      };
    }
    return this.#breaker.breaker;
  }

  #succeeded(breaker: CircuitBreaker): void {
    breaker.success();
    this.#lastSuccessAt = Date.now();
    this.#auditedProblem = null;
  }

  #failed(failure: UpstreamFailure, orgId: string, audit: boolean): void {
    this.#lastError = { ...failure, at: new Date().toISOString() };
    if (!audit || !this.deps.audit) return;
    // A rejected key or an empty upstream wallet needs an admin; say so once, not on every lookup.
    const problem = `${failure.kind}:${failure.httpStatus ?? ''}`;
    if (this.#auditedProblem === problem) return;
    this.#auditedProblem = problem;
    this.deps.audit.record({
      orgId,
      actorUserId: null,
      action: 'remote.upstream_error',
      targetType: 'settings',
      targetId: 'remote',
      details: { kind: failure.kind, httpStatus: failure.httpStatus, message: failure.message },
    });
  }

  /** Exponential backoff with equal jitter: between half and all of base·2^(n-1), capped. */
  #backoff(attempt: number): number {
    const ceiling = Math.min(this.#options.backoffMaxMs, this.#options.backoffBaseMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (this.#random() * ceiling) / 2);
  }
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function safeNormalize(url: string): string | null {
  try {
    return normalizeBaseUrl(url);
  } catch {
    return null;
  }
}
