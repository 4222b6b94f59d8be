// The form that creates an API key on the Claves screen; the new key's secret goes to the screen,
// which shows it once. On a passphrase vault, creating asks for the passphrase in a dialog first.
import { useId, useState } from 'react';
import type { ProductSlug, Scope } from '../../../../shared/api/common';
import type { ApiKeyViewDto, ChannelInput } from '../../../../shared/ipc/contract';
import { useCreateKey } from '../../api/hooks';
import { tpl, useI18n } from '../../i18n';
import { localYmd } from '../../lib/format';
import { Card, ErrorBanner, Notice, Spinner } from '../../components/ui';
import { IconPlus } from '../../components/Icons';
import { ConfirmDialog } from '../../components/Dialog';
import { asksForPassphrase } from '../../lib/errors';
import { PassphraseField } from './PassphraseField';

/** What the form sends, before any passphrase. */
type CreateInput = Omit<ChannelInput<'keys.create'>, 'passphrase'>;

const SCOPES: Scope[] = ['lookup', 'balance', 'history'];
const PRODUCTS: ProductSlug[] = ['cbu', 'informes'];

/** `locked`: the vault is locked: the form can be filled in, not sent (a key is sealed with the vault's key). */
export function KeyCreateForm({ atLimit, locked, limit, onCreated }: { atLimit: boolean; locked: boolean; limit: number; onCreated: (secret: string, key: ApiKeyViewDto) => void }) {
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

  // On a passphrase vault the core asks for the passphrase before it creates a key (a new key is as
  // good as a revealed one): the form's input waits here while a dialog asks for it.
  const [confirming, setConfirming] = useState<CreateInput | null>(null);
  const [passphrase, setPassphrase] = useState('');
  const closeConfirmation = () => {
    setConfirming(null);
    setPassphrase('');
    create.reset();
  };

  const send = (input: CreateInput, withPassphrase?: string) =>
    create.mutate(
      { ...input, passphrase: withPassphrase },
      {
        onSuccess: (result) => {
          setConfirming(null);
          setPassphrase('');
          // The mutation keeps what it was sent, the passphrase with it: dropped once it served.
          if (withPassphrase !== undefined) create.reset();
          onCreated(result.secret, result.key);
          setName('');
          setScopes([]);
          setIps('');
          setExpires('');
          setRate('');
          setTouched(false);
        },
        onError: (err) => {
          if (withPassphrase === undefined && asksForPassphrase(err)) setConfirming(input);
        },
      },
    );

  const submit = () => {
    setTouched(true);
    if (!valid || locked || create.isPending) return;
    const ipWhitelist = ips
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    send({
      name: name.trim() === '' ? undefined : name.trim(),
      product,
      scopes,
      environment,
      ipWhitelist,
      // The picked day ends at midnight here, as the list shows it: its last instant in local time
      // (a bare date would be taken as the end of that day in UTC, 21:00 in Buenos Aires).
      expiresAt: expires === '' ? undefined : new Date(`${expires}T23:59:59.999`).toISOString(),
      rateLimitPerSecond: rateNumber,
    });
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
        {create.isError && confirming === null ? <ErrorBanner error={create.error} testId="key-create-error" /> : null}
      </form>
      {confirming ? (
        <ConfirmDialog
          title={m.keys.createConfirmTitle}
          okLabel={m.keys.submit}
          busy={create.isPending}
          okDisabled={passphrase === ''}
          onCancel={closeConfirmation}
          onConfirm={() => send(confirming, passphrase)}
        >
          <p>{confirming.name ? tpl(m.keys.createConfirmBody, { name: confirming.name }) : m.keys.createConfirmUnnamed}</p>
          <PassphraseField body={m.keys.passphraseCreateBody} value={passphrase} onChange={setPassphrase} />
          {create.isError && create.variables?.passphrase !== undefined ? <ErrorBanner error={create.error} testId="key-action-error" /> : null}
        </ConfirmDialog>
      ) : null}
    </Card>
  );
}
