// A file system's refusal said in words, for the sentences Titular says instead of an errno line
// ("EACCES: permission denied, mkdir '/srv/titular-antes-de-restaurar-…'"). One list for the backup,
// the restore and the folders Titular makes.
const WORDS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  EXDEV: 'the files cannot be moved to another disk',
  EIO: 'input/output error: the disk may be failing',
};

/** "permission denied", "read-only file system", … for an error the file system answered with one of these, else null. */
export function fileSystemRefusal(error: unknown): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === undefined ? null : (WORDS[code] ?? null);
}
