// Saldo: balance per product, daily consumption chart (plain SVG), and the admin's purchase form.
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ProductSlug } from '../../../shared/api/common';
import { MAX_PURCHASE, type BalanceEntry } from '../../../shared/api/balance';
import { daysEndingOn } from '../../../shared/day';
import { useBalance, useDailyConsumption, usePurchaseCredits } from '../api/hooks';
import { tpl, useI18n } from '../i18n';
import type { Session } from '../App';
import { Badge, Card, ErrorBanner, Notice, PageHeader, Skeleton, Spinner } from '../components/ui';
import { labelledSlots, niceTicks } from '../lib/chart-scale';
import { localYmd } from '../lib/format';
import { useRefocus } from '../lib/focus';
import { IconPlus, IconReport, IconSearch } from '../components/Icons';
import { Segmented } from '../components/Segmented';

const PRODUCTS: ProductSlug[] = ['cbu', 'informes'];
const DAYS = 30;

export function SaldoScreen({ session }: { session: Session }) {
  const { m } = useI18n();
  const balance = useBalance();
  const isAdmin = session.user.role === 'admin';
  return (
    <>
      <PageHeader title={m.pages.saldo.title} subtitle={m.pages.saldo.subtitle} />
      {balance.isError ? <ErrorBanner error={balance.error} testId="balance-error" onRetry={() => void balance.refetch()} /> : null}
      <div className="balance-grid">
        {PRODUCTS.map((slug) => (
          <BalanceCard key={slug} slug={slug} entry={balance.data?.balances.find((b) => b.productSlug === slug)} loading={balance.isPending} />
        ))}
      </div>
      <div className={isAdmin ? 'saldo-grid' : ''}>
        <ConsumptionChart />
        {isAdmin ? <PurchaseForm /> : null}
      </div>
    </>
  );
}

function BalanceCard({ slug, entry, loading }: { slug: ProductSlug; entry: BalanceEntry | undefined; loading: boolean }) {
  const { m, num, plural } = useI18n();
  const low = entry ? entry.balance === 0 || (entry.totalPurchased > 0 && entry.balance / entry.totalPurchased < 0.1) : false;
  return (
    <section className={`card balance-card balance-${slug}`} data-testid={`balance-card-${slug}`} data-balance={entry?.balance}>
      <div className="balance-top">
        <div className="balance-icon" aria-hidden="true">
          {slug === 'cbu' ? <IconSearch size={20} /> : <IconReport size={20} />}
        </div>
        <h2 className="card-title">{m.products[slug]}</h2>
        {entry && low ? <Badge tone={entry.balance === 0 ? 'danger' : 'warning'}>{entry.balance === 0 ? m.balance.noBalance : m.balance.lowBalance}</Badge> : null}
      </div>
      {loading || !entry ? (
        <div className="stack-sm">
          <Skeleton width={120} height={38} />
          <Skeleton width="80%" />
          <Skeleton width="100%" height={8} />
        </div>
      ) : (
        <>
          <div className="balance-main">
            <span className="balance-value" data-testid={`balance-available-${slug}`}>
              {num(entry.balance)}
            </span>
            <span className="balance-unit">{plural(entry.balance, m.balance.available)}</span>
          </div>
          <RemainingMeter slug={slug} entry={entry} low={low} />
          <div className="balance-foot">
            <div>
              <div className="stat-label">{m.balance.purchased}</div>
              <div className="stat-small" data-testid={`balance-purchased-${slug}`}>{num(entry.totalPurchased)}</div>
            </div>
            <div>
              <div className="stat-label">{m.balance.consumed}</div>
              <div className="stat-small" data-testid={`balance-consumed-${slug}`}>{num(entry.totalConsumed)}</div>
            </div>
            <div className="right muted small" data-testid={`balance-left-${slug}`}>
              {tpl(m.balance.left, { pct: num(remainingPercent(entry)) })}
            </div>
          </div>
        </>
      )}
    </section>
  );
}

/**
 * The share of the purchased credits still available, in whole percent: rounded down, so it never
 * says more is left than there is, and 1 % while any credit is left (0 % means none).
 */
function remainingPercent(entry: BalanceEntry): number {
  if (entry.totalPurchased <= 0 || entry.balance <= 0) return 0;
  return Math.min(100, Math.max(1, Math.floor((entry.balance * 100) / entry.totalPurchased)));
}

/** A balance bar is read as what is left (a fuel gauge): it empties as credits are spent. */
function RemainingMeter({ slug, entry, low }: { slug: ProductSlug; entry: BalanceEntry; low: boolean }) {
  const { m, num } = useI18n();
  const pct = remainingPercent(entry);
  return (
    <div
      className={`meter ${low ? 'is-low' : ''}`}
      role="meter"
      aria-label={m.balance.leftLabel}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={pct}
      aria-valuetext={tpl(m.balance.left, { pct: num(pct) })}
      data-testid={`balance-meter-${slug}`}
    >
      <span style={{ width: `${pct}%` }} />
    </div>
  );
}

/** Width of an element in CSS pixels, kept current with a ResizeObserver (so the SVG text never scales). */
function useWidth<T extends HTMLElement>(fallback: number) {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = () => setWidth(Math.max(280, Math.round(el.getBoundingClientRect().width)));
    update();
    const observer = new ResizeObserver(update);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

function ConsumptionChart() {
  const { m, num, day, credits } = useI18n();
  const [product, setProduct] = useState<ProductSlug>('cbu');
  const consumption = useDailyConsumption(product, DAYS);
  // The core answers every day of the range, zeros included, in the screen's calendar days; until
  // it has, the same days empty.
  const days = useMemo(() => consumption.data?.days ?? daysEndingOn(localYmd(), DAYS).map((date) => ({ date, consumed: 0 })), [consumption.data]);
  const total = days.reduce((sum, d) => sum + d.consumed, 0);
  const ticks = niceTicks(Math.max(0, ...days.map((d) => d.consumed)));
  const max = ticks[ticks.length - 1]!;

  const [wrapRef, W] = useWidth<HTMLDivElement>(720);
  const H = 230;
  const pad = { top: 14, right: 8, bottom: 28, left: 40 };
  const innerW = W - pad.left - pad.right;
  const innerH = H - pad.top - pad.bottom;
  const slot = innerW / DAYS;
  const barW = Math.max(4, slot * 0.62);
  // A "dd/mm" label is about 32 px wide at the ticks' size: 44 px apart leaves a gap between two.
  const labelled = labelledSlots(DAYS, slot, 44);

  return (
    <Card
      title={m.balance.chartTitle}
      subtitle={`${m.balance.chartSubtitle} · ${tpl(m.balance.chartTotal, { n: credits(total) })}`}
      className="chart-card"
      testId="consumption-chart"
      actions={
        <Segmented
          small
          label={m.balance.chartProduct}
          options={PRODUCTS.map((slug) => ({ value: slug, label: m.products[slug], testId: `chart-product-${slug}` }))}
          value={product}
          onChange={setProduct}
        />
      }
    >
      {consumption.isError ? <ErrorBanner error={consumption.error} onRetry={() => void consumption.refetch()} /> : null}
      <div className="chart-wrap" ref={wrapRef}>
        {consumption.isPending ? (
          <Skeleton width="100%" height={H} />
        ) : (
          <>
            <svg width={W} height={H} viewBox={`0 0 ${W} ${H}`} className="chart" role="img" aria-label={`${m.balance.chartTitle}: ${credits(total)}`}>
              {ticks.map((t) => {
                const y = pad.top + innerH - (t / max) * innerH;
                return (
                  <g key={t}>
                    <line x1={pad.left} x2={W - pad.right} y1={y} y2={y} className={t === 0 ? 'axis' : 'grid'} />
                    <text x={pad.left - 8} y={y + 4} textAnchor="end" className="tick" data-testid="chart-y-tick">
                      {num(t)}
                    </text>
                  </g>
                );
              })}
              {days.map((d, i) => {
                const h = (d.consumed / max) * innerH;
                const x = pad.left + i * slot + (slot - barW) / 2;
                const y = pad.top + innerH - h;
                const label = `${day(d.date, { day: 'numeric', month: 'short' })}: ${credits(d.consumed)}`;
                return (
                  <g key={d.date} className="bar-group">
                    <rect x={pad.left + i * slot} y={pad.top} width={slot} height={innerH} className="bar-hit">
                      <title>{label}</title>
                    </rect>
                    {d.consumed > 0 ? (
                      <rect x={x} y={y} width={barW} height={Math.max(h, 2)} rx={2.5} className="bar">
                        <title>{label}</title>
                      </rect>
                    ) : (
                      <rect x={x} y={pad.top + innerH - 1.5} width={barW} height={1.5} className="bar-zero" />
                    )}
                    {labelled.has(i) ? (
                      <text x={pad.left + i * slot + slot / 2} y={H - 8} textAnchor="middle" className="tick" data-testid="chart-x-label">
                        {day(d.date, { day: '2-digit', month: '2-digit' })}
                      </text>
                    ) : null}
                  </g>
                );
              })}
            </svg>
            {total === 0 ? <div className="chart-empty muted">{m.balance.chartEmpty}</div> : null}
          </>
        )}
      </div>
    </Card>
  );
}

function PurchaseForm() {
  const { m, num, plural } = useI18n();
  const id = useId();
  const [product, setProduct] = useState<ProductSlug>('cbu');
  const [amount, setAmount] = useState('');
  const [reference, setReference] = useState('');
  const purchase = usePurchaseCredits();
  const parsed = parseWholeAmount(amount);
  const valid = Number.isInteger(parsed) && parsed >= 1 && parsed <= MAX_PURCHASE;
  // The button is disabled while the purchase is recorded (and after one, with the amount emptied):
  // focus goes to the amount for the next purchase, or back to the button beside an error.
  const amountInput = useRef<HTMLInputElement>(null);
  const submitButton = useRef<HTMLButtonElement>(null);
  const refocus = useRefocus();

  const submit = () => {
    if (!valid || purchase.isPending) return;
    const ref = reference.trim();
    purchase.mutate(
      { product, amount: parsed, reference: ref === '' ? undefined : ref },
      {
        onSuccess: (result) => {
          if (result.added) {
            setAmount('');
            setReference('');
          }
          refocus(amountInput);
        },
        onError: () => refocus(submitButton, amountInput),
      },
    );
  };

  const last = purchase.data;
  const lastInput = purchase.variables;
  // The answer goes under the button, below the fold of a 1280x800 window: brought into view, or a
  // purchase (or a reference already used) seemed to do nothing. 'nearest': no jump when it shows.
  const outcome = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (purchase.isSuccess || purchase.isError) outcome.current?.scrollIntoView({ block: 'nearest' });
  }, [purchase.isSuccess, purchase.isError]);
  return (
    <Card title={m.balance.purchaseTitle} subtitle={m.balance.purchaseBody} className="purchase-card" testId="purchase-form">
      <form
        className="form-stack"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <div className="field">
          <label className="field-label" htmlFor={`${id}-product`}>
            {m.balance.product}
          </label>
          <select id={`${id}-product`} className="input" value={product} onChange={(e) => setProduct(e.target.value as ProductSlug)} data-testid="purchase-product">
            {PRODUCTS.map((slug) => (
              <option key={slug} value={slug}>
                {m.products[slug]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-amount`}>
            {m.balance.amount}
          </label>
          <input
            ref={amountInput}
            id={`${id}-amount`}
            className="input"
            inputMode="numeric"
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            placeholder="500"
            data-testid="purchase-amount"
            aria-invalid={amount !== '' && !valid}
          />
          {amount !== '' && !valid ? <p className="field-error">{parsed > MAX_PURCHASE ? tpl(m.balance.amountTooLarge, { max: num(MAX_PURCHASE) }) : m.balance.amountInvalid}</p> : null}
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-reference`}>
            {m.balance.reference}
          </label>
          <input
            id={`${id}-reference`}
            className="input"
            value={reference}
            onChange={(e) => setReference(e.target.value)}
            placeholder={m.balance.referencePlaceholder}
            maxLength={200}
            data-testid="purchase-reference"
          />
        </div>
        <button ref={submitButton} type="submit" className="btn btn-primary" disabled={!valid || purchase.isPending} data-testid="purchase-submit">
          {purchase.isPending ? <Spinner /> : <IconPlus size={16} />}
          <span>{purchase.isPending ? m.balance.submitting : m.balance.submit}</span>
        </button>
        {purchase.isError ? (
          <div ref={outcome} className="purchase-outcome">
            <ErrorBanner error={purchase.error} testId="purchase-error" />
          </div>
        ) : last && purchase.isSuccess ? (
          <div ref={outcome} className="purchase-outcome">
            {last.added ? (
              <Notice tone="success" testId="purchase-result">
                {plural(lastInput?.amount ?? 0, m.balance.added, { balance: num(last.balance) })}
              </Notice>
            ) : (
              <Notice tone="warning" testId="purchase-result">
                {tpl(m.balance.alreadyAdded, { balance: num(last.balance) })}
              </Notice>
            )}
          </div>
        ) : null}
      </form>
    </Card>
  );
}

/**
 * A whole number as people type it here: 1000, or with the thousands separator of es-AR (1.000)
 * or English (1,000). NaN for anything else (1,5 or 1.5 are not whole).
 */
function parseWholeAmount(text: string): number {
  const t = text.trim();
  if (/^\d{1,12}$/.test(t)) return Number(t);
  if (/^\d{1,3}([.,])\d{3}(\1\d{3})*$/.test(t)) return Number(t.replace(/[.,]/g, ''));
  return Number.NaN;
}
