// What each desktop channel does, for a signed-in user. The Electron main process (ipcMain) and the
// headless HTTP bridge both dispatch here after parsing the input with the contract's schema, so
// the two transports cannot drift apart. Admin-only channels are refused for operators here, with
// the user's role read fresh on every call (a demotion applies at once).
import { recordHistoryExport } from '../audit/export-audit';
import type { Titular } from '../titular';
import { defaultBackupRoot, newBackupFolder } from '../backup/backup-folder';
import { TitularError, invalidParameter } from '../errors';
import { VaultUnlockError } from '../vault/master-key-provider';
import { MAX_ACTIVE_KEYS } from '../keys/api-keys';
import { historyCsvHeader, historyCsvRow } from '../history/history-csv';
import { DamagedAnswers, DamagedFields } from '../history/stored-answer';
import { isDamaged } from '../db/stored-json';
import { csvDialect } from '../export/csv-dialect';
import { calendarDay } from '../time/wall-clock';
import { PassphraseAttempts } from '../vault/passphrase-attempts';
import { vaultProviderKind, vaultSecretMatches } from '../vault/vault';
import type { User } from '../users/users';
import type { MasterKeyProvider, MasterKeyProviderKind } from '../vault/master-key-provider';
import { damagedFields as fieldsOf, parseHistoryBound } from '../../../shared/api/history';
import { DAY_MS, daysEndingOn } from '../../../shared/day';
import { ipcContract, type Channel, type ChannelOutput, type HistoryFilter } from '../../../shared/ipc/contract';
import type { z } from 'zod';
import { bulkHandlers } from './bulk-handlers';
import { readSettings, setUpstreamKey, updateSettings, type SettingsHost } from './settings-handlers';

/** What a confirmation prompt is about: the step, and the key's prefix (or, for a new key, its name). */
export interface SecretAsk {
  action: 'reveal' | 'rotate' | 'create';
  label: string;
}

export interface IpcSession {
  userId: string;
  /**
   * How this host unlocks its vault again after auto-lock: the Electron shell asks the OS keychain,
   * the headless server its key file; a passphrase vault uses the passphrase the user typed.
   */
  unlockProvider?: (kind: MasterKeyProviderKind, passphrase: string | undefined) => MasterKeyProvider;
  /**
   * Asks the person at the computer to confirm a step that hands out a working key (revealing one,
   * rotating one, creating one), where the host can (Electron: an OS prompt on keychain vaults; a
   * passphrase vault asks for its passphrase instead). Resolves false when they decline.
   */
  confirmSecret?: (ask: SecretAsk) => Promise<boolean>;
  /** What the settings screen shows about the running host (port, remote resolver state). */
  settingsHost?: SettingsHost;
  /** Where the desktop's backups go, one new folder each (default: beside the data directory, backup/backup-folder.ts). */
  backupRoot?: string;
  /**
   * Clears a copied key (by its SHA-256) from the OS clipboard SECRET_CLIPBOARD_MS later if the
   * clipboard still holds it (Electron: on time, whichever program has the focus). Absent in the
   * browser mode, whose page does it itself when it has the focus again.
   */
  clearClipboardLater?: (digest: string) => void;
}

type Parsed<C extends Channel> = z.output<(typeof ipcContract)[C]['input']>;
type Handler<C extends Channel> = (titular: Titular, user: User, input: Parsed<C>, session: IpcSession) => Promise<ChannelOutput<C>> | ChannelOutput<C>;

const MAX_EXPORT_ROWS = 100_000;

const handlers: { [C in Channel]: Handler<C> } = {
  ...bulkHandlers,
  'session.get': (titular, user) => ({ user, organization: titular.users.requireOrganization() }),

  'lookup.account': async (titular, user, input) => {
    const answer = await titular.lookups.lookupAccount(webContext(user), input);
    return { status: answer.status, body: answer.body } as ChannelOutput<'lookup.account'>;
  },

  'lookup.creditReport': async (titular, user, input) => {
    const answer = await titular.lookups.lookupCreditReport(webContext(user), input);
    return { status: answer.status, body: answer.body } as ChannelOutput<'lookup.creditReport'>;
  },

  'balance.get': async (titular, user) => {
    const balances = titular.ledger.balances(user.orgId);
    // As GET /api/v1/balance: with synchronous=FULL, no balance shows a charge not yet on disk.
    await titular.commits.settled();
    return { balances };
  },

  'balance.dailyConsumption': async (titular, user, input) => {
    // The screen's days: the last `days` calendar days in its zone, ending with today there. One
    // clock reading: two could straddle midnight and name two different days.
    const now = Date.now();
    const dayOf = calendarDay(input.timeZone);
    const dates = daysEndingOn(dayOf(now), input.days);
    // Read from a day before the first day's UTC midnight: no zone's midnight is further from it.
    const byDate = titular.ledger.consumedByDay(user.orgId, input.product, Date.parse(`${dates[0]}T00:00:00Z`) - DAY_MS, dayOf);
    const days = dates.map((date) => ({ date, consumed: byDate.get(date) ?? 0 }));
    // Every read below waits as balance.get does: with synchronous=FULL the desktop shows no lookup
    // (its own or another client's) that a power cut could still take back.
    await titular.commits.settled();
    return { days };
  },

  'credits.purchase': async (titular, user, input) => {
    const result = await titular.commits.writeAlone(() =>
      titular.ledger.addPurchase({ orgId: user.orgId, product: input.product, amount: input.amount, reference: input.reference, userId: user.id }),
    );
    return { added: result.added, balance: result.balance };
  },

  'history.list': async (titular, user, input) => {
    const page = titular.history.page(historyScope(user, input), { ...historyQuery(input), page: input.page, per_page: input.per_page });
    await titular.commits.settled();
    return page;
  },

  // For a spreadsheet, in the screen's language (export/csv-dialect.ts); the CLI's export is the interchange form.
  'history.exportCsv': async (titular, user, input) => {
    const dialect = csvDialect(input.language ?? 'es', input.timeZone);
    let csv = historyCsvHeader(dialect);
    let rows = 0;
    // Entries whose stored answer, or another field, cannot be read go into the file with the rest of
    // what they hold (history/stored-entry.ts); the screen says how many, and how many are in no history.
    const damaged = new DamagedAnswers();
    const damagedFields = new DamagedFields();
    const scope = historyScope(user, input);
    for (const entry of titular.history.iterate(scope, historyQuery(input))) {
      if (++rows > MAX_EXPORT_ROWS) throw invalidParameter(`More than ${MAX_EXPORT_ROWS} entries: narrow the dates, or use \`titular history export\``);
      if (isDamaged(entry.responseData)) damaged.note(entry.id);
      damagedFields.note(entry.id, fieldsOf(entry));
      csv += historyCsvRow(entry, dialect);
    }
    const unplaced = titular.history.unplaced(user.orgId);
    await titular.commits.settled();
    // Recorded before the file is handed over: an export that cannot be audited is not made.
    const filters = { from: input.from, to: input.to, status: input.status, source: input.source, q: input.q?.trim() };
    await titular.commits.writeAlone(() =>
      recordHistoryExport(titular.audit, user.orgId, user.id, { rows, product: scope.product, environment: scope.environment, format: 'csv', filters }),
    );
    const fileName = `titular-${dialect.form === 'en' ? 'history' : 'historial'}-${dialect.day(Date.now())}.csv`;
    return { fileName, csv, rows, damaged: damaged.summary(), damagedFields: damagedFields.summary(), unplaced };
  },

  'keys.list': (titular, user) => ({
    keys: titular.keys.list(user.orgId),
    activeCount: titular.keys.activeCount(user.orgId),
    limit: MAX_ACTIVE_KEYS,
  }),

  'keys.create': async (titular, user, input, session) => {
    const keyInput = {
      orgId: user.orgId,
      ownerUserId: user.id,
      actorUserId: user.id,
      name: input.name ?? null,
      product: input.product,
      scopes: input.scopes,
      environment: input.environment,
      ipWhitelist: input.ipWhitelist.map((e) => e.trim()).filter(Boolean),
      expiresAt: input.expiresAt ? expiry(input.expiresAt) : null,
      rateLimitPerSecond: input.rateLimitPerSecond ?? null,
    };
    // A mistake in the form is said before the passphrase or the OS prompt is asked for, not after.
    titular.keys.checkCreate(keyInput);
    await askAgain(titular, session, input.passphrase, { action: 'create', label: keyInput.name?.trim() || `(${input.product === 'cbu' ? 'CBU' : 'Informes'})` });
    return titular.commits.writeAlone(() => titular.keys.create(keyInput));
  },

  'keys.reveal': async (titular, user, input, session) => {
    // `get` answers 404 for a key it cannot find: the prompt is never skipped (a check that fails open).
    await askAgain(titular, session, input.passphrase, { action: 'reveal', label: titular.keys.get(user.orgId, input.id).prefix });
    return { secret: await titular.commits.writeAlone(() => titular.keys.reveal(user.orgId, input.id, user.id)) };
  },

  'keys.rotate': async (titular, user, input, session) => {
    // A key that does not exist, or is revoked, is said before the passphrase or the OS prompt is asked for.
    await askAgain(titular, session, input.passphrase, { action: 'rotate', label: titular.keys.checkRotate(user.orgId, input.id).prefix });
    return titular.commits.writeAlone(() => titular.keys.rotate(user.orgId, input.id, user.id));
  },

  'keys.revoke': async (titular, user, input) => ({ key: await titular.commits.writeAlone(() => titular.keys.revoke(user.orgId, input.id, user.id)) }),

  'audit.list': (titular, user, input) => ({ entries: titular.audit.list(user.orgId, { targetType: input.targetType, limit: input.limit }) }),

  'users.list': (titular, user) => ({ users: titular.users.list(user.orgId) }),

  'users.add': async (titular, user, input) => ({ user: await titular.commits.writeAlone(() => titular.users.add(user.orgId, input, user.id)) }),

  'vault.status': (titular) => ({
    locked: titular.vault.locked,
    protection: vaultProviderKind(titular.db) ?? 'keyfile',
    autoLockMinutes: titular.settings.get('vault.autoLockMinutes'),
  }),

  'vault.lock': async (titular, user) => {
    titular.lockVault();
    // Locking pauses remote lookups for every API client: the admins see who did it, and when.
    await titular.commits.writeAlone(() => titular.audit.record({ orgId: user.orgId, actorUserId: user.id, action: 'vault.locked', targetType: 'vault' }));
    return { locked: true as const };
  },

  'vault.unlock': async (titular, user, input, session) => {
    const kind = vaultProviderKind(titular.db) ?? 'keyfile';
    if (kind === 'passphrase') {
      if (!input.passphrase) throw new TitularError(401, 'UNAUTHORIZED', 'Enter the vault passphrase');
      await passphraseAttempts(titular).verify(titular.db, input.passphrase, (provider) => {
        titular.unlockVault(provider);
        return true;
      });
    } else {
      try {
        // The shell's provider may refuse too (a key file gone): a 401 with its reason, not a fault.
        const provider = session.unlockProvider?.(kind, input.passphrase);
        if (!provider) throw new TitularError(401, 'UNAUTHORIZED', 'This vault cannot be unlocked from here');
        titular.unlockVault(provider);
      } catch (error) {
        if (error instanceof TitularError) throw error;
        // A provider's refusal says what to do (a key file to restore); anything else is no message for a screen.
        throw new TitularError(401, 'UNAUTHORIZED', error instanceof VaultUnlockError ? error.message : 'The vault could not be unlocked');
      }
    }
    await titular.commits.writeAlone(() => titular.audit.record({ orgId: user.orgId, actorUserId: user.id, action: 'vault.unlocked', targetType: 'vault' }));
    return { locked: false as const };
  },

  'users.setRole': async (titular, user, input) => ({ user: await titular.commits.writeAlone(() => titular.users.setRole(user.orgId, input.id, input.role, user.id)) }),

  // A signed-in session means the gate is open (startup-handlers.ts answers before that).
  'startup.status': (titular) => ({
    phase: 'ready',
    protection: vaultProviderKind(titular.db),
    passphraseRequired: false,
    organization: titular.users.organization()?.name ?? null,
    dataDir: titular.dataDir,
    earlierSetup: false,
  }),
  'startup.unlock': () => {
    throw new TitularError(409, 'INVALID_PARAMETER', 'Titular is already unlocked');
  },
  'startup.setup': () => {
    throw new TitularError(409, 'INVALID_PARAMETER', 'Titular is already set up');
  },

  'settings.get': (titular, _user, _input, session) => readSettings(titular, session.settingsHost ?? {}),
  'settings.update': (titular, user, input, session) => updateSettings(titular, user, input, session.settingsHost ?? {}),
  'settings.setUpstreamKey': (titular, user, input, session) => setUpstreamKey(titular, user, input.key, session.settingsHost ?? {}),
  'clipboard.clearSecretLater': (_titular, _user, input, session) => {
    session.clearClipboardLater?.(input.digest);
    return { scheduled: session.clearClipboardLater !== undefined };
  },
  'data.backup': (titular, user, _input, session) =>
    titular.backup(newBackupFolder(session.backupRoot ?? defaultBackupRoot(titular.dataDir), new Date()), { orgId: user.orgId, userId: user.id }),
};

const ASK_VERB: Record<SecretAsk['action'], string> = { reveal: 'reveal a key', rotate: 'rotate a key', create: 'create a key' };
const ASK_CANCELLED: Record<SecretAsk['action'], string> = { reveal: 'Reveal', rotate: 'Rotation', create: 'Key creation' };

/**
 * Every step that hands out a working key asks again, not only revealing one: a new or rotated key
 * is as good as a revealed one to whoever sits at an unlocked desktop. A passphrase vault wants its
 * passphrase (wrong ones counted with the unlock's, passphrase-attempts.ts); otherwise the host's
 * prompt where it has one (Electron: Touch ID or a native dialog). The browser mode has neither: the
 * screen's own dialog or form is the explicit confirmation. Nothing is written before this passes.
 */
async function askAgain(titular: Titular, session: IpcSession, passphrase: string | undefined, ask: SecretAsk): Promise<void> {
  if (vaultProviderKind(titular.db) === 'passphrase') {
    if (!passphrase) throw new TitularError(401, 'UNAUTHORIZED', `Enter the vault passphrase to ${ASK_VERB[ask.action]}`);
    await passphraseAttempts(titular).verify(titular.db, passphrase, (provider) => vaultSecretMatches(titular.db, provider));
  } else if (session.confirmSecret) {
    if (!(await session.confirmSecret(ask))) throw new TitularError(403, 'FORBIDDEN', `${ASK_CANCELLED[ask.action]} cancelled at the confirmation prompt`);
  }
}

/**
 * Runs one channel call: parses the input, checks the caller's role, runs the handler and checks
 * the output against the contract. Throws TitularError for anything the caller should see.
 */
export async function dispatch(titular: Titular, session: IpcSession, channel: string, rawInput: unknown): Promise<unknown> {
  if (!Object.hasOwn(ipcContract, channel)) throw new TitularError(404, 'NOT_FOUND', `Unknown channel ${channel}`);
  const name = channel as Channel;
  const spec = ipcContract[name];
  const org = titular.users.requireOrganization();
  const user = titular.users.get(org.id, session.userId);
  if (!user) throw new TitularError(401, 'UNAUTHORIZED', 'The session user no longer exists');
  if (spec.admin && user.role !== 'admin') throw new TitularError(403, 'FORBIDDEN', 'Only admins may do this');
  const parsed = spec.input.safeParse(rawInput ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidParameter(`${issue?.path.join('.') || 'input'}: ${issue?.message ?? 'invalid'}`);
  }
  const handler = handlers[name] as Handler<Channel>;
  const output = await handler(titular, user, parsed.data as Parsed<Channel>, session);
  return spec.output.parse(output);
}

function webContext(user: User) {
  return { orgId: user.orgId, environment: 'live' as const, source: 'WEB' as const, userId: user.id, apiKeyId: null };
}

/** Whose lookups a history page or export reads: the user's organization, one environment, one product. */
function historyScope(user: User, filter: HistoryFilter) {
  return { orgId: user.orgId, environment: filter.environment ?? 'live', product: filter.product ?? 'cbu' } as const;
}

function historyQuery(filter: HistoryFilter) {
  const from = filter.from ? parseHistoryBound(filter.from, 'from') : undefined;
  const to = filter.to ? parseHistoryBound(filter.to, 'to') : undefined;
  if (from === null) throw invalidParameter('from: not a valid date');
  if (to === null) throw invalidParameter('to: not a valid date');
  if (from !== undefined && to !== undefined && from > to) throw invalidParameter('from must not be after to');
  return { from, to, status: filter.status, source: filter.source, q: filter.q?.trim() || undefined };
}

/** A date means the end of that day (UTC); an instant is taken as is. */
function expiry(value: string): number {
  const ms = parseHistoryBound(value, 'to');
  if (ms === null) throw invalidParameter('expiresAt: not a valid ISO 8601 date');
  return ms;
}

/** One count of wrong passphrases per Titular (vault/passphrase-attempts.ts). */
const attemptsByTitular = new WeakMap<Titular, PassphraseAttempts>();
function passphraseAttempts(titular: Titular): PassphraseAttempts {
  let attempts = attemptsByTitular.get(titular);
  if (!attempts) attemptsByTitular.set(titular, (attempts = new PassphraseAttempts()));
  return attempts;
}
