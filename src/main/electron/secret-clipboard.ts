// A copied API key leaves the OS clipboard a minute later, if the clipboard still holds it: whatever
// was copied since (here or in another program) is never clobbered. Done here in the main process,
// with Electron's clipboard, rather than by the page: the page's clipboard API answers only while
// its window has the focus, and someone pasting the key is working in another program. Only the
// key's SHA-256 is kept while waiting.
import { createHash } from 'node:crypto';
import { clipboard } from 'electron';
import { SECRET_CLIPBOARD_MS } from '../../shared/secret-clipboard';

let pending: { digest: string; timer: NodeJS.Timeout } | null = null;

/** Clears the clipboard SECRET_CLIPBOARD_MS from now if it still holds the key with this digest; replaces a pending one. */
export function clearSecretLater(digest: string): void {
  if (pending) clearTimeout(pending.timer);
  const timer = setTimeout(clearSecretNow, SECRET_CLIPBOARD_MS);
  // The app quitting does the check at once (clearSecretNow at will-quit), not this timer.
  timer.unref();
  pending = { digest, timer };
}

/** The pending check, now: the minute is up, the app quits, or the vault locks with the computer. */
export function clearSecretNow(): void {
  if (!pending) return;
  clearTimeout(pending.timer);
  const { digest } = pending;
  pending = null;
  if (createHash('sha256').update(clipboard.readText(), 'utf8').digest('hex') === digest) clipboard.clear();
}
