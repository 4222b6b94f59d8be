// The ES/EN switch: in the top bar of the app, and on the first-run and unlock screens.
import { useI18n, type Lang } from '../i18n';

export function LangSwitch() {
  const { lang, setLang, m } = useI18n();
  const other: Lang = lang === 'es' ? 'en' : 'es';
  return (
    <button
      type="button"
      className="lang-switch"
      onClick={() => setLang(other)}
      data-testid="lang-switch"
      data-lang={lang}
      aria-label={`${m.lang.switchLabel}: ${lang.toUpperCase()}. ${m.lang.switchTo}`}
      title={m.lang.switchTo}
    >
      <span className={lang === 'es' ? 'on' : ''}>ES</span>
      <span className={lang === 'en' ? 'on' : ''}>EN</span>
    </button>
  );
}
