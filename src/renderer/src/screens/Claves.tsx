// Claves: create API keys (secret shown once), list them with reveal/rotate/revoke, and the audit trail.
import { useEffect, useId, useRef, useState } from 'react';
import type { ApiKeyViewDto } from '../../../shared/ipc/contract';
import { useKeys, useUsers, useVaultLock, useVaultStatus, useVaultUnlock } from '../api/hooks';
import { tpl, useI18n } from '../i18n';
import type { Session } from '../App';
import { describeError } from '../lib/errors';
import { Badge, Card, EmptyState, ErrorBanner, PageHeader, SkeletonRows, Spinner } from '../components/ui';
import { CopyButton } from '../components/CopyButton';
import { AuditTable } from '../components/AuditTable';
import { useToast } from '../components/Toast';
import { IconAlert, IconKey, IconShield } from '../components/Icons';
import { keyLabel } from '../lib/key-label';
import { useTakeFocus } from '../lib/focus';
import { KeyActionDialog, type Pending } from './claves/KeyActionDialog';
import { KeyCreateForm } from './claves/KeyCreateForm';

/** `at`: when it appeared, so that only a vault status read after it can hide it. */
type ShownSecret = { kind: 'created' | 'rotated' | 'revealed'; secret: string; key: ApiKeyViewDto | null; at: number };
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
  // Locking from the header's button replaces it with the banner's "Desbloquear", and unlocking does the
  // reverse: the control that had focus leaves the page and focus dropped to <body> (a keyboard user
  // started over from the sidebar). The one that takes its place gets it, once it is on screen.
  const [focusNext, setFocusNext] = useState<'lock' | 'unlock' | null>(null);
  const focusTaken = () => setFocusNext(null);
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
                  setFocusNext('unlock');
                }}
                onLockFailed={() => {
                  setLockedByYou(false);
                  setFocusNext(null);
                }}
                takeFocus={focusNext === 'lock'}
                onFocusTaken={focusTaken}
              />
            ) : null}
          </>
        }
      />

      {vault.data?.locked ? (
        <VaultUnlock
          protection={vault.data.protection}
          autoLockMinutes={vault.data.autoLockMinutes}
          byYou={lockedByYou}
          hiddenSecret={hiddenByLock}
          takeFocus={focusNext === 'unlock'}
          onFocusTaken={focusTaken}
          onUnlocking={(unlocking) => setFocusNext(unlocking ? 'lock' : null)}
        />
      ) : null}

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
function LockVaultButton({ onLock, onLockFailed, takeFocus, onFocusTaken }: { onLock: () => void; onLockFailed: () => void; takeFocus: boolean; onFocusTaken: () => void }) {
  const { m } = useI18n();
  const lock = useVaultLock();
  const toast = useToast();
  const button = useRef<HTMLButtonElement>(null);
  useTakeFocus(button, takeFocus, onFocusTaken);
  return (
    <button ref={button} type="button" className="btn btn-secondary btn-sm" disabled={lock.isPending} onClick={() => {
        onLock();
        lock.mutate({}, { onSuccess: () => toast((t) => t.m.keys.vaultLockedToast), onError: onLockFailed });
      }} data-testid="vault-lock">
      <IconShield size={15} />
      <span>{m.keys.vaultLock}</span>
    </button>
  );
}

/** `byYou`: locked with this screen's button; otherwise by hand elsewhere or by the auto-lock (off at 0 minutes). */
function VaultUnlock({
  protection,
  autoLockMinutes,
  byYou,
  hiddenSecret,
  takeFocus,
  onFocusTaken,
  onUnlocking,
}: {
  protection: 'passphrase' | 'keyfile' | 'os';
  autoLockMinutes: number;
  byYou: boolean;
  hiddenSecret: boolean;
  takeFocus: boolean;
  onFocusTaken: () => void;
  /** The lock button takes the focus once it is back (`false`: the unlock failed, the banner stays). */
  onUnlocking: (unlocking: boolean) => void;
}) {
  const { m, num } = useI18n();
  const id = useId();
  const unlock = useVaultUnlock();
  const toast = useToast();
  const [passphrase, setPassphrase] = useState('');
  const needs = protection === 'passphrase';
  // Focus goes to the passphrase's field where there is one (what is typed next), else to the button.
  const submitButton = useRef<HTMLButtonElement>(null);
  const passphraseInput = useRef<HTMLInputElement>(null);
  useTakeFocus(needs ? passphraseInput : submitButton, takeFocus, onFocusTaken);
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
          // Asked for before the answer: the vault's new state can take this banner off the page
          // before the call's own callbacks run, and then they do not run.
          onUnlocking(true);
          unlock.mutate(
            { passphrase: needs ? passphrase : undefined },
            {
              onSuccess: () => toast((t) => t.m.keys.vaultUnlocked),
              onError: () => onUnlocking(false),
            },
          );
        }}
      >
        {needs ? (
          <>
            <label className="sr-only" htmlFor={id}>
              {m.keys.vaultPassphrase}
            </label>
            <input ref={passphraseInput} id={id} type="password" className="input input-sm" placeholder={m.keys.vaultPassphrase} value={passphrase} onChange={(e) => setPassphrase(e.target.value)} data-testid="vault-passphrase" />
          </>
        ) : null}
        <button ref={submitButton} type="submit" className="btn btn-primary btn-sm" disabled={unlock.isPending || (needs && passphrase === '')} data-testid="vault-unlock">
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
        {/* A whitelist that cannot be read refuses the key from every address (the README's "Other stored cells that cannot be read"). */}
        {active && key.ipWhitelist === null ? (
          <div data-testid="key-whitelist-damaged" className="small" title={m.keys.whitelistDamagedHint}>
            <Badge tone="danger">{m.keys.whitelistDamaged}</Badge>
            <span className="sr-only">{m.keys.whitelistDamagedHint}</span>
          </div>
        ) : null}
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
        <CopyButton value={shown.secret} label={m.common.copy} showLabel variant="secondary" testId="key-secret-copy" secret />
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
