// The admin's settings screen: local API port, auto-lock, where live lookups are resolved, and the
// remote resolver (base URL, timeout, upstream key sealed in the vault). Every change is audited;
// the upstream key itself is never sent back, only whether one is stored.
import type { Titular } from '../titular';
import type { User } from '../users/users';
import { invalidParameter } from '../errors';
import { vaultProviderKind } from '../vault/vault';
import { deleteUpstreamKey, dropKeyLeftBehind, normalizeBaseUrl, remoteBaseUrlProblem, setUpstreamKey as storeUpstreamKey } from '../resolvers/remote-config';
import type { AppSettings, ChannelInput } from '../../../shared/ipc/contract';

export interface SettingsHost {
  /** The port the API listens on now (a changed port applies at the next start). */
  listeningPort?: number;
}

export function readSettings(titular: Titular, host: SettingsHost): AppSettings {
  const { settings } = titular;
  const remote = titular.remote.status();
  return {
    apiPort: settings.get('api.port'),
    listeningPort: host.listeningPort ?? null,
    autoLockMinutes: settings.get('vault.autoLockMinutes'),
    dataDir: titular.dataDir,
    vaultProtection: protectionOf(titular),
    resolvers: { cbu: settings.get('resolver.cbu'), informes: settings.get('resolver.informes') },
    remote: {
      baseUrl: settings.get('remote.baseUrl'),
      timeoutMs: settings.get('remote.timeoutMs'),
      hasUpstreamKey: titular.secrets.has('remote.upstreamKey'),
      state: remote.breaker.state,
      lastError: remote.lastError ? { message: remote.lastError.message, at: remote.lastError.at } : null,
    },
  };
}

/** An open Titular always has its vault; a database without one is no state to show a screen for. */
function protectionOf(titular: Titular): AppSettings['vaultProtection'] {
  const kind = vaultProviderKind(titular.db);
  if (!kind) throw new Error('the open data directory has no vault');
  return kind;
}

export async function updateSettings(titular: Titular, user: User, input: ChannelInput<'settings.update'>, host: SettingsHost): Promise<AppSettings> {
  const { settings } = titular;
  const changed: Record<string, unknown> = {};
  const baseUrl = input.remote?.baseUrl;
  if (baseUrl !== undefined && baseUrl !== null && baseUrl.trim() !== '') {
    const problem = remoteBaseUrlProblem(baseUrl.trim());
    if (problem) throw invalidParameter(`remote.baseUrl: ${problem}`);
  }
  // Validate everything before writing anything: one bad field changes nothing. The screen sends
  // every field on save; only those whose value differs are written and audited, with what they were.
  const writes: (() => void)[] = [];
  const previous: Record<string, unknown> = {};
  const stage = <K extends Parameters<Titular['settings']['set']>[0]>(key: K, value: Parameters<Titular['settings']['set']>[1] & {}) => {
    const before = settings.get(key);
    if (before === value) return;
    writes.push(() => settings.set(key, value as never));
    changed[key] = value;
    previous[key] = before;
  };
  if (input.apiPort !== undefined) stage('api.port', input.apiPort);
  if (input.autoLockMinutes !== undefined) stage('vault.autoLockMinutes', input.autoLockMinutes);
  if (input.resolvers?.cbu) stage('resolver.cbu', input.resolvers.cbu);
  if (input.resolvers?.informes) stage('resolver.informes', input.resolvers.informes);
  if (baseUrl !== undefined) {
    const value = baseUrl === null || baseUrl.trim() === '' ? null : normalizeBaseUrl(baseUrl);
    const before = settings.get('remote.baseUrl');
    if (value !== before) {
      writes.push(() => settings.set('remote.baseUrl', value));
      changed['remote.baseUrl'] = value;
      previous['remote.baseUrl'] = before;
    }
  }
  if (input.remote?.timeoutMs !== undefined) stage('remote.timeoutMs', input.remote.timeoutMs);
  if (writes.length > 0) {
    await titular.commits.writeAlone(() =>
      titular.db.transaction(() => {
        for (const write of writes) write();
        titular.audit.record({ orgId: user.orgId, actorUserId: user.id, action: 'settings.updated', targetType: 'settings', details: { ...changed, previous } });
        if ('remote.baseUrl' in changed) {
          dropKeyLeftBehind(titular, { orgId: user.orgId, actorUserId: user.id }, previous['remote.baseUrl'] as string | null, changed['remote.baseUrl'] as string | null);
        }
      }),
    );
  }
  return readSettings(titular, host);
}

export async function setUpstreamKey(titular: Titular, user: User, key: string, host: SettingsHost): Promise<AppSettings> {
  // The CLI's rules and audit entries (remote-config.ts); an empty key removes the stored one. One
  // transaction with its audit entry: writeAlone may run it again after another process's lock.
  const actor = { orgId: user.orgId, actorUserId: user.id };
  const trimmed = key.trim();
  await titular.commits.writeAlone(() =>
    titular.db.transaction(() => {
      if (trimmed === '') deleteUpstreamKey(titular, actor);
      else storeUpstreamKey(titular, actor, trimmed);
    }),
  );
  return readSettings(titular, host);
}
