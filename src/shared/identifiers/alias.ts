/**
 * Alias CBU/CVU validation (the short, human-friendly account name).
 *
 * Rule used here: 6–20 characters of ASCII letters, digits and dots.
 * NOTE: BCRA's public announcements (2016–2017) describe the alias charset as
 * letters, digits, dot AND hyphen ("guion medio"). The product spec currently
 * excludes the hyphen; if that changes, ALIAS_CHARSET is the only place to edit.
 */

const ALIAS_MIN = 6;
const ALIAS_MAX = 20;
const ALIAS_CHARSET = /^[A-Za-z0-9.]*$/;

export type AliasAnalysis =
  | { ok: true; alias: string; key: string }
  | { ok: false; reason: 'length' | 'charset'; message: string; messageEs: string };

/**
 * Charset is checked before length: a forbidden character ("ñ", space, "-")
 * is the more specific problem and stays wrong however long the input gets.
 * Aliases are case-insensitive, so `key` is the lowercased form used for
 * matching and caching, while `alias` keeps what the user typed.
 */
export function analyzeAlias(raw: string, options: { exact?: boolean } = {}): AliasAnalysis {
  // What is typed on a screen is trimmed; `exact` (the HTTP API) treats surrounding spaces as the
  // characters they are.
  const alias = options.exact ? raw : raw.trim();
  if (!ALIAS_CHARSET.test(alias)) {
    return {
      ok: false,
      reason: 'charset',
      message: 'Alias may only contain letters (a-z, no accents or ñ), digits and dots',
      messageEs: 'El alias solo puede contener letras (a-z, sin tildes ni ñ), números y puntos',
    };
  }
  if (alias.length < ALIAS_MIN || alias.length > ALIAS_MAX) {
    return {
      ok: false,
      reason: 'length',
      message: `Alias must be between ${ALIAS_MIN} and ${ALIAS_MAX} characters (got ${alias.length})`,
      messageEs: `El alias debe tener entre ${ALIAS_MIN} y ${ALIAS_MAX} caracteres (se ingresaron ${alias.length})`,
    };
  }
  return { ok: true, alias, key: alias.toLowerCase() };
}
