// `titular audit`: reads the organization's audit log (core/audit/audit-log.ts), newest first: who
// made a backup or restored one, created, revealed, rotated or revoked a key, changed a setting,
// bought credits, imported the directory, and the remote resolver's upstream errors. The log's
// details never hold a secret (a key appears by its display prefix only; upstream messages are
// redacted before they are recorded), so they are printed as they are.
import { oneOf, stringOption, wholeNumber } from './args';
import type { CommandSpec } from './context';
import { formatInstant, sanitize } from './output';

/** What the entries are about: the core's targetType of each kind of event. */
export const AUDIT_TYPES = ['api_key', 'user', 'credits', 'settings', 'data', 'vault', 'directory'] as const;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 10_000;

export const auditCommands: CommandSpec[] = [
  {
    name: 'audit',
    synopsis: `[--limit N] [--type ${AUDIT_TYPES.join('|')}]`,
    summary: 'Show the audit log, newest first (backups, restores, keys, settings, credits, users)',
    details: [
      `--limit N     how many entries (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT.toLocaleString('en')})`,
      '--type TYPE   only entries about: api_key, user, credits, settings, data (backups and',
      '              restores), vault or directory',
      '',
      'One line per entry: local time, who (an email, or "system" for what Titular did by itself,',
      'such as remote.upstream_error), action, target id ("-" when none) and the details as JSON.',
      'With --json: an array of entries {id, action, targetType, targetId, details, createdAt, actor}.',
    ],
    options: { limit: { type: 'string' }, type: { type: 'string' } },
    access: 'admin',
    // Reads no secret: a passphrase vault is not asked for its passphrase.
    vault: 'locked',
    run(ctx) {
      const rawLimit = stringOption(ctx.values, 'limit');
      const limit = rawLimit === undefined ? DEFAULT_LIMIT : wholeNumber(rawLimit, '--limit', ctx.command, { min: 1, max: MAX_LIMIT });
      const rawType = stringOption(ctx.values, 'type');
      const targetType = rawType === undefined ? undefined : oneOf(rawType, AUDIT_TYPES, '--type', ctx.command);
      const entries = ctx.titular.audit.list(ctx.org.id, { targetType, limit });
      if (ctx.out.json) {
        ctx.out.data(entries);
        return;
      }
      if (entries.length === 0) {
        ctx.out.line(targetType ? `(no ${targetType} entries in the audit log)` : '(the audit log is empty)');
        return;
      }
      const rows = entries.map((e) => [formatInstant(e.createdAt), e.actor?.email ?? 'system', e.action, e.targetId ?? '-', JSON.stringify(e.details)].map(sanitize));
      const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => [...r[i]!].length)));
      for (const row of rows) {
        ctx.out.line(row.map((cell, i) => (i < widths.length ? cell.padEnd(widths[i]! + cell.length - [...cell].length) : cell)).join('  '));
      }
    },
  },
];
