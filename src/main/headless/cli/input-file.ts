// Reading an input file named on the command line (directory imports, bulk lookups): UTF-8 text of
// at most 256 MiB, with a message an admin can act on when it is missing, too large or not UTF-8.
import { readFileSync, statSync } from 'node:fs';
import { isValueRefusal } from './args';
import { CliError } from './context';

const MAX_FILE_BYTES = 256 * 1024 * 1024;

export function readInputText(file: string): string {
  let bytes: Buffer;
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) throw new CliError(`${file} is a directory, not a file`);
    if (stat.size > MAX_FILE_BYTES) throw new CliError(`${file} is too large (${Math.round(stat.size / 1048576)} MiB; at most 256 MiB)`);
    bytes = readFileSync(file);
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(code === 'ENOENT' ? `No such file: ${file}` : `Cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new CliError(`${file} is not UTF-8 text; in Excel use "Save as > CSV UTF-8"`);
  }
}

/**
 * Runs `fn`, which hands a file's content to the core. The core's INVALID_PARAMETER there is about
 * what the file holds (empty, a header only, no identifier column), not about the command line: the
 * CLI reports it as a failed operation naming the file (exit 1, as `directory import` reports a bad
 * file), not as a usage error (exit 2, which report() makes of the core's other INVALID_PARAMETERs:
 * values of flags).
 */
export function withFileContent<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (isValueRefusal(error)) {
      throw new CliError(`${file}: ${error.message}`);
    }
    throw error;
  }
}
