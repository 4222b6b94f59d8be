// Language state (Spanish by default, persisted in localStorage) and Intl formatters per locale.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { es, type Messages } from './es';
import { en } from './en';
import type { Language } from '../../../shared/language';

export type Lang = Language;

/**
 * A sentence with a count, in its plural forms (CLDR categories, chosen by Intl.PluralRules): `one`
 * for 1 in Spanish and English, `other` for the rest; `many` where a language has it (Spanish uses
 * it for whole millions, and falls back to `other` here). `{n}` is the number, formatted.
 */
export interface Plural {
  one: string;
  other: string;
  many?: string;
}
const STORAGE_KEY = 'titular.lang';
const CATALOGS: Record<Lang, Messages> = { es, en };

function initialLang(): Lang {
  try {
    return window.localStorage.getItem(STORAGE_KEY) === 'en' ? 'en' : 'es';
  } catch {
    return 'es';
  }
}

/** Fills `{name}` placeholders. */
export function tpl(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in vars ? String(vars[key]) : whole));
}

export interface I18n {
  lang: Lang;
  setLang: (lang: Lang) => void;
  m: Messages;
  locale: string;
  num: (n: number, options?: Intl.NumberFormatOptions) => string;
  /** "12/11/2026 14:05" style, local time. */
  dateTime: (iso: string | null | undefined) => string;
  /** "12/11/2026, 14:05:37": to the second, where two moments of one minute must read apart (a pasted list's name). */
  dateTimeSeconds: (iso: string | null | undefined) => string;
  /** Day only, local time: "22/11/2026". */
  date: (iso: string | null | undefined) => string;
  /** A calendar date string (YYYY-MM-DD) formatted without time-zone shifts. */
  day: (ymd: string, options?: Intl.DateTimeFormatOptions) => string;
  /** "3 créditos" / "1 crédito". */
  credits: (n: number) => string;
  /**
   * The form of `forms` the language's plural rules pick for n, filled: `{n}` with the number
   * (formatted), other placeholders from `vars`. The one way the screens say a count.
   */
  plural: (n: number, forms: Plural, vars?: Record<string, string | number>) => string;
  results: (n: number) => string;
  relative: (iso: string | null | undefined) => string;
}

const I18nContext = createContext<I18n | null>(null);

export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Lang>(initialLang);

  const setLang = useCallback((next: Lang) => {
    setLangState(next);
    try {
      window.localStorage.setItem(STORAGE_KEY, next);
    } catch {
      // not persisted
    }
  }, []);

  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);

  const value = useMemo<I18n>(() => {
    const m = CATALOGS[lang];
    const locale = m.locale;
    const numberFmt = new Intl.NumberFormat(locale);
    // Four-digit years (22/11/2026, 15:20): `dateStyle: 'short'` wrote 22/11/26.
    const dateTimeFmt = new Intl.DateTimeFormat(locale, { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    const dateTimeSecondsFmt = new Intl.DateTimeFormat(locale, { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    // The day as the rest of the app writes it (22/11/2026): `dateStyle: 'medium'` wrote "22 nov 2026"
    // in Usuarios' "Alta" and a key's expiry, beside tables of 22/11/2026, 15:20.
    const dateFmt = new Intl.DateTimeFormat(locale, { day: '2-digit', month: '2-digit', year: 'numeric' });
    const relFmt = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
    const parse = (iso: string | null | undefined): Date | null => {
      if (!iso) return null;
      const d = new Date(iso);
      return Number.isNaN(d.getTime()) ? null : d;
    };
    const num = (n: number, options?: Intl.NumberFormatOptions) =>
      options ? new Intl.NumberFormat(locale, options).format(n) : numberFmt.format(n);
    const pluralRules = new Intl.PluralRules(locale);
    const plural = (n: number, forms: Plural, vars: Record<string, string | number> = {}) => {
      const category = pluralRules.select(n);
      const form = (category === 'one' || category === 'many' ? forms[category] : undefined) ?? forms.other;
      return tpl(form, { ...vars, n: num(n) });
    };
    return {
      lang,
      setLang,
      m,
      locale,
      num,
      dateTime: (iso) => {
        const d = parse(iso);
        return d ? dateTimeFmt.format(d) : m.common.none;
      },
      dateTimeSeconds: (iso) => {
        const d = parse(iso);
        return d ? dateTimeSecondsFmt.format(d) : m.common.none;
      },
      date: (iso) => {
        const d = parse(iso);
        return d ? dateFmt.format(d) : m.common.none;
      },
      day: (ymd, options = { day: '2-digit', month: '2-digit' }) => {
        const d = parse(`${ymd.slice(0, 10)}T12:00:00Z`);
        if (!d) return ymd;
        // es-AR's day and month alone come out as "3/11" even when asked for two digits (CLDR's d/M),
        // beside "28/10" on the same axis and 03/11/2026 everywhere else: padded as asked.
        return new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' })
          .formatToParts(d)
          .map((part) => ((part.type === 'day' && options.day === '2-digit') || (part.type === 'month' && options.month === '2-digit') ? part.value.padStart(2, '0') : part.value))
          .join('');
      },
      credits: (n) => plural(n, m.common.credits),
      plural,
      results: (n) => plural(n, m.common.results),
      relative: (iso) => {
        const d = parse(iso);
        if (!d) return m.common.never;
        const seconds = Math.round((d.getTime() - Date.now()) / 1000);
        const abs = Math.abs(seconds);
        if (abs < 60) return relFmt.format(seconds, 'second');
        if (abs < 3600) return relFmt.format(Math.round(seconds / 60), 'minute');
        if (abs < 86_400) return relFmt.format(Math.round(seconds / 3600), 'hour');
        if (abs < 30 * 86_400) return relFmt.format(Math.round(seconds / 86_400), 'day');
        return dateFmt.format(d);
      },
    };
  }, [lang, setLang]);

  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const ctx = useContext(I18nContext);
  if (!ctx) throw new Error('useI18n outside I18nProvider');
  return ctx;
}
