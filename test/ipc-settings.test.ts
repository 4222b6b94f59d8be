// The admin's settings over the desktop contract (the headless bridge): reading, validating and
// saving, the upstream key sealed in the vault and never sent back, the audit trail, the reveal
// confirmation hook, and that a resolver change applies to the next API lookup.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createFixture, type Fixture } from './support/fixture';
import { DIR, DIRECTORY_CSV } from './support/directory-data';
import { dispatch, type SecretAsk } from '../src/main/core/ipc/handlers';
import { TitularError } from '../src/main/core/errors';
import { VaultUnlockError } from '../src/main/core/vault/master-key-provider';
import { keyfileProvider } from '../src/main/core/vault/keyfile-provider';

let f: Fixture;
const admin = () => ({ userId: f.adminId, settingsHost: { listeningPort: 8787 } });

beforeAll(async () => {
  f = await createFixture({ credits: { cbu: 10 } });
  f.importDirectory(DIRECTORY_CSV);
});
afterAll(() => f.close());

async function fails(promise: Promise<unknown>, status: number, code: string): Promise<TitularError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TitularError);
  expect(error).toMatchObject({ status, code });
  return error as TitularError;
}

describe('settings.get / settings.update', () => {
  it('reads the defaults', async () => {
    expect(await dispatch(f.titular, admin(), 'settings.get', {})).toEqual({
      apiPort: 8787,
      listeningPort: 8787,
      autoLockMinutes: 15,
      dataDir: f.dataDir,
      vaultProtection: 'keyfile',
      resolvers: { cbu: 'directory', informes: 'directory' },
      remote: { baseUrl: null, timeoutMs: 5000, hasUpstreamKey: false, state: 'closed', lastError: null },
    });
  });

  it('refuses operators', async () => {
    await fails(dispatch(f.titular, { userId: f.operatorId }, 'settings.get', {}), 403, 'FORBIDDEN');
    await fails(dispatch(f.titular, { userId: f.operatorId }, 'settings.update', { autoLockMinutes: 0 }), 403, 'FORBIDDEN');
    await fails(dispatch(f.titular, { userId: f.operatorId }, 'settings.setUpstreamKey', { key: 'sk_live_x' }), 403, 'FORBIDDEN');
  });

  it('rejects invalid values and writes none of the fields', async () => {
    await fails(dispatch(f.titular, admin(), 'settings.update', { apiPort: 80, autoLockMinutes: 5 }), 400, 'INVALID_PARAMETER');
    await fails(dispatch(f.titular, admin(), 'settings.update', { autoLockMinutes: 5, remote: { baseUrl: 'ftp://x.example' } }), 400, 'INVALID_PARAMETER');
    await fails(dispatch(f.titular, admin(), 'settings.update', { autoLockMinutes: 5, remote: { baseUrl: 'no es una url' } }), 400, 'INVALID_PARAMETER');
    await fails(dispatch(f.titular, admin(), 'settings.update', { resolvers: { cbu: 'sandbox' } }), 400, 'INVALID_PARAMETER');
    // An upstream key pasted into the URL's query would sit in the settings in plaintext.
    await fails(dispatch(f.titular, admin(), 'settings.update', { autoLockMinutes: 5, remote: { baseUrl: `https://api.example.com/?key=sk_live_${'a'.repeat(32)}` } }), 400, 'INVALID_PARAMETER');
    expect(f.titular.settings.get('remote.baseUrl')).toBeNull();
    expect(f.titular.settings.get('vault.autoLockMinutes')).toBe(15);
  });

  it('saves, audits, and normalizes the base URL', async () => {
    const saved = await dispatch(f.titular, admin(), 'settings.update', {
      apiPort: 9123,
      autoLockMinutes: 0,
      remote: { baseUrl: 'https://api.example.com/', timeoutMs: 2500 },
    });
    expect(saved).toMatchObject({ apiPort: 9123, listeningPort: 8787, autoLockMinutes: 0, remote: { baseUrl: 'https://api.example.com', timeoutMs: 2500 } });
    const audit = f.titular.audit.list(f.orgId, { targetType: 'settings', limit: 5 });
    expect(audit[0]).toMatchObject({ action: 'settings.updated', actor: { id: f.adminId }, details: { 'api.port': 9123, 'vault.autoLockMinutes': 0 } });
  });

  it('writes and audits only the settings whose value changes, with what they were', async () => {
    const current = (await dispatch(f.titular, admin(), 'settings.get', {})) as { apiPort: number; autoLockMinutes: number; remote: { baseUrl: string | null; timeoutMs: number } };
    const entries = () => f.titular.audit.list(f.orgId, { targetType: 'settings', limit: 50 }).length;
    const before = entries();
    // The settings screen sends every field on save: unchanged, nothing is recorded.
    const unchanged = { apiPort: current.apiPort, autoLockMinutes: current.autoLockMinutes, remote: { baseUrl: current.remote.baseUrl, timeoutMs: current.remote.timeoutMs } };
    await dispatch(f.titular, admin(), 'settings.update', unchanged);
    expect(entries()).toBe(before);
    await dispatch(f.titular, admin(), 'settings.update', { ...unchanged, autoLockMinutes: current.autoLockMinutes + 7 });
    expect(entries()).toBe(before + 1);
    const [latest] = f.titular.audit.list(f.orgId, { targetType: 'settings', limit: 1 });
    expect(latest!.details).toEqual({ 'vault.autoLockMinutes': current.autoLockMinutes + 7, previous: { 'vault.autoLockMinutes': current.autoLockMinutes } });
  });

  it('applies a resolver change to the next API lookup', async () => {
    const key = f.createKey();
    const lookup = () => f.app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(key) });
    expect((await lookup()).statusCode).toBe(200);
    // The remote API of the settings is not reachable from here: the source cannot answer, no credit taken.
    await dispatch(f.titular, admin(), 'settings.update', { resolvers: { cbu: 'remote' }, remote: { baseUrl: 'http://127.0.0.1:9', timeoutMs: 200 } });
    const balance = f.balance('cbu');
    const res = await lookup();
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'GE500' } });
    expect(f.balance('cbu')).toBe(balance);
    // The failure reaches Ajustes as its message and its time, for the screen to say in its own words.
    const settings = (await dispatch(f.titular, admin(), 'settings.get', {})) as { remote: { lastError: { message: string; at: string } | null } };
    expect(settings.remote.lastError).toEqual({ message: expect.any(String), at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    await dispatch(f.titular, admin(), 'settings.update', { resolvers: { cbu: 'directory' } });
    expect((await lookup()).statusCode).toBe(200);
  });
});

describe('settings.setUpstreamKey', () => {
  const upstream = 'sk_live_UpstreamSecret0123456789abcdefXYZ';

  it('seals the key in the vault, never sends it back, and audits without it', async () => {
    const saved = await dispatch(f.titular, admin(), 'settings.setUpstreamKey', { key: `  ${upstream}  ` });
    expect(saved).toMatchObject({ remote: { hasUpstreamKey: true } });
    expect(JSON.stringify(saved)).not.toContain(upstream);
    expect(f.titular.secrets.get('remote.upstreamKey')).toBe(upstream);
    f.titular.commits.flush();
    for (const file of ['titular.db', 'titular.db-wal']) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(path.join(f.dataDir, file));
      } catch {
        continue;
      }
      expect(bytes.includes(Buffer.from(upstream))).toBe(false);
    }
    const audit = f.titular.audit.list(f.orgId, { targetType: 'settings', limit: 1 });
    expect(audit[0]).toMatchObject({ action: 'remote.upstream_key_set' });
    expect(JSON.stringify(audit)).not.toContain(upstream);
  });

  it('refuses a malformed key, and removes the key when given an empty one', async () => {
    await fails(dispatch(f.titular, admin(), 'settings.setUpstreamKey', { key: 'two words here' }), 400, 'INVALID_PARAMETER');
    expect(f.titular.secrets.has('remote.upstreamKey')).toBe(true);
    expect(await dispatch(f.titular, admin(), 'settings.setUpstreamKey', { key: '' })).toMatchObject({ remote: { hasUpstreamKey: false } });
  });

  it('a URL moved to another origin removes the stored key, in the same save, audited; another path on the same API keeps it', async () => {
    const update = (baseUrl: string | null) => dispatch(f.titular, admin(), 'settings.update', { remote: { baseUrl } });
    await update('https://api.example.com');
    await dispatch(f.titular, admin(), 'settings.setUpstreamKey', { key: upstream });
    expect(await update('https://api.example.com/v2')).toMatchObject({ remote: { baseUrl: 'https://api.example.com/v2', hasUpstreamKey: true } });
    // Anyone at the desktop could otherwise point the URL at a listener of theirs and receive the key.
    for (const elsewhere of ['http://127.0.0.1:9999', 'https://api.example.com:8443', 'https://evil.example.com']) {
      expect(await update(elsewhere)).toMatchObject({ remote: { baseUrl: elsewhere, hasUpstreamKey: false } });
      const [removed, updated] = f.titular.audit.list(f.orgId, { targetType: 'settings', limit: 2 });
      expect(removed).toMatchObject({ action: 'remote.upstream_key_removed', details: { reason: 'base_url_origin_changed' } });
      expect(updated).toMatchObject({ action: 'settings.updated', details: { 'remote.baseUrl': elsewhere } });
      await dispatch(f.titular, admin(), 'settings.setUpstreamKey', { key: upstream });
    }
    // Cleared: a URL set later would get the key, so it goes too.
    expect(await update(null)).toMatchObject({ remote: { baseUrl: null, hasUpstreamKey: false } });
    // Stored while no URL is set, it goes with the first one.
    await dispatch(f.titular, admin(), 'settings.setUpstreamKey', { key: upstream });
    expect(await update('https://api.example.com')).toMatchObject({ remote: { hasUpstreamKey: true } });
    await dispatch(f.titular, admin(), 'settings.setUpstreamKey', { key: '' });
  });

  it('needs an unlocked vault to store a key', async () => {
    f.titular.lockVault();
    await fails(dispatch(f.titular, admin(), 'settings.setUpstreamKey', { key: upstream }), 401, 'UNAUTHORIZED');
    expect(f.titular.secrets.has('remote.upstreamKey')).toBe(false);
  });
});

describe('handing out a working key on a keychain vault asks the host to confirm: reveal, rotate, create', () => {
  it('each goes ahead after a yes and is refused after a no with nothing written; the prompt names the step and the key', async () => {
    const g = await createFixture();
    try {
      const secret = g.createKey();
      const id = g.titular.keys.list(g.orgId)[0]!.id;
      const prompts: SecretAsk[] = [];
      const session = (answer: boolean) => ({ userId: g.adminId, confirmSecret: async (ask: SecretAsk) => (prompts.push(ask), answer) });
      const audited = () => g.titular.audit.list(g.orgId, { targetType: 'api_key' }).length;
      const before = audited();

      await fails(dispatch(g.titular, session(false), 'keys.reveal', { id, confirm: true }), 403, 'FORBIDDEN');
      const rotation = await fails(dispatch(g.titular, session(false), 'keys.rotate', { id }), 403, 'FORBIDDEN');
      expect(rotation.message).toBe('Rotation cancelled at the confirmation prompt');
      const creation = await fails(dispatch(g.titular, session(false), 'keys.create', { name: 'ERP', product: 'cbu', scopes: ['lookup'], environment: 'live' }), 403, 'FORBIDDEN');
      expect(creation.message).toBe('Key creation cancelled at the confirmation prompt');
      // Nothing written: the same secret works, no key was added, no audit entry.
      expect(g.titular.keys.list(g.orgId)).toHaveLength(1);
      expect(audited()).toBe(before);
      expect((await g.app.inject({ url: '/api/v1/balance', headers: auth(secret) })).statusCode).toBe(200);

      expect(await dispatch(g.titular, session(true), 'keys.reveal', { id, confirm: true })).toEqual({ secret });
      const rotated = (await dispatch(g.titular, session(true), 'keys.rotate', { id })) as { secret: string };
      expect(rotated.secret).not.toBe(secret);
      const created = (await dispatch(g.titular, session(true), 'keys.create', { product: 'informes', scopes: ['lookup'], environment: 'live' })) as { secret: string };
      expect(created.secret).toMatch(/^sk_live_/);
      expect(prompts.map((p) => p.action)).toEqual(['reveal', 'rotate', 'create', 'reveal', 'rotate', 'create']);
      // The key's prefix for an existing key, its name (or product) for a new one.
      expect(prompts[0]!.label).toMatch(/^sk_live_/);
      expect(secret.startsWith(prompts[0]!.label.replace(/…$/, ''))).toBe(true);
      expect(prompts[2]!.label).toBe('ERP');
      expect(prompts[5]!.label).toBe('(Informes)');
      // A mistake in the form, or a key that does not exist, is said before any prompt.
      await fails(dispatch(g.titular, session(true), 'keys.create', { product: 'cbu', scopes: ['lookup'], environment: 'live', ipWhitelist: ['nope'] }), 400, 'INVALID_PARAMETER');
      await fails(dispatch(g.titular, session(true), 'keys.rotate', { id: '01a20000-0000-7000-8000-000000000000' }), 404, 'NOT_FOUND');
      // So is a revoked key's rotation.
      await dispatch(g.titular, session(true), 'keys.revoke', { id });
      expect((await fails(dispatch(g.titular, session(true), 'keys.rotate', { id }), 400, 'INVALID_PARAMETER')).message).toBe('A revoked key cannot be rotated');
      expect(prompts).toHaveLength(6);
    } finally {
      await g.close();
    }
  });
});

describe('vault.unlock through the shell\'s provider (a keychain or key-file vault)', () => {
  it('a provider\'s refusal reaches the screen with its reason; any other failure as a plain sentence', async () => {
    f.titular.lockVault();
    try {
      const refusing = { ...admin(), unlockProvider: () => { throw new VaultUnlockError("The vault's key file is missing (/datos/master.key); restore it from your backup"); } };
      const refused = await fails(dispatch(f.titular, refusing, 'vault.unlock', {}), 401, 'UNAUTHORIZED');
      expect(refused.message).toContain("The vault's key file is missing");
      const broken = { ...admin(), unlockProvider: () => { throw new Error('EACCES: permission denied, open /internal/state/wrapping.bin'); } };
      const failed = await fails(dispatch(f.titular, broken, 'vault.unlock', {}), 401, 'UNAUTHORIZED');
      expect(failed.message).toBe('The vault could not be unlocked');
      expect(f.titular.vault.locked).toBe(true);
    } finally {
      f.titular.unlockVault(keyfileProvider(path.join(f.dataDir, 'master.key')));
    }
  });
});
