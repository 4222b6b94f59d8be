// The one IPC contract of the desktop: channel → input and output zod schemas, and whether only
// admins may call it. Electron's main process (ipcMain), the headless HTTP bridge, the preload and
// the renderer's React Query hooks are all derived from this table.
import { z } from 'zod';
import { errorBodySchema, lookupStatusSchema, productSlugSchema, scopeSchema, sourceSchema } from '../api/common';
import { MAX_PURCHASE, balanceEntrySchema } from '../api/balance';
import { damagedFieldsSchema, damagedRowsSchema, keyedHistoryPageSchema, unplacedEntriesSchema } from '../api/history';
import { lookupDataSchema, lookupTypeSchema } from '../api/lookup';
import { creditReportSchema } from '../api/credit';
import { bulkIpcContract } from './bulk-contract';
import { languageSchema, timeZoneSchema } from '../language';

export const roleSchema = z.enum(['admin', 'operator']);
export type Role = z.infer<typeof roleSchema>;

export const userSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role: roleSchema,
  createdAt: z.string(),
});
export type UserView = z.infer<typeof userSchema>;

export const apiKeyViewSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  product: productSlugSchema,
  environment: z.enum(['live', 'sandbox']),
  scopes: z.array(scopeSchema),
  /** [] for any address; null when the stored list cannot be read (damaged): the key is refused from every address. */
  ipWhitelist: z.array(z.string()).nullable(),
  prefix: z.string(),
  status: z.enum(['active', 'revoked', 'expired']),
  rateLimitPerSecond: z.number().int(),
  rateLimitBurst: z.number().int(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  rotatedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  createdAt: z.string(),
  owner: z.object({ id: z.string(), name: z.string(), email: z.string() }),
});
export type ApiKeyViewDto = z.infer<typeof apiKeyViewSchema>;

export const auditEntrySchema = z.object({
  id: z.string(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  actor: z.object({ id: z.string(), name: z.string(), email: z.string() }).nullable(),
});

/** The history filter of the desktop: the contract's filters plus a text search on the identifier. */
export const historyFilterSchema = z.object({
  /** Which product's lookups (default `cbu`: account lookups; `informes`: credit reports). */
  product: productSlugSchema.optional(),
  /** Live lookups (default) or those of sandbox keys (`sk_test_`), which an integration makes while it is built. */
  environment: z.enum(['live', 'sandbox']).optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  status: lookupStatusSchema.optional(),
  source: sourceSchema.optional(),
  q: z.string().max(64).optional(),
});
export type HistoryFilter = z.infer<typeof historyFilterSchema>;

const empty = z.object({}).strict();
/** A key's or user's id (a UUID); bounded so that a huge one is refused, not looked up and echoed. */
const recordId = z.string().min(1).max(64);

export const startupStatusSchema = z.object({
  phase: z.enum(['setup', 'locked', 'ready']),
  protection: z.enum(['passphrase', 'keyfile', 'os']).nullable(),
  passphraseRequired: z.boolean(),
  organization: z.string().nullable(),
  /** The data directory (what a missing key file is restored into). */
  dataDir: z.string(),
  /** Setup: the folder holds an earlier setup's key file (master.key) but no database; see `newOrganization`. */
  earlierSetup: z.boolean(),
});
export type StartupStatusDto = z.infer<typeof startupStatusSchema>;

export const resolverModeSchema = z.enum(['directory', 'remote']);

/** The admin's settings screen: what is stored in `settings` plus the upstream's state. */
export const appSettingsSchema = z.object({
  apiPort: z.number().int(),
  /** The port the running API listens on (a changed apiPort applies at the next start). */
  listeningPort: z.number().int().nullable(),
  autoLockMinutes: z.number().int(),
  /** Where this Titular keeps its data (what `titular backup` copies) and what protects its vault. */
  dataDir: z.string(),
  vaultProtection: z.enum(['passphrase', 'keyfile', 'os']),
  resolvers: z.object({ cbu: resolverModeSchema, informes: resolverModeSchema }),
  remote: z.object({
    baseUrl: z.string().nullable(),
    timeoutMs: z.number().int(),
    hasUpstreamKey: z.boolean(),
    /** Circuit breaker and last error of the remote resolver, when one is composed. */
    state: z.enum(['closed', 'open', 'half-open']).nullable(),
    /** The remote source's last failure: the core's message (English) and when (ISO 8601). */
    lastError: z.object({ message: z.string(), at: z.string() }).nullable(),
  }),
});
export type AppSettings = z.infer<typeof appSettingsSchema>;

/** A backup made: its folder, the files in it and what protects its vault. */
export const backupResultSchema = z.object({
  directory: z.string(),
  files: z.array(z.object({ name: z.string(), bytes: z.number().int() })),
  protection: z.enum(['passphrase', 'keyfile', 'os']),
});

export const appSettingsUpdateSchema = z
  .object({
    apiPort: z.number().int().min(1024).max(65535),
    autoLockMinutes: z.number().int().min(0).max(24 * 60),
    resolvers: z.object({ cbu: resolverModeSchema, informes: resolverModeSchema }).partial(),
    remote: z.object({ baseUrl: z.string().max(500).nullable(), timeoutMs: z.number().int().min(100).max(60_000) }).partial(),
  })
  .partial();

/** The answer of a lookup as the API would give it: HTTP status plus the contract's body. */
const lookupAnswerSchema = <T extends z.ZodType>(data: T) =>
  z.object({
    status: z.number().int(),
    body: z.union([
      z.object({ success: z.literal(true), data, credits_remaining: z.number().int(), request_id: z.string() }),
      errorBodySchema,
    ]),
  });

function channel<I extends z.ZodType, O extends z.ZodType>(spec: { input: I; output: O; admin: boolean }) {
  return spec;
}

export const ipcContract = {
  'session.get': channel({
    input: empty,
    output: z.object({ user: userSchema, organization: z.object({ id: z.string(), name: z.string() }) }),
    admin: false,
  }),
  'lookup.account': channel({
    input: z.object({ identifier: z.string().max(200), type: lookupTypeSchema }),
    output: lookupAnswerSchema(lookupDataSchema),
    admin: false,
  }),
  'lookup.creditReport': channel({
    input: z.object({ tax_id: z.string().max(64) }),
    output: lookupAnswerSchema(creditReportSchema),
    admin: false,
  }),
  'balance.get': channel({
    input: empty,
    output: z.object({ balances: z.array(balanceEntrySchema) }),
    admin: false,
  }),
  'balance.dailyConsumption': channel({
    // Days as the screen's zone names them (the process's when absent): see time/wall-clock.ts.
    input: z.object({ product: productSlugSchema, days: z.number().int().min(1).max(366), timeZone: timeZoneSchema.optional() }),
    output: z.object({ days: z.array(z.object({ date: z.string(), consumed: z.number().int() })) }),
    admin: false,
  }),
  'credits.purchase': channel({
    input: z.object({ product: productSlugSchema, amount: z.number().int().min(1).max(MAX_PURCHASE), reference: z.string().max(200).optional() }),
    output: z.object({ added: z.boolean(), balance: z.number().int() }),
    admin: true,
  }),
  'history.list': channel({
    input: historyFilterSchema.extend({ page: z.number().int().min(1), per_page: z.number().int().min(1).max(50) }),
    output: keyedHistoryPageSchema,
    admin: false,
  }),
  'history.exportCsv': channel({
    /** The screen's language and time zone, which the file speaks (default Spanish, the core's zone). */
    input: historyFilterSchema.extend({ language: languageSchema.optional(), timeZone: timeZoneSchema.optional() }),
    output: z.object({
      fileName: z.string(),
      csv: z.string(),
      rows: z.number().int(),
      damaged: damagedRowsSchema,
      damagedFields: damagedFieldsSchema,
      unplaced: unplacedEntriesSchema,
    }),
    admin: false,
  }),
  'keys.list': channel({
    input: empty,
    output: z.object({ keys: z.array(apiKeyViewSchema), activeCount: z.number().int(), limit: z.number().int() }),
    admin: true,
  }),
  'keys.create': channel({
    input: z.object({
      name: z.string().max(100).optional(),
      product: productSlugSchema,
      scopes: z.array(scopeSchema).min(1),
      environment: z.enum(['live', 'sandbox']),
      ipWhitelist: z.array(z.string().max(64)).max(50).default([]),
      /** ISO 8601 date or instant; a date means the end of that day (UTC). */
      expiresAt: z.string().optional(),
      rateLimitPerSecond: z.number().int().min(1).max(10_000).optional(),
      /** Creating a key asks again, as revealing one does: the vault passphrase where the vault has one. */
      passphrase: z.string().max(1024).optional(),
    }),
    output: z.object({ key: apiKeyViewSchema, secret: z.string() }),
    admin: true,
  }),
  'keys.reveal': channel({
    /** Revealing asks again: the vault passphrase where the vault has one, else an explicit confirmation. */
    input: z.object({ id: recordId, confirm: z.literal(true), passphrase: z.string().max(1024).optional() }),
    output: z.object({ secret: z.string() }),
    admin: true,
  }),
  'keys.rotate': channel({
    /** Rotating asks again, as revealing does: the vault passphrase where the vault has one. */
    input: z.object({ id: recordId, passphrase: z.string().max(1024).optional() }),
    output: z.object({ key: apiKeyViewSchema, secret: z.string() }),
    admin: true,
  }),
  'keys.revoke': channel({
    input: z.object({ id: recordId }),
    output: z.object({ key: apiKeyViewSchema }),
    admin: true,
  }),
  'audit.list': channel({
    input: z.object({ targetType: z.string().max(64).optional(), limit: z.number().int().min(1).max(500).optional() }),
    output: z.object({ entries: z.array(auditEntrySchema) }),
    admin: true,
  }),
  'users.list': channel({
    input: empty,
    output: z.object({ users: z.array(userSchema) }),
    admin: true,
  }),
  'users.add': channel({
    input: z.object({ name: z.string().min(1).max(200), email: z.string().max(200), role: roleSchema }),
    output: z.object({ user: userSchema }),
    admin: true,
  }),
  'vault.status': channel({
    input: empty,
    output: z.object({ locked: z.boolean(), protection: z.enum(['passphrase', 'keyfile', 'os']), autoLockMinutes: z.number().int() }),
    admin: false,
  }),
  // Locking the vault also stops lookups through the remote source (its key is in the vault), for
  // every API client: the Claves screen's control, an admin's.
  'vault.lock': channel({
    input: empty,
    output: z.object({ locked: z.literal(true) }),
    admin: true,
  }),
  'vault.unlock': channel({
    /** The passphrase for a passphrase vault; key-file and OS-keychain vaults unlock without one. */
    input: z.object({ passphrase: z.string().max(1024).optional() }),
    output: z.object({ locked: z.literal(false) }),
    admin: true,
  }),
  'users.setRole': channel({
    input: z.object({ id: recordId, role: roleSchema }),
    output: z.object({ user: userSchema }),
    admin: true,
  }),
  // Before the app is usable: first-run setup, or the passphrase of the vault (startup-gate.ts).
  // Answered without a signed-in user; once ready, setup and unlock answer a conflict.
  'startup.status': channel({
    input: empty,
    output: startupStatusSchema,
    admin: false,
  }),
  'startup.unlock': channel({
    input: z.object({ passphrase: z.string().min(1).max(1024) }),
    output: startupStatusSchema,
    admin: false,
  }),
  'startup.setup': channel({
    input: z.object({
      organization: z.string().trim().min(1).max(200),
      adminName: z.string().trim().min(1).max(200),
      adminEmail: z.string().trim().max(200),
      passphrase: z.string().max(1024).optional(),
      /** Must be true to set up a folder whose status says `earlierSetup` (as `titular init --new-organization`). */
      newOrganization: z.boolean().optional(),
    }),
    output: startupStatusSchema,
    admin: false,
  }),
  'settings.get': channel({
    input: empty,
    output: appSettingsSchema,
    admin: true,
  }),
  'settings.update': channel({
    input: appSettingsUpdateSchema,
    output: appSettingsSchema,
    admin: true,
  }),
  /** Stores the remote resolver's upstream key in the vault (never sent back); empty removes it. */
  'settings.setUpstreamKey': channel({
    input: z.object({ key: z.string().max(512) }),
    output: appSettingsSchema,
    admin: true,
  }),
  /**
   * A key was just copied: the host clears it from the clipboard SECRET_CLIPBOARD_MS later if the
   * clipboard still holds it (its SHA-256, hex: the key itself does not travel again). `scheduled` is
   * false where the host cannot (the browser mode): the page then does it itself.
   */
  'clipboard.clearSecretLater': channel({
    input: z.object({ digest: z.string().regex(/^[0-9a-f]{64}$/) }),
    output: z.object({ scheduled: z.boolean() }),
    admin: false,
  }),
  /** A consistent copy of the data directory into a new folder under the host's backup folder (backup/backup.ts). */
  'data.backup': channel({
    input: z.object({}),
    output: backupResultSchema,
    admin: true,
  }),
  ...bulkIpcContract,
} as const;

export type IpcContract = typeof ipcContract;
export type Channel = keyof IpcContract;
export type ChannelInput<C extends Channel> = z.input<IpcContract[C]['input']>;
export type ChannelOutput<C extends Channel> = z.output<IpcContract[C]['output']>;

/** What the renderer calls: one function per channel (the preload exposes exactly these). */
export type TitularApi = { [C in Channel]: (input: ChannelInput<C>) => Promise<ChannelOutput<C>> };

/** What the preload exposes as `window.titular`: the same channels, answering results instead of throwing. */
export type PreloadApi = { [C in Channel]: (input: ChannelInput<C>) => Promise<IpcResult<ChannelOutput<C>>> };

export const CHANNELS = Object.keys(ipcContract) as Channel[];

/** Errors cross IPC as this shape (the API's error body without the request id). */
export const ipcErrorSchema = z.object({ code: z.string(), message: z.string(), status: z.number().int() });
export type IpcError = z.infer<typeof ipcErrorSchema>;

/** The bridge and the preload return either `{ ok: true, value }` or `{ ok: false, error }`. */
export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError };

// Compile-time check: the preload's channel list and this contract name the same channels.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const channelListsMatch: Same<Channel, import('./channels').ChannelName> = true;
void channelListsMatch;
