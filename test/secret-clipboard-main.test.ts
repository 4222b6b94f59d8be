// The desktop's main process clears a copied key from the OS clipboard a minute later, if the
// clipboard still holds it (src/main/electron/secret-clipboard.ts). Electron cannot run here: its
// clipboard is replaced by a plain text holder, and time by vitest's fake timers; what is tested is
// the rule (which clipboard is cleared, when), against the digest the renderer sends.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const board = vi.hoisted(() => ({ text: '', cleared: 0 }));
vi.mock('electron', () => ({
  clipboard: {
    readText: () => board.text,
    clear: () => {
      board.text = '';
      board.cleared++;
    },
  },
}));

const { clearSecretLater, clearSecretNow } = await import('../src/main/electron/secret-clipboard');
const { SECRET_CLIPBOARD_MS } = await import('../src/shared/secret-clipboard');

const KEY = 'sk_live_' + 'Kq7'.repeat(14);
const digestOf = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** What the renderer does: the key on the clipboard, its digest to the main process. */
const copy = (text: string) => {
  board.text = text;
  clearSecretLater(digestOf(text));
};

beforeEach(() => {
  vi.useFakeTimers();
  board.text = '';
  board.cleared = 0;
});
afterEach(() => {
  clearSecretNow();
  vi.useRealTimers();
});

describe('a copied key on the OS clipboard', () => {
  it('stays a minute, then is cleared', () => {
    copy(KEY);
    vi.advanceTimersByTime(SECRET_CLIPBOARD_MS - 1);
    expect(board.text).toBe(KEY);
    vi.advanceTimersByTime(1);
    expect(board.text).toBe('');
    expect(board.cleared).toBe(1);
  });

  it('what was copied since (here or in another program) is never cleared', () => {
    copy(KEY);
    board.text = 'CBU 0290001800000000007773';
    vi.advanceTimersByTime(SECRET_CLIPBOARD_MS);
    expect(board.text).toBe('CBU 0290001800000000007773');
    expect(board.cleared).toBe(0);
  });

  it('a second key copied replaces the first one\'s minute: cleared a minute after the second', () => {
    copy(KEY);
    vi.advanceTimersByTime(30_000);
    const other = 'sk_live_' + 'Zz9'.repeat(14);
    copy(other);
    vi.advanceTimersByTime(SECRET_CLIPBOARD_MS - 1);
    expect(board.text).toBe(other);
    vi.advanceTimersByTime(1);
    expect(board.text).toBe('');
  });

  it('the app quitting or the computer locking clears it at once, and only once', () => {
    copy(KEY);
    vi.advanceTimersByTime(10_000);
    clearSecretNow();
    expect(board.text).toBe('');
    board.text = 'something else';
    vi.advanceTimersByTime(SECRET_CLIPBOARD_MS);
    clearSecretNow();
    expect(board.text).toBe('something else');
    expect(board.cleared).toBe(1);
  });
});
