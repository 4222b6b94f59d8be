// The desktop's IPC contract over the headless HTTP bridge: sessions, roles, parsing, and that each
// channel does what the screens rely on (lookups as WEB, purchases, keys that work at once on the API).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth } from './support/fixture';
import { createBridgeFixture, type BridgeFixture } from './support/bridge-fixture';
import { DIR, DIRECTORY_CSV } from './support/directory-data';
import { CHANNELS, ipcContract } from '../src/shared/ipc/contract';
import { dispatch } from '../src/main/core/ipc/handlers';

let f: BridgeFixture;
let adminToken: string;
let operatorToken: string;

beforeAll(async () => {
  f = await createBridgeFixture({ credits: { cbu: 20 } });
  f.importDirectory(DIRECTORY_CSV);
  ({ adminToken, operatorToken } = f);
});
afterAll(() => f.close());

const call = (channel: string, input: unknown, token = adminToken) => f.call(channel, input, token);

describe('bridge sessions', () => {
  it('refuses a missing or unknown session token with the error body', async () => {
    for (const authorization of [undefined, 'Session nope', `Session ${'x'.repeat(43)}`, `Bearer ${adminToken}`]) {
      const res = await f.app.inject({ method: 'POST', url: '/bridge/session.get', headers: authorization ? { authorization } : {}, payload: {} });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    }
  });

  it('names the session user and organization', async () => {
    const { body } = await call('session.get', {});
    expect(body).toMatchObject({ ok: true, value: { user: { id: f.adminId, role: 'admin' }, organization: { id: f.orgId, name: 'Acme Cobranzas' } } });
    const op = await call('session.get', {}, operatorToken);
    expect(op.body.value.user).toMatchObject({ id: f.operatorId, role: 'operator' });
  });

  it('answers FORBIDDEN to an operator on every admin channel, and lets operators use the others', async () => {
    const adminChannels = CHANNELS.filter((c) => ipcContract[c].admin);
    expect(adminChannels).toEqual(expect.arrayContaining(['keys.list', 'keys.create', 'keys.reveal', 'keys.rotate', 'keys.revoke', 'users.add', 'credits.purchase', 'audit.list']));
    for (const channel of adminChannels) {
      const { body } = await call(channel, {}, operatorToken);
      expect(body, channel).toEqual({ ok: false, error: { code: 'FORBIDDEN', message: expect.any(String), status: 403 } });
    }
    expect((await call('balance.get', {}, operatorToken)).body.ok).toBe(true);
    expect((await call('history.list', { page: 1, per_page: 10 }, operatorToken)).body.ok).toBe(true);
  });

  it('rejects input that does not match the contract, and unknown channels', async () => {
    expect((await call('lookup.account', { identifier: 'x', type: 'iban' })).body).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMETER', status: 400 } });
    expect((await call('history.list', { page: 0, per_page: 10 })).body.error.code).toBe('INVALID_PARAMETER');
    expect((await call('keys.reveal', { id: 'x' })).body.error.code).toBe('INVALID_PARAMETER');
    expect((await call('nope.nothing', {})).body).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', status: 404 } });
    expect((await call('__proto__', {})).body.error.code).toBe('NOT_FOUND');
  });
});

describe('channels', () => {
  it('lookup.account charges a credit and records a WEB lookup by the session user', async () => {
    const before = f.balance('cbu');
    const { body } = await call('lookup.account', { identifier: DIR.individual.cbu, type: 'cbu' }, operatorToken);
    expect(body.ok).toBe(true);
    expect(body.value.status).toBe(200);
    expect(body.value.body.data.holders[0].full_name).toBe('Lucía Luna');
    expect(body.value.body.credits_remaining).toBe(before - 1);
    const history = await call('history.list', { page: 1, per_page: 1 });
    expect(history.body.value.data[0]).toMatchObject({ source: 'WEB', inputIdentifier: DIR.individual.cbu, user: { id: f.operatorId, email: 'oscar@acme.test' } });
    const pa006 = await call('lookup.account', { identifier: '123', type: 'cbu' });
    expect(pa006.body.value).toMatchObject({ status: 400, body: { success: false, error: { code: 'PA006' }, credits_remaining: before - 2 } });
  });

  it('credits.purchase adds once per reference; dailyConsumption counts today', async () => {
    const first = await call('credits.purchase', { product: 'cbu', amount: 50, reference: 'REC-9' });
    const again = await call('credits.purchase', { product: 'cbu', amount: 50, reference: 'REC-9' });
    expect(first.body.value.added).toBe(true);
    expect(again.body.value).toEqual({ added: false, balance: first.body.value.balance });
    const consumed = (await call('balance.get', {})).body.value.balances[0].totalConsumed;
    expect(consumed).toBeGreaterThan(0);
    // Each charged lookup counts on its own date in the zone asked for. Today is read on both sides
    // of the call, which may straddle a midnight (Kiritimati's is 10:00 UTC, Etc/GMT+12's 12:00).
    const charged = (await call('history.list', { page: 1, per_page: 50 })).body.value.data.filter((e: { creditConsumed: number }) => e.creditConsumed > 0);
    expect(charged.reduce((sum: number, e: { creditConsumed: number }) => sum + e.creditConsumed, 0)).toBe(consumed);
    const dateIn = (timeZone: string | undefined, at: Date) => new Intl.DateTimeFormat('en-CA', { timeZone }).format(at);
    for (const timeZone of [undefined, 'Pacific/Kiritimati', 'Etc/GMT+12']) {
      const todayBefore = dateIn(timeZone, new Date());
      const daily = await call('balance.dailyConsumption', { product: 'cbu', days: 7, ...(timeZone ? { timeZone } : {}) });
      const todayAfter = dateIn(timeZone, new Date());
      const days: { date: string; consumed: number }[] = daily.body.value.days;
      expect(days).toHaveLength(7);
      expect([todayBefore, todayAfter]).toContain(days.at(-1)!.date);
      const expected = new Map<string, number>();
      for (const e of charged) {
        const date = dateIn(timeZone, new Date(e.createdAt));
        expected.set(date, (expected.get(date) ?? 0) + e.creditConsumed);
      }
      expect(days).toEqual(days.map((d) => ({ date: d.date, consumed: expected.get(d.date) ?? 0 })));
      expect(days.reduce((sum, d) => sum + d.consumed, 0)).toBe(consumed);
    }
    const now = new Date();
    // The same lookups fall on different dates in these two zones, 26 hours apart.
    expect(dateIn('Pacific/Kiritimati', now)).not.toBe(dateIn('Etc/GMT+12', now));
    expect((await call('balance.dailyConsumption', { product: 'cbu', days: 7, timeZone: 'Marte/Olympus' })).body).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMETER' } });
  });

  it('balance.get waits, like GET /api/v1/balance, until what it read is on disk (synchronous=FULL)', async () => {
    const commits = f.titular.commits;
    const settled = commits.settled.bind(commits);
    let release = () => {};
    commits.settled = () => new Promise<void>((resolve) => (release = resolve));
    try {
      let answered = false;
      const pending = call('balance.get', {}).then((res) => {
        answered = true;
        return res;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(answered).toBe(false);
      release();
      expect((await pending).body.ok).toBe(true);
    } finally {
      commits.settled = settled;
    }
  });

  it('history filters and CSV export', async () => {
    const errors = await call('history.list', { page: 1, per_page: 50, status: 'ERROR' });
    expect(errors.body.value.data.every((e: { status: string }) => e.status === 'ERROR')).toBe(true);
    const search = await call('history.list', { page: 1, per_page: 50, q: DIR.individual.cbu.slice(5, 15) });
    expect(search.body.value.pagination.total).toBe(1);
    const bad = await call('history.list', { page: 1, per_page: 10, from: '2026-12-01', to: '2026-11-01' });
    expect(bad.body.error.code).toBe('INVALID_PARAMETER');
    const csv = await call('history.exportCsv', {});
    // For a spreadsheet in the screen's language, Spanish by default (test/csv-exports.test.ts).
    expect(csv.body.value.csv.split('\r\n')[0]).toBe('\uFEFFID de consulta;Fecha;Identificador;Tipo;Estado;Origen;Créditos;Demora de la fuente (ms);Usuario;Clave de API;Titulares;Código de error');
    expect(csv.body.value.rows).toBe(2);
    expect(csv.body.value.fileName).toMatch(/^titular-historial-\d{4}-\d{2}-\d{2}\.csv$/);
  });

  it('keys.create gives a key that works on the API at once; revoke stops it on the next request; reveal needs confirmation', async () => {
    const created = await call('keys.create', { product: 'cbu', scopes: ['balance'], environment: 'live', ipWhitelist: ['127.0.0.1'], rateLimitPerSecond: 5 });
    expect(created.body.ok).toBe(true);
    const { key, secret } = created.body.value;
    expect(secret).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(key).toMatchObject({ scopes: ['balance'], ipWhitelist: ['127.0.0.1'], rateLimitPerSecond: 5, status: 'active', owner: { id: f.adminId } });
    expect((await f.app.inject({ url: '/api/v1/balance', headers: auth(secret), remoteAddress: '127.0.0.1' })).statusCode).toBe(200);

    expect((await call('keys.reveal', { id: key.id, confirm: true })).body.value.secret).toBe(secret);
    const rotated = await call('keys.rotate', { id: key.id });
    expect(rotated.body.value.secret).not.toBe(secret);
    expect((await f.app.inject({ url: '/api/v1/balance', headers: auth(secret), remoteAddress: '127.0.0.1' })).statusCode).toBe(401);

    await call('keys.revoke', { id: key.id });
    expect((await f.app.inject({ url: '/api/v1/balance', headers: auth(rotated.body.value.secret), remoteAddress: '127.0.0.1' })).statusCode).toBe(401);
    const list = await call('keys.list', {});
    expect(list.body.value.keys.find((k: { id: string }) => k.id === key.id).status).toBe('revoked');
    expect(list.body.value.limit).toBe(10);
    const audit = await call('audit.list', { targetType: 'api_key' });
    expect(audit.body.value.entries.slice(0, 4).map((e: { action: string }) => e.action)).toEqual(['key.revoked', 'key.rotated', 'key.revealed', 'key.created']);
    expect(JSON.stringify(audit.body.value)).not.toContain(secret);
  });

  it('history.list names the key an API lookup came through, as Claves lists it; the desktop\'s lookups have none', async () => {
    const created = await call('keys.create', { name: 'ERP cobranzas', product: 'cbu', scopes: ['lookup'], environment: 'live', ipWhitelist: [], rateLimitPerSecond: 50 });
    const { key, secret } = created.body.value;
    const viaKey = async (k: string) => {
      const res = await f.app.inject({ url: `/api/v1/lookup?identifier=${DIR.company.alias}&type=alias`, headers: auth(k), remoteAddress: '127.0.0.1' });
      expect(res.statusCode).toBe(200);
      return (await call('history.list', { page: 1, per_page: 1 }, operatorToken)).body.value.data[0];
    };
    const first = await viaKey(secret);
    // Operators see it too: which tool made a lookup is no secret, the key itself is.
    expect(first).toMatchObject({ source: 'API', inputIdentifier: DIR.company.alias, apiKey: { id: key.id, name: 'ERP cobranzas', prefix: key.prefix } });
    expect(JSON.stringify(first)).not.toContain(secret);
    // After a rotation the entry shows the prefix Claves lists now, so the two can be matched.
    const rotated = (await call('keys.rotate', { id: key.id })).body.value;
    const listed = (await call('keys.list', {})).body.value.keys.find((k: { id: string }) => k.id === key.id);
    expect(listed.prefix).not.toBe(key.prefix);
    expect((await call('history.list', { page: 1, per_page: 50 })).body.value.data.find((e: { id: string }) => e.id === first.id).apiKey.prefix).toBe(listed.prefix);
    expect((await viaKey(rotated.secret)).apiKey).toEqual({ id: key.id, name: 'ERP cobranzas', prefix: listed.prefix });
    // The desktop's own lookups came through no key.
    await call('lookup.account', { identifier: DIR.wallet.cbu, type: 'cbu' });
    expect((await call('history.list', { page: 1, per_page: 1 })).body.value.data[0]).toMatchObject({ source: 'WEB', apiKey: null });
  });

  it('users.add and users.setRole; a demoted admin loses admin channels on the next call', async () => {
    const added = await call('users.add', { name: 'Bea Admin', email: 'bea@acme.test', role: 'admin' });
    const bea = added.body.value.user;
    expect(bea.role).toBe('admin');
    expect((await call('users.add', { name: 'Dup', email: 'BEA@acme.test', role: 'operator' })).body.error.code).toBe('INVALID_PARAMETER');
    await call('users.setRole', { id: bea.id, role: 'operator' });
    const users = (await call('users.list', {})).body.value.users;
    expect(users.find((u: { id: string }) => u.id === bea.id).role).toBe('operator');
    const lastAdmin = await call('users.setRole', { id: f.adminId, role: 'operator' });
    expect(lastAdmin.body.error.message).toMatch(/at least one admin/);
  });
});

describe('a copied key and the clipboard', () => {
  const digest = 'a'.repeat(64);

  it('the browser mode has no host to clear it: scheduled false, and the page does it itself (e2e/claves-clipboard.spec.ts)', async () => {
    expect((await call('clipboard.clearSecretLater', { digest }, operatorToken)).body).toEqual({ ok: true, value: { scheduled: false } });
  });

  it('only a SHA-256 in hex crosses: the key itself, or anything else, is refused', async () => {
    for (const input of [{ digest: 'sk_live_' + 'x'.repeat(40) }, { digest: 'A'.repeat(64) }, { digest: 'a'.repeat(63) }, {}]) {
      expect((await call('clipboard.clearSecretLater', input)).body, JSON.stringify(input)).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMETER' } });
    }
  });

  it("a host that can (the desktop's main process) is handed the digest, and says it scheduled the clear", async () => {
    const handed: string[] = [];
    const value = await dispatch(f.titular, { userId: f.operatorId, clearClipboardLater: (d) => handed.push(d) }, 'clipboard.clearSecretLater', { digest });
    expect(value).toEqual({ scheduled: true });
    expect(handed).toEqual([digest]);
  });
});

describe('vault lock', () => {
  it('locking drops the data key: key operations refuse, lookups go on; unlocking restores them', async () => {
    expect((await call('vault.status', {}, operatorToken)).body.value).toEqual({ locked: false, protection: 'keyfile', autoLockMinutes: 15 });
    // An operator can neither lock it (that would stop remote lookups for every API client) nor unlock it.
    for (const channel of ['vault.lock', 'vault.unlock'] as const) expect((await call(channel, {}, operatorToken)).body.error?.code, channel).toBe('FORBIDDEN');
    expect(f.titular.vault.locked).toBe(false);
    // Ids are bounded: a huge one is refused by the contract, not looked up and echoed.
    const huge = await call('keys.revoke', { id: 'A'.repeat(100_000) });
    expect(huge.body.error?.code).toBe('INVALID_PARAMETER');
    expect(JSON.stringify(huge.body).length).toBeLessThan(2_000);
    const { key, secret } = (await call('keys.create', { product: 'cbu', scopes: ['lookup'], environment: 'sandbox' })).body.value;
    expect((await call('vault.lock', {})).body.value).toEqual({ locked: true });
    expect(f.titular.vault.locked).toBe(true);
    for (const [channel, input] of [['keys.reveal', { id: key.id, confirm: true }], ['keys.rotate', { id: key.id }], ['keys.create', { product: 'cbu', scopes: ['lookup'], environment: 'live' }]] as const) {
      expect((await call(channel, input)).body.error, channel).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/locked/) });
    }
    const lookup = await f.app.inject({ url: '/api/v1/lookup?identifier=0110001300000012345674&type=cbu', headers: auth(secret) });
    expect(lookup.statusCode).toBe(200);
    expect((await call('vault.unlock', {})).body.value).toEqual({ locked: false });
    expect((await call('keys.reveal', { id: key.id, confirm: true })).body.value.secret).toBe(secret);
    await call('keys.revoke', { id: key.id });
    // Who locked and unlocked it is in the audit trail (locking pauses remote lookups for every client).
    const vaultEntries = (await call('audit.list', { targetType: 'vault' })).body.value.entries;
    expect(vaultEntries.map((e: { action: string; actor: { id: string } | null }) => [e.action, e.actor?.id])).toEqual([
      ['vault.unlocked', f.adminId],
      ['vault.locked', f.adminId],
    ]);
  });
});

describe('browser mode', () => {
  it('serves the renderer with a strict CSP, and assets', async () => {
    const page = await f.app.inject({ url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    const asset = await f.app.inject({ url: '/assets/app.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toContain('javascript');
    expect((await f.app.inject({ url: '/assets/../index.html' })).statusCode).not.toBe(500);
    expect((await f.app.inject({ url: '/assets/missing.js' })).statusCode).toBe(404);
    expect((await f.app.inject({ url: '/', headers: { host: 'evil.example' } })).statusCode).toBe(403);
  });
});
