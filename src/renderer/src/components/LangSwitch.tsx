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
      // Named by what it shows ("ES EN"), so speech control ("click ES EN") finds it; what it does is
      // its description (the title), read after the name.
      title={`${m.lang.switchLabel}: ${lang.toUpperCase()}. ${m.lang.switchTo}`}
    >
      <span className={lang === 'es' ? 'on' : ''}>ES</span>{' '}
      <span className={lang === 'en' ? 'on' : ''}>EN</span>
    </button>
  );
}
