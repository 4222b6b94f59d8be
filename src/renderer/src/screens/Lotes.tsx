// Consultas masivas: paste a list or choose a CSV, review what it holds (nothing is charged yet),
// run it in the main process with live progress and ETA, pause/resume, and export the results.
import { useId, useRef, useState, type ChangeEvent } from 'react';
import type { ProductSlug } from '../../../shared/api/common';
import type { BulkJobView } from '../../../shared/api/bulk';
import { MAX_BULK_CONTENT_CHARS } from '../../../shared/ipc/bulk-contract';
import { useBalance } from '../api/hooks';
import { useBulkJob, useBulkJobs, useCancelBulkJob, useCreateBulkJob, useExportBulkJob, usePauseBulkJob, useStartBulkJob } from '../api/bulk-hooks';
import { tpl, useI18n } from '../i18n';
import type { Session } from '../App';
import { Badge, Card, EmptyState, ErrorBanner, Notice, PageHeader, SkeletonRows, Spinner, type Tone } from '../components/ui';
import { useToast } from '../components/Toast';
import { serverMessage } from '../lib/errors';
import { ConfirmDialog } from '../components/Dialog';
import { IconAlert, IconBulk, IconCheck, IconDownload } from '../components/Icons';
import { downloadCsv } from '../lib/download-csv';
import { screenTimeZone } from '../lib/time-zone';
import { IDENTIFIER_HEADERS, bulkCsvDelimiter } from '../../../shared/bulk-header';
import './lotes.css';

type Source = 'paste' | 'file';
/** The job's status as the screen tells it: a job left "running" by a closed app (or a killed CLI) is interrupted. */
type Shown = BulkJobView['status'] | 'interrupted';

const RESUMABLE: readonly Shown[] = ['paused', 'out_of_credits', 'interrupted'];

function shownStatus(job: BulkJobView): Shown {
  return job.status === 'running' && !job.active && !job.runningElsewhere ? 'interrupted' : job.status;
}

const STATUS_TONE: Record<Shown, Tone> = {
  pending: 'info',
  running: 'accent',
  paused: 'warning',
  interrupted: 'warning',
  out_of_credits: 'danger',
  completed: 'success',
  cancelled: 'neutral',
};

function percentOf(job: BulkJobView): number {
  return job.progress.total === 0 ? 100 : Math.floor((job.progress.done * 1000) / job.progress.total) / 10;
}

/** A reviewed list that was already run to the end: when, so the panel can warn that it charges again. */
type RunBefore = { jobId: string; finishedAt: string | null };

export function LotesScreen({ session }: { session: Session }) {
  const { m } = useI18n();
  const jobs = useBulkJobs();
  const [selected, setSelected] = useState<string | null>(null);
  const [runBefore, setRunBefore] = useState<RunBefore | null>(null);
  const current = selected ?? jobs.data?.jobs[0]?.id ?? null;
  return (
    <>
      <PageHeader title={m.pages.lotes.title} subtitle={m.pages.lotes.subtitle} />
      <div className="bulk-grid">
        <NewJobCard
          onReady={(id, before) => {
            setSelected(id);
            setRunBefore(before ? { jobId: id, finishedAt: before.finishedAt } : null);
          }}
        />
        {current ? (
          <JobPanel id={current} ranBefore={runBefore?.jobId === current ? runBefore.finishedAt : undefined} />
        ) : (
          <Card className="empty-card">
            <EmptyState icon={<IconBulk size={28} />} title={m.bulk.emptyTitle} body={m.bulk.emptyBody} />
          </Card>
        )}
      </div>
      <JobsTable jobs={jobs} selected={current} onSelect={setSelected} showUser={session.user.role === 'admin'} />
    </>
  );
}

function NewJobCard({ onReady }: { onReady: (id: string, completedBefore: BulkJobView | null) => void }) {
  const { m, dateTimeSeconds, plural } = useI18n();
  const toast = useToast();
  const id = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [product, setProduct] = useState<ProductSlug>('cbu');
  const [source, setSource] = useState<Source>('paste');
  const [pasted, setPasted] = useState('');
  const [file, setFile] = useState<{ name: string; content: string } | null>(null);
  const [fileError, setFileError] = useState<'tooLarge' | 'unreadable' | null>(null);
  const create = useCreateBulkJob();

  const content = source === 'paste' ? pasted : (file?.content ?? '');
  const lines = countRows(content);
  const tooLarge = content.length > MAX_BULK_CONTENT_CHARS;

  const chooseFile = (e: ChangeEvent<HTMLInputElement>) => {
    const chosen = e.target.files?.[0];
    e.target.value = '';
    if (!chosen) return;
    setFileError(null);
    if (chosen.size > MAX_BULK_CONTENT_CHARS) {
      setFile(null);
      setFileError('tooLarge');
      return;
    }
    chosen.text().then(
      (text) => setFile({ name: chosen.name, content: text }),
      () => setFileError('unreadable'),
    );
  };

  const submit = () => {
    // A pasted list is named after the moment it was pasted, to the second: two lists pasted in one
    // minute (a back office splits a long list) were both "Lista pegada 23/11/2026, 14:05". The name
    // is stored as written, in this language; a number ("(2)") would read as the same list again.
    const name = source === 'file' && file ? file.name : tpl(m.bulk.pastedName, { when: dateTimeSeconds(new Date().toISOString()) });
    create.mutate(
      { name, product, content },
      {
        onSuccess: (result) => {
          onReady(result.job.id, result.resumed ? null : result.completedBefore);
          const before = result.completedBefore;
          if (result.resumed) toast((t) => t.m.bulk.resumedExisting);
          else if (before) toast((t) => tpl(t.m.bulk.completedBefore, { when: t.dateTime(before.finishedAt) }));
          if (source === 'paste') setPasted('');
          else setFile(null);
        },
      },
    );
  };

  return (
    <Card title={m.bulk.newTitle} subtitle={m.bulk.newSubtitle} className="bulk-new-card">
      <form
        className="form-stack"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <div className="bulk-choices">
          <div className="segmented" role="group" aria-label={m.bulk.product}>
            {(['cbu', 'informes'] as const).map((p) => (
              <button key={p} type="button" className={product === p ? 'on' : ''} aria-pressed={product === p} onClick={() => setProduct(p)} data-testid={`bulk-product-${p}`}>
                {m.productsShort[p]}
              </button>
            ))}
          </div>
          <div className="segmented small" role="group" aria-label={m.bulk.source}>
            {(['paste', 'file'] as const).map((s) => (
              <button key={s} type="button" className={source === s ? 'on' : ''} aria-pressed={source === s} onClick={() => setSource(s)} data-testid={`bulk-source-${s}`}>
                {s === 'paste' ? m.bulk.sourcePaste : m.bulk.sourceFile}
              </button>
            ))}
          </div>
        </div>

        {source === 'paste' ? (
          <div className="field">
            <label className="field-label" htmlFor={`${id}-list`}>
              {product === 'cbu' ? m.bulk.pasteLabel : m.bulk.pasteLabelReport}
            </label>
            <textarea
              id={`${id}-list`}
              className="input mono bulk-textarea"
              rows={6}
              value={pasted}
              onChange={(e) => setPasted(e.target.value)}
              placeholder={product === 'cbu' ? m.bulk.pastePlaceholder : m.bulk.pastePlaceholderReport}
              spellCheck={false}
              data-testid="bulk-input"
            />
          </div>
        ) : (
          <div className="field">
            <span className="field-label">{m.bulk.fileLabel}</span>
            <div className="bulk-file">
              <button type="button" className="btn btn-secondary" onClick={() => fileInput.current?.click()} data-testid="bulk-file-choose">
                {m.bulk.fileChoose}
              </button>
              <span className={`bulk-file-name ${file ? '' : 'muted'}`} data-testid="bulk-file-name">
                {file ? file.name : m.bulk.fileNone}
              </span>
              <input ref={fileInput} type="file" accept=".csv,.txt,text/csv,text/plain" className="sr-only" onChange={chooseFile} data-testid="bulk-file" tabIndex={-1} />
            </div>
            <p className="field-hint">{m.bulk.fileHint}</p>
            {fileError === 'tooLarge' ? <TooLarge /> : fileError === 'unreadable' ? <p className="field-error">{m.bulk.fileUnreadable}</p> : null}
          </div>
        )}

        <div className="bulk-submit-row">
          <span className="small muted" data-testid="bulk-line-count">
            {plural(lines, m.bulk.rowCount)}
          </span>
          <button type="submit" className="btn btn-primary" disabled={lines === 0 || tooLarge || create.isPending} data-testid="bulk-prepare">
            {create.isPending ? <Spinner /> : <IconBulk size={16} />}
            <span>{m.bulk.prepare}</span>
          </button>
        </div>
        {tooLarge ? <TooLarge /> : null}
        <p className="field-hint">{m.bulk.prepareHint}</p>
        {create.isError ? <ErrorBanner error={create.error} testId="bulk-create-error" /> : null}
      </form>
    </Card>
  );
}

/** Too large for the app: the sentence names the CLI command, shown as code. */
function TooLarge() {
  const { m } = useI18n();
  const [before, after] = m.bulk.fileTooLarge.split('{command}');
  return (
    <p className="field-error" data-testid="bulk-too-large">
      {before}
      <code>{m.bulk.fileTooLargeCommand}</code>
      {after}
    </p>
  );
}

/** `ranBefore`: set when this list was already run to the end (its finish time), so starting it charges again. */
function JobPanel({ id, ranBefore }: { id: string; ranBefore?: string | null }) {
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
        },
      },
    );

  return (
    <section className="card bulk-panel" data-testid="bulk-panel" data-job-id={job.id} data-status={shown}>
      <div className="bulk-panel-head">
        <div className="bulk-panel-title">
          <h2 className="card-title bulk-panel-name" title={job.name} data-testid="bulk-panel-name">
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
          <button type="button" className="btn btn-primary" onClick={() => start.mutate({ id: job.id })} disabled={busy || p.total === 0 || noCredits} data-testid="bulk-start">
            {start.isPending ? <Spinner /> : null}
            <span>{plural(p.remaining, m.bulk.start)}</span>
          </button>
        ) : null}
        {RESUMABLE.includes(shown) ? (
          <button type="button" className="btn btn-primary" onClick={() => start.mutate({ id: job.id })} disabled={busy || noCredits} data-testid="bulk-resume">
            {start.isPending ? <Spinner /> : null}
            <span>{m.bulk.resume}</span>
          </button>
        ) : null}
        {job.active ? (
          <button type="button" className="btn btn-secondary" onClick={() => pause.mutate({ id: job.id })} disabled={busy} data-testid="bulk-pause">
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
        <div className="table-wrap bulk-invalid">
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

/**
 * The rows the review will count ("Filas", the core's totalRows): the non-blank lines, less a CSV's
 * header. Counting the header made a pasted CSV of 3 rows say "4 líneas" and then "Filas 3". A quoted
 * cell spanning lines (rare) counts once per line here; the review's figure is the exact one.
 */
function countRows(content: string): number {
  const lines = content.replace(/^\uFEFF/, '').split('\n').filter((l) => l.trim() !== '');
  const first = lines[0]?.replace(/\r$/, '') ?? '';
  // The core's header rule (src/shared/bulk-header.ts); cells split without its quoting rules, which
  // a header naming its columns does not need.
  const header = first.split(bulkCsvDelimiter(first)).some((cell) => IDENTIFIER_HEADERS.has(cell.trim().replace(/^"(.*)"$/, '$1').trim().toLowerCase()));
  return lines.length - (header ? 1 : 0);
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

function JobsTable({
  jobs,
  selected,
  onSelect,
  showUser,
}: {
  jobs: ReturnType<typeof useBulkJobs>;
  selected: string | null;
  onSelect: (id: string) => void;
  showUser: boolean;
}) {
  const { m, num, dateTime } = useI18n();
  const rows = jobs.data?.jobs ?? [];
  return (
    <Card title={m.bulk.jobsTitle} subtitle={m.bulk.jobsSubtitle} className="table-card bulk-jobs-card">
      {jobs.isError ? <ErrorBanner error={jobs.error} onRetry={() => void jobs.refetch()} /> : null}
      <div className="table-wrap">
        <table className="table zebra hoverable" data-testid="bulk-jobs-table">
          <thead>
            <tr>
              <th>{m.bulk.colName}</th>
              <th>{m.bulk.colDate}</th>
              <th>{m.bulk.colProduct}</th>
              <th>{m.bulk.colStatus}</th>
              <th className="bulk-col-progress">{m.bulk.colProgress}</th>
              <th className="num">{m.bulk.colCharged}</th>
              {showUser ? <th>{m.bulk.colUser}</th> : null}
            </tr>
          </thead>
          <tbody>
            {jobs.isPending ? (
              <SkeletonRows rows={3} cols={showUser ? 7 : 6} />
            ) : (
              rows.map((job) => {
                const shown = shownStatus(job);
                return (
                  <tr
                    key={job.id}
                    className={`clickable ${job.id === selected ? 'is-selected' : ''}`}
                    tabIndex={0}
                    onClick={() => onSelect(job.id)}
                    onKeyDown={(e) => {
                      if (e.key === 'Enter' || e.key === ' ') {
                        e.preventDefault();
                        onSelect(job.id);
                      }
                    }}
                    aria-selected={job.id === selected}
                    data-testid="bulk-job-row"
                    data-job-id={job.id}
                  >
                    <td className="ellipsis bulk-col-name" title={job.name}>
                      {job.name}
                    </td>
                    <td className="date-cell">{dateTime(job.createdAt)}</td>
                    <td>{m.productsShort[job.product]}</td>
                    <td>
                      <Badge tone={STATUS_TONE[shown]}>{m.bulk.status[shown]}</Badge>
                    </td>
                    <td className="bulk-col-progress">
                      <div className="bulk-mini">
                        <div className={`bulk-bar mini ${shown === 'completed' ? 'is-done' : shown === 'out_of_credits' ? 'is-stopped' : ''}`}>
                          <span style={{ width: `${percentOf(job)}%` }} />
                        </div>
                        <span className="small muted nowrap">
                          {num(job.progress.done)}/{num(job.progress.total)}
                        </span>
                      </div>
                    </td>
                    <td className="num">{num(job.progress.charged)}</td>
                    {showUser ? <td className="bulk-col-user">{job.user.name}</td> : null}
                  </tr>
                );
              })
            )}
          </tbody>
        </table>
      </div>
      {!jobs.isPending && rows.length === 0 && !jobs.isError ? <EmptyState icon={<IconBulk size={28} />} title={m.bulk.noJobs} /> : null}
    </Card>
  );
}
