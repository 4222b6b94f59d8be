// The desktop window saves only the exports the core names (src/main/electron/download-policy.ts), on
// plain Node: the names the core gives its history and batch files pass, with any batch name; a file
// of another name or kind is cancelled before the Save dialog opens.
import type { DownloadItem, Event } from 'electron';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from './support/fixture';
import { DIR } from './support/directory-data';
import { dispatch } from '../src/main/core/ipc/handlers';
import { exportsOnly, isExportFileName } from '../src/main/electron/download-policy';

let f: Fixture;
beforeAll(async () => {
  f = await createFixture({ credits: { cbu: 10 } });
});
afterAll(() => f.close());

/** What the shell's handler does with a download of this name: cancelled, or saved with these filters. */
function decide(fileName: string): { cancelled: boolean; filters?: unknown } {
  let cancelled = false;
  let filters: unknown;
  const event = { preventDefault: () => (cancelled = true) } as unknown as Event;
  const item = { getFilename: () => fileName, setSaveDialogOptions: (options: { filters?: unknown }) => (filters = options.filters) } as unknown as DownloadItem;
  exportsOnly(event, item);
  return { cancelled, filters };
}

describe('download policy', () => {
  it('lets through every export the core names, in both languages and with any batch name', async () => {
    const session = { userId: f.adminId };
    const call = async <T>(channel: string, input: unknown) => (await dispatch(f.titular, session, channel, input)) as T;
    const fileName = async (channel: string, input: unknown) => (await call<{ fileName: string }>(channel, input)).fileName;
    const names = [await fileName('history.exportCsv', {}), await fileName('history.exportCsv', { language: 'en' })];
    for (const name of ['Lista pegada 23/11/2026, 14:05:37', 'Cobranzas Ñandú (marzo).csv', '../../../.bashrc', 'sk_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345', `${'a'.repeat(59)}.b 2026-11-23`, '']) {
      const { job } = await call<{ job: { id: string } }>('bulk.create', { name, product: 'cbu', content: DIR.company.cbu });
      names.push(await fileName('bulk.exportCsv', { id: job.id }), await fileName('bulk.exportCsv', { id: job.id, language: 'en' }));
      await call('bulk.cancel', { id: job.id });
    }
    for (const name of names) {
      expect(isExportFileName(name), name).toBe(true);
      expect(decide(name), name).toEqual({ cancelled: false, filters: [{ name: 'CSV', extensions: ['csv'] }] });
    }
  });

  it('cancels any other file: another kind, a path, a hidden or doubled extension, another name', () => {
    for (const name of ['titular-historial.exe', 'titular-lote.csv.lnk', 'titular-x.desktop', 'invoice.csv', 'titular-.csv.', 'titular-../x.csv', 'titular-a/b.csv', 'titular-a\\b.csv', '.titular-a.csv', 'titular-a..csv', `titular-${'a'.repeat(200)}.csv`, 'titular-\u202Evsc.exe', '']) {
      expect(decide(name), name).toEqual({ cancelled: true, filters: undefined });
    }
  });
});
