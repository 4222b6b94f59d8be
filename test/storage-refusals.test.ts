// A data directory whose files Titular cannot use, met by `serve` and the CLI as processes: another
// user's files (the service runs as `nobody`, the folder was set up or restored by root), a read-only
// disk, a damaged database, a key file without its database, a key file others can read, damaged or
// unreadable, and a port in use. Each is refused at start, exit 1, with one sentence naming the file
// and the fix, and changes nothing; the Spanish of the desktop's start-up box is checked against the
// very sentences said here.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, cpSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryCommand } from './support/processes';
import { prepareDataDir } from './support/data-dir';
import { serverMessageInSpanish } from '../src/shared/messages-es';

const TIMEOUT_MS = 60_000;
const NOBODY = 65534;
const asRoot = process.platform === 'linux' && process.getuid?.() === 0;
/** Runs a command as `nobody`: setpriv execs it (runuser would fork, and a kill would miss the server). */
const AS_NOBODY = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--'];
/** Whether this machine can run a process as `nobody` (root, with util-linux's setpriv). */
const canRunAsNobody = asRoot && spawnSync(AS_NOBODY[0]!, [...AS_NOBODY.slice(1), 'true']).status === 0;

interface Run {
  code: number | null;
  stderr: string;
  stdout: string;
}

/**
 * Runs `serve` or the CLI to its end, as `nobody` when asked. A server that starts listening is
 * stopped at once and answers code null: every case here expects a refusal.
 */
function run(entry: 'serve' | 'cli', args: string[], options: { asNobody?: boolean } = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of ['TITULAR_PASSPHRASE', 'TITULAR_PASSPHRASE_FILE', 'TITULAR_DATA_DIR', 'TITULAR_DEBUG']) delete env[name];
  const command = [process.execPath, ...entryCommand(entry), ...args];
  const [file, ...argv] = options.asNobody ? [...AS_NOBODY, ...command] : command;
  return new Promise((resolve, reject) => {
    const child = spawn(file!, argv, { cwd: path.resolve(__dirname, '..'), env, timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (/listening on http/.test(stdout)) child.kill('SIGKILL');
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: /listening on http/.test(stdout) ? null : code, stdout, stderr }));
  });
}

const serve = (dataDir: string, options?: { asNobody?: boolean; port?: number }) =>
  run('serve', ['--data-dir', dataDir, '--port', String(options?.port ?? 0)], options);
const cli = (args: string[], dataDir: string, options?: { asNobody?: boolean }) => run('cli', [...args, '--data-dir', dataDir], options);

/** Refused at start: exit 1, and the one line on stderr is `prefix` + `message`. */
function expectRefusal(result: Run, prefix: 'titular serve:' | 'titular:', message: string): void {
  expect(result.code, result.stdout + result.stderr).toBe(1);
  expect(result.stderr.trimEnd()).toBe(`${prefix} ${message}`);
}

describe('data directories Titular cannot use are refused at start, in words', () => {
  let work: string;
  /** A set-up data directory (a key-file vault, 100 cbu credits), cleanly closed, copied for each case. */
  let base: string;
  const copyOf = (name: string) => {
    const dir = path.join(work, name);
    cpSync(base, dir, { recursive: true });
    return dir;
  };
  /** A copy that `nobody` owns whole, as its service user would. */
  const nobodysCopy = (name: string) => {
    const dir = copyOf(name);
    for (const entry of ['', ...readdirSync(dir)]) chownSync(path.join(dir, entry), NOBODY, NOBODY);
    return dir;
  };
  const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

  beforeAll(() => {
    work = mkdtempSync(path.join(os.tmpdir(), 'titular-storage-'));
    // `nobody` goes through it to the data directories; the folder for restore's set-aside copy is its own.
    chmodSync(work, 0o755);
    base = prepareDataDir({ keys: {}, credits: { cbu: 100 }, tmpPrefix: 'titular-storage-base-' }).dataDir;
  });

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
    rmSync(base, { recursive: true, force: true });
  });

  describe.skipIf(!canRunAsNobody)('another user\'s files (the service runs as nobody; skipped unless root with setpriv)', () => {
    it('a database root left 0644: serve and the CLI refuse it naming file, user, owner and mode, make no -wal, and restore still works', async () => {
      const parent = path.join(work, 'srv');
      mkdirSync(parent);
      chownSync(parent, NOBODY, NOBODY); // restore sets the replaced files aside beside the data directory
      const dir = path.join(parent, 'titular');
      cpSync(base, dir, { recursive: true });
      chownSync(dir, NOBODY, NOBODY);
      chownSync(path.join(dir, 'master.key'), NOBODY, NOBODY);
      const database = path.join(dir, 'titular.db');
      chmodSync(database, 0o644);
      const said = `${database} cannot be written by user nobody (owner root, mode 0644): run Titular as the owner of its data directory, or give the folder to nobody (chown -R nobody ${dir})`;
      const [server, show, purchase] = await Promise.all([
        serve(dir, { asNobody: true }),
        cli(['credits', 'show'], dir, { asNobody: true }),
        cli(['credits', 'add', '--product', 'cbu', '--amount', '5'], dir, { asNobody: true }),
      ]);
      expectRefusal(server, 'titular serve:', said);
      expectRefusal(show, 'titular:', said);
      expectRefusal(purchase, 'titular:', said);
      // SQLite used to make these with the database's mode: holder data readable by everyone.
      expect(readdirSync(dir).sort()).toEqual(['master.key', 'titular.db']);
      expect(serverMessageInSpanish(said)).toBe(
        `${database} no se puede escribir con el usuario nobody (su dueño es root, permisos 0644). Abrí Titular con el usuario dueño de su carpeta de datos, o dale la carpeta a nobody (chown -R nobody ${dir}).`,
      );

      // The way out the README gives: a backup restored by the service's user, which then opens it.
      const backup = nobodysCopy('backup');
      const restored = await cli(['restore', backup], dir, { asNobody: true });
      expect(restored.code, restored.stderr).toBe(0);
      const after = await cli(['credits', 'show'], dir, { asNobody: true });
      expect(after.code, after.stderr).toBe(0);
      expect(after.stdout).toMatch(/cbu\s+Consulta CBU\s+100\s/);
    }, TIMEOUT_MS);

    it('a database root left 0600, a data directory root owns, and a key file only root can read: each named with what to do', async () => {
      const unreadable = copyOf('root-0600');
      chownSync(unreadable, NOBODY, NOBODY);
      chownSync(path.join(unreadable, 'master.key'), NOBODY, NOBODY);
      const rootsFolder = nobodysCopy('roots-folder');
      chownSync(rootsFolder, 0, 0);
      chmodSync(rootsFolder, 0o755);
      const rootsKey = nobodysCopy('roots-key');
      chownSync(path.join(rootsKey, 'master.key'), 0, 0);
      const [database, folder, key] = await Promise.all([
        serve(unreadable, { asNobody: true }),
        cli(['credits', 'add', '--product', 'cbu', '--amount', '5'], rootsFolder, { asNobody: true }),
        serve(rootsKey, { asNobody: true }),
      ]);
      // It used to be SQLite's "unable to open database file", or EACCES on master.key.
      const advice = (dir: string) => `run Titular as the owner of its data directory, or give the folder to nobody (chown -R nobody ${dir})`;
      expectRefusal(database, 'titular serve:', `${unreadable}/titular.db cannot be read by user nobody (owner root, mode 0600): ${advice(unreadable)}`);
      expectRefusal(folder, 'titular:', `The data directory ${rootsFolder} cannot be written to by user nobody (owner root, mode 0755): ${advice(rootsFolder)}`);
      expectRefusal(key, 'titular serve:', `The vault's key file ${rootsKey}/master.key cannot be read by user nobody (owner root, mode 0600): ${advice(rootsKey)}`);
      expect(serverMessageInSpanish(folder.stderr.replace(/^titular: /, '').trimEnd())).toBe(
        `La carpeta de datos ${rootsFolder} no se puede escribir con el usuario nobody (su dueño es root, permisos 0755). Abrí Titular con el usuario dueño de su carpeta de datos, o dale la carpeta a nobody (chown -R nobody ${rootsFolder}).`,
      );
      expect(readdirSync(unreadable).sort()).toEqual(['master.key', 'titular.db']);
      expect(readdirSync(rootsFolder).sort()).toEqual(['master.key', 'titular.db']);
    }, TIMEOUT_MS);
    // The restore sets the data it replaces aside beside the data directory: a service user's folder
    // under root's (/var/lib/titular in /var/lib) used to fail half-way with a raw `EACCES: permission
    // denied, mkdir '…-antes-de-restaurar-…'`; a backup root keeps to itself, with `EACCES: scandir` or
    // SQLite's "unable to open database file".
    it('restore by a user who cannot write the folder above the data directory, or read the backup: refused before anything changes, naming the folder and what to do', async () => {
      const dir = nobodysCopy('restore-under-roots'); // in `work`, root's, 0755
      const backup = nobodysCopy('restore-backup');
      const fingerprint = (folder: string) => readdirSync(folder).map((name) => `${name}:${statSync(path.join(folder, name)).size}:${statSync(path.join(folder, name)).mtimeMs}`).sort();
      const before = fingerprint(dir);
      const beside = () => readdirSync(work).filter((name) => name.startsWith('restore-under-roots-antes-de-restaurar-'));

      const refused = await cli(['restore', backup], dir, { asNobody: true });
      expectRefusal(
        refused,
        'titular:',
        `The folder above the data directory, ${work}, cannot be written to by user nobody (owner root, mode 0755), and restore moves the data it replaces into a new folder there (restore-under-roots-antes-de-restaurar-…): ` +
          `run the restore as a user who can write to ${work}, then give the data directory back to nobody (chown -R nobody ${dir}); nothing was changed`,
      );
      expect(fingerprint(dir)).toEqual(before);
      expect(beside()).toEqual([]);

      // A backup nobody cannot read: its folder, then its database.
      const readAdvice = (folder: string) => `run the restore as a user who can read it, or give the backup to nobody (chown -R nobody ${folder})`;
      const rootsBackup = copyOf('restore-roots-backup');
      chmodSync(rootsBackup, 0o700);
      const rootsDatabase = copyOf('restore-roots-database');
      chmodSync(rootsDatabase, 0o755);
      const [folder, database] = await Promise.all([cli(['restore', rootsBackup], dir, { asNobody: true }), cli(['restore', rootsDatabase], dir, { asNobody: true })]);
      expectRefusal(folder, 'titular:', `The backup folder ${rootsBackup} cannot be read by user nobody (owner root, mode 0700): ${readAdvice(rootsBackup)}`);
      expectRefusal(database, 'titular:', `${rootsDatabase}/titular.db cannot be read by user nobody (owner root, mode 0600): ${readAdvice(rootsDatabase)}`);
      expect(fingerprint(dir)).toEqual(before);

      // The way out the sentence gives: the restore run by root, the data directory given back to nobody.
      const restored = await cli(['restore', backup], dir);
      expect(restored.code, restored.stderr).toBe(0);
      expect(beside()).toHaveLength(1);
      expectRefusal(await cli(['credits', 'show'], dir, { asNobody: true }), 'titular:', `${dir}/titular.db cannot be read by user nobody (owner root, mode 0600): run Titular as the owner of its data directory, or give the folder to nobody (chown -R nobody ${dir})`);
      for (const entry of ['', ...readdirSync(dir)]) chownSync(path.join(dir, entry), NOBODY, NOBODY);
      const after = await cli(['credits', 'show'], dir, { asNobody: true });
      expect(after.code, after.stderr).toBe(0);
      expect(after.stdout).toMatch(/cbu\s+Consulta CBU\s+100\s/);
    }, TIMEOUT_MS);
  });

  it.skipIf(!asRoot)('a data directory on a read-only disk (a read-only bind mount; root only)', async () => {
    const dir = copyOf('read-only-source');
    const mounted = path.join(work, 'read-only');
    mkdirSync(mounted);
    const mount = (...args: string[]) => spawnSync('mount', args).status === 0;
    if (!mount('--bind', dir, mounted)) return; // no mount here (a container without CAP_SYS_ADMIN)
    try {
      expect(mount('-o', 'remount,ro,bind', mounted)).toBe(true);
      const [server, show] = await Promise.all([serve(mounted), cli(['credits', 'show'], mounted)]);
      const said = `The data directory ${mounted} is on a read-only disk, and Titular writes there with every lookup it records: make that disk writable, or copy the folder to a writable one and open it there (--data-dir)`;
      expectRefusal(server, 'titular serve:', said);
      expectRefusal(show, 'titular:', said);
      expect(serverMessageInSpanish(said)).toMatch(new RegExp(`^La carpeta de datos ${mounted} está en un disco de solo lectura`));
    } finally {
      spawnSync('umount', [mounted]);
    }
  }, TIMEOUT_MS);

  it('a damaged database: serve and the CLI name the folder and `titular restore`', async () => {
    // Its header overwritten: SQLite's "file is not a database" at open.
    const header = copyOf('damaged-header');
    const fd = openSync(path.join(header, 'titular.db'), 'r+');
    writeSync(fd, Buffer.alloc(100, 0xff), 0, 100, 0);
    closeSync(fd);
    // The pages of the history (lookups and its indexes) overwritten: the directory opens, the first read of it is SQLITE_CORRUPT.
    const page = copyOf('damaged-page');
    const file = path.join(page, 'titular.db');
    const sqlite = new Database(file, { readonly: true });
    const roots = sqlite.prepare("SELECT rootpage FROM sqlite_master WHERE tbl_name = 'lookups' AND rootpage > 0").pluck().all() as number[];
    const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
    sqlite.close();
    const pageFd = openSync(file, 'r+');
    for (const root of roots) writeSync(pageFd, Buffer.alloc(64, 0xff), 0, 64, (root - 1) * pageSize);
    closeSync(pageFd);

    const [server, show, exported] = await Promise.all([
      serve(header),
      cli(['credits', 'show'], header),
      cli(['history', 'export', '--format', 'json'], page),
    ]);
    const said = (dir: string, reason: string) =>
      `The database in ${dir} is damaged (${reason}): restore your latest backup with \`titular restore FOLDER --data-dir ${dir}\` while Titular is closed (the damaged files are moved aside, not deleted)`;
    expectRefusal(server, 'titular serve:', said(header, 'file is not a database'));
    expectRefusal(show, 'titular:', said(header, 'file is not a database'));
    expectRefusal(exported, 'titular:', said(page, 'database disk image is malformed'));
    expect(serverMessageInSpanish(said(header, 'file is not a database'))).toMatch(new RegExp(`^La base de datos de ${header} está dañada \\(file is not a database\\)\\. Restaurá tu última copia de seguridad`));
  }, TIMEOUT_MS);

  it('a key file without its database: serve points to restore, init refuses unless --new-organization', async () => {
    const missing = copyOf('key-no-database');
    rmSync(path.join(missing, 'titular.db'));
    const empty = copyOf('key-empty-database');
    writeFileSync(path.join(empty, 'titular.db'), '');
    const init = (dir: string, ...more: string[]) => cli(['init', '--org', 'Otra SA', '--admin-name', 'Otra Admin', '--admin-email', 'otra@otra.test', ...more], dir);
    const [server, show, refused] = await Promise.all([serve(missing), cli(['credits', 'show'], empty), init(missing)]);
    const earlier = (dir: string, state: string) =>
      `${dir} holds the key file of an earlier setup (master.key) but ${state}: if Titular had data here, restore your latest backup with \`titular restore FOLDER --data-dir ${dir}\``;
    const missingState = 'no database (titular.db is missing)';
    expectRefusal(server, 'titular serve:', `${earlier(missing, missingState)}; to start a new organization here instead, run \`titular init --new-organization\``);
    expectRefusal(show, 'titular:', `${earlier(empty, 'an empty database (titular.db has 0 bytes)')}; to start a new organization here instead, run \`titular init --new-organization\``);
    expectRefusal(refused, 'titular:', `${earlier(missing, missingState)}. To set up a new organization here anyway, pass --new-organization; nothing was changed`);
    expect(readdirSync(missing)).toEqual(['master.key']);

    const key = readFileSync(path.join(missing, 'master.key'), 'utf8');
    const made = await init(missing, '--new-organization');
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`protected by the key file ${missing}/master.key`);
    expect(readFileSync(path.join(missing, 'master.key'), 'utf8')).toBe(key);
  }, TIMEOUT_MS);

  it('master.key: narrowed to 0600 where it is read; a damaged one says to restore it; nothing else changes', async () => {
    const open = copyOf('key-0644');
    chmodSync(path.join(open, 'master.key'), 0o644);
    const damaged = copyOf('key-damaged');
    writeFileSync(path.join(damaged, 'master.key'), 'abc\n');
    const [created, server] = await Promise.all([cli(['keys', 'create', '--product', 'cbu', '--scopes', 'lookup'], open), serve(damaged)]);
    expect(created.code, created.stderr).toBe(0);
    expect(mode(path.join(open, 'master.key'))).toBe('600');
    expectRefusal(server, 'titular serve:', `The vault's key file is damaged (${damaged}/master.key); restore it from your backup`);
  }, TIMEOUT_MS);

  it('a port in use: serve says which and what to do, exit 1', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const result = await serve(copyOf('port'), { port });
      expectRefusal(result, 'titular serve:', `port ${port} on 127.0.0.1 is in use (another Titular server?): stop it or choose another with --port`);
    } finally {
      blocker.close();
    }
  }, TIMEOUT_MS);
});
