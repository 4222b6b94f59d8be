// Where a CLI export is written (`history export --output`, `bulk export --out`, `bulk run --export`).
import { existsSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './args';
import { CliError } from './context';
import { folderProblem } from '../../core/folders';

/**
 * The file an export writes, resolved against the working directory. A directory is refused by name:
 * the export is written to a temporary file beside its target and renamed, and renaming onto a
 * directory failed with an error about that temporary file in the directory's parent.
 */
export function exportTarget(file: string): string {
  const target = path.resolve(file);
  if (existsSync(target) && statSync(target).isDirectory()) throw new CliError(`${target} is a directory: name the file to write`);
  // The folder it goes into is not made: a file in its way, or no such folder, is said by name rather
  // than as the temporary file's ENOTDIR/ENOENT.
  const folder = path.dirname(target);
  const problem = folderProblem(folder);
  if (problem) throw new CliError(`Cannot write ${target}: ${problem}`);
  if (!existsSync(folder)) throw new CliError(`Cannot write ${target}: there is no folder ${folder}`);
  return target;
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
