// Progress of `titular bulk run` on stderr: a bar redrawn in place on a terminal, or plain lines
// (every 5 % and at least every 10 seconds) when stderr is a file or a pipe, so logs stay readable.
import type { BulkProgress } from '../../../shared/api/bulk';
import { count, outcomeCounts } from './bulk-counts';

const REDRAW_MS = 100;
const LINE_EVERY_MS = 10_000;
const LINE_STEPS = 20;
const BAR_WIDTH = 24;

/** "1:05:09", "4:07", "0:03"; "?" while unknown. */
export function formatEta(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

export function percent(p: BulkProgress): string {
  return p.total === 0 ? '100%' : `${((p.done * 100) / p.total).toFixed(1)}%`;
}

/** The counts of one progress line, without the bar: those of the summary (bulk-counts.ts), and the rate. */
export function progressText(p: BulkProgress): string {
  const parts = [`${count(p.done)}/${count(p.total)}`, `charged ${count(p.charged)}`, ...outcomeCounts(p)];
  if (p.ratePerSecond !== null) parts.push(`${count(Math.round(p.ratePerSecond))}/s`);
  if (p.etaSeconds !== null) parts.push(`ETA ${formatEta(p.etaSeconds)}`);
  return parts.join('  ');
}

export class ProgressReporter {
  #lastDraw = 0;
  #lastLine = 0;
  #lastStep = -1;
  #drawn = false;

  constructor(private readonly stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }) {}

  get tty(): boolean {
    return this.stream.isTTY === true;
  }

  update(p: BulkProgress, force = false): void {
    const now = Date.now();
    if (this.tty) {
      if (!force && now - this.#lastDraw < REDRAW_MS) return;
      this.#lastDraw = now;
      const filled = p.total === 0 ? BAR_WIDTH : Math.round((p.done / p.total) * BAR_WIDTH);
      const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`;
      const line = `${bar} ${percent(p).padStart(6)}  ${progressText(p)}`;
      const width = (this.stream.columns ?? 100) - 1;
      this.stream.write(`\r\u001b[2K${line.length > width ? line.slice(0, width) : line}`);
      this.#drawn = true;
      return;
    }
    const step = p.total === 0 ? LINE_STEPS : Math.floor((p.done * LINE_STEPS) / p.total);
    if (!force && step === this.#lastStep && now - this.#lastLine < LINE_EVERY_MS) return;
    if (!force && this.#lastLine === 0 && step === 0) {
      // The first line waits for real progress (or the 10 s cadence) instead of printing 0 %.
      this.#lastLine = now;
      this.#lastStep = 0;
      return;
    }
    this.#lastStep = step;
    this.#lastLine = now;
    this.stream.write(`progress ${percent(p)}  ${progressText(p)}\n`);
  }

  /** The last state (without an ETA: the run is over), then a fresh line after the bar. */
  end(last: BulkProgress): void {
    const p = { ...last, etaSeconds: null };
    if (this.tty) {
      this.update(p, true);
      if (this.#drawn) this.stream.write('\n');
    } else if (this.#lastStep !== (p.total === 0 ? LINE_STEPS : Math.floor((p.done * LINE_STEPS) / p.total))) {
      this.update(p, true);
    }
  }
}
