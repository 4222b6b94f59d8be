// `titular backup FOLDER`: a consistent copy of the data directory, taken while Titular runs (the
// desktop, a server, other commands), into a new or empty folder (core/backup/backup.ts).
import { UsageError } from './args';
import type { CommandSpec } from './context';

const PROTECTION_NOTE = {
  keyfile: 'The vault\'s key file is in the copy: keep the copy as private as the data directory.',
  passphrase: 'The copy\'s vault opens with the same passphrase.',
  os: 'The copy\'s vault is sealed by this computer\'s keychain: elsewhere its stored API keys cannot be revealed (the ledger and history read as usual).',
} as const;

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  return bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export const backupCommands: CommandSpec[] = [
  {
    name: 'backup',
    synopsis: 'FOLDER',
    summary: 'Copy the data directory consistently, while Titular runs',
    details: [
      'FOLDER   a new or empty folder (created 0700); receives titular.db and, for a key-file',
      '         vault, master.key (both 0600)',
      '',
      'The copy is taken in one read of the database: every charge with its history entry, as of the',
      'last commit before it began; servers and the desktop keep answering meanwhile. Open the copy with',
      '--data-dir FOLDER; restore it by putting it in place of the data directory while Titular is closed.',
    ],
    options: {},
    maxArgs: 1,
    access: 'admin',
    // The copy is of the sealed vault: no passphrase or keychain is needed to take it.
    vault: 'locked',
    async run(ctx) {
      const folder = ctx.args[0];
      if (folder === undefined) throw new UsageError('Missing FOLDER: titular backup FOLDER', ctx.command);
      const result = await ctx.titular.backup(folder, { orgId: ctx.org.id, userId: ctx.actor.id });
      if (ctx.out.json) {
        ctx.out.data(result);
        return;
      }
      const files = result.files.map((f) => `${f.name} (${size(f.bytes)})`).join(', ');
      ctx.out.line(`Backed up to ${result.directory}: ${files}.`);
      ctx.out.line(PROTECTION_NOTE[result.protection]);
      ctx.out.line(`Open it with --data-dir ${result.directory}; restore it by putting it in place of the data directory while Titular is closed.`);
    },
  },
];
