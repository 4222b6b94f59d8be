// `titular backup FOLDER`: a consistent copy of the data directory, taken while Titular runs (the
// desktop, a server, other commands), into a new or empty folder (core/backup/backup.ts).
// `titular restore FOLDER`: puts such a copy in place, Titular closed (core/backup/restore.ts).
import { restoreDataDir } from '../../core/backup/restore';
import { UsageError } from './args';
import { firstAdmin, openCore, type CommandSpec } from './context';

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
      '--data-dir FOLDER; restore it with `titular restore FOLDER` while Titular is closed.',
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
      ctx.out.line(`Open it with --data-dir ${result.directory}; restore it with \`titular restore ${result.directory}\` while Titular is closed.`);
    },
  },
  {
    name: 'restore',
    synopsis: 'FOLDER',
    summary: 'Put a backup in place of the data directory\'s data (Titular closed)',
    details: [
      'FOLDER   a backup made by `titular backup` (or Ajustes): its titular.db and, for a key-file',
      '         vault, master.key',
      '',
      'The backup is checked first (whole, readable, with its organization and the key file its vault',
      'needs), and refused while the desktop, a server or another command has the data directory open.',
      'Nothing is deleted: the data it replaces moves to <data directory>-antes-de-restaurar-<time>,',
      'beside it. A passphrase vault opens with the passphrase it had when the backup was made.',
    ],
    options: {},
    maxArgs: 1,
    // The data directory may hold nothing, or nothing that opens (what a restore repairs): the
    // command does not open it as a session, and acts as the restored data's first admin.
    access: 'setup',
    async run(ctx) {
      const folder = ctx.args[0];
      if (folder === undefined) throw new UsageError('Missing FOLDER: titular restore FOLDER', ctx.command);
      const result = await restoreDataDir({ backup: folder, dataDir: ctx.dataDir });
      // Opened locked, as the backup was taken: no passphrase or keychain is needed to record it.
      const titular = openCore(result.dataDir, ctx.env, true);
      try {
        const org = titular.users.requireOrganization();
        titular.audit.record({
          orgId: org.id,
          actorUserId: firstAdmin(titular.users.list(org.id))?.id ?? null,
          action: 'data.restored',
          targetType: 'data',
          details: { from: result.backup, previous: result.previous },
        });
      } finally {
        titular.close();
      }
      if (ctx.out.json) {
        ctx.out.data(result);
        return;
      }
      ctx.out.line(`Restored ${result.backup} into ${result.dataDir} (organization ${result.organization}).`);
      ctx.out.line(
        result.previous === null
          ? 'The data directory held no data before.'
          : `The data it replaced is in ${result.previous}: move it back to undo the restore.`,
      );
      if (result.protection === 'os') ctx.out.line(PROTECTION_NOTE.os);
    },
  },
];
