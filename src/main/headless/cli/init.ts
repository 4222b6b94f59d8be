// `titular init`: creates the organization, its first admin and the vault of a data directory.
import { keyFileOf } from '../../core/data-dir';
import { vaultProviderKind } from '../../core/vault/vault';
import { checkInitialization } from '../../core/users/users';
import { UsageError, booleanOption, requiredString } from './args';
import { keyFileWithoutDatabase } from '../../core/db/storage-errors';
import { CliError, openCore, type CommandSpec } from './context';

// Same shape the core accepts; checked here too so a typo fails before anything is created.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const initCommands: CommandSpec[] = [
  {
    name: 'init',
    synopsis: '--org NAME --admin-name NAME --admin-email EMAIL [--new-organization]',
    summary: 'Initialize a data directory: organization, first admin, vault',
    details: [
      '--org NAME            the organization name',
      '--admin-name NAME     the first admin user',
      '--admin-email EMAIL   their email (identifies them in --as and --owner)',
      '--new-organization    set up a folder that holds the key file (master.key) of an earlier',
      '                      setup but no database, which init otherwise refuses: what that setup',
      '                      recorded is not there (if you have a backup, `titular restore FOLDER`',
      '                      brings it back instead); a key-file vault keeps using that master.key',
      '',
      'The vault is protected by a passphrase when TITULAR_PASSPHRASE (8+ characters) or',
      'TITULAR_PASSPHRASE_FILE (a file holding it) is set, otherwise by a random key file',
      '(master.key, mode 0600) in the data directory. Refuses to run twice.',
    ],
    options: {
      org: { type: 'string' },
      'admin-name': { type: 'string' },
      'admin-email': { type: 'string' },
      'new-organization': { type: 'boolean' },
    },
    access: 'setup',
    run(ctx) {
      const orgName = requiredString(ctx.values, 'org', 'init');
      const adminName = requiredString(ctx.values, 'admin-name', 'init');
      const adminEmail = requiredString(ctx.values, 'admin-email', 'init');
      if (!EMAIL.test(adminEmail.trim())) throw new UsageError(`--admin-email is not a valid email address: ${adminEmail}`, 'init');
      // The whole form is checked before the data directory is opened (which creates its database
      // and vault): a refused first run leaves nothing that fixes the vault's protection.
      checkInitialization({ orgName, adminName, adminEmail });
      // A folder whose database was deleted (or emptied) beside its key file is not a new one: a new
      // organization there would start from nothing where the data of the earlier one is missed.
      const earlierSetup = keyFileWithoutDatabase(ctx.dataDir);
      if (earlierSetup && !booleanOption(ctx.values, 'new-organization')) {
        throw new CliError(`${earlierSetup}. To set up a new organization here anyway, pass --new-organization; nothing was changed`);
      }

      const titular = openCore(ctx.dataDir, ctx.env);
      try {
        const alreadyInitialized = (org: { name: string }) =>
          new CliError(`${ctx.dataDir} is already initialized (organization ${org.name}); nothing was changed`);
        const existing = titular.users.organization();
        if (existing) throw alreadyInitialized(existing);
        let initialized: ReturnType<typeof titular.users.initialize>;
        try {
          initialized = titular.users.initialize({ orgName, adminName, adminEmail });
        } catch (error) {
          // Another `init` on this directory got there first (between the check above and here).
          const raced = titular.users.organization();
          throw raced ? alreadyInitialized(raced) : error;
        }
        const { org, admin } = initialized;
        const vault = vaultProviderKind(titular.db);
        const { out } = ctx;
        if (out.json) {
          out.data({ organization: { id: org.id, name: org.name }, admin });
          return;
        }
        out.line(`Initialized Titular in ${ctx.dataDir}`);
        out.fields([
          ['Organization', `${org.name} (${org.id})`],
          ['Admin', `${admin.name} <${admin.email}> (${admin.id})`],
          ['Vault', vault === 'passphrase' ? 'protected by a passphrase (TITULAR_PASSPHRASE or TITULAR_PASSPHRASE_FILE)' : `protected by the key file ${keyFileOf(ctx.dataDir)}`],
        ]);
        if (vault === 'keyfile') out.line(out.style('yellow', 'Back up master.key with the database: without it the stored API keys cannot be revealed.'));
        out.line();
        out.line('Next: add credits (`titular credits add`) and create an API key (`titular keys create`).');
      } finally {
        titular.close();
      }
    },
  },
];
