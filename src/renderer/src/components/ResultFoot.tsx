// The foot of a paid result card (Consulta, Informes): the credits left after the lookup and its
// request id, for support.
import { tpl, useI18n } from '../i18n';

/** `creditsTemplate` phrases the credits left for the product, with `{n}` for the number. */
export function ResultFoot({ creditsLeft, creditsTemplate, requestId }: { creditsLeft?: number; creditsTemplate: string; requestId?: string }) {
  const { m, num } = useI18n();
  if (creditsLeft === undefined && !requestId) return null;
  return (
    <div className="result-foot">
      {creditsLeft !== undefined ? (
        <span className="credits-pill" data-testid="credits-left" data-credits={creditsLeft}>
          {tpl(creditsTemplate, { n: num(creditsLeft) })}
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
