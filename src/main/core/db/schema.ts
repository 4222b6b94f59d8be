// The whole database of one Titular data directory.
//
// Rules that keep a later multi-desktop sync possible without a rewrite:
// - every id is a UUIDv7 (time-sortable, generated here, never by SQLite);
// - `credit_ledger`, `lookups` and `audit_log` are append-only: rows are inserted, never updated
//   or deleted; `credit_balances` is a projection of the ledger kept in the same transaction
//   (it can be rebuilt from the ledger at any time, see ledger/invariants.ts);
// - times are integer milliseconds since the epoch (UTC), which sort and filter cheaply.
import { sql } from 'drizzle-orm';
import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const organizations = sqliteTable('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: integer('created_at').notNull(),
});

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id),
    name: text('name').notNull(),
    email: text('email').notNull(),
    role: text('role', { enum: ['admin', 'operator'] }).notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('users_org_email').on(t.orgId, t.email)],
);

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id),
    ownerUserId: text('owner_user_id')
      .notNull()
      .references(() => users.id),
    name: text('name'),
    product: text('product', { enum: ['cbu', 'informes'] }).notNull(),
    environment: text('environment', { enum: ['live', 'sandbox'] }).notNull(),
    /** Comma-separated subset of lookup,balance,history. */
    scopes: text('scopes').notNull(),
    /** JSON array of IP addresses / CIDR ranges; empty array = any address. */
    ipWhitelist: text('ip_whitelist').notNull().default('[]'),
    /** First characters of the key, safe to display ("sk_live_Ab12…"). */
    displayPrefix: text('display_prefix').notNull(),
    /** Hex SHA-256 of the full key: how a request finds its key. */
    keyHash: text('key_hash').notNull(),
    /** AES-256-GCM(iv ‖ ciphertext ‖ tag) of the key under the vault's data key, AAD = id. */
    keyCiphertext: blob('key_ciphertext', { mode: 'buffer' }).notNull(),
    rateLimitPerSecond: integer('rate_limit_per_second').notNull(),
    rateLimitBurst: integer('rate_limit_burst').notNull(),
    expiresAt: integer('expires_at'),
    revokedAt: integer('revoked_at'),
    rotatedAt: integer('rotated_at'),
    lastUsedAt: integer('last_used_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('api_keys_hash').on(t.keyHash), index('api_keys_org').on(t.orgId, t.createdAt)],
);

/** Append-only. amount > 0 for purchases, < 0 for consumptions. */
export const creditLedger = sqliteTable(
  'credit_ledger',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id),
    product: text('product', { enum: ['cbu', 'informes'] }).notNull(),
    kind: text('kind', { enum: ['purchase', 'consumption'] }).notNull(),
    amount: integer('amount').notNull(),
    /** Purchases: the caller's reference (invoice, receipt); unique per org and product. */
    reference: text('reference'),
    /**
     * Consumptions: the lookup (history entry) that spent the credit. Since migration 0006 a
     * consumption's `id` is this lookup id, so the primary key is what lets a lookup be charged once
     * (it replaced a unique index on this column: one index entry less per charge).
     */
    lookupId: text('lookup_id'),
    userId: text('user_id'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('credit_ledger_reference').on(t.orgId, t.product, t.reference).where(sql`reference IS NOT NULL`),
    // No index on (org, product, created_at) since migration 0007: every charge paid an entry in it for
    // the desktop's consumption chart, which reads a time range through the primary key instead (ids
    // are UUIDv7, ordered by time: Ledger.consumedByDay).
  ],
);

/** Projection of credit_ledger, updated in the same transaction as every ledger insert. */
export const creditBalances = sqliteTable(
  'credit_balances',
  {
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id),
    product: text('product', { enum: ['cbu', 'informes'] }).notNull(),
    balance: integer('balance').notNull(),
    totalPurchased: integer('total_purchased').notNull(),
    totalConsumed: integer('total_consumed').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.product] })],
);

/** Append-only history of every lookup that reached validation or resolution. */
export const lookups = sqliteTable(
  'lookups',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id),
    environment: text('environment', { enum: ['live', 'sandbox'] }).notNull(),
    product: text('product', { enum: ['cbu', 'informes'] }).notNull(),
    inputIdentifier: text('input_identifier').notNull(),
    inputType: text('input_type', { enum: ['CBU', 'CVU', 'ALIAS', 'CUIT'] }).notNull(),
    status: text('status', { enum: ['SUCCESS', 'ERROR'] }).notNull(),
    errorCode: text('error_code'),
    httpStatus: integer('http_status').notNull(),
    source: text('source', { enum: ['WEB', 'API', 'BULK'] }).notNull(),
    /** JSON: the `data` of a success, or `{ error: { code, message } }`. */
    responseData: text('response_data').notNull(),
    upstreamLatencyMs: integer('upstream_latency_ms').notNull(),
    creditConsumed: integer('credit_consumed').notNull(),
    userId: text('user_id').notNull(),
    apiKeyId: text('api_key_id'),
    requestId: text('request_id').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    // Status, source and identifier trail the sort key so that pages filtered on both, or searched
    // by text, skip and count entries in this index alone (history/history.ts, indexFor).
    index('lookups_page').on(t.orgId, t.environment, t.product, t.createdAt, t.id, t.status, t.source, t.inputIdentifier),
  ],
);

/** Accounts the organization imported (the `directory` resolver). Reference data, replaced by import. */
export const directoryAccounts = sqliteTable(
  'directory_accounts',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id),
    number: text('number').notNull(),
    /** Lower-cased alias for case-insensitive matching; `alias` keeps the display form. */
    aliasKey: text('alias_key'),
    alias: text('alias'),
    accountType: text('account_type', { enum: ['CC', 'CA', 'VIRTUAL'] }).notNull(),
    currency: text('currency', { enum: ['ARS', 'USD'] }).notNull(),
    active: integer('active', { mode: 'boolean' }).notNull(),
    /** JSON array of holders: { full_name, tax_id, tax_id_type, is_individual }. */
    holders: text('holders').notNull(),
    importedAt: integer('imported_at').notNull(),
  },
  (t) => [
    uniqueIndex('directory_accounts_number').on(t.orgId, t.number),
    uniqueIndex('directory_accounts_alias').on(t.orgId, t.aliasKey).where(sql`alias_key IS NOT NULL`),
  ],
);

/** Append-only record of who did what to keys, users, credits and settings. */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id),
    actorUserId: text('actor_user_id'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    /** JSON object of non-secret details. */
    details: text('details').notNull().default('{}'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('audit_log_org').on(t.orgId, t.createdAt)],
);

/** Answers stored for `Idempotency-Key` replays (24 h). */
export const idempotencyRecords = sqliteTable(
  'idempotency_records',
  {
    apiKeyId: text('api_key_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    requestHash: text('request_hash').notNull(),
    statusCode: integer('status_code').notNull(),
    responseBody: text('response_body').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.idempotencyKey] }), index('idempotency_created').on(t.createdAt)],
);

/** The vault's wrapped data key and how it is wrapped (one row). */
export const vaultMeta = sqliteTable('vault_meta', {
  id: integer('id').primaryKey(),
  provider: text('provider', { enum: ['passphrase', 'keyfile', 'os'] }).notNull(),
  /** scrypt salt and parameters (JSON) for the passphrase provider. */
  kdf: text('kdf'),
  wrappedDataKey: blob('wrapped_data_key', { mode: 'buffer' }).notNull(),
  createdAt: integer('created_at').notNull(),
});

/** Small key/value settings (resolver per product, local API port...). */
export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/**
 * Credit reports the organization imported (the `directory` resolver of the Informes product), one
 * row per CUIT/CUIL holding the whole report as JSON. Reference data, replaced by import.
 */
export const directoryCreditReports = sqliteTable(
  'directory_credit_reports',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id),
    /** 11 digits, no dashes. */
    taxId: text('tax_id').notNull(),
    /** JSON: the `data` of a credit lookup (shared/api/credit.ts creditReportSchema). */
    report: text('report').notNull(),
    importedAt: integer('imported_at').notNull(),
  },
  (t) => [uniqueIndex('directory_credit_reports_tax_id').on(t.orgId, t.taxId)],
);

/** Secrets other than API keys (the remote resolver's upstream key), sealed by the vault with `name` as AAD. */
export const vaultSecrets = sqliteTable('vault_secrets', {
  name: text('name').primaryKey(),
  ciphertext: blob('ciphertext', { mode: 'buffer' }).notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/**
 * Lookups per day and outcome, kept in the same transaction as each history insert, so history
 * totals on large histories are sums over days instead of counts over rows.
 */
export const lookupDailyCounts = sqliteTable(
  'lookup_daily_counts',
  {
    orgId: text('org_id').notNull(),
    environment: text('environment', { enum: ['live', 'sandbox'] }).notNull(),
    product: text('product', { enum: ['cbu', 'informes'] }).notNull(),
    /** UTC day as days since the epoch (createdAt / 86 400 000, floored). */
    day: integer('day').notNull(),
    status: text('status', { enum: ['SUCCESS', 'ERROR'] }).notNull(),
    source: text('source', { enum: ['WEB', 'API', 'BULK'] }).notNull(),
    count: integer('count').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.environment, t.product, t.day, t.status, t.source] }),
    // Covering (count included): summing a year of days reads this index only, not the table.
    index('lookup_daily_counts_sum').on(t.orgId, t.environment, t.product, t.day, t.status, t.source, t.count),
  ],
);

/** A bulk lookup job (source BULK): a file of identifiers looked up by the user who started it. */
export const bulkJobs = sqliteTable(
  'bulk_jobs',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    product: text('product', { enum: ['cbu', 'informes'] }).notNull(),
    /** The file name (or "pasted list") shown to the user. */
    name: text('name').notNull(),
    /** Hex SHA-256 of the input, so running the same file again resumes its unfinished job. */
    inputHash: text('input_hash').notNull(),
    status: text('status', { enum: ['pending', 'running', 'paused', 'out_of_credits', 'completed', 'cancelled'] }).notNull(),
    totalRows: integer('total_rows').notNull(),
    /** Distinct valid identifiers: what the job will look up (and at most charge). */
    totalItems: integer('total_items').notNull(),
    invalidRows: integer('invalid_rows').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    finishedAt: integer('finished_at'),
    /**
     * The process that set the job running, as `host:pid` or `host/pidns-N:pid` (bulk/bulk-jobs.ts). A running job
     * whose runner was a process of this machine that no longer exists is shown interrupted at
     * once; otherwise only after RUN_STALE_MS without a heartbeat (`updated_at`).
     */
    runner: text('runner'),
  },
  (t) => [index('bulk_jobs_org').on(t.orgId, t.createdAt), index('bulk_jobs_input').on(t.orgId, t.inputHash)],
);

/** Every input row of a bulk job, in file order (the CSV export has one row per input). */
export const bulkJobRows = sqliteTable(
  'bulk_job_rows',
  {
    jobId: text('job_id')
      .notNull()
      .references(() => bulkJobs.id),
    rowNumber: integer('row_number').notNull(),
    rawInput: text('raw_input').notNull(),
    /** The distinct item this row is answered by; null when the row is invalid. */
    itemKey: text('item_key'),
    /** Why the row is invalid (never looked up, never charged). */
    invalidMessage: text('invalid_message'),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.rowNumber] })],
);

/**
 * The distinct identifiers of a bulk job. `lookupId` and the outcome are written in the same
 * transaction as the lookup's history entry and charge: an item with a lookupId is done and is
 * never looked up (or charged) again, whatever crashes in between.
 */
export const bulkJobItems = sqliteTable(
  'bulk_job_items',
  {
    jobId: text('job_id')
      .notNull()
      .references(() => bulkJobs.id),
    /** "<inputType>:<normalized identifier>", e.g. "CBU:0110…", "ALIAS:mi.alias", "CUIT:20…". */
    itemKey: text('item_key').notNull(),
    identifier: text('identifier').notNull(),
    /** `cbu` or `alias` for account lookups; `cuit` for credit reports. */
    type: text('type', { enum: ['cbu', 'alias', 'cuit'] }).notNull(),
    /** First row of the file holding it (items are run in file order). */
    firstRow: integer('first_row').notNull(),
    lookupId: text('lookup_id'),
    httpStatus: integer('http_status'),
    errorCode: text('error_code'),
    creditConsumed: integer('credit_consumed'),
    completedAt: integer('completed_at'),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.itemKey] }), index('bulk_job_items_pending').on(t.jobId, t.completedAt, t.firstRow)],
);
