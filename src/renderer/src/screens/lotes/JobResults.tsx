// A batch's results on screen, row by row in the list's order (bulk.results, 50 rows a page): what
// the CSV export holds, so that who holds each account can be read without leaving Consultas
// masivas. A repeated row says which row it repeats, and that it was looked up and charged once,
// instead of its holders again: the panel is one column of the screen. No credits column: in a
// batch every first row that was looked up took one credit (the export says it per row).
import { useBulkResults } from '../../api/bulk-hooks';
import { tpl, useI18n } from '../../i18n';
import { Badge, ErrorBanner, Spinner } from '../../components/ui';
import { serverMessage, titleForCode } from '../../lib/errors';
import { formatAccountNumber, formatTaxId } from '../../lib/format';
import type { BulkResultRow } from '../../../../shared/api/bulk';
import type { ProductSlug } from '../../../../shared/api/common';

const PAGE_ROWS = 50;

export function JobResults({ id, product, totalRows }: { id: string; product: ProductSlug; totalRows: number }) {
  const { m, num } = useI18n();
  const results = useBulkResults(id, true);
  if (results.isError) return <ErrorBanner error={results.error} testId="bulk-results-error" onRetry={() => void results.refetch()} />;
  const rows = results.data?.pages.flatMap((page) => page.rows) ?? [];
  return (
    <div className="bulk-results" data-testid="bulk-results">
      {/* Scrolls on its own (480 px): reachable with the keyboard, and named for screen readers. */}
      <div className="table-wrap" tabIndex={0} role="region" aria-label={m.bulk.resultsCaption}>
        <table className="table zebra" data-testid="bulk-results-table">
          <caption className="sr-only">{m.bulk.resultsCaption}</caption>
          <thead>
            <tr>
              <th className="num">{m.bulk.colRow}</th>
              <th>{m.bulk.colInput}</th>
              <th>{m.bulk.colResult}</th>
              <th>{m.bulk.colHolders}</th>
            </tr>
          </thead>
          <tbody>
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
          {tpl(m.bulk.resultsShown, { shown: num(rows.length), total: num(totalRows) })}
        </span>
        {results.hasNextPage ? (
          <button
            type="button"
            className="btn btn-secondary btn-sm"
            onClick={() => void results.fetchNextPage()}
            disabled={results.isFetchingNextPage}
            data-testid="bulk-results-more"
          >
            {results.isFetchingNextPage ? <Spinner /> : null}
            <span>{tpl(m.bulk.resultsMore, { n: num(Math.min(PAGE_ROWS, totalRows - rows.length)) })}</span>
          </button>
        ) : null}
      </div>
    </div>
  );
}

function ResultRow({ row, product }: { row: BulkResultRow; product: ProductSlug }) {
  const { m, num } = useI18n();
  return (
    <tr data-testid="bulk-result-row" data-row={row.row} data-status={row.status}>
      <td className="num">{num(row.row)}</td>
      {/* A CBU/CVU in its two blocks, which may go on two lines: the panel is one column of the screen. */}
      <td className="mono bulk-input-cell" title={row.input}>
        {row.identifier !== null && /^\d{22}$/.test(row.identifier) ? formatAccountNumber(row.identifier) : row.input || m.common.none}
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
  const { m } = useI18n();
  if (row.damaged) return <span title={m.history.damagedDetail}>{m.history.damaged}</span>;
  if (row.holders.length > 0) {
    return (
      <>
        {row.holders.map((holder) => (
          <div key={`${holder.taxId}-${holder.name}`}>
            {holder.name} · <span className="muted">{formatTaxId(holder.taxId)}</span>
          </div>
        ))}
        {row.bank ? <div className="muted small">{row.bank}</div> : null}
      </>
    );
  }
  return row.message ? <span className="muted">{serverMessage(row.message, m).text}</span> : <span className="muted">{m.common.none}</span>;
}
