// How long a copied API key stays on the clipboard before Titular clears it (if the clipboard still
// holds it): the desktop's main process (electron/secret-clipboard.ts) and the browser mode's page
// (renderer lib/secret-clipboard.ts) alike. Not a setting: a minute is what password managers use.
export const SECRET_CLIPBOARD_MS = 60_000;
