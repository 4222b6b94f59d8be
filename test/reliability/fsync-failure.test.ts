// The disk refuses to confirm a write (fdatasync fails with EIO) under durable load. The writes of
// that flush are committed in SQLite's view but may not be on disk, and after a failed fsync the
// kernel may already have dropped them: neither a 200 nor a GE500 would be true. So the server stops
// as after a crash, answering none of them (PostgreSQL's answer to fsyncgate), and says why on stderr.
// After a restart on the same data directory the ledger and the history agree, and every
// interrupted request, sent again with its Idempotency-Key, is charged exactly once in all.
// The failure is real, not a stub: a shared library preloaded into the server process (LD_PRELOAD)
// makes fdatasync of the WAL fail with EIO once a trigger file exists. Needs gcc (skipped without).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../support/invariants';
import { startServer } from '../support/processes';
import { answered, Client, countOf, generatedDirectory, jsonPost, openDatabaseFile, prepareDataDir, type Outcome } from './harness';

const SHIM = `
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int fdatasync(int fd) {
  static int (*real)(int) = 0;
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  const char *trigger = getenv("TITULAR_TEST_FAIL_WAL_SYNC_WHEN");
  if (trigger && access(trigger, F_OK) == 0) {
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n > 4) {
      target[n] = 0;
      if (strcmp(target + n - 4, "-wal") == 0) { errno = EIO; return -1; }
    }
  }
  return real(fd);
}
`;

const work = mkdtempSync(path.join(os.tmpdir(), 'titular-fsync-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The preload library, or null where it cannot be built. */
const shim = ((): string | null => {
  if (process.platform !== 'linux') return null;
  try {
    writeFileSync(path.join(work, 'fail-wal-sync.c'), SHIM);
    execFileSync('gcc', ['-shared', '-fPIC', '-O1', '-o', path.join(work, 'fail-wal-sync.so'), path.join(work, 'fail-wal-sync.c'), '-ldl'], { stdio: 'ignore' });
    return path.join(work, 'fail-wal-sync.so');
  } catch {
    return null;
  }
})();

describe.skipIf(!shim)('a WAL flush that fails (EIO) under durable load', () => {
  it('stops the server without answering what it held; after a restart, idempotent retries charge each request once', { timeout: 60_000 }, async () => {
    const directory = generatedDirectory(200);
    const prepared = prepareDataDir({ keys: { live: {} }, credits: { cbu: 1000 }, directoryCsv: directory.csv });
    const trigger = path.join(work, 'fail-now');
    try {
      const secret = prepared.keys.live.secret;
      const request = (i: number) => jsonPost('/api/v1/lookup', secret, { identifier: directory.cbus[i]!, type: 'cbu' }, { 'idempotency-key': `fsync-${i}` });
      const server = await startServer(['--port', '0', '--data-dir', prepared.dataDir], {
        TITULAR_SYNCHRONOUS: 'FULL',
        LD_PRELOAD: shim!,
        TITULAR_TEST_FAIL_WAL_SYNC_WHEN: trigger,
      });
      const client = new Client(server.url, 20);
      const before = await Promise.all(Array.from({ length: 20 }, (_, i) => client.send(request(i))));
      expect(before.map((o) => answered(o).status)).toEqual(before.map(() => 200));

      writeFileSync(trigger, '');
      const during: Outcome[] = await Promise.all(Array.from({ length: 20 }, (_, i) => client.send(request(20 + i))));
      const code = await server.stop('SIGKILL'); // already gone: resolves with its exit status
      client.close();
      // None of them is answered: not a 200 that a power cut could undo, not a GE500 denying a charge.
      expect(during.filter((o) => o.kind === 'answer').map((o) => answered(o).status)).toEqual([]);
      expect(code).toBe(1);
      expect(server.output()).toMatch(
        new RegExp(`titular serve: the disk did not confirm a write to ${prepared.dataDir.replaceAll('/', '\\/')} \\(EIO\\): Titular stopped\\.`),
      );

      // Restarted without the failing disk: what the disk holds is the truth, and retries settle it.
      rmSync(trigger);
      const again = await startServer(['--port', '0', '--data-dir', prepared.dataDir], { TITULAR_SYNCHRONOUS: 'FULL' });
      const retryClient = new Client(again.url, 20);
      try {
        const retried = await Promise.all(Array.from({ length: 20 }, (_, i) => retryClient.send(request(20 + i))));
        expect(retried.map((o) => answered(o).status)).toEqual(retried.map(() => 200));
        const replayed = retried.filter((o) => answered(o).headers['idempotent-replayed'] === 'true').length;
        process.stdout.write(`[reliability] fsync-failure: ${replayed} of 20 retries replayed (committed before the stop), ${20 - replayed} ran fresh\n`);
      } finally {
        retryClient.close();
        expect(await again.stop()).toBe(0);
      }
      const db = openDatabaseFile(prepared.dataDir);
      try {
        const [totals] = checkLedgerInvariants(db);
        expect(totals!.balance).toBe(1000 - 40);
        expect(countOf(db, 'SELECT count(*) AS n FROM lookups WHERE credit_consumed = 1')).toBe(40);
        expect(countOf(db, 'SELECT count(DISTINCT input_identifier) AS n FROM lookups WHERE credit_consumed = 1')).toBe(40);
      } finally {
        db.close();
      }
    } finally {
      rmSync(prepared.dataDir, { recursive: true, force: true });
    }
  });
});
