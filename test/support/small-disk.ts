// A disk that fills up: a tmpfs of a few KiB, to see what Titular does when a write runs out of
// space. Mounting needs root (as on this project's CI machine); elsewhere `mountSmallDisk` answers
// null and the tests that need it are skipped.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface SmallDisk {
  dir: string;
  unmount(): void;
}

export function mountSmallDisk(sizeKiB: number): SmallDisk | null {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return null;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'titular-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k,mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  return {
    dir,
    unmount() {
      execFileSync('umount', [dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether this machine can mount one (checked once, by mounting and unmounting). */
export const canMountSmallDisk = (() => {
  const probe = mountSmallDisk(16);
  probe?.unmount();
  return probe !== null;
})();
