// Building blocks shared by the screens: badges, banners, skeletons, empty states, page header.
import { useEffect, useRef, type CSSProperties, type ReactNode } from 'react';
import { tpl, useI18n } from '../i18n';
import { describeError, type DescribedError } from '../lib/errors';
import { IconAlert, IconCheck, IconChevronLeft, IconChevronRight, IconInfo } from './Icons';

export type Tone = 'neutral' | 'success' | 'danger' | 'warning' | 'info' | 'accent';

export function Badge({ tone = 'neutral', children, title }: { tone?: Tone; children: ReactNode; title?: string }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}

/**
 * The server's sentence under an error's title, when it adds something to it; marked when it is the
 * server's English on a Spanish screen. Shared by ErrorBanner and Historial's detail of a stored error.
 */
export function BannerDetail({ described }: { described: DescribedError }) {
  const { m } = useI18n();
  if (!described.detail || described.detail === described.title) return null;
  return (
    <div className="banner-detail">
      {described.detailInEnglish ? `${m.errors.serverSaid}: ` : ''}
      {described.detail}
    </div>
  );
}

export function ErrorBanner({
  error,
  context = 'other',
  testId,
  onRetry,
  extra,
  reasonAsTitle = false,
}: {
  error: unknown;
  context?: 'account' | 'report' | 'other';
  testId?: string;
  onRetry?: () => void;
  extra?: ReactNode;
  /**
   * The server's reason, when it can be said in the screen's language, is the title: for a refusal
   * that is not about typed data (the last admin) the code's "Revisá los datos ingresados" misleads.
   */
  reasonAsTitle?: boolean;
}) {
  const { m } = useI18n();
  const described = describeError(error, m, context);
  const d = reasonAsTitle && described.detail && !described.detailInEnglish ? { ...described, title: described.detail, detail: null } : described;
  return (
    <div className="banner banner-error" role="alert" data-testid={testId} data-error-code={d.code}>
      <IconAlert size={20} className="banner-icon" />
      <div className="banner-body">
        <div className="banner-title">
          {d.title}
          {/* The code is for support and for whoever reads the API's answers. A refusal of what the
              user typed says all there is in its title and detail: no INVALID_PARAMETER · 400 beside
              it, nor UNAUTHORIZED · 401 beside a wrong passphrase. */}
          {d.aboutInput ? null : (
            <>
              {' '}
              <span className="code-chip" title={m.common.code}>
                {d.code}
                {d.status && d.status >= 400 ? ` · ${d.status}` : ''}
              </span>
            </>
          )}
        </div>
        <BannerDetail described={d} />
        {extra}
      </div>
      {onRetry ? (
        <button type="button" className="btn btn-secondary btn-sm" onClick={onRetry}>
          {m.common.retry}
        </button>
      ) : null}
    </div>
  );
}

export function Notice({ tone = 'info', children, testId }: { tone?: 'info' | 'warning' | 'success'; children: ReactNode; testId?: string }) {
  return (
    <div className={`banner banner-${tone}`} role="status" data-testid={testId}>
      {tone === 'info' ? <IconInfo size={20} className="banner-icon" /> : tone === 'success' ? <IconCheck size={20} className="banner-icon" /> : <IconAlert size={20} className="banner-icon" />}
      <div className="banner-body">{children}</div>
    </div>
  );
}

export function Skeleton({ width = '100%', height = 14, style }: { width?: number | string; height?: number; style?: CSSProperties }) {
  return <span className="skeleton" style={{ width, height, ...style }} aria-hidden="true" />;
}

export function SkeletonRows({ rows = 5, cols = 5 }: { rows?: number; cols?: number }) {
  return (
    <>
      {Array.from({ length: rows }, (_, r) => (
        <tr key={r} className="skeleton-row" aria-hidden="true">
          {Array.from({ length: cols }, (_, c) => (
            <td key={c}>
              <Skeleton width={`${50 + ((r * 7 + c * 13) % 45)}%`} />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

export function EmptyState({ icon, title, body, children }: { icon?: ReactNode; title: string; body?: string; children?: ReactNode }) {
  return (
    <div className="empty">
      {icon ? <div className="empty-icon">{icon}</div> : null}
      <div className="empty-title">{title}</div>
      {body ? <p className="empty-body">{body}</p> : null}
      {children}
    </div>
  );
}

export function PageHeader({ title, subtitle, actions }: { title: string; subtitle?: string; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1 className="page-title">{title}</h1>
        {subtitle ? <p className="page-subtitle">{subtitle}</p> : null}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </header>
  );
}

export function Card({ title, subtitle, actions, children, className = '', testId }: { title?: ReactNode; subtitle?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string; testId?: string }) {
  return (
    <section className={`card ${className}`} data-testid={testId}>
      {title || actions ? (
        <div className="card-header">
          <div>
            {title ? <h2 className="card-title">{title}</h2> : null}
            {subtitle ? <p className="card-subtitle">{subtitle}</p> : null}
          </div>
          {actions ? <div className="card-actions">{actions}</div> : null}
        </div>
      ) : null}
      {children}
    </section>
  );
}

type PagerButton = 'page-first' | 'page-prev' | 'page-next' | 'page-last';

export function Pager({ page, pages, onPage, busy }: { page: number; pages: number; onPage: (page: number) => void; busy?: boolean }) {
  const { m, num } = useI18n();
  const total = Math.max(1, pages);
  const nav = useRef<HTMLElement>(null);
  const used = useRef<PagerButton | null>(null);
  const atStart = page <= 1;
  const atEnd = page >= total;

  // Focus stays on the button that was used: while the page loads it is only aria-disabled (a
  // disabled button dropped focus to <body>, and the next Tab started over from the sidebar). One
  // that is disabled for good at an end hands focus to the nearest button going the other way.
  useEffect(() => {
    const el = nav.current;
    const name = used.current;
    if (!el || !name) return;
    const active = document.activeElement;
    if (active && active !== document.body && !el.contains(active)) return; // the user went elsewhere
    const order: PagerButton[] = name === 'page-first' || name === 'page-prev' ? [name, 'page-next', 'page-last'] : [name, 'page-prev', 'page-first'];
    for (const id of order) {
      const button = el.querySelector<HTMLButtonElement>(`[data-testid="${id}"]`);
      if (button && !button.disabled) {
        if (button !== active) button.focus();
        return;
      }
    }
  }, [page, total]);

  const go = (name: PagerButton, to: number) => {
    if (busy) return;
    used.current = name;
    onPage(to);
  };
  const button = (name: PagerButton, to: number, disabled: boolean, content: ReactNode) => (
    <button type="button" className="btn btn-secondary btn-sm" disabled={disabled} aria-disabled={busy || undefined} onClick={() => go(name, to)} data-testid={name}>
      {content}
    </button>
  );
  return (
    <nav className="pager" aria-label={m.common.pagination} ref={nav}>
      {button('page-first', 1, atStart, <span>{m.common.first}</span>)}
      {button(
        'page-prev',
        page - 1,
        atStart,
        <>
          <IconChevronLeft size={15} />
          <span>{m.common.prev}</span>
        </>,
      )}
      <span className="pager-label" data-testid="page-label" aria-live="polite">
        {tpl(m.common.page, { page: num(page), pages: num(total) })}
      </span>
      {button(
        'page-next',
        page + 1,
        atEnd,
        <>
          <span>{m.common.next}</span>
          <IconChevronRight size={15} />
        </>,
      )}
      {button('page-last', total, atEnd, <span>{m.common.last}</span>)}
    </nav>
  );
}

export function Spinner() {
  return <span className="spinner" aria-hidden="true" />;
}
