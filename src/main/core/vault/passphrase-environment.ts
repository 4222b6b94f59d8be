// The vault passphrase given outside the UI: TITULAR_PASSPHRASE, or the file TITULAR_PASSPHRASE_FILE
// names (a container secret, a systemd credential, a file only its owner reads). A variable is readable
// by the process's user for the process's whole life (/proc/PID/environ keeps the environment the
// process started with, whatever it deletes later) and is passed to every child; a file can be
// owner-only and its name tells nothing. Shared by serve, the CLI and the desktop, so each reads them alike.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The longest passphrase a file may hold, as the unlock screen's (the IPC contract's 1,024 characters). */
const MAX_FILE_BYTES = 1024 * 4;

/** TITULAR_PASSPHRASE and TITULAR_PASSPHRASE_FILE that cannot be used; the message names the variable, never the secret. */
export class PassphraseEnvironmentError extends Error {
  override name = 'PassphraseEnvironmentError';
}

/**
 * The passphrase the environment gives, or undefined when it gives none (both unset or empty). A
 * file's one trailing line ending is not part of it (`echo secret > file` writes one); anything else
 * in the file is. Read each time it is asked for: a secret file replaced is read anew.
 */
export function passphraseFromEnvironment(env: NodeJS.ProcessEnv): string | undefined {
  const inline = env.TITULAR_PASSPHRASE || undefined;
  const file = env.TITULAR_PASSPHRASE_FILE || undefined;
  if (inline !== undefined && file !== undefined) {
    throw new PassphraseEnvironmentError('Set TITULAR_PASSPHRASE or TITULAR_PASSPHRASE_FILE, not both');
  }
  if (file === undefined) return inline;
  const where = `TITULAR_PASSPHRASE_FILE: ${path.resolve(file)}`;
  let text: string;
  try {
    if (statSync(file).size > MAX_FILE_BYTES) throw new PassphraseEnvironmentError(`${where} is larger than 4 KiB; it should hold the passphrase only`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof PassphraseEnvironmentError) throw error;
    throw new PassphraseEnvironmentError(`${where} cannot be read (${reasonOf(error as NodeJS.ErrnoException)})`);
  }
  const passphrase = text.replace(/\r?\n$/, '');
  if (passphrase === '') throw new PassphraseEnvironmentError(`${where} is empty`);
  return passphrase;
}

function reasonOf(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a folder';
    default:
      return error.code ?? 'unreadable';
  }
}
