// The Lotes screen's panel for one bulk job: what the review found, live progress and ETA, and
// starting, pausing, resuming, cancelling and exporting it.
import { useRef, useState } from 'react';
import { useBalance } from '../../api/hooks';
import { useBulkJob, useCancelBulkJob, useExportBulkJob, usePauseBulkJob, useStartBulkJob } from '../../api/bulk-hooks';
import { tpl, useI18n } from '../../i18n';
import { Badge, Card, ErrorBanner, Notice, SkeletonRows, Spinner } from '../../components/ui';
import { useToast } from '../../components/Toast';
import { serverMessage } from '../../lib/errors';
import { ConfirmDialog } from '../../components/Dialog';
import { IconAlert, IconCheck, IconDownload } from '../../components/Icons';
import { downloadCsv } from '../../lib/download-csv';
import { screenTimeZone } from '../../lib/time-zone';
import { useRefocus, useTakeFocus } from '../../lib/focus';
import { STATUS_TONE, percentOf, shownStatus, type Shown } from './job-status';

const RESUMABLE: readonly Shown[] = ['paused', 'out_of_credits', 'interrupted'];

/**
 * `ranBefore`: set when this list was already run to the end (its finish time), so starting it charges again.
 * `resultsShown`/`onToggleResults`: the results' card (JobResults), which the screen shows below, full width.
 */
export function JobPanel({
  id,
  ranBefore,
  resultsShown,
  onToggleResults,
  takeFocus = false,
  onFocusTaken,
}: {
  id: string;
  ranBefore?: string | null;
  resultsShown: boolean;
  onToggleResults: () => void;
  /** Set just after the batch was reviewed: its title takes the focus once it is on screen. */
  takeFocus?: boolean;
  onFocusTaken?: () => void;
}) {
  const { m, num, dateTime, lang, plural } = useI18n();
  const toast = useToast();
  const query = useBulkJob(id);
  const balance = useBalance();
  const start = useStartBulkJob();
  const pause = usePauseBulkJob();
  const cancel = useCancelBulkJob();
  const exporter = useExportBulkJob();
  const [showInvalid, setShowInvalid] = useState(false);
  const [confirmCancel, setConfirmCancel] = useState(false);
  // Start, resume and pause disable themselves while they are sent, and the one pressed then leaves
  // (start gives way to pause, pause to resume): focus goes to the panel's title, not to <body>.
  const title = useRef<HTMLHeadingElement>(null);
  useTakeFocus(title, takeFocus, () => onFocusTaken?.());
  const refocus = useRefocus();
  const backToTitle = { onSettled: () => refocus(title) };

  if (query.isError) return <ErrorBanner error={query.error} testId="bulk-job-error" onRetry={() => void query.refetch()} />;
  if (!query.data) {
    return (
      <Card>
        <table className="table">
          <tbody>
            <SkeletonRows rows={4} cols={3} />
          </tbody>
        </table>
      </Card>
    );
  }
  const { job, invalidRows } = query.data;
  const p = job.progress;
  const shown = shownStatus(job);
  const pct = percentOf(job);
  const available = balance.data?.balances.find((b) => b.productSlug === job.product)?.balance;
  const busy = start.isPending || pause.isPending || cancel.isPending;
  // As Consulta's button: nothing to run on at 0 credits (the core would stop the batch at once).
  const noCredits = available === 0 && p.remaining > 0;
  const product = m.products[job.product];
  const actionError = start.error ?? pause.error ?? cancel.error ?? exporter.error;

  const exportCsv = () =>
    exporter.mutate(
      { id: job.id, language: lang, timeZone: screenTimeZone() },
      {
        onSuccess: (result) => {
          downloadCsv(result.fileName, result.csv);
          toast((t) => t.plural(result.rows, t.m.bulk.exported));
          const damaged = result.damaged;
          if (damaged) toast((t) => t.plural(damaged.count, t.m.bulk.exportedDamaged, { row: damaged.firstRow ?? '' }), 'error');
        },
      },
    );

  return (
    <section className="card bulk-panel" data-testid="bulk-panel" data-job-id={job.id} data-status={shown}>
      <div className="bulk-panel-head">
        <div className="bulk-panel-title">
          <h2 ref={title} tabIndex={-1} className="card-title bulk-panel-name" title={job.name} data-testid="bulk-panel-name">
            {job.name}
          </h2>
          <p className="card-subtitle">
            {tpl(m.bulk.createdBy, { product: m.products[job.product], user: job.user.name, when: dateTime(job.createdAt) })}
          </p>
        </div>
        <span data-testid="bulk-status">
          <Badge tone={STATUS_TONE[shown]}>{m.bulk.status[shown]}</Badge>
        </span>
      </div>

      <div className="bulk-figures">
        <Figure label={m.bulk.rows} value={num(job.totalRows)} testId="bulk-rows" />
        <Figure label={m.bulk.distinct} value={num(job.totalItems)} testId="bulk-distinct" />
        <Figure label={m.bulk.repeated} value={num(job.duplicateRows)} note={m.bulk.repeatedNote} />
        <Figure label={m.bulk.invalid} value={num(job.invalidRows)} note={m.bulk.invalidNote} tone={job.invalidRows > 0 ? 'warn' : undefined} testId="bulk-invalid" />
      </div>

      <div className="bulk-progress-block">
        <div className="bulk-progress-head">
          <strong className="bulk-percent" data-testid="bulk-percent">
            {num(pct / 100, { style: 'percent', maximumFractionDigits: 1 })}
          </strong>
          {shown === 'completed' ? (
            <span className="bulk-finished small" data-testid="bulk-completed">
              <IconCheck size={15} />
              {tpl(m.bulk.completedAt, { when: dateTime(job.finishedAt) })}
            </span>
          ) : null}
          <span className="muted small">
            {tpl(m.bulk.doneOf, { done: num(p.done), total: num(p.total) })}
            {job.active && p.etaSeconds !== null ? ` · ${tpl(m.bulk.eta, { eta: formatEta(p.etaSeconds, m.bulk.units) })}` : ''}
            {job.active && p.ratePerSecond !== null ? ` · ${tpl(m.bulk.rate, { n: num(Math.round(p.ratePerSecond)) })}` : ''}
          </span>
        </div>
        <div
          className={`bulk-bar ${shown === 'completed' ? 'is-done' : shown === 'out_of_credits' ? 'is-stopped' : job.active ? 'is-running' : ''}`}
          role="progressbar"
          aria-label={m.bulk.progressLabel}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={pct}
          data-testid="bulk-progress"
          data-done={p.done}
          data-total={p.total}
        >
          <span style={{ width: `${pct}%` }} />
        </div>
        <dl className="bulk-counts">
          <Count label={m.bulk.charged} value={num(p.charged)} testId="bulk-charged" />
          <Count label={m.bulk.found} value={num(p.found)} />
          <Count label={m.bulk.notFound} value={num(p.notFound)} testId="bulk-not-found" />
          <Count label={m.bulk.errors} value={num(p.errors + p.retryable)} testId="bulk-errors" />
          {/* A cancelled batch will not run what is left: "Pendientes" would promise otherwise. */}
          <Count label={shown === 'cancelled' ? m.bulk.notRun : m.bulk.remaining} value={num(p.remaining)} testId="bulk-remaining" />
        </dl>
      </div>

      {/* Stopped for lack of credits: what to do while there are none, and once there are again
          (a purchase since), that the batch can go on. */}
      {shown === 'out_of_credits' && available !== undefined && available > 0 ? (
        <Notice tone="info" testId="bulk-out-of-credits">
          <div className="banner-title">{m.bulk.creditsBackTitle}</div>
          <div className="banner-detail">
            {plural(p.remaining, m.bulk.creditsBackBody, { available: num(available), product })}
            {available < p.remaining ? ` ${plural(available, m.bulk.creditsBackPartial)}` : ''}
          </div>
        </Notice>
      ) : shown === 'out_of_credits' ? (
        <Notice tone="warning" testId="bulk-out-of-credits">
          <div className="banner-title">{m.bulk.outOfCreditsTitle}</div>
          <div className="banner-detail">{plural(p.remaining, m.bulk.outOfCreditsBody, { product })}</div>
        </Notice>
      ) : null}
      {shown === 'interrupted' ? <Notice tone="warning">{m.bulk.interrupted}</Notice> : null}
      {p.retryable > 0 && !job.active && shown !== 'cancelled' ? <Notice tone="warning">{plural(p.retryable, m.bulk.retryable)}</Notice> : null}
      {shown === 'pending' && available !== undefined ? (
        <p className={`cost-note ${available < p.remaining ? 'is-empty' : ''}`} data-testid="bulk-cost">
          {plural(p.remaining, m.bulk.costNote, { available: num(available) })}
        </p>
      ) : null}
      {/* Why the start (or resume) button is disabled, as Consulta says it; the out-of-credits notice says it already. */}
      {noCredits && !job.active && shown !== 'out_of_credits' && shown !== 'completed' && shown !== 'cancelled' ? (
        <p className="feedback-error" data-testid="bulk-no-credits">
          <IconAlert size={15} /> {job.product === 'cbu' ? m.lookup.noCredits : m.report.noCredits}
        </p>
      ) : null}
      {/* Said next to the start button for as long as it can be pressed, not only in a passing toast. */}
      {shown === 'pending' && ranBefore !== undefined ? (
        <Notice tone="warning" testId="bulk-ran-before">
          {tpl(m.bulk.completedBefore, { when: dateTime(ranBefore) })}
        </Notice>
      ) : null}
      {job.lastError ? <ErrorBanner error={new Error(job.lastError)} /> : null}
      {actionError ? <ErrorBanner error={actionError} testId="bulk-action-error" /> : null}

      <div className="bulk-actions">
        {shown === 'pending' ? (
          <button type="button" className="btn btn-primary" onClick={() => start.mutate({ id: job.id }, backToTitle)} disabled={busy || p.total === 0 || noCredits} data-testid="bulk-start">
            {start.isPending ? <Spinner /> : null}
            <span>{plural(p.remaining, m.bulk.start)}</span>
          </button>
        ) : null}
        {RESUMABLE.includes(shown) ? (
          <button type="button" className="btn btn-primary" onClick={() => start.mutate({ id: job.id }, backToTitle)} disabled={busy || noCredits} data-testid="bulk-resume">
            {start.isPending ? <Spinner /> : null}
            <span>{m.bulk.resume}</span>
          </button>
        ) : null}
        {job.active ? (
          <button type="button" className="btn btn-secondary" onClick={() => pause.mutate({ id: job.id }, backToTitle)} disabled={busy} data-testid="bulk-pause">
            {pause.isPending ? <Spinner /> : null}
            <span>{m.bulk.pause}</span>
          </button>
        ) : null}
        {shown !== 'completed' && shown !== 'cancelled' ? (
          <button
            type="button"
            className="btn btn-ghost-danger"
            onClick={() => setConfirmCancel(true)}
            disabled={busy}
            data-testid="bulk-cancel"
          >
            {m.bulk.cancel}
          </button>
        ) : null}
        {/* Once something was looked up and the run is over (a running batch's rows still change). */}
        {p.done > 0 && !job.active ? (
          <button type="button" className="btn btn-ghost btn-sm" onClick={onToggleResults} aria-expanded={resultsShown} data-testid="bulk-results-toggle">
            {resultsShown ? m.bulk.hideResults : m.bulk.showResults}
          </button>
        ) : null}
        {invalidRows.length > 0 ? (
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => setShowInvalid((v) => !v)} aria-expanded={showInvalid} data-testid="bulk-invalid-toggle">
            {showInvalid ? m.bulk.hideInvalid : tpl(m.bulk.showInvalid, { n: num(job.invalidRows) })}
          </button>
        ) : null}
        <span className="bulk-actions-spacer" />
        <button type="button" className="btn btn-secondary" onClick={exportCsv} disabled={exporter.isPending} data-testid="bulk-export">
          {exporter.isPending ? <Spinner /> : <IconDownload size={16} />}
          <span>{m.bulk.export}</span>
        </button>
      </div>

      {confirmCancel ? (
        <ConfirmDialog
          title={m.bulk.cancelTitle}
          okLabel={m.bulk.cancel}
          cancelLabel={m.bulk.cancelKeep}
          destructive
          busy={cancel.isPending}
          onCancel={() => setConfirmCancel(false)}
          onConfirm={() => cancel.mutate({ id: job.id }, { onSettled: () => setConfirmCancel(false) })}
        >
          {plural(p.remaining, m.bulk.cancelConfirm)}
        </ConfirmDialog>
      ) : null}

      {invalidRows.length > 0 && showInvalid ? (
        <div className="table-wrap bulk-invalid" tabIndex={0} role="region" aria-label={m.bulk.invalidCaption}>
          <table className="table zebra" data-testid="bulk-invalid-table">
            <thead>
              <tr>
                <th className="num">{m.bulk.colRow}</th>
                <th>{m.bulk.colInput}</th>
                <th>{m.bulk.colReason}</th>
              </tr>
            </thead>
            <tbody>
              {invalidRows.map((r) => (
                <tr key={r.row}>
                  <td className="num">{num(r.row)}</td>
                  <td className="mono bulk-input-cell" title={r.input}>
                    {r.input || m.common.none}
                  </td>
                  <td>{serverMessage(r.message, m).text}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

function Figure({ label, value, note, tone, testId }: { label: string; value: string; note?: string; tone?: 'warn'; testId?: string }) {
  return (
    <div className={`stat ${tone === 'warn' ? 'bulk-stat-warn' : ''}`} title={note}>
      <div className="stat-label">{label}</div>
      <div className="stat-value" data-testid={testId}>
        {value}
      </div>
    </div>
  );
}

function Count({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={testId}>{value}</dd>
    </div>
  );
}

function formatEta(seconds: number, units: { s: string; min: string; h: string }): string {
  const s = Math.max(1, Math.round(seconds));
  if (s < 60) return `${s} ${units.s}`;
  if (s < 3600) return `${Math.floor(s / 60)} ${units.min} ${String(s % 60).padStart(2, '0')} ${units.s}`;
  return `${Math.floor(s / 3600)} ${units.h} ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} ${units.min}`;
}
