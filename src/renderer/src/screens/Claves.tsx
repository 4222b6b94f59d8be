// Claves: create API keys (secret shown once), list them with reveal/rotate/revoke, and the audit trail.
import { useEffect, useId, useRef, useState } from 'react';
import type { ProductSlug, Scope } from '../../../shared/api/common';
import type { ApiKeyViewDto } from '../../../shared/ipc/contract';
import { useCreateKey, useKeys, useRevealKey, useRevokeKey, useRotateKey, useUsers, useVaultLock, useVaultStatus, useVaultUnlock } from '../api/hooks';
import { tpl, useI18n } from '../i18n';
import type { Session } from '../App';
import { asksForPassphrase, describeError } from '../lib/errors';
import { localYmd } from '../lib/format';
import { Badge, Card, EmptyState, ErrorBanner, Notice, PageHeader, SkeletonRows, Spinner } from '../components/ui';
import { ConfirmDialog } from '../components/Dialog';
import { CopyButton } from '../components/CopyButton';
import { AuditTable } from '../components/AuditTable';
import { useToast } from '../components/Toast';
import { IconAlert, IconKey, IconPlus, IconShield } from '../components/Icons';
import { keyLabel } from '../lib/key-label';

const SCOPES: Scope[] = ['lookup', 'balance', 'history'];
const PRODUCTS: ProductSlug[] = ['cbu', 'informes'];

/** `at`: when it appeared, so that only a vault status read after it can hide it. */
type ShownSecret = { kind: 'created' | 'rotated' | 'revealed'; secret: string; key: ApiKeyViewDto | null; at: number };
type Pending = { kind: 'reveal' | 'rotate' | 'revoke'; key: ApiKeyViewDto };
/** How often the vault's state is read while a secret is on screen. */
const SECRET_LOCK_CHECK_MS = 5_000;

export function ClavesScreen({ session }: { session: Session }) {
  const { m, num } = useI18n();
  const keys = useKeys({ enabled: session.user.role === 'admin' });
  const users = useUsers({ enabled: session.user.role === 'admin' });
  const [shown, setShownSecret] = useState<ShownSecret | null>(null);
  const setShown = (secret: Omit<ShownSecret, 'at'> | null) => setShownSecret(secret && { ...secret, at: Date.now() });
  // While a secret is on screen the vault's state is read every few seconds: when it locks on its own
  // (auto-lock after the idle time, in the desktop's main process) the secret leaves the screen too,
  // instead of staying there for whoever comes to the unattended computer (also while the window is
  // minimized, so that it is gone when the window comes back). These reads do not count
  // as activity that holds the auto-lock off (electron/ipc.ts).
  const vault = useVaultStatus({ enabled: session.user.role === 'admin', refetchInterval: shown ? SECRET_LOCK_CHECK_MS : false });
  const [hiddenByLock, setHiddenByLock] = useState(false);
  const locked = vault.data?.locked === true;
  // Locked with this screen's button: the banner can say so. A lock from elsewhere (the auto-lock in
  // the main process, another admin, the CLI) cannot be told apart from here.
  const [lockedByYou, setLockedByYou] = useState(false);
  useEffect(() => {
    if (!locked) setLockedByYou(false);
  }, [locked]);
  useEffect(() => {
    if (!locked) setHiddenByLock(false);
    else if (shown && vault.dataUpdatedAt > shown.at) {
      setShownSecret(null);
      setHiddenByLock(true);
    }
  }, [locked, shown, vault.dataUpdatedAt]);
  const [pending, setPending] = useState<Pending | null>(null);
  const atLimit = keys.data ? keys.data.activeCount >= keys.data.limit : false;
  // Creating, rotating and revealing need the vault open (revoking only marks the key): while it is
  // locked they are not offered, and this says why (instead of an error after the passphrase).
  const lockedHintId = useId();
  const listHeading = useRef<HTMLSpanElement>(null);
  const table = useRef<HTMLTableElement>(null);
  // "Ya la guardé" hands focus back: to the row button that showed the key, else to the list's heading
  // (after a key is created the form's button is disabled again, and focus would drop to <body>).
  const dismissSecret = () => {
    const from = shown?.key && shown.kind !== 'created' ? table.current?.querySelector<HTMLButtonElement>(`tr[data-key-id="${CSS.escape(shown.key.id)}"] button[data-key-action="${shown.kind === 'rotated' ? 'rotate' : 'reveal'}"]`) : null;
    setShown(null);
    (from && !from.disabled ? from : listHeading.current)?.focus();
  };

  return (
    <>
      <PageHeader
        title={m.pages.claves.title}
        subtitle={m.pages.claves.subtitle}
        actions={
          <>
            {keys.data ? (
              <div className="limit-meter" data-testid="key-active-count">
                <span>{tpl(m.keys.activeCount, { n: num(keys.data.activeCount), limit: num(keys.data.limit) })}</span>
                <span className="meter small">
                  <span style={{ width: `${Math.min(100, (keys.data.activeCount / Math.max(1, keys.data.limit)) * 100)}%` }} className={atLimit ? 'full' : ''} />
                </span>
              </div>
            ) : null}
            {vault.data && !vault.data.locked ? (
              <LockVaultButton
                onLock={() => {
                  setShown(null);
                  setLockedByYou(true);
                }}
                onLockFailed={() => setLockedByYou(false)}
              />
            ) : null}
          </>
        }
      />

      {vault.data?.locked ? <VaultUnlock protection={vault.data.protection} autoLockMinutes={vault.data.autoLockMinutes} byYou={lockedByYou} hiddenSecret={hiddenByLock} /> : null}

      {shown ? <SecretBox shown={shown} onDismiss={dismissSecret} /> : null}

      <KeyCreateForm atLimit={atLimit} locked={locked} limit={keys.data?.limit ?? 10} onCreated={(secret, key) => setShown({ kind: 'created', secret, key })} />

      {keys.isError ? <ErrorBanner error={keys.error} testId="keys-error" onRetry={() => void keys.refetch()} /> : null}

      <Card
        title={
          <span ref={listHeading} tabIndex={-1} data-testid="keys-list-heading">
            {m.keys.listTitle}
          </span>
        }
        actions={
          locked ? (
            <p id={lockedHintId} className="keys-locked-hint" data-testid="keys-locked-hint">
              <IconShield size={14} /> {m.keys.lockedActionsHint}
            </p>
          ) : null
        }
        className="table-card"
      >
        <div className="table-wrap">
          <table ref={table} className="table zebra hoverable keys-table" data-testid="keys-table">
            <thead>
              <tr>
                <th>{m.keys.colName}</th>
                <th>{m.keys.colProduct}</th>
                <th>{m.keys.colScopes}</th>
                <th>{m.keys.colStatus}</th>
                <th>{m.keys.colLastUse}</th>
                <th>{m.keys.colOwner}</th>
                <th className="right">{m.keys.colActions}</th>
              </tr>
            </thead>
            <tbody>
              {keys.isPending ? (
                <SkeletonRows rows={3} cols={9} />
              ) : (
                keys.data?.keys.map((key) => <KeyRow key={key.id} apiKey={key} lockedHintId={locked ? lockedHintId : undefined} onAction={(kind) => setPending({ kind, key })} />)
              )}
            </tbody>
          </table>
        </div>
        {keys.data && keys.data.keys.length === 0 ? <EmptyState icon={<IconKey size={28} />} title={m.keys.emptyTitle} body={m.keys.emptyBody} /> : null}
      </Card>

      <AuditTable keys={keys.data?.keys} users={users.data?.users} />

      {pending ? (
        <KeyActionDialog
          pending={pending}
          onClose={() => setPending(null)}
          onSecret={(kind, secret, key) => {
            setPending(null);
            setShown({ kind, secret, key });
          }}
        />
      ) : null}
    </>
  );
}

/** `onLock`: called as the admin clicks, so a key on screen leaves it before the lock's new state is read. */
function LockVaultButton({ onLock, onLockFailed }: { onLock: () => void; onLockFailed: () => void }) {
  const { m } = useI18n();
  const lock = useVaultLock();
  const toast = useToast();
  return (
    <button type="button" className="btn btn-secondary btn-sm" disabled={lock.isPending} onClick={() => {
        onLock();
        lock.mutate({}, { onSuccess: () => toast((t) => t.m.keys.vaultLockedToast), onError: onLockFailed });
      }} data-testid="vault-lock">
      <IconShield size={15} />
      <span>{m.keys.vaultLock}</span>
    </button>
  );
}

/** `byYou`: locked with this screen's button; otherwise by hand elsewhere or by the auto-lock (off at 0 minutes). */
function VaultUnlock({ protection, autoLockMinutes, byYou, hiddenSecret }: { protection: 'passphrase' | 'keyfile' | 'os'; autoLockMinutes: number; byYou: boolean; hiddenSecret: boolean }) {
  const { m, num } = useI18n();
  const id = useId();
  const unlock = useVaultUnlock();
  const toast = useToast();
  const [passphrase, setPassphrase] = useState('');
  const needs = protection === 'passphrase';
  return (
    <div className="banner banner-warning vault-banner" role="status" data-testid="vault-locked">
      <IconShield size={20} className="banner-icon" />
      <div className="banner-body">
        <div className="banner-title">{m.keys.vaultLocked}</div>
        <div className="banner-detail" data-testid="vault-locked-why">
          {byYou ? m.keys.vaultLockedByYou : autoLockMinutes > 0 ? tpl(m.keys.vaultLockedBody, { minutes: num(autoLockMinutes) }) : m.keys.vaultLockedByHand}
        </div>
        {hiddenSecret ? (
          <div className="banner-detail" data-testid="vault-secret-hidden">
            {m.keys.secretHiddenByLock}
          </div>
        ) : null}
        {unlock.isError ? <div className="field-error">{describeError(unlock.error, m).title}</div> : null}
      </div>
      <form
        className="vault-form"
        onSubmit={(e) => {
          e.preventDefault();
          unlock.mutate({ passphrase: needs ? passphrase : undefined }, { onSuccess: () => toast((t) => t.m.keys.vaultUnlocked) });
        }}
      >
        {needs ? (
          <>
            <label className="sr-only" htmlFor={id}>
              {m.keys.vaultPassphrase}
            </label>
            <input id={id} type="password" className="input input-sm" placeholder={m.keys.vaultPassphrase} value={passphrase} onChange={(e) => setPassphrase(e.target.value)} data-testid="vault-passphrase" />
          </>
        ) : null}
        <button type="submit" className="btn btn-primary btn-sm" disabled={unlock.isPending || (needs && passphrase === '')} data-testid="vault-unlock">
          {unlock.isPending ? <Spinner /> : null}
          <span>{unlock.isPending ? m.keys.vaultUnlocking : m.keys.vaultUnlock}</span>
        </button>
      </form>
    </div>
  );
}

/** `lockedHintId`: set while the vault is locked: reveal and rotate are disabled, described by that hint. */
function KeyRow({ apiKey: key, lockedHintId, onAction }: { apiKey: ApiKeyViewDto; lockedHintId?: string; onAction: (kind: Pending['kind']) => void }) {
  const { m, date, relative } = useI18n();
  const tone = key.status === 'active' ? 'success' : key.status === 'revoked' ? 'danger' : 'warning';
  const active = key.status === 'active';
  // Three "Revelar" buttons per screen said nothing to a screen reader about which key each is for.
  const name = keyLabel(key, m.keys.unnamed);
  return (
    <tr data-testid="key-row" data-key-id={key.id} data-status={key.status} className={active ? '' : 'row-muted'}>
      <td>
        {/* A long name is cut with an ellipsis in the table: the tooltip has it whole. */}
        <div className="cell-title" title={key.name ?? undefined}>
          {key.name ?? <span className="muted">{m.keys.unnamed}</span>}
        </div>
        <div className="mono small muted">{key.prefix}</div>
      </td>
      {/* Product and environment share a cell, and so do last use and expiry: with one column each
          the actions fell off the right edge of a 1280-pixel window. */}
      <td>
        <div className="nowrap">{m.products[key.product]}</div>
        <Badge tone={key.environment === 'live' ? 'accent' : 'neutral'}>{m.keys.envShort[key.environment]}</Badge>
      </td>
      <td>
        <div className="chips">
          {key.scopes.map((s) => (
            <span key={s} className="chip">
              {m.keys.scopeNames[s]}
            </span>
          ))}
        </div>
      </td>
      <td>
        <Badge tone={tone}>{m.keys.statuses[key.status]}</Badge>
      </td>
      <td className="nowrap">
        <div>{key.lastUsedAt ? relative(key.lastUsedAt) : m.common.never}</div>
        <div className="small muted">
          {m.keys.colExpires}: {key.expiresAt ? date(key.expiresAt) : m.common.never}
        </div>
      </td>
      {/* Wraps between words rather than being cut while other columns have room. */}
      <td className="keys-owner" title={key.owner.email}>
        {key.owner.name}
      </td>
      <td className="right nowrap">
        {active ? (
          <div className="row-actions">
            {(['reveal', 'rotate'] as const).map((kind) => (
              // Both need the vault open: disabled while it is locked, described by the hint that says so.
              <button
                key={kind}
                type="button"
                className="btn btn-ghost btn-sm"
                onClick={() => onAction(kind)}
                disabled={lockedHintId !== undefined}
                aria-describedby={lockedHintId}
                title={lockedHintId !== undefined ? m.keys.lockedActionsHint : undefined}
                aria-label={tpl(kind === 'reveal' ? m.keys.revealFor : m.keys.rotateFor, { name })}
                data-key-action={kind}
                data-testid={`key-${kind}`}
              >
                {kind === 'reveal' ? m.keys.reveal : m.keys.rotate}
              </button>
            ))}
            {/* Revoking needs no vault (it only marks the key): offered while it is locked too. */}
            <button type="button" className="btn btn-ghost-danger btn-sm" onClick={() => onAction('revoke')} aria-label={tpl(m.keys.revokeFor, { name })} data-key-action="revoke" data-testid="key-revoke">
              {m.keys.revoke}
            </button>
          </div>
        ) : (
          <span className="muted">{m.common.none}</span>
        )}
      </td>
    </tr>
  );
}

function SecretBox({ shown, onDismiss }: { shown: ShownSecret; onDismiss: () => void }) {
  const { m } = useI18n();
  const box = useRef<HTMLElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // The secret appears above the keys table: bring it into view (the page scrolls inside .main, not
  // the window; .secret-box's scroll-margin-top keeps it below the sticky top bar), or a reveal from a
  // row far down the table would seem to do nothing. Focus goes to its heading: the button that asked
  // for it is disabled again (create) or gone with its dialog (rotate, reveal), and focus would drop to
  // <body>. The dialog hands focus back to its opener first (its cleanup runs before this effect).
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
    box.current?.scrollIntoView({ behavior: 'smooth', block: 'start' });
  }, [shown]);
  const title = shown.kind === 'created' ? m.keys.secretTitle : shown.kind === 'rotated' ? m.keys.secretRotatedTitle : m.keys.secretRevealedTitle;
  return (
    <section ref={box} className="secret-box" role="region" aria-label={title} data-testid="key-secret-box" data-kind={shown.kind}>
      <div className="secret-head">
        <IconKey size={20} />
        <div>
          <h2 ref={heading} tabIndex={-1} className="secret-title" data-testid="key-secret-title">
            {title}
          </h2>
          {shown.key ? <div className="small muted-on-dark">{keyLabel(shown.key, m.keys.unnamed)}</div> : null}
        </div>
      </div>
      <div className="secret-value-row">
        <code className="secret-value" data-testid="key-secret">
          {shown.secret}
        </code>
        <CopyButton value={shown.secret} label={m.common.copy} showLabel variant="secondary" testId="key-secret-copy" />
      </div>
      <p className="secret-warning">
        <IconAlert size={16} /> {shown.kind === 'revealed' ? m.keys.secretRevealedWarning : m.keys.secretWarning}
      </p>
      <div>
        <button type="button" className="btn btn-light btn-sm" onClick={onDismiss} data-testid="key-secret-dismiss">
          {m.keys.secretDismiss}
        </button>
      </div>
    </section>
  );
}

/** `locked`: the vault is locked: the form can be filled in, not sent (a key is sealed with the vault's key). */
function KeyCreateForm({ atLimit, locked, limit, onCreated }: { atLimit: boolean; locked: boolean; limit: number; onCreated: (secret: string, key: ApiKeyViewDto) => void }) {
  const { m, num } = useI18n();
  const id = useId();
  const create = useCreateKey();
  // The server's refusal (a bad IP, a date in the past…) is about what was sent: it goes as soon as
  // any field is edited, instead of staying under a form that no longer says that.
  const edit = <T,>(set: (value: T) => void, value: T) => {
    if (create.isError) create.reset();
    set(value);
  };
  const [name, setName] = useState('');
  const [product, setProduct] = useState<ProductSlug>('cbu');
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [environment, setEnvironment] = useState<'live' | 'sandbox'>('live');
  const [ips, setIps] = useState('');
  const [expires, setExpires] = useState('');
  const [rate, setRate] = useState('');
  const [touched, setTouched] = useState(false);

  const rateNumber = rate.trim() === '' ? undefined : Number(rate.trim());
  const rateValid = rateNumber === undefined || (Number.isInteger(rateNumber) && rateNumber >= 1 && rateNumber <= 10_000);
  const valid = scopes.length > 0 && rateValid && !atLimit;

  // An Informes key could hold the history scope but never use it: GET /api/v1/history answers CBU keys only.
  const usable = (scope: Scope, forProduct: ProductSlug = product) => scope !== 'history' || forProduct === 'cbu';
  const chooseProduct = (next: ProductSlug) => {
    edit(setProduct, next);
    setScopes((list) => list.filter((s) => usable(s, next)));
  };
  const toggleScope = (scope: Scope, on: boolean) =>
    edit(setScopes, (list: Scope[]) => (on ? SCOPES.filter((s) => s === scope || list.includes(s)) : list.filter((s) => s !== scope)));

  const submit = () => {
    setTouched(true);
    if (!valid || locked || create.isPending) return;
    const ipWhitelist = ips
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    create.mutate(
      {
        name: name.trim() === '' ? undefined : name.trim(),
        product,
        scopes,
        environment,
        ipWhitelist,
        // The picked day ends at midnight here, as the list shows it: its last instant in local time
        // (a bare date would be taken as the end of that day in UTC, 21:00 in Buenos Aires).
        expiresAt: expires === '' ? undefined : new Date(`${expires}T23:59:59.999`).toISOString(),
        rateLimitPerSecond: rateNumber,
      },
      {
        onSuccess: (result) => {
          onCreated(result.secret, result.key);
          setName('');
          setScopes([]);
          setIps('');
          setExpires('');
          setRate('');
          setTouched(false);
        },
      },
    );
  };

  return (
    <Card title={m.keys.createTitle} subtitle={m.keys.createBody} className="create-card" testId="key-create-form">
      {atLimit ? (
        <Notice tone="warning" testId="key-limit-notice">
          {tpl(m.keys.limitNotice, { limit: num(limit) })}
        </Notice>
      ) : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <fieldset className="plain-fieldset" disabled={atLimit}>
          <div className="form-grid form-grid-4">
            <div className="field span-2">
              <label className="field-label" htmlFor={`${id}-name`}>
                {m.keys.name}
              </label>
              <input id={`${id}-name`} className="input" value={name} maxLength={100} placeholder={m.keys.namePlaceholder} onChange={(e) => edit(setName, e.target.value)} data-testid="key-create-name" />
            </div>
            <div className="field">
              <label className="field-label" htmlFor={`${id}-product`}>
                {m.keys.product}
              </label>
              <select id={`${id}-product`} className="input" value={product} onChange={(e) => chooseProduct(e.target.value as ProductSlug)} data-testid="key-create-product">
                {PRODUCTS.map((p) => (
                  <option key={p} value={p}>
                    {m.products[p]}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label className="field-label" htmlFor={`${id}-env`}>
                {m.keys.environment}
              </label>
              <select id={`${id}-env`} className="input" value={environment} onChange={(e) => edit(setEnvironment, e.target.value as 'live' | 'sandbox')} data-testid="key-create-environment">
                <option value="live">{m.keys.environments.live}</option>
                <option value="sandbox">{m.keys.environments.sandbox}</option>
              </select>
            </div>
            <fieldset className="field span-2 scopes-field">
              <legend className="field-label">{m.keys.scopes}</legend>
              <div className="checkbox-row">
                {SCOPES.map((scope) => (
                  <label key={scope} className="checkbox">
                    <input
                      type="checkbox"
                      checked={scopes.includes(scope)}
                      disabled={!usable(scope)}
                      aria-describedby={usable(scope) ? undefined : `${id}-scope-${scope}-hint`}
                      onChange={(e) => toggleScope(scope, e.target.checked)}
                      data-testid={`key-create-scope-${scope}`}
                    />
                    <span>{m.keys.scopeNames[scope]}</span>
                  </label>
                ))}
              </div>
              {usable('history') ? null : (
                <p className="field-hint" id={`${id}-scope-history-hint`} data-testid="key-create-history-hint">
                  {m.keys.historyCbuOnly}
                </p>
              )}
              {/* Said before the first try too: "Crear clave" stays disabled until a permission is ticked.
                  Not at the key limit, though: the form is disabled for that, and the notice says so. */}
              {scopes.length === 0 && !atLimit ? <p className={touched ? 'field-error' : 'field-hint'} data-testid="key-create-scopes-hint">{m.keys.scopesRequired}</p> : null}
            </fieldset>
            <div className="field">
              <label className="field-label" htmlFor={`${id}-expires`}>
                {m.keys.expires}
              </label>
              <input id={`${id}-expires`} type="date" className="input" value={expires} min={localYmd()} onChange={(e) => edit(setExpires, e.target.value)} data-testid="key-create-expires" title={m.keys.expiresHint} />
            </div>
            <div className="field">
              <label className="field-label" htmlFor={`${id}-rate`}>
                {m.keys.rate}
              </label>
              <input
                id={`${id}-rate`}
                type="number"
                min={1}
                max={10000}
                step={1}
                className="input"
                value={rate}
                placeholder="10"
                onChange={(e) => edit(setRate, e.target.value)}
                data-testid="key-create-rate"
                aria-invalid={!rateValid}
                title={m.keys.rateHint}
              />
              {!rateValid ? <p className="field-error">{m.keys.rateHint}</p> : null}
            </div>
            <div className="field span-3">
              <label className="field-label" htmlFor={`${id}-ip`}>
                {m.keys.ip} <span className="muted small">· {m.keys.ipHint}</span>
              </label>
              <textarea id={`${id}-ip`} className="input mono" rows={2} value={ips} placeholder={'203.0.113.10\n10.0.0.0/24'} onChange={(e) => edit(setIps, e.target.value)} data-testid="key-create-ip" />
            </div>
            <div className="field field-end">
              <button
                type="submit"
                className="btn btn-primary"
                disabled={!valid || locked || create.isPending}
                aria-describedby={locked && !atLimit ? `${id}-locked` : undefined}
                data-testid="key-create-submit"
              >
                {create.isPending ? <Spinner /> : <IconPlus size={16} />}
                <span>{create.isPending ? m.keys.submitting : m.keys.submit}</span>
              </button>
              {/* At the limit the notice above is the one reason given. */}
              {locked && !atLimit ? (
                <p id={`${id}-locked`} className="field-hint" data-testid="key-create-locked-hint">
                  {m.keys.lockedActionsHint}
                </p>
              ) : null}
            </div>
          </div>
        </fieldset>
        {create.isError ? <ErrorBanner error={create.error} testId="key-create-error" /> : null}
      </form>
    </Card>
  );
}

function KeyActionDialog({
  pending,
  onClose,
  onSecret,
}: {
  pending: Pending;
  onClose: () => void;
  onSecret: (kind: 'rotated' | 'revealed', secret: string, key: ApiKeyViewDto) => void;
}) {
  const { m } = useI18n();
  const toast = useToast();
  const reveal = useRevealKey();
  const rotate = useRotateKey();
  const revoke = useRevokeKey();
  const [needPassphrase, setNeedPassphrase] = useState(false);
  const [passphrase, setPassphrase] = useState('');
  const name = keyLabel(pending.key, m.keys.unnamed);
  const passId = useId();

  if (pending.kind === 'reveal') {
    const error = reveal.error;
    // The first "passphrase required" answer only opens the field; later errors (a wrong one) are shown.
    const showError = reveal.isError && (!asksForPassphrase(error) || reveal.variables?.passphrase !== undefined);
    return (
      <ConfirmDialog
        title={m.keys.revealTitle}
        okLabel={m.keys.reveal}
        busy={reveal.isPending}
        okDisabled={needPassphrase && passphrase === ''}
        onCancel={onClose}
        onConfirm={() =>
          reveal.mutate(
            { id: pending.key.id, confirm: true, passphrase: needPassphrase ? passphrase : undefined },
            {
              onSuccess: (result) => onSecret('revealed', result.secret, pending.key),
              onError: (err) => {
                if (asksForPassphrase(err)) setNeedPassphrase(true);
              },
            },
          )
        }
      >
        <p>{tpl(m.keys.revealBody, { name })}</p>
        {needPassphrase ? (
          <div className="field">
            <p className="muted small">{m.keys.passphraseBody}</p>
            <label className="field-label" htmlFor={passId}>
              {m.keys.passphrase}
            </label>
            <input id={passId} type="password" className="input" value={passphrase} onChange={(e) => setPassphrase(e.target.value)} autoComplete="current-password" autoFocus data-testid="key-passphrase" />
          </div>
        ) : null}
        {showError ? <ErrorBanner error={error} testId="key-action-error" /> : null}
      </ConfirmDialog>
    );
  }

  if (pending.kind === 'rotate') {
    return (
      <ConfirmDialog
        title={m.keys.rotateTitle}
        okLabel={m.keys.rotateOk}
        // The current secret stops working at once: a destructive step, confirmed on purpose.
        destructive
        busy={rotate.isPending}
        onCancel={onClose}
        onConfirm={() => rotate.mutate({ id: pending.key.id }, { onSuccess: (result) => onSecret('rotated', result.secret, result.key) })}
      >
        <p>{tpl(m.keys.rotateBody, { name })}</p>
        {rotate.isError ? <ErrorBanner error={rotate.error} testId="key-action-error" /> : null}
      </ConfirmDialog>
    );
  }

  return (
    <ConfirmDialog
      title={m.keys.revokeTitle}
      okLabel={m.keys.revokeOk}
      destructive
      busy={revoke.isPending}
      onCancel={onClose}
      onConfirm={() =>
        revoke.mutate(
          { id: pending.key.id },
          {
            onSuccess: () => {
              toast((t) => t.m.keys.revoked);
              onClose();
            },
          },
        )
      }
    >
      <p>{tpl(m.keys.revokeBody, { name })}</p>
      {revoke.isError ? <ErrorBanner error={revoke.error} testId="key-action-error" /> : null}
    </ConfirmDialog>
  );
}
