// Consulta: resolve a CBU/CVU/alias to its holders (priority), plus the credit report by CUIT/CUIL.
import { useId, useMemo, useState, type KeyboardEvent } from 'react';
import { analyzeAlias, analyzeCbu, describeCbuProgress, normalizeIdentifierInput } from '../../../shared/identifiers';
import type { LookupData } from '../../../shared/api/lookup';
import { useBalance, useLookupAccount } from '../api/hooks';
import { tpl, useI18n } from '../i18n';
import { formatAccountNumber, formatTaxId, looksLikeCbu, looksLikeMistypedCbu } from '../lib/format';
import { Badge, Card, EmptyState, PageHeader, Spinner } from '../components/ui';
import { CopyButton } from '../components/CopyButton';
import { Segmented, type SegmentedOption } from '../components/Segmented';
import { AnswerError, ResultFoot, answerArrival, useRevealAnswer } from '../components/ResultFoot';
import { IconAlert, IconBank, IconCheck, IconReport, IconSearch, IconX } from '../components/Icons';
import { CreditReportPanel } from './CreditReport';
import { answerCostACredit, outOfCredits } from '../lib/errors';
import { useTitlePart } from '../lib/page-title';
import { movedIndex } from '../lib/roving-focus';

type TypeMode = 'auto' | 'cbu' | 'alias';
type Tab = 'account' | 'report';
const TABS: readonly Tab[] = ['account', 'report'];

export function ConsultaScreen() {
  const { m } = useI18n();
  const [tab, setTab] = useState<Tab>('account');
  // A panel's field takes the focus when the screen or a clicked tab opens it, so the user types at
  // once; not when the arrow keys opened it, which leave the focus on the tab to go on moving.
  const [byArrowKeys, setByArrowKeys] = useState(false);
  // The header says what this tab does, in the tab's own words; the window's title puts the report
  // tab in front of the sidebar's "Consulta". The tabs are named by the sidebar's word, which covers both.
  const page = tab === 'report' ? m.pages.consultaReport : m.pages.consulta;
  useTitlePart(tab === 'report' ? m.lookup.tabReport : null);
  const id = useId();
  // WAI-ARIA's tabs: one Tab stop (the open tab); the arrow keys, Home and End move to another tab
  // and open it, so Tab goes on from the tab into its panel.
  const onTabKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const to = movedIndex(e, TABS.indexOf(tab), TABS.length, { homeEnd: true });
    if (to < 0) return;
    e.preventDefault();
    setByArrowKeys(true);
    setTab(TABS[to]!);
    document.getElementById(`${id}-tab-${TABS[to]}`)?.focus();
  };
  return (
    <>
      <PageHeader title={page.title} subtitle={page.subtitle} />
      <div className="tabs" role="tablist" aria-label={m.nav.consulta} onKeyDown={onTabKey}>
        {TABS.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`${id}-tab-${t}`}
            aria-selected={tab === t}
            aria-controls={`${id}-panel`}
            tabIndex={tab === t ? 0 : -1}
            className={`tab ${tab === t ? 'active' : ''}`}
            onClick={() => {
              setByArrowKeys(false);
              setTab(t);
            }}
            data-testid={`tab-${t}`}
          >
            {t === 'account' ? <IconSearch size={16} /> : <IconReport size={16} />}
            <span>{t === 'account' ? m.lookup.tabAccount : m.lookup.tabReport}</span>
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-tab-${tab}`}>
        {tab === 'account' ? <AccountLookup focusInput={!byArrowKeys} /> : <CreditReportPanel focusInput={!byArrowKeys} />}
      </div>
    </>
  );
}

// ---------------------------------------------------------------------------------------------

function Check({ state, label, okText, badText }: { state: boolean | null; label: string; okText?: string; badText?: string }) {
  const { m } = useI18n();
  const cls = state === null ? 'pending' : state ? 'ok' : 'bad';
  return (
    <li className={`check check-${cls}`} data-state={cls}>
      <span className="check-icon" aria-hidden="true">
        {state === null ? <span className="dot" /> : state ? <IconCheck size={14} /> : <IconX size={14} />}
      </span>
      <span className="check-label">{label}</span>
      <span className="check-state">{state === null ? m.lookup.checkPending : state ? `✓ ${okText ?? m.lookup.checkOk}` : `✗ ${badText ?? m.lookup.checkBad}`}</span>
    </li>
  );
}

function useIdentifierCheck(raw: string, mode: TypeMode) {
  return useMemo(() => {
    const trimmed = raw.trim();
    const detected: 'cbu' | 'alias' = looksLikeCbu(raw) || looksLikeMistypedCbu(raw) ? 'cbu' : 'alias';
    const type = mode === 'auto' ? detected : mode;
    if (trimmed === '') return { type, detected, empty: true as const, valid: false };
    if (type === 'cbu') {
      const progress = describeCbuProgress(raw);
      const analysis = analyzeCbu(raw);
      return { type, detected, empty: false as const, valid: analysis.ok, cbu: { progress, analysis } };
    }
    const alias = analyzeAlias(raw);
    const charsetOk = /^[A-Za-z0-9.]*$/.test(trimmed);
    const lengthOk = trimmed.length >= 6 && trimmed.length <= 20;
    return { type, detected, empty: false as const, valid: alias.ok, alias: { analysis: alias, charsetOk, lengthOk, length: trimmed.length } };
  }, [raw, mode]);
}

/** What a lookup of `raw` sends as its identifier: a CBU/CVU's digits, an alias as typed (trimmed). */
function identifierOf(raw: string, type: 'cbu' | 'alias'): string {
  return type === 'cbu' ? normalizeIdentifierInput(raw) : raw.trim();
}

/** `focusInput`: as CreditReportPanel's. */
function AccountLookup({ focusInput }: { focusInput: boolean }) {
  const { m, lang, num, plural } = useI18n();
  const inputId = useId();
  const [raw, setRaw] = useState('');
  const [mode, setMode] = useState<TypeMode>('auto');
  const lookup = useLookupAccount();
  const balance = useBalance();
  const check = useIdentifierCheck(raw, mode);
  const available = balance.data?.balances.find((b) => b.productSlug === 'cbu')?.balance;

  const submit = () => {
    if (!check.valid || lookup.isPending) return;
    lookup.mutate({ identifier: identifierOf(raw, check.type), type: check.type });
  };

  // The answer on screen belongs to the identifier that was looked up: once the input says another
  // one, it is hidden (an operator could otherwise pay the holder shown beside a different CBU).
  // Typing the same identifier back shows it again, since it is that identifier's answer.
  const asked = lookup.variables;
  const current = !!asked && asked.type === check.type && asked.identifier === identifierOf(raw, check.type);
  const creditsLeft = lookup.data?.credits_remaining ?? lookup.error?.creditsRemaining;
  // Credits ran out since the balance was read: the banner beside the button says so, and the note
  // under the button (the same sentence) steps aside while it shows, so it is said once.
  const noCreditsAnswer = lookup.isError && current && outOfCredits(lookup.error);
  // Brought into view (and focused, if focus was lost) when it arrives; see useRevealAnswer.
  const answerBox = useRevealAnswer(answerArrival(lookup));
  const holders = lookup.data && current ? lookup.data.data.holders.map((h) => h.full_name) : [];

  const modes: SegmentedOption<TypeMode>[] = (['auto', 'cbu', 'alias'] as const).map((value) => ({
    value,
    label: value === 'auto' ? m.lookup.typeAuto : value === 'cbu' ? m.lookup.typeCbu : m.lookup.typeAlias,
    testId: `lookup-type-${value}`,
  }));

  return (
    <div className="lookup-grid">
      <Card className="lookup-form-card">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <label className="field-label" htmlFor={inputId}>
            {m.lookup.inputLabel}
          </label>
          <div className="big-input-wrap">
            <IconSearch size={20} className="big-input-icon" />
            <input
              id={inputId}
              className="input input-lg mono"
              value={raw}
              onChange={(e) => setRaw(e.target.value)}
              placeholder={m.lookup.placeholder}
              autoComplete="off"
              spellCheck={false}
              autoFocus={focusInput}
              maxLength={200}
              data-testid="lookup-input"
              aria-describedby={`${inputId}-feedback`}
              aria-invalid={!check.empty && !check.valid}
            />
          </div>
          <p className="field-hint">{m.lookup.hint}</p>

          <div className="type-row">
            <span className="field-label-inline" id={`${inputId}-type`} data-testid="lookup-type-label">
              {m.lookup.typeLabel}
            </span>
            <Segmented options={modes} value={mode} onChange={setMode} labelledBy={`${inputId}-type`} testId="lookup-type" />
          </div>

          <div className="feedback" id={`${inputId}-feedback`} data-testid="lookup-feedback" data-type={check.type} data-valid={String(check.valid)} aria-live="polite">
            {check.empty ? (
              <p className="feedback-empty">{m.lookup.emptyHint}</p>
            ) : (
              <>
                <div className="feedback-head">
                  {/* "Detectamos" only when it was detected: a type picked by hand is what it is checked as. */}
                  <Badge tone="info">
                    {mode === 'auto' ? (check.type === 'cbu' ? m.lookup.detectedCbu : m.lookup.detectedAlias) : check.type === 'cbu' ? m.lookup.chosenCbu : m.lookup.chosenAlias}
                  </Badge>
                </div>
                {check.cbu ? <CbuFeedback progress={check.cbu.progress} analysis={check.cbu.analysis} /> : null}
                {check.alias ? (
                  <ul className="checks">
                    <Check state={check.alias.charsetOk} label={m.lookup.aliasCharset} okText={m.lookup.ruleOk} badText={m.lookup.ruleBad} />
                    <Check state={check.alias.lengthOk} label={plural(check.alias.length, m.lookup.aliasLength)} okText={m.lookup.ruleOk} badText={m.lookup.ruleBad} />
                  </ul>
                ) : null}
                {/* Said once: while the answer's banner says the credits ran out, the note steps aside. */}
                {check.valid && noCreditsAnswer ? null : check.valid && available === 0 ? (
                  <p className="feedback-error" data-testid="lookup-no-credits">
                    <IconAlert size={15} /> {m.lookup.noCredits}
                  </p>
                ) : check.valid ? (
                  <p className="feedback-ready">
                    <IconCheck size={15} /> {check.type === 'cbu' ? m.lookup.readyCbu : m.lookup.readyAlias}
                  </p>
                ) : check.cbu && !check.cbu.analysis.ok && check.cbu.analysis.reason !== 'length' ? (
                  <p className="feedback-error">
                    <IconAlert size={15} /> {check.cbu.analysis.reason === 'non_digit' ? m.lookup.nonDigit : lang === 'es' ? check.cbu.analysis.messageEs : check.cbu.analysis.message}
                  </p>
                ) : check.cbu && check.cbu.progress.digits > 22 ? (
                  // Too few digits is still being typed; too many is a mistake: say which, beside the red count.
                  <p className="feedback-error" data-testid="lookup-too-many-digits">
                    <IconAlert size={15} /> {plural(check.cbu.progress.digits - 22, m.lookup.tooManyDigits)}
                  </p>
                ) : null}
              </>
            )}
          </div>

          <button type="submit" className="btn btn-primary btn-lg btn-block" disabled={!check.valid || lookup.isPending || available === 0} data-testid="lookup-submit">
            {lookup.isPending ? <Spinner /> : <IconSearch size={18} />}
            {/* The answer for this very identifier is on screen and cost a credit (a result, a PA011):
                looking it up again costs another. */}
            <span>{lookup.isPending ? m.lookup.submitting : current && answerCostACredit(lookup) ? m.lookup.submitAgain : m.lookup.submit}</span>
          </button>
          {available !== undefined ? (
            <p className={`cost-note ${available === 0 ? 'is-empty' : ''}`}>{tpl(m.lookup.costNote, { n: num(available) })}</p>
          ) : null}
        </form>
      </Card>

      <div className="lookup-side">
        {/* A result is said to screen readers here, politely, wherever focus is (a banner is an alert). */}
        <p className="sr-only" role="status" data-testid="lookup-announce">
          {holders.length > 0 ? tpl(m.lookup.resultAnnounce, { name: new Intl.ListFormat(m.locale, { type: 'conjunction' }).format(holders) }) : ''}
        </p>
        {lookup.isError && current ? (
          <div ref={answerBox} className="lookup-answer" tabIndex={-1} data-testid="lookup-answer">
            <AnswerError
              error={lookup.error}
              context="account"
              noCredits={noCreditsAnswer ? m.lookup.noCredits : null}
              creditsLeft={creditsLeft}
              credits={m.lookup.creditsLeft}
              testId="lookup-error"
            />
          </div>
        ) : null}
        {lookup.data && current ? (
          <div ref={answerBox} className="lookup-answer" data-testid="lookup-answer">
            <LookupResultCard data={lookup.data.data} requestId={lookup.data.request_id} creditsLeft={lookup.data.credits_remaining} />
          </div>
        ) : lookup.isPending && current ? (
          <ResultSkeleton />
        ) : !(lookup.isError && current) ? (
          <Card className="empty-card">
            <EmptyState icon={<IconBank size={28} />} title={m.lookup.emptyTitle} body={m.lookup.emptyBody} />
          </Card>
        ) : null}
      </div>
    </div>
  );
}

function CbuFeedback({ progress, analysis }: { progress: ReturnType<typeof describeCbuProgress>; analysis: ReturnType<typeof analyzeCbu> }) {
  const { m, num } = useI18n();
  const pct = Math.min(100, (progress.digits / 22) * 100);
  const over = progress.digits > 22;
  return (
    <>
      <div className="digits-row">
        <span className="muted small">{m.lookup.digits}</span>
        <span className={`digits-count ${progress.complete ? 'ok' : over ? 'bad' : ''}`} data-testid="lookup-digits">
          {num(progress.digits)}/22
        </span>
      </div>
      <div className={`progress ${over ? 'bad' : progress.complete ? 'ok' : ''}`} aria-hidden="true">
        <span style={{ width: `${pct}%` }} />
      </div>
      <ul className="checks">
        <Check state={progress.block1Valid} label={m.lookup.block1} />
        <Check state={progress.block2Valid} label={m.lookup.block2} />
      </ul>
      {analysis.ok ? (
        <p className="feedback-bank">
          <IconBank size={15} /> {analysis.scheme === 'CVU' ? m.lookup.schemeCvu : m.lookup.schemeCbu} · {tpl(m.lookup.bankDetected, { bank: analysis.bank.name })}
        </p>
      ) : null}
    </>
  );
}

function ResultSkeleton() {
  return (
    <Card className="result-card" testId="lookup-loading">
      <div className="stack-sm">
        <span className="skeleton" style={{ width: '40%', height: 22 }} />
        <span className="skeleton" style={{ width: '70%', height: 16 }} />
        <span className="skeleton" style={{ width: '100%', height: 64 }} />
        <span className="skeleton" style={{ width: '100%', height: 120 }} />
      </div>
    </Card>
  );
}

export function LookupResultCard({ data, requestId, creditsLeft }: { data: LookupData; requestId?: string; creditsLeft?: number }) {
  const { m } = useI18n();
  return (
    <Card className="result-card" testId="lookup-result">
      <div className="result-head">
        {/* The answer's head: scrolled into view, and focused when focus was lost (useRevealAnswer). */}
        <div data-answer-head tabIndex={-1}>
          <div className="eyebrow">{m.lookup.resultTitle}</div>
          <div className="result-title">{data.holders[0]?.full_name ?? m.common.none}</div>
        </div>
        <div className="badges">
          <Badge tone={data.active ? 'success' : 'danger'}>{data.active ? m.lookup.active : m.lookup.inactive}</Badge>
          <Badge tone="accent">{data.account.scheme}</Badge>
          <Badge>{data.currency}</Badge>
        </div>
      </div>
      {!data.active ? (
        <div className="inline-warning" role="note">
          <IconAlert size={16} /> {m.lookup.inactiveWarning}
        </div>
      ) : null}

      <div className="section-label">{data.holders.length === 1 ? m.lookup.holderOne : m.lookup.holders}</div>
      <ul className="holders">
        {data.holders.map((h, i) => (
          <li key={`${h.tax_id}-${i}`} className="holder" data-testid="lookup-holder">
            <div className="holder-avatar" aria-hidden="true">
              {h.full_name.trim().charAt(0).toUpperCase()}
            </div>
            <div className="holder-main">
              <div className="holder-name">{h.full_name}</div>
              <div className="holder-meta">
                <Badge tone="info">{h.tax_id_type}</Badge>
                <span className="mono" data-testid="holder-tax-id">
                  {formatTaxId(h.tax_id)}
                </span>
                <span className="muted small">· {h.is_individual ? m.lookup.individual : m.lookup.legalEntity}</span>
              </div>
            </div>
            <CopyButton value={formatTaxId(h.tax_id)} label={tpl(m.lookup.copyTaxId, { type: h.tax_id_type })} testId="copy-tax-id" />
          </li>
        ))}
      </ul>

      <dl className="details">
        <div>
          <dt>{m.lookup.bank}</dt>
          <dd>
            {data.bank.name} <span className="muted mono small">({data.bank.code})</span>
          </dd>
        </div>
        <div>
          <dt>{m.lookup.accountType}</dt>
          <dd>{m.lookup.accountTypes[data.account_type]}</dd>
        </div>
        <div>
          <dt>{m.lookup.currency}</dt>
          <dd>{m.lookup.currencies[data.currency]}</dd>
        </div>
        <div>
          <dt>{m.lookup.status}</dt>
          <dd>
            <Badge tone={data.active ? 'success' : 'danger'}>{data.active ? m.lookup.active : m.lookup.inactive}</Badge>
          </dd>
        </div>
        {data.alias ? (
          <div className="wide">
            <dt>{m.lookup.alias}</dt>
            <dd className="with-copy">
              <span className="mono">{data.alias}</span>
              <CopyButton value={data.alias} label={m.lookup.copyAlias} testId="copy-alias" />
            </dd>
          </div>
        ) : null}
        <div className="wide">
          <dt>
            {m.lookup.number} ({data.account.scheme})
          </dt>
          <dd className="with-copy">
            <span className="mono" data-testid="result-number">
              {formatAccountNumber(data.account.number)}
            </span>
            <CopyButton value={data.account.number} label={m.lookup.copyNumber} testId="copy-number" />
          </dd>
        </div>
      </dl>

      <ResultFoot creditsLeft={creditsLeft} credits={m.lookup.creditsLeft} requestId={requestId} />
    </Card>
  );
}
