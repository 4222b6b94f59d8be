// Historial: filtered, paginated lookup history with a detail drawer and CSV export.
import { useEffect, useId, useRef, useState } from 'react';
import { damagedFields, type KeyedHistoryEntry as HistoryEntry } from '../../../shared/api/history';
import type { HistoryFilter } from '../../../shared/ipc/contract';
import type { ProductSlug } from '../../../shared/api/common';
import { lookupDataSchema, taxIdTypeSchema } from '../../../shared/api/lookup';
import { creditReportSchema } from '../../../shared/api/credit';
import { useExportHistory, useHistory } from '../api/hooks';
import { tpl, useI18n } from '../i18n';
import type { Messages } from '../i18n/es';
import { formatTaxId, isPlainObject } from '../lib/format';
import { describeCode, titleForCode } from '../lib/errors';
import { normalizeIdentifierInput } from '../../../shared/identifiers';
import { Badge, BannerDetail, Card, EmptyState, ErrorBanner, PageHeader, Pager, SkeletonRows, Spinner } from '../components/ui';
import { Drawer } from '../components/Dialog';
import { useToast } from '../components/Toast';
import { IconClock, IconDownload, IconKey } from '../components/Icons';
import { LookupResultCard } from './Consulta';
import { CreditReportCard } from './CreditReport';
import { downloadCsv } from '../lib/download-csv';
import { screenTimeZone } from '../lib/time-zone';
import { keyLabel } from '../lib/key-label';
import { Segmented } from '../components/Segmented';

const PER_PAGE = 10;
const PRODUCTS: ProductSlug[] = ['cbu', 'informes'];

type Status = '' | 'SUCCESS' | 'ERROR';
type Source = '' | 'WEB' | 'API' | 'BULK';

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const t = window.setTimeout(() => setDebounced(value), ms);
    return () => window.clearTimeout(t);
  }, [value, ms]);
  return debounced;
}

/** An entry whose stored answer cannot be read: the core lists it with `{ damaged: true }` in its place (core/db/stored-json.ts). */
function isAnswerDamaged(entry: HistoryEntry): boolean {
  return entry.responseData.damaged === true;
}

/**
 * An entry with any field that cannot be read: its answer, or another one (a status outside its set,
 * credits that are no number), which the core gives as null and names in `damaged`
 * (core/history/stored-entry.ts). The table shows it as *Contenido dañado*.
 */
function isDamaged(entry: HistoryEntry): boolean {
  return isAnswerDamaged(entry) || entry.damaged !== undefined;
}

/** What the detail and the table's tooltip say of a damaged entry: which fields cannot be read, or (its answer alone) the answer's sentence. */
function damagedSentence(entry: HistoryEntry, m: Messages): string {
  if (damagedFields(entry).length === 0) return m.history.damagedDetail;
  const fields = (entry.damaged ?? []).map((field) => m.history.fields[field]);
  return tpl(m.history.damagedFieldsDetail, { fields: new Intl.ListFormat(m.locale, { type: 'conjunction' }).format(fields) });
}

/**
 * The Tipo the screen shows. The history's `inputType` is `CUIT` for every credit report (the API's
 * contract), while the report itself says whether its subject's number is a CUIT or a CUIL, as
 * Consulta showed it: a readable stored report gives its `subject.tax_id_type`; an error (nothing was
 * found, so nothing says which) or a damaged entry keeps `CUIT`. Account lookups keep their own type.
 */
function shownType(entry: HistoryEntry, m: Messages): string {
  if (entry.inputType === null) return m.history.unreadable;
  if (entry.inputType !== 'CUIT' || isAnswerDamaged(entry)) return entry.inputType;
  const subject = entry.responseData.subject;
  const type = isPlainObject(subject) ? taxIdTypeSchema.safeParse(subject.tax_id_type) : null;
  return type?.success ? type.data : entry.inputType;
}

function errorOf(entry: HistoryEntry): { code: string; message: string } | null {
  const error = entry.responseData.error;
  if (isPlainObject(error) && typeof error.code === 'string') return { code: error.code, message: typeof error.message === 'string' ? error.message : '' };
  return null;
}

/** The table's Resultado: the holders, or an error's code with what it means (its sentence on hover). */
function ResultCell({ entry }: { entry: HistoryEntry }) {
  const { m } = useI18n();
  const error = errorOf(entry);
  if (isDamaged(entry)) {
    return (
      <td className="result-cell" title={damagedSentence(entry, m)} data-testid="history-result-damaged">
        <span className="clamp-2">{m.history.damaged}</span>
      </td>
    );
  }
  if (!error) {
    const summary = resultSummary(entry);
    return (
      <td className="result-cell" title={summary}>
        <span className="clamp-2">{summary || m.common.none}</span>
      </td>
    );
  }
  const outcomes = m.history.outcomes;
  const short = error.code in outcomes ? outcomes[error.code as keyof typeof outcomes] : outcomes.other;
  return (
    <td className="result-cell" title={titleForCode(error.code, m, entry.inputType === 'CUIT' ? 'report' : 'account')} data-testid="history-result-error">
      <span className="clamp-2">
        <span className="code-chip">{error.code}</span> {short}
      </span>
    </td>
  );
}

function resultSummary(entry: HistoryEntry): string {
  const error = errorOf(entry);
  if (error) return error.code;
  const holders = entry.responseData.holders;
  if (Array.isArray(holders)) {
    return holders
      .map((h) => (isPlainObject(h) && typeof h.full_name === 'string' ? h.full_name : ''))
      .filter(Boolean)
      .join(', ');
  }
  const subject = entry.responseData.subject;
  if (isPlainObject(subject) && typeof subject.full_name === 'string') return subject.full_name;
  return '';
}

export function HistorialScreen() {
  const { m, num, dateTime, results, lang } = useI18n();
  const toast = useToast();
  const id = useId();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [status, setStatus] = useState<Status>('');
  const [source, setSource] = useState<Source>('');
  // Live lookups unless asked: a sandbox key's lookups (an integration being built) are apart, as the API keeps them.
  const [environment, setEnvironment] = useState<'live' | 'sandbox'>('live');
  const [q, setQ] = useState('');
  const [product, setProduct] = useState<ProductSlug>('cbu');
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<HistoryEntry | null>(null);
  const debouncedQ = useDebounced(q.trim(), 300);
  const rangeInvalid = from !== '' && to !== '' && from > to;

  const filter: HistoryFilter = {
    // The table shows local times, so a picked day means that local day: send its exact bounds.
    ...(from ? { from: new Date(`${from}T00:00:00`).toISOString() } : {}),
    ...(to ? { to: new Date(`${to}T23:59:59.999`).toISOString() } : {}),
    ...(status ? { status } : {}),
    ...(source ? { source } : {}),
    ...(environment === 'sandbox' ? { environment } : {}),
    ...(debouncedQ ? { q: searchText(debouncedQ).slice(0, 64) } : {}),
  };
  const hasFilters = Object.keys(filter).length > 0;
  // The product is a view, not a filter: "clear filters" keeps it.
  if (product !== 'cbu') filter.product = product;
  const filterKey = JSON.stringify(filter);
  useEffect(() => setPage(1), [filterKey]);

  const history = useHistory({ ...filter, page, per_page: PER_PAGE }, { enabled: !rangeInvalid });
  const exporter = useExportHistory();
  const rows = history.data?.data ?? [];
  const pagination = history.data?.pagination;

  // The button disables itself once nothing is filtered: focus would drop to <body>, and a keyboard
  // user would start over from the sidebar. It goes to the first filter instead, to set a new one.
  const firstFilter = useRef<HTMLInputElement>(null);
  const clear = () => {
    setFrom('');
    setTo('');
    setStatus('');
    setSource('');
    setEnvironment('live');
    setQ('');
    firstFilter.current?.focus();
  };

  const exportCsv = () => {
    // The file speaks the screen's language and clock: in Spanish, cells split at ";" for Excel set to es-AR.
    exporter.mutate({ ...filter, language: lang, timeZone: screenTimeZone() }, {
      onSuccess: (result) => {
        downloadCsv(result.fileName, result.csv);
        toast((t) => t.plural(result.rows, t.m.history.exported));
        const damaged = result.damaged;
        if (damaged) toast((t) => t.plural(damaged.count, t.m.history.exportedDamaged, { id: damaged.firstId }), 'error');
        const fields = result.damagedFields;
        if (fields) {
          toast((t) => {
            const words = new Intl.ListFormat(t.m.locale, { type: 'conjunction' }).format(fields.fields.map((field) => t.m.history.fields[field]));
            return t.plural(fields.count, t.m.history.exportedDamagedFields, { id: fields.firstId, fields: words });
          }, 'error');
        }
        const unplaced = result.unplaced;
        if (unplaced) toast((t) => t.plural(unplaced.count, t.m.history.exportedUnplaced, { id: unplaced.firstId }), 'error');
      },
    });
  };

  return (
    <>
      <PageHeader
        title={m.pages.historial.title}
        subtitle={m.pages.historial.subtitle}
        actions={
          <>
            <Segmented
              label={m.history.product}
              options={PRODUCTS.map((p) => ({ value: p, label: m.products[p], testId: `history-product-${p}` }))}
              value={product}
              onChange={setProduct}
            />
            <button type="button" className="btn btn-secondary" onClick={exportCsv} disabled={exporter.isPending || rangeInvalid} data-testid="history-export">
              {exporter.isPending ? <Spinner /> : <IconDownload size={16} />}
              <span>{exporter.isPending ? m.history.exporting : m.history.export}</span>
            </button>
          </>
        }
      />
      {exporter.isError ? <ErrorBanner error={exporter.error} testId="history-export-error" /> : null}

      <Card className="filters-card">
        <div className="filters">
          {/* The two dates are one cell of the grid, so that a range the wrong way round is said under
              them (not under the row below, where the grid's end left it) and tied to both inputs. */}
          <div className="filters-range" data-testid="history-filter-range">
            <div className="field">
              <label className="field-label" htmlFor={`${id}-from`}>
                {m.history.from}
              </label>
              <input
                ref={firstFilter}
                id={`${id}-from`}
                type="date"
                className="input"
                value={from}
                max={to || undefined}
                onChange={(e) => setFrom(e.target.value)}
                aria-invalid={rangeInvalid}
                aria-describedby={rangeInvalid ? `${id}-range-error` : undefined}
                data-testid="history-filter-from"
              />
            </div>
            <div className="field">
              <label className="field-label" htmlFor={`${id}-to`}>
                {m.history.to}
              </label>
              <input
                id={`${id}-to`}
                type="date"
                className="input"
                value={to}
                min={from || undefined}
                onChange={(e) => setTo(e.target.value)}
                aria-invalid={rangeInvalid}
                aria-describedby={rangeInvalid ? `${id}-range-error` : undefined}
                data-testid="history-filter-to"
              />
            </div>
            {rangeInvalid ? (
              <p className="field-error filters-range-error" id={`${id}-range-error`} role="alert" data-testid="history-range-error">
                {m.history.rangeInvalid}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label className="field-label" htmlFor={`${id}-status`}>
              {m.history.status}
            </label>
            <select id={`${id}-status`} className="input" value={status} onChange={(e) => setStatus(e.target.value as Status)} data-testid="history-filter-status">
              <option value="">{m.common.all}</option>
              <option value="SUCCESS">{m.history.statuses.SUCCESS}</option>
              <option value="ERROR">{m.history.statuses.ERROR}</option>
            </select>
          </div>
          <div className="field">
            <label className="field-label" htmlFor={`${id}-source`}>
              {m.history.source}
            </label>
            <select id={`${id}-source`} className="input" value={source} onChange={(e) => setSource(e.target.value as Source)} data-testid="history-filter-source">
              <option value="">{m.common.all}</option>
              <option value="WEB">{m.history.sources.WEB}</option>
              <option value="API">{m.history.sources.API}</option>
              <option value="BULK">{m.history.sources.BULK}</option>
            </select>
          </div>
          <div className="field">
            <label className="field-label" htmlFor={`${id}-env`}>
              {m.history.environment}
            </label>
            <select id={`${id}-env`} className="input" value={environment} onChange={(e) => setEnvironment(e.target.value as 'live' | 'sandbox')} data-testid="history-filter-environment">
              <option value="live">{m.history.environments.live}</option>
              <option value="sandbox">{m.history.environments.sandbox}</option>
            </select>
          </div>
          <div className="field grow">
            <label className="field-label" htmlFor={`${id}-q`}>
              {m.history.search}
            </label>
            <input id={`${id}-q`} type="search" className="input" value={q} maxLength={64} placeholder={m.history.searchPlaceholder} onChange={(e) => setQ(e.target.value)} data-testid="history-filter-q" />
          </div>
          <div className="field field-end">
            <button type="button" className="btn btn-ghost" onClick={clear} disabled={!hasFilters && q === ''} data-testid="history-filter-clear">
              {m.history.clear}
            </button>
          </div>
        </div>
      </Card>

      {history.isError ? <ErrorBanner error={history.error} testId="history-error" onRetry={() => void history.refetch()} /> : null}

      <Card className="table-card">
        <div className="table-wrap">
          <table className={`table zebra hoverable ${history.isPlaceholderData ? 'is-stale' : ''}`} data-testid="history-table">
            <thead>
              <tr>
                <th>{m.history.colDate}</th>
                <th>{m.history.colIdentifier}</th>
                <th>{m.history.colType}</th>
                <th>{m.history.colStatus}</th>
                <th>{m.history.colResult}</th>
                <th>{m.history.colSource}</th>
                <th className="num">{m.history.colCredit}</th>
                <th>{m.history.colUser}</th>
              </tr>
            </thead>
            <tbody>
              {rangeInvalid ? null : history.isPending ? (
                <SkeletonRows rows={PER_PAGE} cols={8} />
              ) : (
                rows.map((entry) => (
                  <tr
                    key={entry.id}
                    className="clickable"
                    tabIndex={0}
                    onClick={() => setSelected(entry)}
                    onKeyDown={(e) => {
                      if (e.key === 'Enter' || e.key === ' ') {
                        e.preventDefault();
                        setSelected(entry);
                      }
                    }}
                    data-testid="history-row"
                    data-history-id={entry.id}
                    data-status={entry.status ?? undefined}
                  >
                    <td className="history-date">{entry.createdAt === null ? <Unreadable /> : dateTime(entry.createdAt)}</td>
                    <td className="mono identifier-cell" title={entry.inputIdentifier ?? undefined}>
                      {entry.inputIdentifier === null ? <Unreadable /> : shownIdentifier(entry)}
                    </td>
                    <td data-testid="history-row-type">
                      <Badge>{shownType(entry, m)}</Badge>
                    </td>
                    <td data-testid="history-row-status">
                      <StatusBadge status={entry.status} />
                    </td>
                    <ResultCell entry={entry} />
                    <td data-testid="history-row-source">{entry.source === null ? <Unreadable /> : m.history.sources[entry.source]}</td>
                    <td className="num">{entry.creditConsumed === null ? <Unreadable /> : num(entry.creditConsumed)}</td>
                    <td className="history-user">
                      <span className="clamp-2" title={entry.user.name} data-testid="history-row-user">
                        {entry.user.name}
                      </span>
                      {/* An API lookup's user is the key's owner; the key, under the name, says which tool
                          made it. It shares the user's column, which gives way first on a narrow window. */}
                      {entry.apiKey ? <KeyLine label={keyLabel(entry.apiKey, m.keys.unnamed)} /> : null}
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
        {rangeInvalid ? (
          <EmptyState icon={<IconClock size={28} />} title={m.history.rangeInvalid} />
        ) : !history.isPending && rows.length === 0 && !history.isError ? (
          <EmptyState
            icon={<IconClock size={28} />}
            title={hasFilters ? m.history.emptyFiltered : m.history.emptyTitle}
            body={hasFilters ? undefined : m.history.emptyBody}
          >
            {hasFilters ? (
              <button type="button" className="btn btn-secondary btn-sm" onClick={clear}>
                {m.history.clear}
              </button>
            ) : null}
          </EmptyState>
        ) : null}
        {pagination && !rangeInvalid ? (
          <div className="table-foot">
            <span className="muted small" data-testid="history-total">
              {results(pagination.total)}
            </span>
            <Pager page={pagination.page} pages={pagination.total_pages} onPage={setPage} busy={history.isFetching} />
          </div>
        ) : null}
      </Card>

      {selected ? <HistoryDetail entry={selected} onClose={() => setSelected(null)} /> : null}
    </>
  );
}

/** A status, or the word for one that cannot be read. */
function StatusBadge({ status }: { status: HistoryEntry['status'] }) {
  const { m } = useI18n();
  if (status === null) return <Badge>{m.history.unreadable}</Badge>;
  return <Badge tone={status === 'SUCCESS' ? 'success' : 'danger'}>{m.history.statuses[status]}</Badge>;
}

/** Where a field that cannot be read would be. */
function Unreadable() {
  const { m } = useI18n();
  return <span className="muted">{m.history.unreadable}</span>;
}

/** The key an API lookup came through, under its user in a row: cut with an ellipsis, whole in the tooltip. */
function KeyLine({ label }: { label: string }) {
  const { m } = useI18n();
  return (
    <div className="muted small ellipsis key-line" title={`${m.history.apiKey}: ${label}`} data-testid="history-row-key">
      <IconKey size={12} aria-hidden="true" />
      <span className="sr-only">{m.history.apiKey}: </span>
      {label}
    </div>
  );
}

function HistoryDetail({ entry, onClose }: { entry: HistoryEntry; onClose: () => void }) {
  const { m, num, dateTime } = useI18n();
  const error = errorOf(entry);
  // Said as a live answer's banner says it: PA011's stored sentence only repeats the title, so it is not shown twice.
  const described = error ? describeCode(error.code, error.message, null, m, entry.inputType === 'CUIT' ? 'report' : 'account') : null;
  const answerDamaged = isAnswerDamaged(entry);
  const account = lookupDataSchema.safeParse(entry.responseData);
  const report = account.success ? null : creditReportSchema.safeParse(entry.responseData);
  return (
    <Drawer title={m.history.detailTitle} onClose={onClose} testId="history-detail">
      <div className="detail-head">
        <div className="mono detail-identifier">{entry.inputIdentifier === null ? <Unreadable /> : shownIdentifier(entry)}</div>
        <div className="badges">
          <Badge>{shownType(entry, m)}</Badge>
          <StatusBadge status={entry.status} />
        </div>
      </div>
      <dl className="details details-compact">
        <div>
          <dt>{m.history.colDate}</dt>
          <dd>{entry.createdAt === null ? <Unreadable /> : dateTime(entry.createdAt)}</dd>
        </div>
        <div>
          <dt>{m.history.colUser}</dt>
          <dd>
            {entry.user.name} <span className="muted small">{entry.user.email}</span>
          </dd>
        </div>
        <div>
          <dt>{m.history.colSource}</dt>
          <dd>{entry.source === null ? <Unreadable /> : m.history.sources[entry.source]}</dd>
        </div>
        {entry.apiKey ? (
          <div>
            <dt>{m.history.apiKey}</dt>
            <dd data-testid="history-detail-key">
              {entry.apiKey.name ?? <span className="muted">{m.keys.unnamed}</span>} <span className="mono muted small">{entry.apiKey.prefix}</span>
            </dd>
          </div>
        ) : null}
        <div>
          <dt>{m.history.creditUsed}</dt>
          <dd>{entry.creditConsumed === null ? <Unreadable /> : entry.creditConsumed > 0 ? num(entry.creditConsumed) : m.history.noCredit}</dd>
        </div>
        <div>
          <dt>{m.history.latency}</dt>
          <dd>{entry.upstreamLatencyMs === null ? <Unreadable /> : tpl(m.history.latencyMs, { n: num(entry.upstreamLatencyMs) })}</dd>
        </div>
        <div>
          <dt>{m.history.id}</dt>
          <dd className="mono small ellipsis" title={entry.id}>
            {entry.id}
          </dd>
        </div>
      </dl>

      <div className="section-label">{m.history.summary}</div>
      {/* What cannot be read is said first; an answer that can be read is shown after it, as any other. */}
      {isDamaged(entry) ? (
        <p className="muted" data-testid="history-detail-damaged">
          {damagedSentence(entry, m)}
        </p>
      ) : null}
      {answerDamaged ? null : described ? (
        <div className="banner banner-error" data-testid="history-detail-error">
          <div className="banner-body">
            <div className="banner-title">
              {described.title} <span className="code-chip">{described.code}</span>
            </div>
            <BannerDetail described={described} />
          </div>
        </div>
      ) : account.success ? (
        <LookupResultCard data={account.data} />
      ) : report?.success ? (
        <CreditReportCard report={report.data} />
      ) : (
        <p className="muted">{m.common.none}</p>
      )}

      <div className="section-label">{m.history.rawResponse}</div>
      <pre className="json" data-testid="history-detail-json">
        {JSON.stringify(entry.responseData, null, 2)}
      </pre>
    </Drawer>
  );
}

/**
 * The history stores identifiers without separators, and the screens copy a CUIT with dashes
 * (27-31234567-1) or a CBU in groups: a search made only of digits and separators is searched as
 * its digits. Anything else (an alias, a name) is searched as typed.
 */
function searchText(q: string): string {
  const trimmed = q.trim();
  return /^[\d\s.\-\u2010-\u2015]+$/.test(trimmed) ? normalizeIdentifierInput(trimmed).replace(/\./g, '') : trimmed;
}

/** A CUIT/CUIL as the screens write it (20-12345678-6); anything else exactly as it was looked up. */
function shownIdentifier(entry: { inputType: string | null; inputIdentifier: string | null }): string {
  const identifier = entry.inputIdentifier ?? '';
  return entry.inputType === 'CUIT' && /^\d{11}$/.test(identifier) ? formatTaxId(identifier) : identifier;
}
