// The organization's API keys: creation, listing, reveal, rotation, revocation, and the lookup of
// a presented secret. Secrets are stored only as SHA-256 (to find them) and AES-256-GCM ciphertext
// under the vault (to reveal them to an admin); the key record's id is the AAD.
import { WriteInvalidatedCache } from '../db/write-invalidated-cache';
import type Database from 'better-sqlite3';
import type { BlockList } from 'node:net';
import { and, desc, eq, gt, isNull, or } from 'drizzle-orm';
import type { Db } from '../db/open';
import { uuidv7 } from '../db/ids';
import { withoutBusyWait } from '../db/database-busy';
import { apiKeys, users } from '../db/schema';
import { TitularError, invalidParameter, stateRefusal } from '../errors';
import type { Vault } from '../vault/vault';
import type { AuditLog } from '../audit/audit-log';
import { addressAllowed, buildBlockList, parseWhitelistEntry, storedWhitelist } from './ip-whitelist';
import { displayPrefix, generateKeySecret, hashKey, maskKeys, refuseKeyLike, type KeyEnvironment } from './secrets';
import { scopeSchema, type ProductSlug, type Scope } from '../../../shared/api/common';

export const MAX_ACTIVE_KEYS = 10;
/**
 * Key changes read, then write: BEGIN IMMEDIATE takes the write lock first (waiting out the server's
 * commits), so the CLI's change cannot fail with SQLITE_BUSY_SNAPSHOT when a lookup commits between
 * its read and its write.
 */
const IMMEDIATE = { behavior: 'immediate' } as const;
export const DEFAULT_RATE_LIMIT_PER_SECOND = 10;
export const DEFAULT_RATE_LIMIT_BURST = 20;
/** The most requests per second a key may be given (the least is 1). */
export const MAX_RATE_LIMIT_PER_SECOND = 10_000;

export type KeyStatus = 'active' | 'revoked' | 'expired';

export interface ApiKeyView {
  id: string;
  name: string | null;
  product: ProductSlug;
  environment: KeyEnvironment;
  scopes: Scope[];
  /** [] for any address; null when the stored list cannot be read (the key is then refused from every address). */
  ipWhitelist: string[] | null;
  prefix: string;
  status: KeyStatus;
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  expiresAt: string | null;
  revokedAt: string | null;
  rotatedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
  owner: { id: string; name: string; email: string };
}

/** What a request needs to know about the key it presented. */
export interface AuthenticatedKey {
  id: string;
  orgId: string;
  ownerUserId: string;
  product: ProductSlug;
  environment: KeyEnvironment;
  scopes: ReadonlySet<Scope>;
  /** null: any address. 'unreadable': the stored list is damaged, and no address may use the key. */
  whitelist: BlockList | null | 'unreadable';
  rateLimitPerSecond: number;
  rateLimitBurst: number;
}

export interface CreateKeyInput {
  orgId: string;
  ownerUserId: string;
  actorUserId: string | null;
  product: ProductSlug;
  scopes: readonly string[];
  environment: KeyEnvironment;
  name?: string | null;
  ipWhitelist?: readonly string[];
  expiresAt?: number | null;
  rateLimitPerSecond?: number | null;
}

type KeyRow = typeof apiKeys.$inferSelect;

/** A key as last read from the database, with what is checked on every request. */
interface CachedKey {
  key: AuthenticatedKey;
  expiresAt: number | null;
}

/** Enough for every key an organization can have had; past it the cache starts over. */
const MAX_CACHED_KEYS = 1_000;

interface AuthRow {
  id: string;
  org_id: string;
  owner_user_id: string;
  product: ProductSlug;
  environment: KeyEnvironment;
  scopes: string;
  ip_whitelist: string;
  rate_limit_per_second: number;
  rate_limit_burst: number;
  expires_at: number | null;
  revoked_at: number | null;
}

export class ApiKeys {
  readonly #byHash: Database.Statement<[string], AuthRow>;
  readonly #touch: Database.Statement<[number, string]>;
  /**
   * Active keys by SHA-256, as last read. Trusted only while PRAGMA data_version is unchanged (no
   * other connection, such as the CLI, has committed since) and emptied by every change made here.
   */
  readonly #byHashCache: WriteInvalidatedCache<string, CachedKey>;
  /** Parsed whitelists by key id and raw JSON, so a request never re-parses them. */
  readonly #whitelists = new Map<string, { raw: string; list: BlockList | null | 'unreadable' }>();
  /** last_used_at is written at most once a minute per key, off the hot path. */
  readonly #lastUsedPending = new Map<string, number>();
  readonly #lastUsedWritten = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly sqlite: Database.Database,
    private readonly vault: () => Vault,
    private readonly audit: AuditLog,
  ) {
    this.#byHash = sqlite.prepare(
      'SELECT id, org_id, owner_user_id, product, environment, scopes, ip_whitelist, rate_limit_per_second, rate_limit_burst, expires_at, revoked_at FROM api_keys WHERE key_hash = ?',
    );
    this.#touch = sqlite.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ? ');
    this.#byHashCache = new WriteInvalidatedCache(sqlite, MAX_CACHED_KEYS);
  }

  /**
   * What `create` would refuse for this input, checked without writing anything (the limit as the
   * database is now; `create` checks it again in its transaction). The desktop runs it before it asks
   * for the passphrase, so that a mistyped address is not found only after the passphrase was typed.
   */
  checkCreate(input: CreateKeyInput): void {
    const now = Date.now();
    this.#validated(input, now);
    this.#refuseOverLimit(input.orgId, now);
  }

  create(input: CreateKeyInput): { key: ApiKeyView; secret: string } {
    const now = Date.now();
    const { scopes, whitelist, rate, name } = this.#validated(input, now);
    this.#byHashCache.clear();
    return this.db.transaction(() => {
      this.#refuseOverLimit(input.orgId, now);
      const owner = this.db.select({ id: users.id }).from(users).where(and(eq(users.orgId, input.orgId), eq(users.id, input.ownerUserId))).get();
      if (!owner) throw invalidParameter('The key owner is not a user of this organization');
      const id = uuidv7(now);
      const secret = generateKeySecret(input.environment);
      this.db
        .insert(apiKeys)
        .values({
          id,
          orgId: input.orgId,
          ownerUserId: input.ownerUserId,
          name,
          product: input.product,
          environment: input.environment,
          scopes: scopes.join(','),
          ipWhitelist: JSON.stringify(whitelist),
          displayPrefix: displayPrefix(secret),
          keyHash: hashKey(secret),
          keyCiphertext: this.vault().seal(secret, id),
          rateLimitPerSecond: rate,
          rateLimitBurst: Math.max(DEFAULT_RATE_LIMIT_BURST, rate * 2),
          expiresAt: input.expiresAt ?? null,
          createdAt: now,
        })
        .run();
      this.audit.record({
        orgId: input.orgId,
        actorUserId: input.actorUserId,
        action: 'key.created',
        targetType: 'api_key',
        targetId: id,
        details: { product: input.product, environment: input.environment, scopes, ipWhitelist: whitelist, prefix: displayPrefix(secret) },
      });
      return { key: this.get(input.orgId, id), secret };
    }, IMMEDIATE);
  }

  #validated(input: CreateKeyInput, now: number): { scopes: Scope[]; whitelist: string[]; rate: number; name: string | null } {
    const scopes = parseScopes(input.scopes);
    // It could never be used: GET /api/v1/history answers CBU keys only (spec 4.3). Refused, as the
    // desktop's form disables it, rather than given to a key that would get 403 for it.
    if (input.product === 'informes' && scopes.includes('history')) {
      throw invalidParameter('The history scope is for CBU keys: GET /api/v1/history answers CBU keys only; leave it out of an Informes key');
    }
    const whitelist = (input.ipWhitelist ?? []).map(parseWhitelistEntry);
    const rate = input.rateLimitPerSecond ?? DEFAULT_RATE_LIMIT_PER_SECOND;
    if (!Number.isInteger(rate) || rate < 1 || rate > MAX_RATE_LIMIT_PER_SECOND) throw invalidParameter(`rate limit must be a whole number of requests per second from 1 to ${MAX_RATE_LIMIT_PER_SECOND}`);
    if (input.expiresAt != null && (!Number.isFinite(input.expiresAt) || input.expiresAt <= now)) {
      throw invalidParameter('expiration must be a future date');
    }
    const name = input.name?.trim() || null;
    refuseKeyLike('The key name', name);
    return { scopes, whitelist, rate, name };
  }

  #refuseOverLimit(orgId: string, now: number): void {
    if (this.activeCount(orgId, now) >= MAX_ACTIVE_KEYS) {
      throw new TitularError(409, 'KEY_LIMIT_REACHED', `The organization already has ${MAX_ACTIVE_KEYS} active keys; revoke one before creating another`);
    }
  }

  activeCount(orgId: string, now = Date.now()): number {
    return this.db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.orgId, orgId), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now))))
      .all().length;
  }

  list(orgId: string): ApiKeyView[] {
    try {
      withoutBusyWait(this.sqlite, () => this.flushLastUsed());
    } catch {
      // A full disk, or a lock another process keeps: listing is a read and must not fail for this
      // bookkeeping. The times stay pending (flushLastUsed), are shown from memory below, and the
      // housekeeping writes them later.
    }
    const pending = this.#lastUsedPending;
    return this.db
      .select({ key: apiKeys, owner: { id: users.id, name: users.name, email: users.email } })
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.ownerUserId))
      .where(eq(apiKeys.orgId, orgId))
      .orderBy(desc(apiKeys.id))
      .all()
      .map(({ key, owner }) => {
        const view = toView(key, owner);
        const at = pending.get(key.id);
        return at !== undefined && (key.lastUsedAt === null || at > key.lastUsedAt) ? { ...view, lastUsedAt: new Date(at).toISOString() } : view;
      });
  }

  get(orgId: string, id: string): ApiKeyView {
    const row = this.db
      .select({ key: apiKeys, owner: { id: users.id, name: users.name, email: users.email } })
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.ownerUserId))
      .where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.id, id)))
      .get();
    if (!row) throw new TitularError(404, 'NOT_FOUND', `No API key with id ${maskKeys(id)}`);
    return toView(row.key, row.owner);
  }

  /** Decrypts a key for an admin to see again. Audited. */
  reveal(orgId: string, id: string, actorUserId: string | null): string {
    const row = this.#row(orgId, id);
    const secret = this.vault().open(row.keyCiphertext, row.id);
    // The prefix it had then: a later rotation gives the key another, and the trail must say which was shown.
    this.audit.record({ orgId, actorUserId, action: 'key.revealed', targetType: 'api_key', targetId: id, details: { prefix: row.displayPrefix } });
    return secret;
  }

  /**
   * The key `rotate` would rotate (404 for none, a refusal for a revoked one), checked without writing:
   * the desktop runs it before it asks for the passphrase; `rotate` checks again in its transaction.
   */
  checkRotate(orgId: string, id: string): ApiKeyView {
    this.#rotatable(this.#row(orgId, id));
    return this.get(orgId, id);
  }

  #rotatable(row: KeyRow): void {
    if (row.revokedAt !== null) throw stateRefusal('A revoked key cannot be rotated');
  }

  /** Gives the key a new secret; the old one fails from the very next request. */
  rotate(orgId: string, id: string, actorUserId: string | null): { key: ApiKeyView; secret: string } {
    this.#byHashCache.clear();
    return this.db.transaction(() => {
      const row = this.#row(orgId, id);
      this.#rotatable(row);
      const secret = generateKeySecret(row.environment);
      const now = Date.now();
      this.db
        .update(apiKeys)
        .set({ keyHash: hashKey(secret), keyCiphertext: this.vault().seal(secret, id), displayPrefix: displayPrefix(secret), rotatedAt: now })
        .where(eq(apiKeys.id, id))
        .run();
      this.audit.record({ orgId, actorUserId, action: 'key.rotated', targetType: 'api_key', targetId: id, details: { prefix: displayPrefix(secret) } });
      return { key: this.get(orgId, id), secret };
    }, IMMEDIATE);
  }

  /** Revocation is immediate and final. */
  revoke(orgId: string, id: string, actorUserId: string | null): ApiKeyView {
    this.#byHashCache.clear();
    return this.db.transaction(() => {
      const row = this.#row(orgId, id);
      if (row.revokedAt === null) {
        this.db.update(apiKeys).set({ revokedAt: Date.now() }).where(eq(apiKeys.id, id)).run();
        this.audit.record({ orgId, actorUserId, action: 'key.revoked', targetType: 'api_key', targetId: id, details: { prefix: row.displayPrefix } });
      }
      return this.get(orgId, id);
    }, IMMEDIATE);
  }

  /**
   * Finds the key a request presented. A key read before is reused only while no other connection
   * has written to the database (PRAGMA data_version, checked on every call) and nothing was changed
   * through this object, so a revocation or rotation made here or by another process (the CLI)
   * applies to the very next request. Expiry is checked against `now` every time.
   */
  authenticate(secret: string, now: number): AuthenticatedKey | null {
    return this.confirm(hashKey(secret), now);
  }

  /**
   * The key as last read, trusted without reading data_version, or null when none is cached (the
   * caller then uses `confirm`): for a lookup, which confirms its key inside the transaction that
   * records it (write-invalidated-cache.ts), by the key's SHA-256, not the secret.
   */
  speculate(keyHash: string, now: number): AuthenticatedKey | null {
    const cached = this.#byHashCache.peek(keyHash);
    return cached ? this.#unexpired(cached, now) : null;
  }

  /** The key with this SHA-256, checked against the database as this run (or transaction) sees it. */
  confirm(keyHash: string, now: number): AuthenticatedKey | null {
    const cached = this.#byHashCache.get(keyHash, () => {
      const row = this.#byHash.get(keyHash);
      return row && row.revoked_at === null ? { key: this.#toAuthenticated(row), expiresAt: row.expires_at } : undefined;
    });
    return cached ? this.#unexpired(cached, now) : null;
  }

  /**
   * Why a presented key that `confirm` refused is not valid, for its 401: only whoever holds the
   * secret can ask, so saying "revoked" or "expired" tells nobody else anything. Read only on that
   * failure path. A key rotated away is no longer known by its old hash: plain "invalid".
   */
  whyInvalid(keyHash: string, now: number): 'revoked' | { expiredAt: number } | 'unknown' {
    const row = this.#byHash.get(keyHash);
    if (!row) return 'unknown';
    if (row.revoked_at !== null) return 'revoked';
    if (row.expires_at !== null && row.expires_at <= now) return { expiredAt: row.expires_at };
    return 'unknown';
  }

  #unexpired(cached: CachedKey, now: number): AuthenticatedKey | null {
    if (cached.expiresAt !== null && cached.expiresAt <= now) return null;
    this.#lastUsedPending.set(cached.key.id, now);
    return cached.key;
  }

  #toAuthenticated(row: AuthRow): AuthenticatedKey {
    return {
      id: row.id,
      orgId: row.org_id,
      ownerUserId: row.owner_user_id,
      product: row.product,
      environment: row.environment,
      scopes: new Set(row.scopes.split(',') as Scope[]),
      whitelist: this.#whitelist(row.id, row.ip_whitelist),
      rateLimitPerSecond: row.rate_limit_per_second,
      rateLimitBurst: row.rate_limit_burst,
    };
  }

  ipAllowed(key: AuthenticatedKey, peer: string): boolean {
    if (key.whitelist === 'unreadable') return false;
    return key.whitelist === null || addressAllowed(key.whitelist, peer);
  }

  /** Writes the last-use times gathered since the previous flush (at most one write a minute per key). */
  flushLastUsed(): void {
    if (this.#lastUsedPending.size === 0) return;
    const due: [string, number][] = [];
    for (const [id, at] of this.#lastUsedPending) {
      if (at - (this.#lastUsedWritten.get(id) ?? 0) >= 60_000 || !this.#lastUsedWritten.has(id)) due.push([id, at]);
    }
    this.#lastUsedPending.clear();
    if (due.length === 0) return;
    try {
      this.db.transaction(() => {
        for (const [id, at] of due) this.#touch.run(at, id);
      });
    } catch (error) {
      // Not written (a full disk, another process holding the write lock past the busy timeout): kept
      // for the next flush, not dropped, and not counted as written.
      for (const [id, at] of due) this.#lastUsedPending.set(id, Math.max(at, this.#lastUsedPending.get(id) ?? 0));
      throw error;
    }
    for (const [id, at] of due) this.#lastUsedWritten.set(id, at);
  }

  #whitelist(id: string, raw: string): BlockList | null | 'unreadable' {
    const cached = this.#whitelists.get(id);
    if (cached && cached.raw === raw) return cached.list;
    const entries = storedWhitelist(raw);
    const list = entries === null ? 'unreadable' : entries.length === 0 ? null : buildBlockList(entries);
    this.#whitelists.set(id, { raw, list });
    return list;
  }

  #row(orgId: string, id: string): KeyRow {
    const row = this.db.select().from(apiKeys).where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.id, id))).get();
    if (!row) throw new TitularError(404, 'NOT_FOUND', `No API key with id ${maskKeys(id)}`);
    return row;
  }
}

export function parseScopes(raw: readonly string[]): Scope[] {
  const scopes = [...new Set(raw.map((s) => s.trim()).filter(Boolean))];
  if (scopes.length === 0) throw invalidParameter('A key needs at least one scope: lookup, balance, history');
  for (const scope of scopes) {
    if (!scopeSchema.safeParse(scope).success) throw invalidParameter(`Unknown scope "${scope}"; use lookup, balance, history`);
  }
  return scopes as Scope[];
}

function toView(row: KeyRow, owner: { id: string; name: string; email: string }): ApiKeyView {
  const now = Date.now();
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    id: row.id,
    name: row.name,
    product: row.product,
    environment: row.environment,
    scopes: row.scopes.split(',') as Scope[],
    ipWhitelist: storedWhitelist(row.ipWhitelist),
    prefix: row.displayPrefix,
    status: row.revokedAt !== null ? 'revoked' : row.expiresAt !== null && row.expiresAt <= now ? 'expired' : 'active',
    rateLimitPerSecond: row.rateLimitPerSecond,
    rateLimitBurst: row.rateLimitBurst,
    expiresAt: iso(row.expiresAt),
    revokedAt: iso(row.revokedAt),
    rotatedAt: iso(row.rotatedAt),
    lastUsedAt: iso(row.lastUsedAt),
    createdAt: new Date(row.createdAt).toISOString(),
    owner,
  };
}
