// `titular backup FOLDER`, driven as a process the way an admin runs it, against a data directory this
// test keeps serving lookups from: the copy holds every charge with its history entry even when taken
// mid-load, opens as a data directory of its own (balances, history, keys — revealed with the copied
// key file — as in the source), is owner-only, and is audited; the refusals change nothing.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTitular } from '../src/main/core/titular';
import { headlessKeyProvider } from '../src/main/headless/config';
import { auth, createFixture, type Fixture } from './support/fixture';
import { DIR, DIRECTORY_CSV } from './support/directory-data';
import { checkHistoryCountInvariants, checkLedgerInvariants } from './support/invariants';
import { runCli } from './support/processes';
import { dispatch } from '../src/main/core/ipc/handlers';
import type { ChannelOutput } from '../src/shared/ipc/contract';
import { defaultBackupRoot, newBackupFolder } from '../src/main/core/backup/backup-folder';
import { serverMessageInSpanish } from '../src/shared/messages-es';
import { canMountSmallDisk, mountSmallDisk } from './support/small-disk';

const TIMEOUT_MS = 60_000;
let f: Fixture;
let key: string;
let url: string;
const folders: string[] = [];

/** A folder for a backup, removed after the tests. */
function folder(name: string): string {
  const dir = path.join(os.tmpdir(), `titular-backup-${process.pid}-${name}`);
  rmSync(dir, { recursive: true, force: true });
  folders.push(dir);
  return dir;
}

const backup = (dest: string, ...extra: string[]) => runCli(['backup', dest, '--data-dir', f.dataDir, ...extra], { timeoutMs: 40_000 });
const count = (file: string, sql: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

beforeAll(async () => {
  f = await createFixture({ credits: { cbu: 100_000 }, tmpPrefix: 'titular-backup-src-' });
  f.importDirectory(DIRECTORY_CSV);
  key = f.createKey({ rateLimitPerSecond: 10_000 });
  url = await f.app.listen({ host: '127.0.0.1', port: 0 });
}, TIMEOUT_MS);

afterAll(async () => {
  await f?.close();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('titular backup', () => {
  it('taken while lookups are charged: the copy holds each charge with its history entry, as of one moment', async () => {
    const dest = folder('under-load');
    const before = f.titular.history.page({ orgId: f.orgId, environment: 'live', product: 'cbu' }, { page: 1, per_page: 1 }).pagination.total;
    // Lookups keep arriving over the socket (20 at a time) until the backup process has exited (30 s at most).
    let running = true;
    let answered = 0;
    const until = Date.now() + 30_000;
    const load = Array.from({ length: 20 }, async (_, i) => {
      while (running && Date.now() < until) {
        const number = i % 2 === 0 ? DIR.individual.cbu : DIR.company.cbu;
        const res = await fetch(`${url}/api/v1/lookup?identifier=${number}&type=cbu`, { headers: auth(key) });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        answered++;
      }
    });
    const run = await backup(dest);
    running = false;
    await Promise.all(load);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Backed up to ${dest}: titular.db`);

    const copy = path.join(dest, 'titular.db');
    const db = new Database(copy, { readonly: true });
    try {
      // Invariants 1, 2 and 6 in the copy: every consumption with its history entry and its day's count.
      checkLedgerInvariants(db);
      checkHistoryCountInvariants(db);
    } finally {
      db.close();
    }
    const inCopy = count(copy, "SELECT COUNT(*) AS n FROM lookups WHERE environment = 'live'");
    const after = f.titular.history.page({ orgId: f.orgId, environment: 'live', product: 'cbu' }, { page: 1, per_page: 1 }).pagination.total;
    console.log(`[backup] before ${before}, in the copy ${inCopy}, after ${after}, answered ${answered}`);
    // Taken mid-load: lookups were charged both before the copy's moment and after it.
    expect(inCopy).toBeGreaterThan(before);
    expect(inCopy).toBeLessThan(after);
  }, TIMEOUT_MS);

  it('is a data directory of its own: owner-only files, the same balances, history and keys, and an audit entry', async () => {
    const dest = folder('quiet');
    const keyId = f.titular.keys.list(f.orgId)[0]!.id;
    const run = await backup(dest, '--json');
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { directory: string; files: { name: string; bytes: number }[]; protection: string };
    expect(result).toMatchObject({ directory: dest, protection: 'keyfile' });
    expect(result.files.map((file) => file.name)).toEqual(['titular.db', 'master.key']);
    expect(statSync(dest).mode & 0o777).toBe(0o700);
    for (const name of ['titular.db', 'master.key']) expect(statSync(path.join(dest, name)).mode & 0o777, name).toBe(0o600);

    const copy = openTitular({ dataDir: dest, keyProvider: headlessKeyProvider(dest, {}) });
    try {
      expect(copy.ledger.balances(f.orgId)).toEqual(f.titular.ledger.balances(f.orgId));
      const scope = { orgId: f.orgId, environment: 'live', product: 'cbu' } as const;
      expect(copy.history.page(scope, { page: 1, per_page: 5 })).toEqual(f.titular.history.page(scope, { page: 1, per_page: 5 }));
      expect(copy.keys.reveal(f.orgId, keyId, f.adminId)).toBe(key);
    } finally {
      copy.close();
    }
    const entry = f.titular.audit.list(f.orgId, { limit: 5 }).find((e) => e.action === 'data.backup_made');
    expect(entry).toMatchObject({ actor: { id: f.adminId }, targetType: 'data', details: { directory: dest, files: ['titular.db', 'master.key'] } });
  }, TIMEOUT_MS);

  it('refuses a folder that is not empty, the data directory or a folder inside it, an operator and a missing FOLDER, writing nothing', async () => {
    const used = folder('used');
    mkdirSync(used);
    writeFileSync(path.join(used, 'notes.txt'), 'an earlier backup');
    const notEmpty = await backup(used);
    expect(notEmpty.code).toBe(1);
    expect(notEmpty.stderr).toContain(`${used} is not empty`);
    expect(readdirSync(used)).toEqual(['notes.txt']);

    for (const inside of [f.dataDir, path.join(f.dataDir, 'copias')]) {
      const refused = await backup(inside);
      expect(refused.code, inside).toBe(1);
      expect(refused.stderr).toContain('cannot go into the data directory or a folder inside it');
    }
    expect(existsSync(path.join(f.dataDir, 'copias'))).toBe(false);

    const byOperator = folder('operator');
    const operator = await backup(byOperator, '--as', 'oscar@acme.test');
    expect(operator.code).toBe(1);
    expect(existsSync(byOperator)).toBe(false);

    const missing = await runCli(['backup', '--data-dir', f.dataDir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Missing FOLDER');
  }, TIMEOUT_MS);

  it('an empty folder the admin chose keeps its permissions; one it cannot write into is refused, and left as it was', async () => {
    // Made by hand, group-readable: written into, its mode untouched (the files are 0600 anyway).
    const chosen = folder('chosen');
    mkdirSync(chosen);
    chmodSync(chosen, 0o750);
    const run = await backup(chosen);
    expect(run.code, run.stderr).toBe(0);
    expect(statSync(chosen).mode & 0o777).toBe(0o750);
    for (const name of ['titular.db', 'master.key']) expect(statSync(path.join(chosen, name)).mode & 0o777, name).toBe(0o600);

    // Read-only: it used to be made 0700, silently. Root writes into it all the same (as the tests run
    // on CI), leaving its mode; anyone else is refused, exit 1, with nothing written.
    const readOnly = folder('read-only');
    mkdirSync(readOnly);
    chmodSync(readOnly, 0o555);
    const second = await backup(readOnly);
    expect(statSync(readOnly).mode & 0o777).toBe(0o555);
    if (process.getuid?.() === 0) {
      expect(second.code, second.stderr).toBe(0);
    } else {
      expect(second.code).toBe(1);
      expect(second.stderr).toBe(`titular: The backup folder ${readOnly} cannot be written to (permission denied); choose a new folder for the backup\n`);
      expect(readdirSync(readOnly)).toEqual([]);
    }
  }, TIMEOUT_MS);

  it.skipIf(!canMountSmallDisk)('an empty folder on a read-only file system is refused, also for root: exit 1, nothing changed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'titular-read-only-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=64k,mode=0751', 'tmpfs', dir], { stdio: 'ignore' });
    try {
      const run = await backup(dir);
      expect(run.code, run.stdout).toBe(1);
      expect(run.stderr).toBe(`titular: The backup folder ${dir} cannot be written to (read-only file system); choose a new folder for the backup\n`);
      // The desktop says it in Spanish, as its banner's title.
      expect(serverMessageInSpanish(run.stderr.replace(/^titular: |\n$/g, ''))).toBe(`No se puede escribir en la carpeta de la copia de seguridad ${dir} (el disco es de solo lectura); elegí otra carpeta.`);
      expect(statSync(dir).mode & 0o777).toBe(0o751);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      execFileSync('umount', [dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    }
  }, TIMEOUT_MS);

  it('an interrupted backup left its partial files: the next one into that folder clears them and completes', async () => {
    const dest = folder('interrupted');
    mkdirSync(dest);
    writeFileSync(path.join(dest, 'titular.db.partial'), 'half a database');
    const run = await backup(dest);
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(dest).sort()).toEqual(['master.key', 'titular.db']);
  }, TIMEOUT_MS);

  it('a backup that fails halfway leaves nothing that looks like one', async () => {
    // The source's key file is unreadable for a moment: the database copy is made, then the key's fails.
    const keyFile = path.join(f.dataDir, 'master.key');
    const aside = `${keyFile}.aside`;
    renameSync(keyFile, aside);
    try {
      const dest = folder('failed');
      const run = await backup(dest);
      expect(run.code).toBe(1);
      expect(existsSync(dest)).toBe(false);
    } finally {
      renameSync(aside, keyFile);
    }
  }, TIMEOUT_MS);
});

describe('titular backup of vaults it cannot unlock', () => {
  const PASSPHRASE = 'mate amargo a las nueve';
  const init = async (dataDir: string, env: Record<string, string> = {}) => {
    const run = await runCli(['init', '--org', 'Acme', '--admin-name', 'Ada', '--admin-email', 'ada@acme.test', '--data-dir', dataDir], { env });
    expect(run.code, run.stderr).toBe(0);
  };

  it('a passphrase vault is copied without its passphrase, and the copy opens with it', async () => {
    const source = folder('passphrase-source');
    await init(source, { TITULAR_PASSPHRASE: PASSPHRASE });
    const dest = folder('passphrase-copy');
    const run = await runCli(['backup', dest, '--data-dir', source, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ protection: 'passphrase', files: [{ name: 'titular.db' }] });
    const copy = openTitular({ dataDir: dest, keyProvider: headlessKeyProvider(dest, { TITULAR_PASSPHRASE: PASSPHRASE }) });
    try {
      expect(copy.vault.locked).toBe(false);
      expect(copy.users.requireOrganization().name).toBe('Acme');
    } finally {
      copy.close();
    }
  }, TIMEOUT_MS);

  it("a vault sealed by the desktop's keychain is copied too, sealed", async () => {
    const source = folder('keychain-source');
    await init(source);
    const db = new Database(path.join(source, 'titular.db'));
    db.prepare("UPDATE vault_meta SET provider = 'os'").run();
    db.close();
    const dest = folder('keychain-copy');
    const run = await runCli(['backup', dest, '--data-dir', source]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("sealed by this computer's keychain");
    expect(readdirSync(dest)).toEqual(['titular.db']);
    expect(count(path.join(dest, 'titular.db'), "SELECT COUNT(*) AS n FROM vault_meta WHERE provider = 'os'")).toBe(1);
  }, TIMEOUT_MS);
});

describe('a backup from the desktop (the data.backup channel)', () => {
  it('admins get a new folder under the host\'s backup folder, named by the local time; operators are refused', async () => {
    const root = folder('desktop-root');
    const session = { userId: f.adminId, backupRoot: root };
    const made = (await dispatch(f.titular, session, 'data.backup', {})) as ChannelOutput<'data.backup'>;
    expect(path.dirname(made.directory)).toBe(root);
    expect(path.basename(made.directory)).toMatch(/^titular-\d{4}-\d{2}-\d{2}-\d{6}$/);
    expect(made).toMatchObject({ protection: 'keyfile', files: [{ name: 'titular.db' }, { name: 'master.key' }] });
    expect(readdirSync(made.directory).sort()).toEqual(['master.key', 'titular.db']);
    await expect(dispatch(f.titular, { userId: f.operatorId, backupRoot: root }, 'data.backup', {})).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(readdirSync(root)).toEqual([path.basename(made.directory)]);
  }, TIMEOUT_MS);

  it('a folder that cannot be made is refused by name, in Spanish on the Spanish screens', async () => {
    const blocker = folder('a-file');
    writeFileSync(blocker, 'not a folder');
    const refusal = dispatch(f.titular, { userId: f.adminId, backupRoot: blocker }, 'data.backup', {});
    await expect(refusal).rejects.toMatchObject({ status: 400, code: 'INVALID_PARAMETER' });
    const message = ((await refusal.catch((e: Error) => e)) as Error).message;
    expect(message).toMatch(new RegExp(`^The backup folder ${blocker}/titular-[\\d-]+ cannot be created: ${blocker} is a file, not a folder`));
    expect(serverMessageInSpanish(message)).toMatch(new RegExp(`^No se pudo crear la carpeta de la copia de seguridad ${blocker}/titular-[\\d-]+: ${blocker} es un archivo, no una carpeta\\.$`));
  });

  // Mounting a small tmpfs needs root, as on this project's CI machine; elsewhere these are skipped.
  it.skipIf(!canMountSmallDisk)('a full disk is said as such (CLI and desktop), with the size to make room for, and leaves nothing behind', async () => {
    const disk = mountSmallDisk(64)!;
    try {
      // Its pages, wherever they are (the file, or the WAL not yet copied into it).
      const size = Number(f.titular.database.sqlite.pragma('page_count', { simple: true })) * 4096;
      expect(size, 'the database must not fit on the small disk').toBeGreaterThan(64 * 1024);
      const run = await backup(path.join(disk.dir, 'copy'));
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/There is not enough free space for the backup in \S+\/copy: the database takes about [\d.]+ MB; free some space there, or back up to another disk/);
      expect(readdirSync(disk.dir)).toEqual([]);

      const refusal = dispatch(f.titular, { userId: f.adminId, backupRoot: disk.dir }, 'data.backup', {});
      await expect(refusal).rejects.toMatchObject({ status: 400, code: 'INVALID_PARAMETER' });
      const message = ((await refusal.catch((e: Error) => e)) as Error).message;
      expect(serverMessageInSpanish(message)).toMatch(/^No hay espacio libre suficiente para la copia de seguridad en \S+: la base de datos ocupa unos [\d,]+ MB\. Liberá espacio en ese disco\.$/);
      expect(readdirSync(disk.dir)).toEqual([]);
      // Titular goes on: the next backup, with room for it, is whole.
      const made = (await dispatch(f.titular, { userId: f.adminId, backupRoot: folder('after-full') }, 'data.backup', {})) as ChannelOutput<'data.backup'>;
      expect(readdirSync(made.directory).sort()).toEqual(['master.key', 'titular.db']);
    } finally {
      disk.unmount();
    }
  }, TIMEOUT_MS);

  it('without a host folder, beside the data directory', () => {
    expect(defaultBackupRoot('/home/ana/.local/share/titular')).toBe('/home/ana/.local/share/titular-copias');
    expect(newBackupFolder('/r', new Date(2026, 10, 23, 9, 5, 7))).toBe(path.join('/r', 'titular-2026-11-23-090507'));
  });
});

