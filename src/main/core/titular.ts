// Composes the core of one data directory: database, vault, ledger, history, keys, directory and
// the lookup service. The Electron main process and the headless entries both start here; nothing
// below imports electron.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { openDatabase, type Db, type OpenedDatabase } from './db/open';
import { CommitQueue, type WalSync } from './db/commit-queue';
import { diskFullAtOpen, isDiskFull } from './db/disk-full';
import { withoutBusyWait } from './db/database-busy';
import { AuditLog } from './audit/audit-log';
import { Users } from './users/users';
import { Ledger } from './ledger/ledger';
import { History } from './history/history';
import { ApiKeys } from './keys/api-keys';
import { maskKeys } from './keys/secrets';
import { Directory } from './directory/directory';
import { CreditReports } from './directory/credit-reports';
import { SandboxResolver } from './resolvers/sandbox-resolver';
import { RemoteResolver, type RemoteAdmin, type RemoteResolverOptions } from './resolvers/remote-resolver';
import { IdempotencyStore } from './lookup/idempotency';
import { LookupService } from './lookup/lookup-service';
import { BulkService } from './bulk/bulk-service';
import { resolverSet } from './lookup/resolver-set';
import { VaultSecrets } from './vault/vault-secrets';
import { unlockVault, vaultProviderKind, Vault } from './vault/vault';
import { backupDataDir, type BackupResult } from './backup/backup';
import { ensureFolder } from './folders';
import { DATABASE_FILE } from './data-dir';
import { Settings } from './settings/settings';
import type { MasterKeyProvider, MasterKeyProviderKind } from './vault/master-key-provider';

export { DATABASE_FILE } from './data-dir';

export interface TitularOptions {
  dataDir: string;
  /** Picks the provider for a vault protected by `kind`, or for a new vault when `kind` is null. */
  keyProvider: (kind: MasterKeyProviderKind | null) => MasterKeyProvider;
  synchronous?: 'NORMAL' | 'FULL';
  migrationsFolder?: string;
  /** Retry, backoff and circuit-breaker numbers of the remote resolver (tests shorten them). */
  remote?: RemoteResolverOptions;
  /** With FULL: replaces the WAL's fdatasync (tests decide when a flush ends). */
  syncWal?: WalSync;
  /**
   * Where the core reports what failed in the background, with nobody's request to answer it: the
   * housekeeping's writes (keys' last use, expired idempotency records), retried at the next tick.
   * The hosts give their fault log (serve: stderr); default: nowhere.
   */
  onFault?: (line: string) => void;
  /**
   * With FULL: a flush of the WAL failed, so some writes may not be on disk (CommitQueue's
   * onFlushFailed). The host must stop at once, as after a crash, without answering them. Default:
   * this process ends with exit status 1, after one line on stderr.
   */
  onDurabilityLost?: (error: Error, dataDir: string) => void;
  /** How often the housekeeping runs (default 30 s; tests shorten it). */
  housekeepingIntervalMs?: number;
  /**
   * Opens an existing vault locked, without asking `keyProvider` for its secret: for work that reads
   * no secret (a backup copies the vault still sealed). Nothing that needs the key works until
   * unlockVault().
   */
  vaultLocked?: boolean;
}

export interface Titular {
  dataDir: string;
  database: OpenedDatabase;
  db: Db;
  /** The current vault; after lockVault() it is a locked one until unlockVault(). */
  readonly vault: Vault;
  /** Drops the data key from memory (auto-lock). Lookups keep working: they need no secret. */
  lockVault(): void;
  /** Unlocks again; throws VaultUnlockError (and stays locked) on a wrong secret. */
  unlockVault(provider: MasterKeyProvider): void;
  settings: Settings;
  /** Non-key secrets sealed by the vault (the remote resolver's upstream key). */
  secrets: VaultSecrets;
  /** The remote resolver's state (circuit, last error) and a connection test, for admins. */
  remote: RemoteAdmin;
  audit: AuditLog;
  users: Users;
  ledger: Ledger;
  history: History;
  keys: ApiKeys;
  directory: Directory;
  /** Credit reports imported into the directory; they answer live Informes lookups. */
  creditReports: CreditReports;
  idempotency: IdempotencyStore;
  lookups: LookupService;
  /** Bulk lookup jobs (source BULK): create/resume, run, pause, cancel, export. */
  bulk: BulkService;
  commits: CommitQueue;
  /**
   * A consistent copy of the data directory into `destination` (a new or empty folder), taken while
   * Titular runs; audited as `data.backup_made` for `actor` (backup/backup.ts).
   */
  backup(destination: string, actor: { orgId: string; userId: string }): Promise<BackupResult>;
  /** Commits queued writes, locks the vault and closes the database. Idempotent. */
  close(): void;
}

export function openTitular(options: TitularOptions): Titular {
  // A file in the way (`--data-dir` naming one, or a path under one) is refused by name, not as mkdir's EEXIST/ENOTDIR.
  ensureFolder(options.dataDir, { label: 'The data directory' });
  let unlocked = null as Vault | null;
  // Every closure made here shares this scope, and the returned object keeps those closures (and so
  // the scope) for the life of the process. The key provider may hold a passphrase: it is used once,
  // then dropped, so that locking the vault leaves no reference to anything that unlocks it again. For
  // the same reason no closure here refers to `options`. (The passphrase's string itself cannot be
  // wiped: it stays in the heap until the garbage collector reuses its memory, as README "The vault" says.)
  let keyProvider: TitularOptions['keyProvider'] | null = options.keyProvider;
  let database: OpenedDatabase;
  try {
    const file = path.join(options.dataDir, DATABASE_FILE);
    // A first run asks for the new vault's protection before the database file exists, so that a
    // refusal (a passphrase too short) leaves nothing behind. Deleting a refused first run's file
    // instead could delete it under another process initializing the same directory at once.
    const vaultLocked = options.vaultLocked === true;
    if (vaultLocked && !existsSync(file)) throw new Error(`No Titular data in ${options.dataDir}`);
    const firstRunProvider = existsSync(file) ? null : keyProvider!(null);
    database = openDatabase({
      file,
      synchronous: options.synchronous,
      migrationsFolder: options.migrationsFolder,
      // A wrong secret throws here, before anything is written.
      beforeMigrate: (db) => {
        const kind = vaultProviderKind(db);
        if (vaultLocked) {
          if (kind === null) throw new Error('This data directory has no vault yet');
          unlocked = new Vault(null);
          return;
        }
        const provider = firstRunProvider && (kind === null || kind === firstRunProvider.kind) ? firstRunProvider : keyProvider!(kind);
        unlocked = unlockVault(db, provider);
      },
    });
  } catch (error) {
    // The serve, CLI and desktop starts all say it so: the folder to free space on, not "disk I/O error".
    if (isDiskFull(error, options.dataDir)) throw diskFullAtOpen(options.dataDir);
    throw error;
  } finally {
    keyProvider = null;
  }
  if (!unlocked) throw new Error('the vault was not unlocked');
  let vault: Vault = unlocked;
  const { db, sqlite } = database;
  const { dataDir } = options;
  const audit = new AuditLog(db);
  const ledger = new Ledger(db, sqlite, audit);
  const history = new History(sqlite);
  const keys = new ApiKeys(db, sqlite, () => vault, audit);
  const directory = new Directory(sqlite, audit);
  const creditReports = new CreditReports(sqlite, audit);
  const idempotency = new IdempotencyStore(sqlite);
  // Closures kept for the process's life take these, never `options` (see the top: it held the key provider).
  const onDurabilityLost = options.onDurabilityLost ?? stopAsAfterACrash;
  const onFault = options.onFault;
  const commits = new CommitQueue(sqlite, {
    folding: [history.folding, ledger],
    syncWal: options.syncWal,
    onFlushFailed: (error) => onDurabilityLost(error, dataDir),
    onFilesMoved: (error) => onFault?.(`error: ${error.message}`),
  });
  const settings = new Settings(db, sqlite);
  const secrets = new VaultSecrets(db, () => vault);
  const sandbox = new SandboxResolver();
  /** Why a write no request waits for failed, for the fault log. */
  const backgroundFault = (error: unknown) =>
    isDiskFull(error, dataDir) ? `the disk holding ${dataDir} is full` : error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  // The remote resolver's audit entry (an upstream that refuses the key, an empty upstream wallet) is
  // written beside a lookup, not as part of it: made alone, never waiting on the event loop for another
  // process's lock, and a failure to write it is reported rather than failing the lookup.
  const auditAside: Pick<AuditLog, 'record'> = {
    record: (entry) => {
      commits.writeAlone(() => audit.record(entry)).catch((error: unknown) => {
        onFault?.(`error in the background: the audit entry ${entry.action} could not be written (${backgroundFault(error)})`);
      });
    },
  };
  const remote = new RemoteResolver({ settings, secrets, audit: auditAside }, options.remote);
  const resolvers = resolverSet({
    settings,
    sandbox,
    directoryAccounts: directory,
    directoryCreditReports: creditReports,
    remote,
  });
  const lookups = new LookupService({
    commits,
    ledger,
    history,
    idempotency,
    resolvers,
    onResolverFault: (requestId, error) => onFault?.(`error ${requestId} resolving the lookup: ${maskKeys(backgroundFault(error))}`),
  });
  const bulk = new BulkService(sqlite, lookups, (write) => commits.writeAlone(write));

  // Each task on its own: one that fails (a full disk, another process holding the write lock) is
  // reported and tried again at the next tick. Thrown from a timer it would end the process: the
  // server, or the desktop's main process, for a write no request was waiting on.
  const attempt = (what: string, task: () => unknown) => {
    try {
      // Not waiting in place for a lock another process keeps: that would stall every request.
      withoutBusyWait(sqlite, task);
    } catch (error) {
      onFault?.(`error in the background: ${what} failed (${backgroundFault(error)}); tried again in a moment`);
    }
  };
  const housekeeping = setInterval(() => {
    attempt("writing the API keys' last use", () => keys.flushLastUsed());
    attempt('removing expired idempotency records', () => idempotency.purgeExpired(Date.now()));
  }, options.housekeepingIntervalMs ?? 30_000);
  housekeeping.unref();

  let closed = false;
  return {
    dataDir: options.dataDir,
    database,
    db,
    get vault() {
      return vault;
    },
    lockVault() {
      vault.lock();
    },
    unlockVault(provider) {
      const next = unlockVault(db, provider);
      vault.lock();
      vault = next;
    },
    settings,
    secrets,
    remote,
    audit,
    users: new Users(db, audit),
    ledger,
    history,
    keys,
    directory,
    creditReports,
    idempotency,
    lookups,
    bulk,
    commits,
    async backup(destination, actor) {
      // What the group commit has queued goes in first: the copy holds every answer sent before it. A
      // write of nothing joins the next batch and settles once that batch has committed (waiting for
      // another process's lock between attempts, not on the event loop).
      await commits.enqueue(() => undefined);
      const protection = vaultProviderKind(db);
      if (!protection) throw new Error('the vault has no protection recorded');
      const databaseBytes = Number(sqlite.pragma('page_count', { simple: true })) * Number(sqlite.pragma('page_size', { simple: true }));
      const result = await backupDataDir({ databasePath: sqlite.name, databaseBytes, dataDir, protection, destination });
      await commits.writeAlone(() =>
        audit.record({
          orgId: actor.orgId,
          actorUserId: actor.userId,
          action: 'data.backup_made',
          targetType: 'data',
          details: { directory: result.directory, files: result.files.map((f) => f.name) },
        }),
      );
      return result;
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(housekeeping);
      // Before the last group commit: running bulk jobs stop dispatching and are left paused.
      bulk.shutdown();
      commits.flush();
      commits.close();
      // Last-use times are bookkeeping: a full disk or a taken lock at shutdown must not keep the vault
      // open or the database unclosed.
      attempt("writing the API keys' last use", () => keys.flushLastUsed());
      vault.lock();
      database.close();
    },
  };
}

/** What a host says when it stops because the disk did not confirm a write (TitularOptions.onDurabilityLost). */
export function durabilityLostMessage(error: Error, dataDir: string): string {
  const code = (error as NodeJS.ErrnoException).code ?? error.message;
  return (
    `the disk did not confirm a write to ${dataDir} (${code}): Titular stopped. The lookups it held were not answered, and nothing ` +
    'after them was recorded. Check the disk, then start Titular again; a request left unanswered may or may not be recorded: ' +
    'send it again with its Idempotency-Key'
  );
}

/** The default onDurabilityLost: end the process now, as a crash would (no shutdown, no answer). */
function stopAsAfterACrash(error: Error, dataDir: string): void {
  process.stderr.write(`titular: ${durabilityLostMessage(error, dataDir)}\n`);
  process.exit(1);
}
