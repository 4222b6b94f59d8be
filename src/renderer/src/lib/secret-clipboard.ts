// A copied secret (an API key) does not stay on the clipboard: a while later it is cleared, as
// password managers do, and only if the clipboard still holds it, so whatever the user copied since
// (here or in another program) is never clobbered. The desktop's main process does it (channel
// `clipboard.clearSecretLater`: on time, whichever program has the focus); in the browser mode the
// page does it, with one timer for the whole page, held here and not by a screen: the key copied and
// its box dismissed, it must still paste into another program meanwhile.
import { api } from '../api/client';
import { SECRET_CLIPBOARD_MS } from '../../../shared/secret-clipboard';

export { SECRET_CLIPBOARD_MS };

/** Stops the timer (or the wait for focus) of the secret copied last, in the browser mode. */
let cancelPending: (() => void) | null = null;
/** Counts the copies: an earlier one whose digest or answer comes late schedules nothing. */
let copies = 0;

/**
 * Clears the clipboard SECRET_CLIPBOARD_MS after `secret` was copied, if it still holds it. When the
 * page must do it and the clipboard cannot be read (a browser that refuses it, or asks and is told
 * no), nothing is written — an unread clipboard may hold what the user copied since — and `onUnread`
 * says so to the user. Copying another secret replaces the pending clear: the clipboard no longer
 * holds the first one. Resolves once the clear is set up (or cannot be), so that the screen says the
 * key will be cleared only when it will.
 */
export function clearSecretLater(secret: string, onUnread: () => void): Promise<void> {
  cancelPending?.();
  cancelPending = null;
  const copy = ++copies;
  // Only a digest waits, here or in the host: the screen drops the key itself when its box closes.
  return digestOf(secret).then(async (digest) => {
    if (digest === null) return onUnread();
    const { scheduled } = await api['clipboard.clearSecretLater']({ digest }).catch(() => ({ scheduled: false }));
    if (!scheduled && copy === copies) clearInThisPage(digest, onUnread);
  });
}

function clearInThisPage(digest: string, onUnread: () => void): void {
  cancelPending?.();
  const check = () => void clearIfStill(digest, onUnread);
  const timer = window.setTimeout(() => {
    // The async clipboard answers only a focused page (Chromium: "Document is not focused"), and the
    // user is most likely pasting into another program: then it is done when they come back.
    if (document.hasFocus()) check();
    else window.addEventListener('focus', check, { once: true });
  }, SECRET_CLIPBOARD_MS);
  cancelPending = () => {
    window.clearTimeout(timer);
    window.removeEventListener('focus', check);
  };
}

async function clearIfStill(copied: string, onUnread: () => void): Promise<void> {
  let text: string;
  try {
    text = await navigator.clipboard.readText();
  } catch {
    onUnread();
    return;
  }
  if ((await digestOf(text)) !== copied) return; // something else was copied since: it stays
  try {
    await navigator.clipboard.writeText('');
  } catch {
    onUnread();
  }
}

/** SHA-256 in hex; null where the page has no WebCrypto (not a secure context: no clipboard API either). */
async function digestOf(text: string): Promise<string | null> {
  try {
    const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  } catch {
    return null;
  }
}
