// The answer of a paid lookup (Consulta, Informes): the foot of its result card (the credits left
// after the lookup and its request id, for support), the banner for credits that ran out, and how an
// answer is brought into view when it arrives.
import { useEffect, useRef } from 'react';
import { useI18n, type Plural } from '../i18n';
import { IconAlert } from './Icons';
import { ErrorBanner } from './ui';

/** `credits` phrases the credits left for the product, in its plural forms. */
export function ResultFoot({ creditsLeft, credits, requestId }: { creditsLeft?: number; credits: Plural; requestId?: string }) {
  const { m, plural } = useI18n();
  if (creditsLeft === undefined && !requestId) return null;
  return (
    <div className="result-foot">
      {creditsLeft !== undefined ? (
        <span className="credits-pill" data-testid="credits-left" data-credits={creditsLeft}>
          {plural(creditsLeft, credits)}
        </span>
      ) : (
        <span />
      )}
      {requestId ? (
        <span className="muted small mono" title={m.lookup.requestId}>
          {requestId}
        </span>
      ) : null}
    </div>
  );
}

/**
 * The answer's box (`ref` on a `.lookup-answer` wrapping the banner or the result card), brought into
 * view when an answer arrives. In a small window (1024×640) the live check pushes the submit button
 * below the fold; scrolled down to it, the answer's place is under the sticky top bar, and a not-found
 * seemed to do nothing. The box's head (`[data-answer-head]`, else the box) is scrolled to just below
 * the top bar (.lookup-answer's scroll-margin-top) when it is not in view already, so a window where
 * it shows needs no jump.
 *
 * Focus: a clicked submit button is disabled while the lookup runs, which drops focus to <body> (a
 * screen reader then loses its place, and Tab starts over): only then does the answer's head take it,
 * where a stray Enter charges nothing. Focus that is still somewhere (the input, after Enter) stays,
 * so the next identifier can be typed at once; the banners are alerts, and a result is said by the
 * screen's status line.
 *
 * `arrived` changes once per answer (the mutation's submittedAt and status), not when the same
 * answer shows again because its identifier was typed back.
 */
export function useRevealAnswer(arrived: string | null) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!arrived || !el) return;
    const head = el.querySelector<HTMLElement>('[data-answer-head]') ?? el;
    const active = document.activeElement;
    if (!active || active === document.body) head.focus({ preventScroll: true });
    const below = parseFloat(getComputedStyle(el).scrollMarginTop) || 0;
    const r = head.getBoundingClientRect();
    if (r.top < below || r.bottom > window.innerHeight) {
      const still = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
      el.scrollIntoView({ block: 'start', behavior: still ? 'auto' : 'smooth' });
    }
  }, [arrived]);
  return box;
}

/** What an answer's `arrived` is: one value per settled lookup, null while none is settled. */
export function answerArrival(mutation: { status: string; submittedAt: number }): string | null {
  return mutation.status === 'success' || mutation.status === 'error' ? `${mutation.submittedAt}:${mutation.status}` : null;
}

/**
 * A lookup refused because the product's credits ran out (402 INSUFFICIENT_CREDITS): the product's own
 * sentence, the one the note under the disabled button says, and nothing more — no code chip (an
 * ordinary business condition, not a fault for support) and no "Te quedan 0 créditos" under a
 * sentence that already says so. A warning, not an error: nothing failed.
 */
export function NoCreditsBanner({ message, testId }: { message: string; testId: string }) {
  return (
    <div className="banner banner-warning" role="alert" data-testid={testId} data-error-code="INSUFFICIENT_CREDITS">
      <IconAlert size={20} className="banner-icon" />
      <div className="banner-body">
        <div className="banner-title">{message}</div>
      </div>
    </div>
  );
}

/**
 * A lookup's error as its answer (Consulta, Informes): the product's own sentence when the credits ran
 * out (NoCreditsBanner), else the error banner with the credits left after an error that was charged.
 */
export function AnswerError({
  error,
  context,
  noCredits,
  creditsLeft,
  credits,
  testId,
}: {
  error: unknown;
  context: 'account' | 'report';
  /** The product's sentence when the answer is a 402 (outOfCredits), else null. */
  noCredits: string | null;
  creditsLeft?: number;
  credits: Plural;
  testId: string;
}) {
  const { plural } = useI18n();
  if (noCredits !== null) return <NoCreditsBanner message={noCredits} testId={testId} />;
  return (
    <ErrorBanner
      error={error}
      context={context}
      testId={testId}
      extra={
        creditsLeft !== undefined ? (
          <div className="banner-credits" data-testid="credits-left" data-credits={creditsLeft}>
            {plural(creditsLeft, credits)}
          </div>
        ) : null
      }
    />
  );
}
