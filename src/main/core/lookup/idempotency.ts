// Idempotency-Key support (decisions "POST endpoints"): the first charged answer to a key is stored
// in the same transaction as its charge, so a retry within 24 h replays it instead of charging
// again; the same key with a different request is a conflict.
import { containsKeyLike } from '../keys/secrets';
import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { TitularError, invalidParameter } from '../errors';
import { isDamaged, storedObject } from '../db/stored-json';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencyScope {
  apiKeyId: string;
  key: string;
  requestHash: string;
}

export interface StoredAnswer {
  status: number;
  body: unknown;
}

/** The answer to a retry whose stored answer is damaged (stored-json.ts). */
export const DAMAGED_REPLAY_MESSAGE =
  "The answer stored for this Idempotency-Key cannot be read (it is damaged in Titular's database). The request it answered was recorded once and is not run or charged again; send a new Idempotency-Key to look up again";

export class IdempotencyStore {
  readonly #get: Database.Statement<[string, string, number], { request_hash: string; status_code: number; response_body: string }>;
  readonly #put: Database.Statement<[string, string, string, number, string, number]>;
  readonly #purge: Database.Statement<[number]>;
  /** Requests in flight per key: a concurrent retry waits for the first instead of racing it. */
  readonly #inFlight = new Map<string, Promise<unknown>>();

  constructor(sqlite: Database.Database) {
    this.#get = sqlite.prepare(
      'SELECT request_hash, status_code, response_body FROM idempotency_records WHERE api_key_id = ? AND idempotency_key = ? AND created_at > ?',
    );
    this.#put = sqlite.prepare(
      `INSERT INTO idempotency_records (api_key_id, idempotency_key, request_hash, status_code, response_body, created_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (api_key_id, idempotency_key) DO UPDATE SET request_hash = excluded.request_hash,
         status_code = excluded.status_code, response_body = excluded.response_body, created_at = excluded.created_at`,
    );
    this.#purge = sqlite.prepare('DELETE FROM idempotency_records WHERE created_at <= ?');
  }

  static validateKey(raw: string): string {
    if (!KEY_PATTERN.test(raw)) throw invalidParameter('Idempotency-Key must be 1 to 255 visible ASCII characters');
    // Idempotency keys are stored as sent: an API key used as one would sit in the database in plaintext.
    if (containsKeyLike(raw)) throw invalidParameter('Idempotency-Key must not contain an API key');
    return raw;
  }

  /**
   * What "the same request" means for a key: the parts hashed as canonical JSON (object keys sorted
   * at every depth), so a retry that serializes its body's keys in another order is still the same
   * request, while any other difference (a field added or changed) is a different one (409).
   */
  static hashRequest(parts: readonly unknown[]): string {
    return createHash('sha256').update(JSON.stringify(parts, sortedKeys)).digest('hex');
  }

  /** The stored answer for this key, or null; throws IDEMPOTENCY_CONFLICT for another request. */
  find(scope: IdempotencyScope, now: number): StoredAnswer | null {
    const row = this.#get.get(scope.apiKeyId, scope.key, now - IDEMPOTENCY_WINDOW_MS);
    if (!row) return null;
    if (row.request_hash !== scope.requestHash) {
      throw new TitularError(409, 'IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used with a different request');
    }
    // An answer that can no longer be read is not replayed, and the request is not run again either:
    // that would charge twice for one Idempotency-Key. The client is told, and may send a new key.
    const body = storedObject(row.response_body);
    if (isDamaged(body)) throw new TitularError(500, 'GE500', DAMAGED_REPLAY_MESSAGE);
    return { status: row.status_code, body };
  }

  /** Must run inside the transaction that charges the request. */
  store(scope: IdempotencyScope, answer: StoredAnswer, now: number): void {
    this.#put.run(scope.apiKeyId, scope.key, scope.requestHash, answer.status, JSON.stringify(answer.body), now);
  }

  purgeExpired(now: number): number {
    return this.#purge.run(now - IDEMPOTENCY_WINDOW_MS).changes;
  }

  /** Serializes requests that share an idempotency key (within this process). */
  async exclusive<T>(scope: IdempotencyScope, run: () => Promise<T>): Promise<T> {
    const id = `${scope.apiKeyId}\u0000${scope.key}`;
    while (this.#inFlight.has(id)) await this.#inFlight.get(id)!.catch(() => undefined);
    const promise = run();
    this.#inFlight.set(id, promise);
    try {
      return await promise;
    } finally {
      this.#inFlight.delete(id);
    }
  }
}

/** JSON.stringify replacer: plain objects rebuilt with their keys sorted (arrays keep their order). */
function sortedKeys(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = (value as Record<string, unknown>)[key];
  return sorted;
}
