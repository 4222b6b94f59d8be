// Where a CLI export is written (`history export --output`, `bulk export --out`, `bulk run --export`).
import { existsSync, realpathSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './args';
import { CliError } from './context';
import { folderProblem } from '../../core/folders';
import { isSameOrInside } from '../../core/paths';

/**
 * The file an export writes, resolved against the working directory. A directory is refused by name:
 * the export is written to a temporary file beside its target and renamed, and renaming onto a
 * directory failed with an error about that temporary file in the directory's parent. So is a file
 * in the data directory — renaming an export onto `titular.db` or `master.key` would destroy the
 * database or every stored key — and the file the command reads (`bulk run FILE --export FILE` would
 * replace the list with its results, which a second run would then charge again as a new list).
 */
export function exportTarget(file: string, guard: { dataDir: string; input?: string }): string {
  const target = path.resolve(file);
  if (existsSync(target) && statSync(target).isDirectory()) throw new CliError(`${target} is a directory: name the file to write`);
  // The folder it goes into is not made: a file in its way, or no such folder, is said by name rather
  // than as the temporary file's ENOTDIR/ENOENT.
  const folder = path.dirname(target);
  const problem = folderProblem(folder);
  if (problem) throw new CliError(`Cannot write ${target}: ${problem}`);
  if (!existsSync(folder)) throw new CliError(`Cannot write ${target}: there is no folder ${folder}`);
  // Compared through links: a link to the data directory, or to the input, is the same place.
  const real = path.join(realpathSync(folder), path.basename(target));
  if (isSameOrInside(real, realOrSelf(guard.dataDir))) {
    throw new CliError(`Cannot write ${target}: it is in the data directory ${guard.dataDir}, which holds Titular's database and vault key; choose a file elsewhere`);
  }
  if (guard.input !== undefined && sameFile(real, guard.input)) throw new CliError(`Cannot write ${target}: it is the file being read; choose another file for the results`);
  return target;
}

function realOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/** The same file by path or, when both exist, by device and inode (a hard link). */
function sameFile(a: string, b: string): boolean {
  if (realOrSelf(a) === realOrSelf(b)) return true;
  try {
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/**
 * Why writing an export failed, in words (permission denied, disk full), not as the temporary
 * file's errno line ("EACCES: permission denied, open '/x/.out.csv.11994.tmp'").
 */
export function writeFailure(target: string, error: unknown): CliError {
  const err = error as NodeJS.ErrnoException;
  const reasons: Record<string, string> = {
    EACCES: `permission denied in ${path.dirname(target)}`,
    EPERM: `permission denied in ${path.dirname(target)}`,
    EROFS: 'read-only file system',
    ENOSPC: 'the disk is full',
    EDQUOT: 'the disk quota is used up',
  };
  return new CliError(`Cannot write ${target}: ${(err.code && reasons[err.code]) ?? err.message}`);
}

/** `--json` answers JSON on stdout: with a CSV going to stdout there would be two documents in one stream. */
export function refuseJsonWithCsvOnStdout(json: boolean, command: string, fileFlag: string): void {
  if (json) throw new UsageError(`--json needs ${fileFlag} FILE here: the CSV itself goes to stdout`, command);
}

/**
 * Removes an export's temporary file, if it is there. Never throws: it runs while another error is on
 * its way, and a failed cleanup must not replace that error with its own (a temporary under a file
 * fails with ENOTDIR, which `force` does not cover).
 */
export function removeQuietly(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // Nothing was written there, or nothing can be removed: the real error is the one to report.
  }
}
