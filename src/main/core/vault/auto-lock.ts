// The vault's auto-lock: after the admin's idle time (setting `vault.autoLockMinutes`; 0 = off)
// without a call from the desktop's screens, the data key is dropped from memory (Titular.lockVault).
// One rule for both places the screens are served from: the Electron window's IPC
// (src/main/index.ts) and the browser mode's bridge (http/bridge.ts), which had none.
import type { Titular } from '../titular';

/**
 * Calls the screens make on their own: a bulk job's progress (every second or so while it runs) and
 * the vault's state (every few seconds while a key is on screen, to hide it once the vault locks).
 * Not a person at the computer, so they do not hold off the auto-lock.
 */
const POLLING_CHANNELS: ReadonlySet<string> = new Set(['bulk.get', 'bulk.list', 'vault.status']);

export class VaultAutoLock {
  #timer: NodeJS.Timeout | null = null;

  constructor(private readonly titular: Titular) {
    this.#restart();
  }

  /** A screen called `channel`: a person's call starts the idle time again, a poll does not. */
  called(channel: string): void {
    if (!POLLING_CHANNELS.has(channel)) this.#restart();
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #restart(): void {
    this.stop();
    // Read at every call: a new idle time from Ajustes applies from the next call on.
    const minutes = this.titular.settings.get('vault.autoLockMinutes');
    if (minutes === 0) return;
    this.#timer = setTimeout(() => this.titular.lockVault(), minutes * 60_000);
    // Never what keeps a process alive: the server or the window does that.
    this.#timer.unref();
  }
}
