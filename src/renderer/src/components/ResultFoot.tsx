// The foot of a paid result card (Consulta, Informes): the credits left after the lookup and its
// request id, for support.
import { useI18n, type Plural } from '../i18n';

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
