// Consultas masivas: paste a list or choose a CSV, review what it holds (nothing is charged yet),
// run it in the main process with live progress and ETA, pause/resume, and export the results.
import { useState } from 'react';
import { useBulkJobs } from '../api/bulk-hooks';
import { useI18n } from '../i18n';
import type { Session } from '../App';
import { Badge, Card, EmptyState, ErrorBanner, PageHeader, SkeletonRows } from '../components/ui';
import { IconBulk } from '../components/Icons';
import { JobPanel } from './lotes/JobPanel';
import { JobResults } from './lotes/JobResults';
import { NewJobCard } from './lotes/NewJobCard';
import { STATUS_TONE, percentOf, shownStatus } from './lotes/job-status';
import './lotes.css';

/** A reviewed list that was already run to the end: when, so the panel can warn that it charges again. */
type RunBefore = { jobId: string; finishedAt: string | null };

export function LotesScreen({ session }: { session: Session }) {
  const { m } = useI18n();
  const jobs = useBulkJobs();
  const [selected, setSelected] = useState<string | null>(null);
  const [runBefore, setRunBefore] = useState<RunBefore | null>(null);
  // The batch whose results are open: shown below the panels, the screen's full width.
  const [resultsOf, setResultsOf] = useState<string | null>(null);
  const current = selected ?? jobs.data?.jobs[0]?.id ?? null;
  // "Revisar lote" empties the list and disables itself: focus goes to the reviewed batch's panel
  // (its title) instead of dropping to <body>.
  const [focusPanel, setFocusPanel] = useState<string | null>(null);
  return (
    <>
      <PageHeader title={m.pages.lotes.title} subtitle={m.pages.lotes.subtitle} />
      <div className="bulk-grid">
        <NewJobCard
          onReady={(id, before) => {
            setSelected(id);
            setFocusPanel(id);
            setRunBefore(before ? { jobId: id, finishedAt: before.finishedAt } : null);
          }}
        />
        {current ? (
          <JobPanel
            id={current}
            ranBefore={runBefore?.jobId === current ? runBefore.finishedAt : undefined}
            resultsShown={resultsOf === current}
            onToggleResults={() => setResultsOf((open) => (open === current ? null : current))}
            takeFocus={focusPanel === current}
            onFocusTaken={() => setFocusPanel(null)}
          />
        ) : (
          <Card className="empty-card">
            <EmptyState icon={<IconBulk size={28} />} title={m.bulk.emptyTitle} body={m.bulk.emptyBody} />
          </Card>
        )}
      </div>
      {current && resultsOf === current ? <JobResults id={current} /> : null}
      <JobsTable jobs={jobs} selected={current} onSelect={setSelected} showUser={session.user.role === 'admin'} />
    </>
  );
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
                    <td>{m.products[job.product]}</td>
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
