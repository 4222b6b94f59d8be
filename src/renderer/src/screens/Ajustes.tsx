// Ajustes (admins): the local API's port, the vault's auto-lock, where live lookups are resolved
// per product, and the remote API (base URL, timeout, and its key, which goes into the vault and is
// never shown again). One form saves the plain settings together; the key has its own action.
import { useEffect, useId, useRef, useState, type RefObject } from 'react';
import type { AppSettings } from '../../../shared/ipc/contract';
import type { ProductSlug } from '../../../shared/api/common';
import { useAppSettings, useBackup, useSetUpstreamKey, useUpdateSettings } from '../api/app-hooks';
import { tpl, useI18n } from '../i18n';
import { Badge, Card, ErrorBanner, PageHeader, Skeleton, Spinner } from '../components/ui';
import { useToast } from '../components/Toast';
import { IconAlert, IconKey, IconShield } from '../components/Icons';
import { serverMessage } from '../lib/errors';
import { isIpcCallError } from '../api/client';
import type { Messages } from '../i18n/es';
import { CopyButton } from '../components/CopyButton';
import { Segmented } from '../components/Segmented';

type Mode = AppSettings['resolvers']['cbu'];
const PRODUCTS: ProductSlug[] = ['cbu', 'informes'];
const MODES: Mode[] = ['directory', 'remote'];

interface Draft {
  apiPort: string;
  autoLockMinutes: string;
  resolvers: Record<ProductSlug, Mode>;
  baseUrl: string;
  timeoutMs: string;
}

const toDraft = (s: AppSettings): Draft => ({
  apiPort: String(s.apiPort),
  autoLockMinutes: String(s.autoLockMinutes),
  resolvers: { ...s.resolvers },
  baseUrl: s.remote.baseUrl ?? '',
  timeoutMs: String(s.remote.timeoutMs),
});

const intIn = (raw: string, min: number, max: number) => /^\d+$/.test(raw.trim()) && Number(raw) >= min && Number(raw) <= max;

/**
 * The core's refusal of one field of the form ("remote.baseUrl: the base URL must …"), said without
 * the field's internal name, in the screen's language; null for any other error.
 */
function fieldRefusal(error: unknown, field: string, m: Messages): string | null {
  const prefix = `${field}: `;
  if (!isIpcCallError(error) || error.code !== 'INVALID_PARAMETER' || !error.message.startsWith(prefix)) return null;
  const reason = error.message.slice(prefix.length);
  if (m.locale.startsWith('es')) {
    const said = serverMessage(reason, m);
    return said.inEnglish ? `${m.errors.serverSaid}: ${reason}` : said.text;
  }
  const sentence = reason.charAt(0).toUpperCase() + reason.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

export function AjustesScreen() {
  const { m } = useI18n();
  const settings = useAppSettings();
  return (
    <>
      <PageHeader title={m.pages.ajustes.title} subtitle={m.pages.ajustes.subtitle} />
      {settings.isError ? <ErrorBanner error={settings.error} onRetry={() => void settings.refetch()} /> : null}
      {settings.data ? (
        <>
          <SettingsForm current={settings.data} />
          {/* Not part of the form: nothing in it is saved with "Guardar cambios". */}
          <DataCard dataDir={settings.data.dataDir} protection={settings.data.vaultProtection} />
        </>
      ) : settings.isPending ? (
        <Card>
          <Skeleton width="60%" />
        </Card>
      ) : null}
    </>
  );
}

function SettingsForm({ current }: { current: AppSettings }) {
  const { m, dateTime, num } = useI18n();
  const id = useId();
  const toast = useToast();
  const update = useUpdateSettings();
  const [draft, setDraft] = useState<Draft>(() => toDraft(current));
  const [touched, setTouched] = useState(false);
  // A save (or another admin's change) refreshes the form.
  useEffect(() => setDraft(toDraft(current)), [current]);

  const errors = {
    apiPort: intIn(draft.apiPort, 1024, 65535) ? null : m.settings.invalidPort,
    autoLockMinutes: intIn(draft.autoLockMinutes, 0, 1440) ? null : tpl(m.settings.invalidMinutes, { min: num(0), max: num(1440) }),
    timeoutMs: intIn(draft.timeoutMs, 100, 60_000) ? null : tpl(m.settings.invalidTimeout, { min: num(100), max: num(60_000) }),
    baseUrl: PRODUCTS.some((p) => draft.resolvers[p] === 'remote') && !draft.baseUrl.trim() ? m.settings.remoteNeedsUrl : null,
  };
  const valid = Object.values(errors).every((e) => e === null);
  const dirty = JSON.stringify(draft) !== JSON.stringify(toDraft(current));
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  // The core's refusal of the URL (its rules: remoteBaseUrlProblem) sits under the URL field, as
  // long as the field still says the URL it refused.
  const urlRefused = fieldRefusal(update.error, 'remote.baseUrl', m);
  const urlRefusal = urlRefused !== null && draft.baseUrl.trim() === (update.variables?.remote?.baseUrl ?? '') ? urlRefused : null;
  const err = (key: keyof typeof errors) => (key === 'baseUrl' && urlRefusal && !(touched && errors.baseUrl) ? urlRefusal : touched ? errors[key] : null);
  const urlInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (urlRefused !== null) urlInput.current?.focus();
  }, [update.error, urlRefused]);

  // A save refused here (nothing is sent) takes the admin to the first field to fix, in the order the
  // screen reads: the button sits below the cards, where a field's message far above would go unseen
  // (a port of 80 at 1024×640 said nothing where the click was). The field is focused after the render
  // that shows its message, so a screen reader reads the message with the field (aria-describedby).
  const fields = {
    apiPort: useRef<HTMLInputElement>(null),
    autoLockMinutes: useRef<HTMLInputElement>(null),
    baseUrl: urlInput,
    timeoutMs: useRef<HTMLInputElement>(null),
  } satisfies Record<keyof typeof errors, RefObject<HTMLInputElement | null>>;
  const [refusedSave, setRefusedSave] = useState(0);
  useEffect(() => {
    if (refusedSave === 0) return;
    const first = (Object.keys(fields) as (keyof typeof errors)[]).find((key) => errors[key] !== null);
    const input = first ? fields[first].current : null;
    if (!input) return;
    // Centred, with its label, clear of the sticky top bar; then focused without a second scroll.
    (input.closest('.field') ?? input).scrollIntoView({ block: 'center' });
    input.focus({ preventScroll: true });
    // Only a new refused save moves focus, not each keystroke that follows it: hence the one dependency.
  }, [refusedSave]);

  const save = () => {
    setTouched(true);
    if (!valid) {
      setRefusedSave((n) => n + 1);
      return;
    }
    if (update.isPending) return;
    update.mutate(
      {
        apiPort: Number(draft.apiPort),
        autoLockMinutes: Number(draft.autoLockMinutes),
        resolvers: draft.resolvers,
        remote: { baseUrl: draft.baseUrl.trim() || null, timeoutMs: Number(draft.timeoutMs) },
      },
      {
        // A URL moved to another API takes the stored key away with it (the core would otherwise send
        // the key there): say so, since the admin has to enter the new API's key.
        onSuccess: (saved) =>
          current.remote.hasUpstreamKey && !saved.remote.hasUpstreamKey
            ? toast((t) => t.m.settings.savedKeyRemoved, 'info')
            : toast((t) => t.m.settings.saved),
      },
    );
  };

  const listening = current.listeningPort;
  return (
    <form
      className="settings-layout"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
      data-testid="settings-form"
    >
      <div className="settings-grid">
        <Card title={m.settings.apiTitle} subtitle={m.settings.apiBody}>
          <div className="field">
            <label className="field-label" htmlFor={`${id}-port`}>
              {m.settings.apiPort}
            </label>
            <input id={`${id}-port`} ref={fields.apiPort} className="input settings-short" inputMode="numeric" value={draft.apiPort} onChange={(e) => set({ apiPort: e.target.value })} aria-invalid={!!err('apiPort')} aria-describedby={`${id}-port-note`} data-testid="settings-port" />
            {err('apiPort') ? (
              <p className="field-error" id={`${id}-port-note`} data-testid="settings-port-error">
                {err('apiPort')}
              </p>
            ) : (
              <p className="field-hint" id={`${id}-port-note`}>
                {m.settings.apiPortHint}
              </p>
            )}
          </div>
          {listening ? (
            <p className="small muted settings-note" data-testid="settings-listening">
              {tpl(m.settings.apiListening, { url: `http://127.0.0.1:${listening}` })}
              {listening !== current.apiPort ? ` · ${tpl(m.settings.apiRestart, { port: current.apiPort })}` : ''}
            </p>
          ) : null}
        </Card>

        <Card title={m.settings.lockTitle} subtitle={m.settings.lockBody}>
          <div className="field">
            <label className="field-label" htmlFor={`${id}-lock`}>
              {m.settings.lockMinutes}
            </label>
            <input id={`${id}-lock`} ref={fields.autoLockMinutes} className="input settings-short" inputMode="numeric" value={draft.autoLockMinutes} onChange={(e) => set({ autoLockMinutes: e.target.value })} aria-invalid={!!err('autoLockMinutes')} aria-describedby={`${id}-lock-note`} data-testid="settings-autolock" />
            {err('autoLockMinutes') ? (
              <p className="field-error" id={`${id}-lock-note`} data-testid="settings-autolock-error">
                {err('autoLockMinutes')}
              </p>
            ) : (
              <p className="field-hint" id={`${id}-lock-note`}>
                {m.settings.lockHint}
              </p>
            )}
          </div>
        </Card>

        <Card title={m.settings.resolversTitle} subtitle={m.settings.resolversBody}>
          <div className="form-stack">
            {PRODUCTS.map((product) => (
              <div className="settings-resolver" key={product}>
                <span className="field-label-inline">{m.products[product]}</span>
                <Segmented
                  label={m.products[product]}
                  options={MODES.map((mode) => ({ value: mode, label: m.settings.resolver[mode], testId: `settings-resolver-${product}-${mode}` }))}
                  value={draft.resolvers[product]}
                  onChange={(mode) => set({ resolvers: { ...draft.resolvers, [product]: mode } })}
                />
              </div>
            ))}
            {/* Saving "API remota" without its key is allowed (the key may come next), but every lookup
                sent there would fail as "source unavailable" until it does: say it here, where it is chosen. */}
            {PRODUCTS.some((p) => draft.resolvers[p] === 'remote') && !current.remote.hasUpstreamKey ? (
              <div className="inline-warning" role="note" data-testid="settings-remote-no-key">
                <IconAlert size={16} /> {m.settings.remoteNeedsKey}
              </div>
            ) : null}
          </div>
        </Card>

        <Card
          title={m.settings.remoteTitle}
          subtitle={m.settings.remoteBody}
          actions={
            !current.remote.baseUrl || !current.remote.hasUpstreamKey ? (
              // "Connected" only once there is somewhere to connect to, with a key.
              <Badge tone="neutral">{m.settings.remoteNotConfigured}</Badge>
            ) : current.remote.state ? (
              <Badge tone={current.remote.state === 'closed' ? 'success' : 'warning'}>{m.settings.breaker[current.remote.state]}</Badge>
            ) : null
          }
        >
          <div className="form-stack">
            <div className="field">
              <label className="field-label" htmlFor={`${id}-url`}>
                {m.settings.remoteUrl}
              </label>
              <input
                id={`${id}-url`}
                ref={urlInput}
                className="input"
                type="url"
                placeholder="https://"
                value={draft.baseUrl}
                maxLength={500}
                onChange={(e) => set({ baseUrl: e.target.value })}
                aria-invalid={!!err('baseUrl')}
                aria-describedby={`${id}-url-note`}
                data-testid="settings-remote-url"
              />
              {err('baseUrl') ? (
                <p className="field-error" id={`${id}-url-note`} data-testid="settings-remote-url-error">
                  {err('baseUrl')}
                </p>
              ) : (
                <p className="field-hint" id={`${id}-url-note`}>
                  {m.settings.remoteUrlHint}
                </p>
              )}
            </div>
            <div className="field">
              <label className="field-label" htmlFor={`${id}-timeout`}>
                {m.settings.remoteTimeout}
              </label>
              <input
                id={`${id}-timeout`}
                ref={fields.timeoutMs}
                className="input settings-short"
                inputMode="numeric"
                value={draft.timeoutMs}
                onChange={(e) => set({ timeoutMs: e.target.value })}
                aria-invalid={!!err('timeoutMs')}
                aria-describedby={err('timeoutMs') ? `${id}-timeout-note` : undefined}
                data-testid="settings-remote-timeout"
              />
              {err('timeoutMs') ? (
                <p className="field-error" id={`${id}-timeout-note`} data-testid="settings-remote-timeout-error">
                  {err('timeoutMs')}
                </p>
              ) : null}
            </div>
            {current.remote.lastError ? (
              <p className="small muted" data-testid="settings-remote-error">
                {m.settings.lastError}: {serverMessage(current.remote.lastError.message, m).text} ({dateTime(current.remote.lastError.at)})
              </p>
            ) : null}
            <UpstreamKeyField hasKey={current.remote.hasUpstreamKey} />
          </div>
        </Card>

      </div>
      <div className="settings-actions">
        {/* A refusal of the URL is said under its field (above), not here. */}
        {update.isError && urlRefused === null ? <ErrorBanner error={update.error} testId="settings-error" /> : null}
        <button type="submit" className="btn btn-primary" disabled={!dirty || update.isPending} data-testid="settings-save">
          {update.isPending ? <Spinner /> : null}
          <span>{update.isPending ? m.settings.saving : m.settings.save}</span>
        </button>
      </div>
    </form>
  );
}

function UpstreamKeyField({ hasKey }: { hasKey: boolean }) {
  const { m } = useI18n();
  const id = useId();
  const toast = useToast();
  const setKey = useSetUpstreamKey();
  const [key, setKeyDraft] = useState('');
  const store = (value: string) =>
    setKey.mutate(
      { key: value },
      {
        onSuccess: () => {
          setKeyDraft('');
          toast((t) => (value ? t.m.settings.upstreamKeySaved : t.m.settings.upstreamKeyRemoved));
        },
      },
    );
  return (
    <div className="field">
      <label className="field-label" htmlFor={`${id}-key`}>
        {m.settings.upstreamKey}{' '}
        <span data-testid="settings-upstream-state" data-has-key={hasKey}>
          {hasKey ? (
            <Badge tone="success">
              <IconShield size={12} /> {m.settings.upstreamKeySet}
            </Badge>
          ) : (
            <Badge>{m.settings.upstreamKeyMissing}</Badge>
          )}
        </span>
      </label>
      <input
        id={`${id}-key`}
        className="input mono"
        type="password"
        autoComplete="off"
        placeholder={hasKey ? m.settings.upstreamKeyReplacePlaceholder : m.settings.upstreamKeyPlaceholder}
        value={key}
        maxLength={512}
        onChange={(e) => setKeyDraft(e.target.value)}
        data-testid="settings-upstream-key"
      />
      <div className="settings-key-actions">
        <button type="button" className="btn btn-secondary btn-sm" disabled={!key.trim() || setKey.isPending} onClick={() => store(key)} data-testid="settings-upstream-save">
          {setKey.isPending ? <Spinner /> : <IconKey size={15} />}
          <span>{m.settings.upstreamKeySave}</span>
        </button>
        {hasKey ? (
          <button type="button" className="btn btn-ghost btn-sm" disabled={setKey.isPending} onClick={() => store('')} data-testid="settings-upstream-remove">
            {m.settings.upstreamKeyRemove}
          </button>
        ) : null}
      </div>
      {setKey.isError ? <ErrorBanner error={setKey.error} testId="settings-upstream-error" /> : null}
    </div>
  );
}

/** Where the data is and how to copy it: a backup made here (data.backup) or by `titular backup`, while Titular runs. */
function DataCard({ dataDir, protection }: { dataDir: string; protection: AppSettings['vaultProtection'] }) {
  const { m } = useI18n();
  const backup = useBackup();
  return (
    <Card title={m.settings.dataTitle} subtitle={m.settings.dataBody} className="settings-data">
      <div className="form-stack">
        <div className="field">
          <span className="field-label">{m.settings.dataDir}</span>
          <div className="settings-path">
            <code className="mono small" data-testid="settings-data-dir">
              {dataDir}
            </code>
            <CopyButton value={dataDir} label={m.settings.dataDirCopy} testId="settings-data-dir-copy" />
          </div>
        </div>
        <p className="small" data-testid="settings-vault-protection" data-protection={protection}>
          <IconShield size={12} /> {m.settings.protection[protection]}
        </p>
        <div>
          <button type="button" className="btn btn-secondary" disabled={backup.isPending} onClick={() => backup.mutate({})} data-testid="settings-backup">
            {backup.isPending ? <Spinner /> : null}
            <span>{backup.isPending ? m.settings.backingUp : m.settings.backupNow}</span>
          </button>
        </div>
        {/* Not about typed data: the reason (a full disk, a folder that cannot be made) is the title. */}
        {backup.isError ? <ErrorBanner error={backup.error} testId="settings-backup-error" reasonAsTitle /> : null}
        {backup.data ? (
          <div className="inline-success" role="status" data-testid="settings-backup-done">
            <span>{m.settings.backupDone}</span>
            <div className="settings-path">
              <code className="mono small" data-testid="settings-backup-folder">
                {backup.data.directory}
              </code>
              <CopyButton value={backup.data.directory} label={m.settings.backupFolderCopy} />
            </div>
          </div>
        ) : null}
        <p className="field-hint" data-testid="settings-backup-hint">
          {m.settings.backupNote[protection]} {m.settings.backupHint} <code className="mono">{`titular backup --data-dir "${dataDir}" ${m.settings.backupFolder}`}</code>.
        </p>
        <p className="field-hint" data-testid="settings-restore-hint">
          {m.settings.restoreHint} <code className="mono">{`titular restore --data-dir "${dataDir}" ${m.settings.backupFolder}`}</code>.
        </p>
      </div>
    </Card>
  );
}
