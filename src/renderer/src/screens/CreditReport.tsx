// Informe crediticio: BCRA debtor situation of a CUIT/CUIL (lookup.creditReport). The form sits in a
// bar above the report, so the report's tables get the full width of the page.
import { useId, useState } from 'react';
import { analyzeTaxId, normalizeIdentifierInput } from '../../../shared/identifiers';
import type { CreditReport } from '../../../shared/api/credit';
import { useBalance, useCreditReport } from '../api/hooks';
import { tpl, useI18n } from '../i18n';
import { formatTaxId } from '../lib/format';
import { answerCostACredit, outOfCredits } from '../lib/errors';
import { Badge, Card, EmptyState, Spinner } from '../components/ui';
import { CopyButton } from '../components/CopyButton';
import { AnswerError, ResultFoot, answerArrival, useRevealAnswer } from '../components/ResultFoot';
import { IconAlert, IconCheck, IconReport } from '../components/Icons';

type Situation = CreditReport['situations'][number];
type BouncedCheck = CreditReport['bounced_checks'][number];

export function ClassificationBadge({ value, testId }: { value: number | null; testId?: string }) {
  const { m } = useI18n();
  if (value === null) {
    return (
      <span className="badge cls cls-none" data-testid={testId}>
        {m.report.noDebts}
      </span>
    );
  }
  const key = `c${value}` as keyof typeof m.report.classes;
  return (
    <span className={`badge cls cls-${value}`} data-classification={value} data-testid={testId}>
      {m.report.classes[key] ?? String(value)}
    </span>
  );
}

/** `focusInput`: the CUIT field takes the focus when the panel opens (not when the arrow keys opened it from its tab). */
export function CreditReportPanel({ focusInput = true }: { focusInput?: boolean } = {}) {
  const { m, num } = useI18n();
  const inputId = useId();
  const [raw, setRaw] = useState('');
  const report = useCreditReport();
  const balance = useBalance();
  const analysis = analyzeTaxId(raw);
  const available = balance.data?.balances.find((b) => b.productSlug === 'informes')?.balance;
  const creditsLeft = report.data?.credits_remaining ?? report.error?.creditsRemaining;
  // The report on screen belongs to the CUIT/CUIL that was asked for: once the input says another
  // one, it is hidden rather than shown beside a number it does not describe.
  const current = analysis.ok && report.variables?.tax_id === analysis.taxId;
  const noCredits = available === 0;
  // As in the account lookup: credits that ran out since the balance was read are said by the banner,
  // and the note under the form steps aside while it shows, so the sentence is said once.
  const noCreditsAnswer = report.isError && current && outOfCredits(report.error);
  const answerBox = useRevealAnswer(answerArrival(report));

  return (
    <div className="report-layout">
      <Card className="report-form-card">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (analysis.ok && !report.isPending && !noCredits) report.mutate({ tax_id: analysis.taxId });
          }}
        >
          <label className="field-label" htmlFor={inputId}>
            {m.report.inputLabel}
          </label>
          <div className="report-form-row">
            <input
              id={inputId}
              className="input input-lg mono"
              value={raw}
              onChange={(e) => setRaw(e.target.value)}
              placeholder={m.report.placeholder}
              autoComplete="off"
              spellCheck={false}
              autoFocus={focusInput}
              maxLength={64}
              data-testid="report-input"
            />
            <button type="submit" className="btn btn-primary btn-lg" disabled={!analysis.ok || report.isPending || noCredits} data-testid="report-submit">
              {report.isPending ? <Spinner /> : <IconReport size={18} />}
              {/* As in the account lookup: this CUIT's report (or its PA011) cost a credit; asking again costs another. */}
              <span>{report.isPending ? m.report.submitting : current && answerCostACredit(report) ? m.report.submitAgain : m.report.submit}</span>
            </button>
          </div>
          <div className="report-form-foot">
            {raw.trim() === '' ? <p className="field-hint">{m.report.hint}</p> : <TaxIdFeedback raw={raw} />}
            {available !== undefined ? <p className={`cost-note ${noCredits ? 'is-empty' : ''}`}>{tpl(m.report.costNote, { n: num(available) })}</p> : null}
          </div>
          {/* As in the account lookup: why "Pedir informe" is disabled, before anyone wonders. */}
          {noCredits && !noCreditsAnswer ? (
            <p className="feedback-error" data-testid="report-no-credits">
              <IconAlert size={15} /> {m.report.noCredits}
            </p>
          ) : null}
        </form>
      </Card>
      {/* A report is said to screen readers here, politely, wherever focus is (a banner is an alert). */}
      <p className="sr-only" role="status" data-testid="report-announce">
        {report.data && current ? tpl(m.report.resultAnnounce, { name: report.data.data.subject.full_name }) : ''}
      </p>
      {report.isError && current ? (
        <div ref={answerBox} className="lookup-answer" tabIndex={-1} data-testid="report-answer">
          <AnswerError
            error={report.error}
            context="report"
            noCredits={noCreditsAnswer ? m.report.noCredits : null}
            creditsLeft={creditsLeft}
            credits={m.lookup.creditsLeftReport}
            testId="report-error"
          />
        </div>
      ) : null}
      {report.data && current ? (
        <div ref={answerBox} className="lookup-answer" data-testid="report-answer">
          <CreditReportCard report={report.data.data} creditsLeft={report.data.credits_remaining} requestId={report.data.request_id} />
        </div>
      ) : !(report.isError && current) ? (
        <Card className="empty-card">
          <EmptyState icon={<IconReport size={28} />} title={m.report.emptyTitle} body={m.report.emptyBody} />
        </Card>
      ) : null}
    </div>
  );
}

/** Worst first (classification, then amount): the row a credit analyst reads first. */
function bySeverity(a: Situation, b: Situation): number {
  return b.classification - a.classification || b.amount - a.amount;
}

/** Newest first. */
function byDate(a: BouncedCheck, b: BouncedCheck): number {
  return b.date.localeCompare(a.date);
}

export function CreditReportCard({ report, creditsLeft, requestId }: { report: CreditReport; creditsLeft?: number; requestId?: string }) {
  const { m, num, day, plural } = useI18n();
  // Money always with its two decimals, so a column reads alike row by row (48.200,50 above 9.800,00,
  // not 48.200,5 above 9.800). Debts come in thousands of pesos, as the Central de Deudores reports them.
  const cents = { minimumFractionDigits: 2, maximumFractionDigits: 2 } as const;
  const pesos = (n: number) => num(n, { style: 'currency', currency: 'ARS', currencyDisplay: 'narrowSymbol', ...cents });
  // The total (a sum of those thousands, src/shared/api/credit.ts) is said in full pesos: "$ 58.000,00
  // mil" was 58 million pesos read at a glance as 58 thousand. Only the table, whose header says
  // "miles de $", keeps the registry's unit. Rounded to the cent, so a float's tail never shows.
  const totalPesos = Math.round(report.totals.amount * 1000 * 100) / 100;
  const s = report.subject;
  const situations = [...report.situations].sort(bySeverity);
  const checks = [...report.bounced_checks].sort(byDate);
  const unpaid = checks.filter((c) => !c.paid).length;
  return (
    <Card className="result-card report-card" testId="report-result">
      <div className="result-head">
        {/* The answer's head: scrolled into view, and focused when focus was lost (useRevealAnswer). */}
        <div data-answer-head tabIndex={-1}>
          <div className="eyebrow">{m.report.eyebrow}</div>
          <div className="result-title" data-testid="report-subject">
            {s.full_name}
          </div>
          <div className="holder-meta">
            <Badge tone="info">{s.tax_id_type}</Badge>
            <span className="mono" data-testid="report-tax-id">
              {formatTaxId(s.tax_id)}
            </span>
            <span className="muted small">· {s.is_individual ? m.lookup.individual : m.lookup.legalEntity}</span>
            <CopyButton value={formatTaxId(s.tax_id)} label={tpl(m.lookup.copyTaxId, { type: s.tax_id_type })} />
          </div>
        </div>
        <div className="report-period">
          <div className="stat-label">{m.report.period}</div>
          <div className="report-period-value" data-testid="report-period" data-period={report.period}>
            {day(`${report.period}-01`, { month: 'long', year: 'numeric' })}
          </div>
        </div>
      </div>

      <div className="stats report-stats">
        <div className="stat">
          <div className="stat-label">{m.report.totalAmount}</div>
          <div className="stat-value" data-testid="total-amount">
            {pesos(totalPesos)}
          </div>
        </div>
        <div className="stat">
          <div className="stat-label">{m.report.institutions}</div>
          <div className="stat-value" data-testid="total-institutions">
            {num(report.totals.institutions)}
          </div>
        </div>
        <div className="stat">
          <div className="stat-label">{m.report.worst}</div>
          <div className="stat-value">
            <ClassificationBadge value={report.totals.worst_classification} testId="worst-classification" />
          </div>
        </div>
        <div className="stat">
          <div className="stat-label">{m.report.bouncedChecks}</div>
          <div className="stat-value" data-testid="total-checks">
            {num(checks.length)}
            {unpaid > 0 ? <span className="stat-note is-bad"> · {plural(unpaid, m.report.unpaidCount)}</span> : null}
          </div>
        </div>
      </div>

      <div className="section-label">{m.report.situations}</div>
      {situations.length === 0 ? (
        <p className="report-clean">
          <IconCheck size={15} /> {m.report.noSituations}
        </p>
      ) : (
        <div className="table-wrap">
          <table className="table compact">
            <thead>
              <tr>
                <th>{m.report.institution}</th>
                <th>{m.report.classification}</th>
                <th className="num">{m.report.amount}</th>
                <th className="num">{m.report.daysOverdue}</th>
              </tr>
            </thead>
            <tbody>
              {situations.map((row) => (
                <tr key={row.institution.code} data-testid="situation-row">
                  <td>
                    {row.institution.name} <span className="muted small mono">({row.institution.code})</span>
                  </td>
                  <td>
                    <ClassificationBadge value={row.classification} testId="classification" />
                  </td>
                  {/* The header says "miles de $": a "$" in the cell too would read as pesos. */}
                  <td className="num" data-testid="situation-amount">
                    {num(row.amount, cents)}
                  </td>
                  <td className="num">{num(row.days_overdue)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <div className="section-label">{m.report.bouncedChecks}</div>
      {checks.length === 0 ? (
        <p className="report-clean">
          <IconCheck size={15} /> {m.report.noBouncedChecks}
        </p>
      ) : (
        <div className="table-wrap">
          <table className="table compact">
            <thead>
              <tr>
                <th>{m.report.checkDate}</th>
                <th>{m.report.checkNumber}</th>
                <th>{m.report.institution}</th>
                <th className="num">{m.report.checkAmount}</th>
                <th>{m.report.checkReason}</th>
                <th>{m.report.checkPaid}</th>
              </tr>
            </thead>
            <tbody>
              {checks.map((c) => (
                <tr key={`${c.institution.code}-${c.number}`} data-testid="check-row">
                  <td>{day(c.date, { day: '2-digit', month: '2-digit', year: 'numeric' })}</td>
                  <td className="mono">{c.number}</td>
                  <td>{c.institution.name}</td>
                  <td className="num">{pesos(c.amount)}</td>
                  <td>{c.reason}</td>
                  <td>
                    <Badge tone={c.paid ? 'success' : 'danger'}>{c.paid ? m.report.paid : m.report.unpaid}</Badge>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted small report-note">{m.report.amountsNoteTotal}</p>
      <ResultFoot creditsLeft={creditsLeft} credits={m.lookup.creditsLeftReport} requestId={requestId} />
    </Card>
  );
}

function TaxIdFeedback({ raw }: { raw: string }) {
  const { m, lang, num } = useI18n();
  const digits = normalizeIdentifierInput(raw).replace(/\./g, '').replace(/\D/g, '').length;
  const analysis = analyzeTaxId(raw);
  return (
    <div className="report-feedback" data-testid="report-feedback" data-valid={String(analysis.ok)} aria-live="polite">
      <span className="muted small">{tpl(m.report.digits, { n: num(digits) })}</span>
      {analysis.ok ? (
        <span className="feedback-ready">
          <IconCheck size={15} /> {tpl(m.report.valid, { formatted: analysis.formatted })} · {analysis.isIndividual ? m.lookup.individual : m.lookup.legalEntity}
        </span>
      ) : analysis.reason !== 'length' || digits > 11 ? (
        <span className="feedback-error">
          <IconAlert size={15} /> {lang === 'es' ? analysis.messageEs : analysis.message}
        </span>
      ) : null}
    </div>
  );
}
