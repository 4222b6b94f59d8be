// `titular keys create|list|show|rotate|revoke`. A secret is printed only by create, show and
// rotate, whose job it is; everything else shows the display prefix.
import { parseWhitelistEntry } from '../../core/keys/ip-whitelist';
import { MAX_ACTIVE_KEYS, MAX_RATE_LIMIT_PER_SECOND, type ApiKeyView } from '../../core/keys/api-keys';
import { TitularError } from '../../core/errors';
import { scopeSchema } from '../../../shared/api/common';
import {
  UsageError,
  booleanOption,
  futureInstant,
  listOption,
  namingFlags,
  oneOf,
  requiredString,
  stringOption,
  wholeNumber,
} from './args';
import { userByEmail, firstAdmin, CliError, type CommandSpec, type SessionContext } from './context';
import { formatInstant, type Output } from './output';

const PRODUCTS = ['cbu', 'informes'] as const;
const SCOPES = scopeSchema.options;
/** The widest the NAME column of `keys list` gets. */
const NAME_COLUMN_WIDTH = 24;

function keyId(ctx: SessionContext): string {
  const id = ctx.args[0];
  if (id === undefined || id.trim() === '') throw new UsageError(`Missing key ID: titular ${ctx.command} ID (see \`titular keys list\`)`, ctx.command);
  return id.trim();
}

function environmentLabel(key: ApiKeyView): string {
  return key.environment === 'live' ? 'live' : 'sandbox';
}

function whitelistLabel(whitelist: string[] | null): string {
  if (whitelist === null) return 'unreadable (damaged in the database): no address may use this key; revoke it and create a new one';
  return whitelist.length > 0 ? whitelist.join(', ') : 'any address';
}

/** The key's name in the `keys list` table: "-" when it has none, a long one cut (`keys show` has it whole). */
function tableName(name: string | null): string {
  if (name === null || name.trim() === '') return '-';
  const chars = [...name.trim()];
  return chars.length > NAME_COLUMN_WIDTH ? `${chars.slice(0, NAME_COLUMN_WIDTH - 1).join('')}…` : chars.join('');
}

function describeKey(out: Output, key: ApiKeyView): void {
  out.fields([
    ['ID', key.id],
    ['Name', key.name ?? '-'],
    ['Prefix', key.prefix],
    ['Product', key.product],
    ['Environment', environmentLabel(key)],
    ['Scopes', key.scopes.join(',')],
    ['Status', key.status],
    ['IP whitelist', whitelistLabel(key.ipWhitelist)],
    ['Rate limit', `${key.rateLimitPerSecond}/s (burst ${key.rateLimitBurst})`],
    ['Owner', `${key.owner.name} <${key.owner.email}>`],
    ['Created', formatInstant(key.createdAt)],
    ['Expires', key.expiresAt ? formatInstant(key.expiresAt) : 'never'],
    ['Rotated', formatInstant(key.rotatedAt)],
    ['Revoked', formatInstant(key.revokedAt)],
    ['Last used', formatInstant(key.lastUsedAt)],
  ]);
}

/** Prints a secret for a human: on its own line, with how to see it again. */
function printSecret(out: Output, label: string, secret: string, id: string): void {
  out.line();
  out.line(`${label}:`);
  out.line();
  out.line(`  ${secret}`);
  out.line();
  // Not "it will not be shown again": the vault keeps it sealed, and `keys show` reveals it (each
  // reveal recorded as key.revealed in the audit log: core/keys/api-keys.ts reveal).
  out.line(out.style('yellow', `Copy it now. An admin can reveal it again later with \`titular keys show ${id}\` (each reveal is recorded in the audit log).`));
}

export const keyCommands: CommandSpec[] = [
  {
    name: 'keys create',
    synopsis: '--product cbu|informes --scopes SCOPES [--sandbox] [--ip ADDR]... [--expires DATE] [--rate-limit N] [--owner EMAIL] [--name LABEL]',
    summary: 'Create an API key (the secret is printed once)',
    details: [
      '--product cbu|informes   the product the key may use',
      '--scopes LIST            comma-separated: lookup,balance,history',
      '--sandbox                a test key (sk_test_…): sample data, no credits',
      '--ip ADDR_OR_CIDR        allow only this address or range; repeat for several',
      '--expires DATE           ISO 8601 date (valid through that day, UTC) or instant',
      '--rate-limit N           requests per second (default 10); bursts reach 2 × N, and at least 20',
      '--owner EMAIL            the user lookups are recorded under (default: the first admin)',
      '--name LABEL             a label to recognize the key',
      '',
      `An organization may have at most ${MAX_ACTIVE_KEYS} active keys.`,
      'With --json prints only {"id": ..., "key": ...}.',
    ],
    options: {
      product: { type: 'string' },
      scopes: { type: 'string' },
      sandbox: { type: 'boolean' },
      ip: { type: 'string', multiple: true },
      expires: { type: 'string' },
      'rate-limit': { type: 'string' },
      owner: { type: 'string' },
      name: { type: 'string' },
    },
    access: 'admin',
    // Seals the new secret.
    vault: 'unlocked',
    run(ctx) {
      const command = ctx.command;
      const product = oneOf(requiredString(ctx.values, 'product', command), PRODUCTS, '--product', command);
      const scopes = listOption(ctx.values, 'scopes').map((s) => oneOf(s, SCOPES, '--scopes', command));
      if (scopes.length === 0) throw new UsageError(`Missing required option --scopes for ${command} (e.g. --scopes lookup,balance,history)`, command);
      const ipWhitelist = listOption(ctx.values, 'ip').map((entry) => {
        try {
          return parseWhitelistEntry(entry);
        } catch (error) {
          if (error instanceof TitularError) throw new UsageError(`--ip: ${error.message}`, command);
          throw error;
        }
      });
      const expiresRaw = stringOption(ctx.values, 'expires');
      const expiresAt = expiresRaw === undefined ? null : futureInstant(expiresRaw, '--expires', command);
      const rateRaw = stringOption(ctx.values, 'rate-limit');
      // The core's bounds, said as every number is (`-5`, `99999999999999999999`: the range; `abc`, `1e3`: not a whole number).
      const rateLimitPerSecond = rateRaw === undefined ? null : wholeNumber(rateRaw, '--rate-limit', command, { min: 1, max: MAX_RATE_LIMIT_PER_SECOND });
      const ownerEmail = stringOption(ctx.values, 'owner');
      const owner = ownerEmail !== undefined ? userByEmail(ctx, ownerEmail, '--owner') : firstAdmin(ctx.titular.users.list(ctx.org.id));
      if (!owner) throw new CliError('No admin user to own the key; pass --owner EMAIL');

      const flagSubjects = [
        ['rate limit', '--rate-limit', rateRaw],
        ['expiration', '--expires', expiresRaw],
        ['The key name', '--name', undefined],
      ] as const;
      const { key, secret } = namingFlags(command, flagSubjects, () => ctx.titular.keys.create({
        orgId: ctx.org.id,
        ownerUserId: owner.id,
        actorUserId: ctx.actor.id,
        product,
        scopes,
        environment: booleanOption(ctx.values, 'sandbox') ? 'sandbox' : 'live',
        name: stringOption(ctx.values, 'name') ?? null,
        ipWhitelist,
        expiresAt,
        rateLimitPerSecond,
      }));
      if (ctx.out.json) {
        ctx.out.data({ id: key.id, key: secret });
        return;
      }
      ctx.out.line(`Created ${environmentLabel(key)} key ${key.id} for ${key.product} (${key.scopes.join(',')})`);
      printSecret(ctx.out, 'API key', secret, key.id);
    },
  },
  {
    name: 'keys list',
    synopsis: '',
    summary: 'List the API keys (never their secrets)',
    options: {},
    access: 'admin',
    vault: 'locked',
    run(ctx) {
      const keys = ctx.titular.keys.list(ctx.org.id);
      if (ctx.out.json) {
        ctx.out.data({ keys });
        return;
      }
      ctx.out.table(
        ['ID', 'NAME', 'PREFIX', 'PRODUCT', 'ENV', 'SCOPES', 'STATUS', 'EXPIRES', 'LAST USED'],
        keys.map((k) => [
          k.id,
          tableName(k.name),
          k.prefix,
          k.product,
          environmentLabel(k),
          k.scopes.join(','),
          // A whitelist that cannot be read refuses the key from every address: said where admins look.
          k.status === 'active' && k.ipWhitelist === null ? 'active (IP whitelist unreadable: see keys show)' : k.status,
          k.expiresAt ? formatInstant(k.expiresAt) : 'never',
          k.lastUsedAt ? formatInstant(k.lastUsedAt) : 'never',
        ]),
        'No API keys yet; create one with `titular keys create`.',
      );
    },
  },
  {
    name: 'keys show',
    synopsis: 'ID',
    summary: 'Show a key and reveal its secret (audited)',
    options: {},
    maxArgs: 1,
    access: 'admin',
    // Opens the secret to print it.
    vault: 'unlocked',
    run(ctx) {
      const id = keyId(ctx);
      const view = ctx.titular.keys.get(ctx.org.id, id);
      const secret = ctx.titular.keys.reveal(ctx.org.id, id, ctx.actor.id);
      if (ctx.out.json) {
        const { id: _id, ...rest } = view;
        ctx.out.data({ id: view.id, key: secret, ...rest });
        return;
      }
      describeKey(ctx.out, view);
      ctx.out.line();
      ctx.out.line('Key:');
      ctx.out.line();
      ctx.out.line(`  ${secret}`);
      if (view.status !== 'active') {
        ctx.out.line();
        ctx.out.line(ctx.out.style('yellow', `This key is ${view.status}: the API rejects it.`));
      }
    },
  },
  {
    name: 'keys rotate',
    synopsis: 'ID',
    summary: 'Give a key a new secret; the old one stops working at once',
    options: {},
    maxArgs: 1,
    access: 'admin',
    // Seals the new secret.
    vault: 'unlocked',
    run(ctx) {
      const { key, secret } = ctx.titular.keys.rotate(ctx.org.id, keyId(ctx), ctx.actor.id);
      if (ctx.out.json) {
        ctx.out.data({ id: key.id, key: secret });
        return;
      }
      ctx.out.line(`Rotated key ${key.id}; the previous secret no longer works.`);
      printSecret(ctx.out, 'New API key', secret, key.id);
    },
  },
  {
    name: 'keys revoke',
    synopsis: 'ID',
    summary: 'Revoke a key (immediate and final)',
    options: {},
    maxArgs: 1,
    access: 'admin',
    vault: 'locked',
    run(ctx) {
      const id = keyId(ctx);
      const before = ctx.titular.keys.get(ctx.org.id, id);
      const key = ctx.titular.keys.revoke(ctx.org.id, id, ctx.actor.id);
      if (ctx.out.json) {
        ctx.out.data({ ...key, alreadyRevoked: before.revokedAt !== null });
        return;
      }
      ctx.out.line(before.revokedAt !== null ? `Key ${key.id} was already revoked (${formatInstant(key.revokedAt)}).` : `Revoked key ${key.id} (${key.prefix}).`);
    },
  },
];
