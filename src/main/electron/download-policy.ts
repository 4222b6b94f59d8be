// What the desktop window may save: the CSV exports the core names (titular-historial-2026-11-23.csv,
// titular-lote-….csv), and nothing else. The screens offer no other download, so a file of another
// name or kind could only come from a renderer made to offer it (a crafted alias that got past React
// and the CSP): an `.exe`, a `.desktop` or a shortcut in the Save dialog, under the app's name.
import type { DownloadItem, Event } from 'electron';

/** A file name the core gives an export: `titular-`, then letters, digits, `.`, `_` or `-`, then `.csv`. */
export function isExportFileName(name: string): boolean {
  return /^titular-[A-Za-z0-9_-][A-Za-z0-9._-]{0,150}\.csv$/.test(name) && !name.includes('..');
}

/** The session's `will-download` handler: an export is saved as CSV; anything else is cancelled. */
export function exportsOnly(event: Event, item: DownloadItem): void {
  if (!isExportFileName(item.getFilename())) {
    event.preventDefault();
    return;
  }
  item.setSaveDialogOptions({ filters: [{ name: 'CSV', extensions: ['csv'] }] });
}
