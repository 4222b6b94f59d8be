// Before the app: first-run setup (organization, first admin, and a vault passphrase where the
// computer has no keychain) or the unlock screen of a passphrase vault. Shown by App while the
// startup gate is not ready; a success refetches everything and the app appears.
import { useId, useRef, useState, type ReactNode } from 'react';
import type { StartupStatusDto } from '../../../shared/ipc/contract';
import { useStartupSetup, useStartupUnlock } from '../api/app-hooks';
import { tpl, useI18n } from '../i18n';
import { ErrorBanner, Notice, Spinner } from '../components/ui';
import { IconShield, LogoMark } from '../components/Icons';
import { LangSwitch } from '../components/LangSwitch';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MIN_PASSPHRASE = 8;

function GateCard({ title, body, children, testId }: { title: string; body: ReactNode; children?: ReactNode; testId: string }) {
  return (
    <div className="splash">
      {/* Spanish first, but whoever sets Titular up may read English better: the switch is here too. */}
      <div className="splash-lang">
        <LangSwitch />
      </div>
      <div className="splash-card gate-card" data-testid={testId}>
        <div className="gate-head">
          <LogoMark size={40} />
          <div>
            <h1 className="splash-title">{title}</h1>
            <p className="splash-text">{body}</p>
          </div>
        </div>
        {children}
      </div>
    </div>
  );
}

export function StartupScreen({ status }: { status: StartupStatusDto }) {
  if (status.phase !== 'locked') return <SetupForm status={status} />;
  return status.protection === 'passphrase' ? <UnlockForm status={status} /> : <HostProtectionUnavailable status={status} />;
}

/** A vault the computer protects (its keychain, a key file) that cannot be opened now: no passphrase helps, so none is asked. */
function HostProtectionUnavailable({ status }: { status: StartupStatusDto }) {
  const { m } = useI18n();
  const body = status.protection === 'os' ? m.startup.keychainUnavailable : m.startup.keyFileUnavailable;
  return <GateCard title={m.startup.lockedTitle} body={tpl(body, { org: status.organization ?? m.app.name, dir: status.dataDir })} testId="startup-host-protection" />;
}

function UnlockForm({ status }: { status: StartupStatusDto }) {
  const { m } = useI18n();
  const id = useId();
  const unlock = useStartupUnlock();
  const [passphrase, setPassphrase] = useState('');
  // A wrong passphrase empties the field: focus goes back to it for the next try (from the button,
  // disabled while the passphrase is checked, it had dropped to <body>).
  const field = useRef<HTMLInputElement>(null);
  return (
    <GateCard title={m.startup.lockedTitle} body={tpl(m.startup.lockedBody, { org: status.organization ?? m.app.name })} testId="startup-unlock">
      <form
        className="form-stack gate-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (passphrase && !unlock.isPending) unlock.mutate(
              { passphrase },
              {
                onError: () => {
                  setPassphrase('');
                  field.current?.focus();
                },
              },
            );
        }}
      >
        <div className="field">
          <label className="field-label" htmlFor={`${id}-pass`}>
            {m.startup.passphrase}
          </label>
          <input
            ref={field}
            id={`${id}-pass`}
            type="password"
            className="input input-lg"
            value={passphrase}
            autoFocus
            autoComplete="current-password"
            onChange={(e) => setPassphrase(e.target.value)}
            data-testid="startup-passphrase"
          />
        </div>
        {unlock.isError ? <ErrorBanner error={unlock.error} testId="startup-error" /> : null}
        <button type="submit" className="btn btn-primary btn-lg" disabled={!passphrase || unlock.isPending} data-testid="startup-unlock-submit">
          {unlock.isPending ? <Spinner /> : <IconShield size={16} />}
          <span>{unlock.isPending ? m.startup.unlocking : m.startup.unlock}</span>
        </button>
      </form>
    </GateCard>
  );
}

function SetupForm({ status }: { status: StartupStatusDto }) {
  const { m } = useI18n();
  const id = useId();
  const setup = useStartupSetup();
  const [organization, setOrganization] = useState(status.organization ?? '');
  const [adminName, setAdminName] = useState('');
  const [adminEmail, setAdminEmail] = useState('');
  const [passphrase, setPassphrase] = useState('');
  const [confirm, setConfirm] = useState('');
  // Beside an earlier setup's key file: a new organization only when asked for (the gate refuses otherwise).
  const [newOrganization, setNewOrganization] = useState(false);
  const [touched, setTouched] = useState(false);

  const required = status.passphraseRequired;
  const errors = {
    organization: organization.trim() ? null : m.startup.required,
    adminName: adminName.trim() ? null : m.startup.required,
    adminEmail: EMAIL.test(adminEmail.trim()) ? null : m.startup.emailInvalid,
    passphrase: (required || passphrase) && passphrase.length < MIN_PASSPHRASE ? m.startup.passphraseTooShort : null,
    confirm: passphrase && confirm !== passphrase ? m.startup.passphraseMismatch : null,
    newOrganization: status.earlierSetup && !newOrganization ? m.startup.earlierConfirmRequired : null,
  };
  const valid = Object.values(errors).every((e) => e === null);
  const shown = (key: keyof typeof errors) => (touched ? errors[key] : null);

  const submit = () => {
    setTouched(true);
    if (!valid || setup.isPending) return;
    setup.mutate({
      organization: organization.trim(),
      adminName: adminName.trim(),
      adminEmail: adminEmail.trim(),
      ...(passphrase ? { passphrase } : {}),
      ...(status.earlierSetup ? { newOrganization } : {}),
    });
  };

  const field = (key: keyof typeof errors, label: string, input: ReactNode, hint?: string) => (
    <div className="field">
      <label className="field-label" htmlFor={`${id}-${key}`}>
        {label}
      </label>
      {input}
      {shown(key) ? <p className="field-error">{shown(key)}</p> : hint ? <p className="field-hint">{hint}</p> : null}
    </div>
  );

  return (
    <GateCard title={m.startup.setupTitle} body={m.startup.setupBody} testId="startup-setup">
      <form
        className="form-stack gate-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        {status.earlierSetup ? (
          <EarlierSetup dataDir={status.dataDir} confirmed={newOrganization} onConfirm={setNewOrganization} error={shown('newOrganization')} />
        ) : null}
        {field(
          'organization',
          m.startup.organization,
          <input id={`${id}-organization`} className="input" value={organization} maxLength={200} autoFocus onChange={(e) => setOrganization(e.target.value)} data-testid="setup-org" />,
        )}
        <div className="gate-row">
          {field('adminName', m.startup.adminName, <input id={`${id}-adminName`} className="input" value={adminName} maxLength={200} onChange={(e) => setAdminName(e.target.value)} data-testid="setup-name" />)}
          {field(
            'adminEmail',
            m.startup.adminEmail,
            <input id={`${id}-adminEmail`} type="email" className="input" value={adminEmail} maxLength={200} onChange={(e) => setAdminEmail(e.target.value)} data-testid="setup-email" />,
          )}
        </div>
        {field(
          'passphrase',
          m.startup.passphrase,
          <input
            id={`${id}-passphrase`}
            type="password"
            className="input"
            value={passphrase}
            autoComplete="new-password"
            onChange={(e) => setPassphrase(e.target.value)}
            data-testid="setup-passphrase"
          />,
          required ? m.startup.passphraseHintRequired : m.startup.passphraseHintOptional,
        )}
        {passphrase
          ? field(
              'confirm',
              m.startup.passphraseConfirm,
              <input id={`${id}-confirm`} type="password" className="input" value={confirm} autoComplete="new-password" onChange={(e) => setConfirm(e.target.value)} data-testid="setup-passphrase-confirm" />,
            )
          : null}
        {setup.isError ? <ErrorBanner error={setup.error} testId="startup-error" /> : null}
        <button type="submit" className="btn btn-primary btn-lg" disabled={setup.isPending} data-testid="setup-submit">
          {setup.isPending ? <Spinner /> : null}
          <span>{setup.isPending ? m.startup.creating : m.startup.create}</span>
        </button>
      </form>
    </GateCard>
  );
}

/**
 * The folder holds the key file of an earlier setup but no database: its data may be in a backup.
 * Says how to restore it, and asks for an explicit tick before a new organization starts there.
 */
function EarlierSetup({ dataDir, confirmed, onConfirm, error }: { dataDir: string; confirmed: boolean; onConfirm: (value: boolean) => void; error: string | null }) {
  const { m } = useI18n();
  const id = useId();
  return (
    <>
      <Notice tone="warning" testId="setup-earlier">
        <div className="banner-title">{m.startup.earlierTitle}</div>
        <div className="banner-detail">
          {tpl(m.startup.earlierBody, { dir: dataDir })} <code className="mono" data-testid="setup-earlier-restore">{`titular restore --data-dir "${dataDir}" ${m.settings.backupFolder}`}</code>
        </div>
      </Notice>
      <div className="field">
        <label className="gate-confirm">
          <input
            type="checkbox"
            checked={confirmed}
            onChange={(e) => onConfirm(e.target.checked)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-error` : undefined}
            data-testid="setup-new-organization"
          />
          <span>{m.startup.earlierConfirm}</span>
        </label>
        {error ? (
          <p className="field-error" id={`${id}-error`}>
            {error}
          </p>
        ) : null}
      </div>
    </>
  );
}
