// The foot of a paid result card (Consulta, Informes): the credits left after the lookup and its
// request id, for support.
import { useI18n } from '../i18n';

/** `credits` phrases the credits left for the product: `one` for exactly 1, `other` with `{n}`. */
export function ResultFoot({ creditsLeft, credits, requestId }: { creditsLeft?: number; credits: { one: string; other: string }; requestId?: string }) {
  const { m, plural } = useI18n();
  if (creditsLeft === undefined && !requestId) return null;
  return (
    <div className="result-foot">
      {creditsLeft !== undefined ? (
        <span className="credits-pill" data-testid="credits-left" data-credits={creditsLeft}>
          {plural(creditsLeft, credits.one, credits.other)}
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
