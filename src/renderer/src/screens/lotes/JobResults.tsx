// A batch's results on screen, row by row in the list's order (bulk.results, 50 rows a page): what
// the CSV export holds, so that who holds each account — or a credit report's figures — can be read
// without leaving Consultas masivas. Its own card, the screen's full width, below the batch's panel:
// holders' names need the room. A repeated row says which row it repeats, and that it charged
// nothing more, instead of its holders again. No credits column: in a batch every first row that was
// looked up took one credit (the export says it per row).
import { useEffect, useRef, useState } from 'react';
import { useBulkJob, useBulkResults } from '../../api/bulk-hooks';
import { tpl, useI18n } from '../../i18n';
import { Badge, Card, ErrorBanner, Spinner } from '../../components/ui';
import { serverMessage, titleForCode } from '../../lib/errors';
import { formatAccountNumber, formatTaxId } from '../../lib/format';
import type { BulkResultRow } from '../../../../shared/api/bulk';
import type { ProductSlug } from '../../../../shared/api/common';

const PAGE_ROWS = 50;

export function JobResults({ id }: { id: string }) {
  const { m, num } = useI18n();
  const job = useBulkJob(id).data?.job;
  const results = useBulkResults(id, job !== undefined && !job.active);
  const rows = results.data?.pages.flatMap((page) => page.rows) ?? [];
  // "Ver N filas más" goes once the last page is in: the keyboard moves on to the first new row
  // instead of falling back to the page's start.
  const table = useRef<HTMLTableSectionElement>(null);
  // By position, not row number: a list's blank lines leave gaps in the numbers.
  const [focusIndex, setFocusIndex] = useState<number | null>(null);
  useEffect(() => {
    if (focusIndex === null) return;
    const row = table.current?.querySelectorAll<HTMLElement>('tr[data-row]')[focusIndex];
    if (!row) return;
    row.focus();
    setFocusIndex(null);
  }, [focusIndex, rows.length]);

  if (!job || job.active || job.progress.done === 0) return null;
  const product = job.product;
  const more = () => {
    const shown = rows.length;
    void results.fetchNextPage().then(() => setFocusIndex(shown));
  };
  return (
    <Card title={m.bulk.resultsTitle} subtitle={job.name} className="table-card bulk-results" testId="bulk-results">
      {results.isError ? <ErrorBanner error={results.error} testId="bulk-results-error" onRetry={() => void results.refetch()} /> : null}
      {/* Scrolls on its own (about ten rows): reachable with the keyboard, and named for screen readers. */}
      <div className="table-wrap" tabIndex={0} role="region" aria-label={m.bulk.resultsCaption}>
        <table className="table zebra" data-testid="bulk-results-table">
          <caption className="sr-only">{m.bulk.resultsCaption}</caption>
          <thead>
            <tr>
              <th className="num">{m.bulk.colRow}</th>
              <th>{m.bulk.colInput}</th>
              <th>{m.bulk.colResult}</th>
              <th>{product === 'informes' ? m.bulk.colSubject : m.bulk.colHolders}</th>
            </tr>
          </thead>
          <tbody ref={table}>
            {results.isPending ? (
              <tr>
                <td colSpan={4}>
                  <Spinner />
                </td>
              </tr>
            ) : (
              rows.map((row) => <ResultRow key={row.row} row={row} product={product} />)
            )}
          </tbody>
        </table>
      </div>
      <div className="bulk-results-foot">
        <span className="muted small" data-testid="bulk-results-shown">
          {tpl(m.bulk.resultsShown, { shown: num(rows.length), total: num(job.totalRows) })}
        </span>
        {results.hasNextPage ? (
          <button type="button" className="btn btn-secondary btn-sm" onClick={more} disabled={results.isFetchingNextPage} data-testid="bulk-results-more">
            {results.isFetchingNextPage ? <Spinner /> : null}
            <span>{tpl(m.bulk.resultsMore, { n: num(Math.min(PAGE_ROWS, job.totalRows - rows.length)) })}</span>
          </button>
        ) : null}
      </div>
    </Card>
  );
}

function ResultRow({ row, product }: { row: BulkResultRow; product: ProductSlug }) {
  const { m, num } = useI18n();
  return (
    <tr data-testid="bulk-result-row" data-row={row.row} data-status={row.status} tabIndex={-1}>
      <td className="num">{num(row.row)}</td>
      <td className="mono bulk-input-cell" title={row.input}>
        {shownInput(row)}
      </td>
      <td className="nowrap">
        <Outcome row={row} product={product} />
      </td>
      <td className="bulk-result-detail">
        {row.duplicateOfRow !== null ? <span className="muted">{tpl(m.bulk.repeatsRow, { row: num(row.duplicateOfRow) })}</span> : <Detail row={row} />}
      </td>
    </tr>
  );
}

/** As the other screens write them: a CBU/CVU in its two blocks, a CUIT/CUIL with its dashes; anything else as typed. */
function shownInput(row: BulkResultRow): string {
  const id = row.identifier;
  if (id !== null && /^\d{22}$/.test(id)) return formatAccountNumber(id);
  if (id !== null && /^\d{11}$/.test(id)) return formatTaxId(id);
  return row.input;
}

/** As the history's Resultado: an error's code with what it means (its sentence on hover). */
function Outcome({ row, product }: { row: BulkResultRow; product: ProductSlug }) {
  const { m } = useI18n();
  if (row.status === 'SUCCESS') return <Badge tone="success">{m.bulk.resultWords.SUCCESS}</Badge>;
  if (row.status === 'INVALID') return <Badge tone="warning">{m.bulk.resultWords.INVALID}</Badge>;
  if (row.status === 'PENDING' || row.code === null) return <Badge>{m.bulk.resultWords.PENDING}</Badge>;
  const outcomes = m.history.outcomes;
  const short = row.code in outcomes ? outcomes[row.code as keyof typeof outcomes] : outcomes.other;
  return (
    <span title={titleForCode(row.code, m, product === 'informes' ? 'report' : 'account')}>
      <span className="code-chip">{row.code}</span> {short}
    </span>
  );
}

function Detail({ row }: { row: BulkResultRow }) {
  const { m, num } = useI18n();
  if (row.damaged) return <span title={m.history.damagedDetail}>{m.history.damaged}</span>;
  if (row.holders.length > 0) {
    const report = row.report;
    return (
      <>
        {row.holders.map((holder) => (
          <div key={`${holder.taxId}-${holder.name}`}>
            {holder.name} · <span className="muted">{formatTaxId(holder.taxId)}</span>
          </div>
        ))}
        {row.bank ? <div className="muted small">{row.bank}</div> : null}
        {report ? (
          <div className="muted small" data-testid="bulk-result-report">
            {report.worstClassification === null ? m.bulk.reportClean : tpl(m.bulk.reportWorst, { n: num(report.worstClassification) })}
            {' · '}
            {/* In full pesos, as Consulta's report says its total (the report's amounts are thousands). */}
            {tpl(m.bulk.reportDebt, { amount: num(Math.round(report.totalAmount * 1000 * 100) / 100, { style: 'currency', currency: 'ARS', currencyDisplay: 'narrowSymbol', minimumFractionDigits: 2, maximumFractionDigits: 2 }) })}
            {report.bouncedChecks > 0 ? ` · ${tpl(m.bulk.reportChecks, { n: num(report.bouncedChecks) })}` : ''}
          </div>
        ) : null}
      </>
    );
  }
  // A not-found says nothing its Resultado ("PA011 Sin resultados") does not: a list of them stays readable.
  if (row.status === 'ERROR' && row.code === 'PA011') return <span className="muted">{m.common.none}</span>;
  return row.message ? <span className="muted">{serverMessage(row.message, m).text}</span> : <span className="muted">{m.common.none}</span>;
}
