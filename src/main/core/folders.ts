// The folders Titular is given (a data directory, a backup's folder, where an export goes): made
// when missing, or refused naming what is in the way (a file where a folder should be), instead of
// failing with mkdir's EEXIST or ENOTDIR.
import { lstatSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { stateRefusal } from './errors';
import { fileSystemRefusal } from './fs-refusal';

/**
 * Why `folder` cannot be a folder — it, or a folder above it, is a file (or a link to nothing) — or
 * null when it is one or can be made. `label` opens the message ("The data directory"). Shared by
 * every place that makes a folder it is given (openTitular's data directory, a backup's, a restore's
 * data directory) and by the CLI's check of --data-dir, so each names the path in the way instead of
 * failing with mkdir's EEXIST or ENOTDIR.
 */
export function folderProblem(folder: string, label?: string): string | null {
  const target = path.resolve(folder);
  const named = label ? `${label} ${target}` : target;
  for (let current = target; ; current = path.dirname(current)) {
    let what: string | null = null;
    try {
      const stat = statSync(current);
      if (stat.isDirectory()) return null;
      what = stat.isFile() ? 'is a file, not a folder' : 'is not a folder';
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Not there (or under a file): the folder above decides. Anything else (EACCES) mkdir reports.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return null;
      if (code === 'ENOENT' && isLink(current)) what = 'is a link to nothing, not a folder';
    }
    if (what !== null) return current === target ? `${named} ${what}` : `${named} cannot be created: ${current} ${what}`;
    if (path.dirname(current) === current) return null;
  }
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Makes `folder` and the folders above it (new ones with `mode`), or refuses naming what is in the
 * way (folderProblem) or why it cannot be made (permissions): a StateRefusal, never a bare fs error.
 * Answers whether it made `folder` itself.
 */
export function ensureFolder(folder: string, options: { mode?: number; label?: string; advice?: string } = {}): boolean {
  const problem = folderProblem(folder, options.label);
  const advise = (message: string) => stateRefusal(options.advice ? `${message}; ${options.advice}` : message);
  if (problem) throw advise(problem);
  try {
    return mkdirSync(folder, { recursive: true, mode: options.mode ?? 0o700 }) !== undefined;
  } catch (error) {
    const reason = fileSystemRefusal(error) ?? (error as Error).message;
    throw advise(`${options.label ? `${options.label} ` : ''}${path.resolve(folder)} cannot be created (${reason})`);
  }
}
