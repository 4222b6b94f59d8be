// What an admin configures for the remote resolver: the base URL and timeout (settings), the
// upstream key (a vault secret) and which resolver answers each product. Every change is audited;
// no detail ever holds the key. The CLI (`titular remote …`, `titular resolver …`) and the desktop
// settings screen both go through here, so the rules are the same everywhere.
import type { AuditLog } from '../audit/audit-log';
import { invalidParameter } from '../errors';
import { containsKeyLike } from '../keys/secrets';
import type { Settings } from '../settings/settings';
import type { VaultSecrets } from '../vault/vault-secrets';
import type { ProductSlug } from '../../../shared/api/common';
import type { ResolverMode } from '../lookup/resolver-set';

export interface RemoteConfigDeps {
  settings: Pick<Settings, 'get' | 'set'>;
  secrets: Pick<VaultSecrets, 'set' | 'has' | 'delete'>;
  audit: Pick<AuditLog, 'record'>;
  /** The URL and the removal of the key it no longer goes with are written together. */
  db: { transaction<T>(write: () => T): T };
}

export interface Actor {
  orgId: string;
  actorUserId: string | null;
}

export interface RemoteSettingsView {
  resolvers: Record<ProductSlug, ResolverMode>;
  baseUrl: string | null;
  timeoutMs: number;
  /** Whether an upstream key is stored (its value is never shown). */
  keySet: boolean;
}

const MAX_URL_LENGTH = 500;
/** The bounds of the upstream timeout, in milliseconds. */
export const MIN_TIMEOUT_MS = 100;
export const MAX_TIMEOUT_MS = 60_000;
const MAX_KEY_LENGTH = 512;
const RESOLVER_SETTING = { cbu: 'resolver.cbu', informes: 'resolver.informes' } as const;

/**
 * Why a base URL is refused, or null when it is acceptable. The upstream key is sent with every
 * call, so plain http is allowed only to this machine (a local test upstream); no credentials,
 * query or fragment (they would be silently dropped or, worse, logged by the upstream).
 */
export function remoteBaseUrlProblem(raw: string): string | null {
  // First: the URL is stored, audited and shown as typed, and an API key must be nowhere in plaintext.
  if (containsKeyLike(raw)) return 'the base URL must not contain an API key';
  if (raw.length > MAX_URL_LENGTH) return `the base URL is longer than ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'the base URL is not a valid URL (e.g. https://api.example.com)';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'the base URL must start with https:// (or http:// for this machine only: localhost, 127.x.x.x or [::1])';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return 'the base URL must use https:// (plain http:// is accepted only for this machine: localhost, 127.x.x.x or [::1]): the upstream key would travel unencrypted';
  }
  if (url.username || url.password) return 'the base URL must not contain a user name or password';
  if (url.search || url.hash) return 'the base URL must not contain a query (?…) or fragment (#…)';
  return null;
}

/** The base URL without a trailing slash, so that `${base}/api/v1/lookup` is the endpoint. */
export function normalizeBaseUrl(raw: string): string {
  const url = new URL(raw.trim());
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Why an upstream key is refused, or null. Only its shape is checked; the upstream judges the rest. */
export function upstreamKeyProblem(key: string): string | null {
  if (key.length === 0) return 'the upstream key is empty';
  if (key.length > MAX_KEY_LENGTH) return `the upstream key is longer than ${MAX_KEY_LENGTH} characters`;
  if (!/^[\x21-\x7e]+$/.test(key)) return 'the upstream key must be printable ASCII without spaces';
  return null;
}

export function remoteSettings(deps: Pick<RemoteConfigDeps, 'settings' | 'secrets'>): RemoteSettingsView {
  return {
    resolvers: { cbu: deps.settings.get('resolver.cbu'), informes: deps.settings.get('resolver.informes') },
    baseUrl: deps.settings.get('remote.baseUrl'),
    timeoutMs: deps.settings.get('remote.timeoutMs'),
    keySet: deps.secrets.has('remote.upstreamKey'),
  };
}

/** Sets the base URL and/or the per-attempt timeout; `baseUrl: null` removes the URL. */
export function configureRemote(deps: RemoteConfigDeps, actor: Actor, change: { baseUrl?: string | null; timeoutMs?: number }): RemoteSettingsView {
  const before = remoteSettings(deps);
  let baseUrl = before.baseUrl;
  if (change.baseUrl !== undefined) {
    if (change.baseUrl === null) {
      baseUrl = null;
    } else {
      const problem = remoteBaseUrlProblem(change.baseUrl.trim());
      if (problem) throw invalidParameter(problem);
      baseUrl = normalizeBaseUrl(change.baseUrl);
    }
  }
  const timeoutMs = change.timeoutMs ?? before.timeoutMs;
  if (!Number.isInteger(timeoutMs) || timeoutMs < MIN_TIMEOUT_MS || timeoutMs > MAX_TIMEOUT_MS) {
    throw invalidParameter(`the timeout must be a whole number of milliseconds between ${MIN_TIMEOUT_MS} and ${MAX_TIMEOUT_MS}`);
  }
  deps.db.transaction(() => {
    deps.settings.set('remote.baseUrl', baseUrl);
    deps.settings.set('remote.timeoutMs', timeoutMs);
    deps.audit.record({
      ...actor,
      action: 'settings.updated',
      targetType: 'settings',
      details: { 'remote.baseUrl': baseUrl, 'remote.timeoutMs': timeoutMs, previous: { 'remote.baseUrl': before.baseUrl, 'remote.timeoutMs': before.timeoutMs } },
    });
    dropKeyLeftBehind(deps, actor, before.baseUrl, baseUrl);
  });
  return remoteSettings(deps);
}

/**
 * The upstream key belongs to the API it was entered for. Every lookup sends it to the base URL in an
 * `Authorization` header, so a URL moved to another origin (scheme, host or port) — or removed, which
 * a later URL would follow — would carry it to whoever answers there: anyone at the desktop, or a
 * script with an admin's CLI, could point the URL at a listener of theirs and read the key that
 * Titular never shows. So the key is removed with the change, in its transaction, audited, and an
 * admin enters it again for the new API. A key stored while no URL was set goes with the first one.
 * Returns whether a key was removed.
 */
export function dropKeyLeftBehind(deps: Pick<RemoteConfigDeps, 'secrets' | 'audit'>, actor: Actor, before: string | null, after: string | null): boolean {
  if (before === null || (after !== null && new URL(before).origin === new URL(after).origin)) return false;
  if (!deps.secrets.has('remote.upstreamKey')) return false;
  deps.secrets.delete('remote.upstreamKey');
  deps.audit.record({ ...actor, action: 'remote.upstream_key_removed', targetType: 'settings', details: { reason: 'base_url_origin_changed' } });
  return true;
}

/** Stores the upstream key sealed in the vault (needs it unlocked). The audit says only that it changed. */
export function setUpstreamKey(deps: RemoteConfigDeps, actor: Actor, key: string): void {
  const problem = upstreamKeyProblem(key);
  if (problem) throw invalidParameter(problem);
  const replaced = deps.secrets.has('remote.upstreamKey');
  deps.secrets.set('remote.upstreamKey', key);
  deps.audit.record({ ...actor, action: 'remote.upstream_key_set', targetType: 'settings', details: { replaced } });
}

export function deleteUpstreamKey(deps: RemoteConfigDeps, actor: Actor): boolean {
  const existed = deps.secrets.has('remote.upstreamKey');
  if (!existed) return false;
  deps.secrets.delete('remote.upstreamKey');
  deps.audit.record({ ...actor, action: 'remote.upstream_key_removed', targetType: 'settings' });
  return true;
}

/** Which resolver answers the product's live lookups from the next lookup on. */
export function setResolverMode(deps: RemoteConfigDeps, actor: Actor, product: ProductSlug, mode: ResolverMode): void {
  const setting = RESOLVER_SETTING[product];
  const from = deps.settings.get(setting);
  deps.settings.set(setting, mode);
  deps.audit.record({ ...actor, action: 'settings.updated', targetType: 'settings', details: { [setting]: mode, previous: { [setting]: from } } });
}
