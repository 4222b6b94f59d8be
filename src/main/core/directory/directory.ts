// The organization's own directory of accounts (imported from CSV/JSON) and the resolver that
// answers live lookups from it. Import is all-or-nothing unless the caller skips invalid rows.
import type Database from 'better-sqlite3';
import type { LookupData } from '../../../shared/api/lookup';
import { uuidv7 } from '../db/ids';
import { WriteInvalidatedCache } from '../db/write-invalidated-cache';
import { deepFreeze } from '../frozen-json';
import { analyzeCbu } from '../../../shared/identifiers';
import type { AuditLog } from '../audit/audit-log';
import type { AccountQuery, AccountResolver, Resolution } from '../resolvers/resolver';
import type { DirectoryAccount, DirectoryRowError } from './directory-file';
import { DamagedRecordError, storedJson } from '../db/stored-json';

export interface ImportReport {
  imported: number;
  /** Accounts that replaced an existing account with the same number. */
  replaced: number;
  rows: number;
  errors: DirectoryRowError[];
  /** False when nothing was written because some row was bad (and invalid rows were not skipped). */
  committed: boolean;
}

interface AccountRow {
  id: string;
  number: string;
  alias: string | null;
  account_type: LookupData['account_type'];
  currency: LookupData['currency'];
  active: number;
  holders: string;
}

/** About 1 KB each; a larger directory is still served, from the database for what falls out. */
const RESOLVED_CACHE_ENTRIES = 10_000;
const NOT_FOUND: Resolution<LookupData> = deepFreeze({ found: false });

export class Directory implements AccountResolver {
  readonly name = 'directory' as const;
  readonly #byNumber: Database.Statement<[string, string], AccountRow>;
  readonly #byAlias: Database.Statement<[string, string], AccountRow>;
  readonly #upsert: Database.Statement<unknown[]>;
  readonly #deleteAliasClash: Database.Statement<[string, string, string]>;
  readonly #exists: Database.Statement<[string, string], { id: string }>;
  readonly #count: Database.Statement<[string], { n: number }>;
  /**
   * Resolutions by query, shared by every lookup of the same account (frozen). Emptied by this
   * process's imports and by any commit of another connection (write-invalidated-cache.ts); read
   * inside the group transaction, where that check costs nothing.
   */
  readonly #resolved: WriteInvalidatedCache<string, Resolution<LookupData>>;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly audit: AuditLog,
  ) {
    const columns = 'id, number, alias, account_type, currency, active, holders';
    this.#byNumber = sqlite.prepare(`SELECT ${columns} FROM directory_accounts WHERE org_id = ? AND number = ?`);
    this.#byAlias = sqlite.prepare(`SELECT ${columns} FROM directory_accounts WHERE org_id = ? AND alias_key = ?`);
    this.#upsert = sqlite.prepare(
      `INSERT INTO directory_accounts (id, org_id, number, alias_key, alias, account_type, currency, active, holders, imported_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (org_id, number) DO UPDATE SET alias_key = excluded.alias_key, alias = excluded.alias,
         account_type = excluded.account_type, currency = excluded.currency, active = excluded.active,
         holders = excluded.holders, imported_at = excluded.imported_at`,
    );
    // An alias moves with its account: an older account holding the alias loses it.
    this.#deleteAliasClash = sqlite.prepare(
      'UPDATE directory_accounts SET alias_key = NULL, alias = NULL WHERE org_id = ? AND alias_key = ? AND number <> ?',
    );
    this.#exists = sqlite.prepare('SELECT id FROM directory_accounts WHERE org_id = ? AND number = ?');
    this.#count = sqlite.prepare('SELECT COUNT(*) AS n FROM directory_accounts WHERE org_id = ?');
    this.#resolved = new WriteInvalidatedCache(sqlite, RESOLVED_CACHE_ENTRIES);
  }

  async resolveAccount(query: AccountQuery): Promise<Resolution<LookupData>> {
    return this.resolveAccountNow(query);
  }

  /** Synchronous form (the directory is local): no promise on the hot path when not needed. */
  resolveAccountNow(query: AccountQuery): Resolution<LookupData> {
    const key = query.kind === 'number' ? `n:${query.orgId}:${query.number}` : `a:${query.orgId}:${query.aliasKey}`;
    return this.#resolved.get(key, () => this.#read(query))!;
  }

  #read(query: AccountQuery): Resolution<LookupData> {
    const row = query.kind === 'number' ? this.#byNumber.get(query.orgId, query.number) : this.#byAlias.get(query.orgId, query.aliasKey);
    return row ? deepFreeze({ found: true, data: toLookupData(row) }) : NOT_FOUND;
  }

  count(orgId: string): number {
    return this.#count.get(orgId)?.n ?? 0;
  }

  /** Writes parsed accounts in one transaction. With errors and no skip, writes nothing. */
  import(
    orgId: string,
    parsed: { accounts: DirectoryAccount[]; errors: DirectoryRowError[]; rows: number },
    options: { skipInvalid: boolean; actorUserId: string | null; fileName?: string },
  ): ImportReport {
    // Nothing valid to write (or errors without --skip-invalid): write nothing, not even an audit entry.
    if ((parsed.errors.length > 0 && !options.skipInvalid) || parsed.accounts.length === 0) {
      return { imported: 0, replaced: 0, rows: parsed.rows, errors: parsed.errors, committed: false };
    }
    const now = Date.now();
    let replaced = 0;
    this.sqlite.transaction(() => {
      for (const account of parsed.accounts) {
        if (this.#exists.get(orgId, account.number)) replaced++;
        if (account.aliasKey) this.#deleteAliasClash.run(orgId, account.aliasKey, account.number);
        const d = account.data;
        this.#upsert.run(
          uuidv7(now),
          orgId,
          account.number,
          account.aliasKey,
          d.alias || null,
          d.account_type,
          d.currency,
          d.active ? 1 : 0,
          JSON.stringify(d.holders),
          now,
        );
      }
      this.audit.record({
        orgId,
        actorUserId: options.actorUserId,
        action: 'directory.imported',
        targetType: 'directory',
        details: { file: options.fileName ?? null, accounts: parsed.accounts.length, replaced, skippedRows: parsed.errors.length },
      });
    }).immediate();
    this.#resolved.clear();
    return { imported: parsed.accounts.length, replaced, rows: parsed.rows, errors: parsed.errors, committed: true };
  }
}

/** What a lookup of an account whose stored record cannot be read is told (500 GE500, not charged). */
export const DAMAGED_ACCOUNT_MESSAGE =
  "The directory's record of this account cannot be read (it is damaged in Titular's database); import the directory again";

function toLookupData(row: AccountRow): LookupData {
  // Scheme and bank are derived from the number, which was validated on import: a number that no
  // longer passes, like holders that are not a JSON array, is a damaged row (stored-json.ts).
  const analysis = analyzeCbu(row.number);
  const holders = storedJson(row.holders);
  if (!analysis.ok || !Array.isArray(holders)) throw new DamagedRecordError(DAMAGED_ACCOUNT_MESSAGE, row.id);
  return {
    holders: holders as LookupData['holders'],
    account_type: row.account_type,
    active: row.active === 1,
    currency: row.currency,
    alias: row.alias ?? '',
    account: { scheme: analysis.scheme, number: analysis.number },
    bank: analysis.bank,
  };
}
