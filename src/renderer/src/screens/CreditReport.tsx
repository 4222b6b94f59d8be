// Informe crediticio: BCRA debtor situation of a CUIT/CUIL (lookup.creditReport).
import { useId, useState } from 'react';
import { analyzeTaxId, normalizeIdentifierInput } from '../../../shared/identifiers';
import type { CreditReport } from '../../../shared/api/credit';
import { useBalance, useCreditReport } from '../api/hooks';
import { tpl, useI18n } from '../i18n';
import { formatTaxId } from '../lib/format';
import { Badge, Card, EmptyState, ErrorBanner, Spinner } from '../components/ui';
import { CopyButton } from '../components/CopyButton';
import { IconAlert, IconCheck, IconReport } from '../components/Icons';

export function ClassificationBadge({ value }: { value: number | null }) {
  const { m } = useI18n();
  if (value === null) return <Badge>{m.common.none}</Badge>;
  const key = `c${value}` as keyof typeof m.report.classes;
  return (
    <span className={`badge cls cls-${value}`} data-classification={value}>
      {m.report.classes[key] ?? String(value)}
    </span>
  );
}

export function CreditReportPanel() {
  const { m, num } = useI18n();
  const inputId = useId();
  const [raw, setRaw] = useState('');
  const report = useCreditReport();
  const balance = useBalance();
  const analysis = analyzeTaxId(raw);
  const available = balance.data?.balances.find((b) => b.productSlug === 'informes')?.balance;
  const creditsLeft = report.data?.credits_remaining ?? report.error?.creditsRemaining;

  return (
    <div className="lookup-grid">
      <Card className="lookup-form-card">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (analysis.ok && !report.isPending) report.mutate({ tax_id: analysis.taxId });
          }}
        >
          <label className="field-label" htmlFor={inputId}>
            {m.report.inputLabel}
          </label>
          <input
            id={inputId}
            className="input input-lg mono"
            value={raw}
            onChange={(e) => setRaw(e.target.value)}
            placeholder={m.report.placeholder}
            autoComplete="off"
            spellCheck={false}
            autoFocus
            maxLength={64}
            data-testid="report-input"
          />
          <p className="field-hint">{m.report.hint}</p>
          <TaxIdFeedback raw={raw} />
          <button type="submit" className="btn btn-primary btn-lg btn-block" disabled={!analysis.ok || report.isPending} data-testid="report-submit">
            {report.isPending ? <Spinner /> : <IconReport size={18} />}
            <span>{report.isPending ? m.report.submitting : m.report.submit}</span>
          </button>
          {available !== undefined ? <p className={`cost-note ${available === 0 ? 'is-empty' : ''}`}>{tpl(m.report.costNote, { n: num(available) })}</p> : null}
        </form>
      </Card>
      <div className="lookup-side">
        {report.isError ? (
          <ErrorBanner
            error={report.error}
            context="report"
            testId="report-error"
            extra={
              creditsLeft !== undefined ? (
                <div className="banner-credits" data-testid="credits-left">
                  {tpl(m.lookup.creditsLeftReport, { n: num(creditsLeft) })}
                </div>
              ) : null
            }
          />
        ) : null}
        {report.data ? (
          <CreditReportCard report={report.data.data} creditsLeft={report.data.credits_remaining} />
        ) : !report.isError ? (
          <Card className="empty-card">
            <EmptyState icon={<IconReport size={28} />} title={m.report.emptyTitle} body={m.report.emptyBody} />
          </Card>
        ) : null}
      </div>
    </div>
  );
}

export function CreditReportCard({ report, creditsLeft }: { report: CreditReport; creditsLeft?: number }) {
  const { m, num, day } = useI18n();
  const money = (n: number) => num(n, { style: 'currency', currency: 'ARS', maximumFractionDigits: 0 });
  const thousands = (n: number) => tpl(m.report.thousands, { amount: num(n, { maximumFractionDigits: 1 }) });
  const s = report.subject;
  return (
    <Card className="result-card" testId="report-result">
      <div className="result-head">
        <div>
          <div className="eyebrow">{m.report.subject}</div>
          <div className="result-title">{s.full_name}</div>
          <div className="holder-meta">
            <Badge tone="info">{s.tax_id_type}</Badge>
            <span className="mono">{formatTaxId(s.tax_id)}</span>
            <span className="muted small">· {s.is_individual ? m.lookup.individual : m.lookup.legalEntity}</span>
            <CopyButton value={formatTaxId(s.tax_id)} label={tpl(m.lookup.copyTaxId, { type: s.tax_id_type })} />
          </div>
        </div>
        <div className="badges">
          <span className="muted small">
            {m.report.period}: <strong>{report.period}</strong>
          </span>
        </div>
      </div>

      <div className="stats">
        <div className="stat">
          <div className="stat-label">{m.report.totalAmount}</div>
          <div className="stat-value">{thousands(report.totals.amount)}</div>
        </div>
        <div className="stat">
          <div className="stat-label">{m.report.institutions}</div>
          <div className="stat-value">{num(report.totals.institutions)}</div>
        </div>
        <div className="stat">
          <div className="stat-label">{m.report.worst}</div>
          <div className="stat-value">
            <ClassificationBadge value={report.totals.worst_classification} />
          </div>
        </div>
      </div>

      <div className="section-label">{m.report.situations}</div>
      {report.situations.length === 0 ? (
        <p className="muted">{m.report.noSituations}</p>
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
              {report.situations.map((row, i) => (
                <tr key={`${row.institution.code}-${i}`}>
                  <td>
                    {row.institution.name} <span className="muted small mono">({row.institution.code})</span>
                  </td>
                  <td>
                    <ClassificationBadge value={row.classification} />
                  </td>
                  <td className="num">{num(row.amount, { maximumFractionDigits: 1 })}</td>
                  <td className="num">{num(row.days_overdue)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <div className="section-label">{m.report.bouncedChecks}</div>
      {report.bounced_checks.length === 0 ? (
        <p className="muted">{m.report.noBouncedChecks}</p>
      ) : (
        <div className="table-wrap">
          <table className="table compact">
            <thead>
              <tr>
                <th>{m.report.checkNumber}</th>
                <th>{m.report.checkDate}</th>
                <th className="num">{m.report.checkAmount}</th>
                <th>{m.report.checkReason}</th>
                <th>{m.report.checkPaid}</th>
              </tr>
            </thead>
            <tbody>
              {report.bounced_checks.map((c) => (
                <tr key={`${c.number}-${c.date}`}>
                  <td className="mono">{c.number}</td>
                  <td>{day(c.date, { day: '2-digit', month: '2-digit', year: 'numeric' })}</td>
                  <td className="num">{money(c.amount)}</td>
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
      {creditsLeft !== undefined ? (
        <div className="result-foot">
          <span className="credits-pill" data-testid="credits-left">
            {tpl(m.lookup.creditsLeftReport, { n: num(creditsLeft) })}
          </span>
        </div>
      ) : null}
    </Card>
  );
}

function TaxIdFeedback({ raw }: { raw: string }) {
  const { m, lang, num } = useI18n();
  const digits = normalizeIdentifierInput(raw).replace(/\./g, '').replace(/\D/g, '').length;
  const analysis = analyzeTaxId(raw);
  if (raw.trim() === '') return null;
  return (
    <div className="feedback compact" data-testid="report-feedback" data-valid={String(analysis.ok)} aria-live="polite">
      <div className="digits-row">
        <span className="muted small">{tpl(m.report.digits, { n: num(digits) })}</span>
      </div>
      {analysis.ok ? (
        <p className="feedback-ready">
          <IconCheck size={15} /> {tpl(m.report.valid, { formatted: analysis.formatted })} · {analysis.isIndividual ? m.lookup.individual : m.lookup.legalEntity}
        </p>
      ) : analysis.reason !== 'length' || digits > 11 ? (
        <p className="feedback-error">
          <IconAlert size={15} /> {lang === 'es' ? analysis.messageEs : analysis.message}
        </p>
      ) : null}
    </div>
  );
}
