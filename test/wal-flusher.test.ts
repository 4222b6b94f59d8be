// The durable group commit's WAL flush keeps one descriptor on the WAL (db/wal-flusher.ts): it is
// reused from flush to flush, replaced as soon as the path names another file, and closed only
// once the flush in flight has ended.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WalFlusher } from '../src/main/core/db/wal-flusher';

let dir: string;
let wal: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'titular-wal-flusher-'));
  wal = path.join(dir, 'titular.db-wal');
  writeFileSync(wal, 'frames');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** This process's open descriptors on files of the test directory (deleted ones included). */
function openOnDir(): string[] {
  const links: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir)) links.push(target);
    } catch {
      // the descriptor readdir itself used, closed meanwhile
    }
  }
  return links;
}

const flush = (flusher: WalFlusher) => new Promise<Error | null>((resolve) => flusher.sync(resolve));

describe('WalFlusher', () => {
  it('flushes through one descriptor, kept from flush to flush, and closes it', async () => {
    const flusher = new WalFlusher(wal);
    expect(openOnDir()).toEqual([]);
    for (let i = 0; i < 20; i++) expect(await flush(flusher)).toBeNull();
    expect(openOnDir()).toEqual([wal]);
    flusher.close();
    expect(openOnDir()).toEqual([]);
  });

  it('close() during a flush waits for it: the flush succeeds, then the descriptor is closed', async () => {
    const flusher = new WalFlusher(wal);
    const inFlight = flush(flusher);
    flusher.close();
    expect(openOnDir()).toEqual([wal]);
    expect(await inFlight).toBeNull();
    expect(openOnDir()).toEqual([]);
    expect(await flush(flusher)).toBeInstanceOf(Error);
  });

  it('a path that comes to name another file is reopened by the next flush', async () => {
    const flusher = new WalFlusher(wal);
    expect(await flush(flusher)).toBeNull();
    const replacement = path.join(dir, 'replacement');
    writeFileSync(replacement, 'other frames');
    renameSync(replacement, wal);
    expect(openOnDir()).toEqual([`${wal} (deleted)`]);
    expect(await flush(flusher)).toBeNull();
    expect(openOnDir()).toEqual([wal]);
    flusher.close();
  });

  it('replaced while a flush runs on it: the old descriptor is closed only once that flush ends', async () => {
    const flusher = new WalFlusher(wal);
    expect(await flush(flusher)).toBeNull();
    const inFlight = flush(flusher);
    const replacement = path.join(dir, 'replacement');
    writeFileSync(replacement, 'other frames');
    renameSync(replacement, wal);
    flusher.syncNow();
    expect(openOnDir().sort()).toEqual([wal, `${wal} (deleted)`]);
    expect(await inFlight).toBeNull();
    expect(openOnDir()).toEqual([wal]);
    flusher.close();
  });

  it('a WAL that is gone is reported to the waiting writes, not flushed silently', async () => {
    rmSync(wal);
    const flusher = new WalFlusher(wal);
    const error = await flush(flusher);
    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
    flusher.close();
  });
});
