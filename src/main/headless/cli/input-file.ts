// Reading an input file named on the command line (directory imports, bulk lookups): UTF-8 text of
// at most 256 MiB, with a message an admin can act on when it is missing, too large or not UTF-8.
import { readFileSync, statSync } from 'node:fs';
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
